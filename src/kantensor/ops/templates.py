"""Helpers for builders, which fill the placeholders of a template signature with objects.

A builder gets the input TensorTypes and the Op's parameters and returns, for each
placeholder of its template (see :mod:`kantensor.syntax.template`), an object of the
DSL's Python form: an operand as a list of dims, a dim expression, a dtype's name, a
list of operands and where-clauses to splice in. Builders name each axis of an input
explicitly (``dims("a", 3)`` is ``a0, a1, a2``) because parameters such as ``axis``
refer to positions that only mean something once the rank is known; dims compute with
``+ - * // %`` and compare with ``< <= > >=`` (``.eq()``, ``.ne()``) into where-clauses,
which carry their failure's message in the user's words (:func:`checked`).

A catalogue entry names its builder by dotted path, and the path is looked up in
:data:`BUILDERS` only: a function is a builder because :func:`builder` registered it,
never because a catalogue file names it (see :mod:`kantensor.ops.catalogue`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from ..syntax.alternative import Alternative
from ..syntax.ast import (
    Clause,
    DimExpr,
    DimVar,
    FixedDim,
    Join,
    Message,
    NamedGroup,
    TensorPattern,
)
from ..syntax.ast import checked as _checked
from ..syntax.errors import TypeInferenceError

__all__ = ["BUILDERS", "Message", "RankType", "alternative", "builder", "checked", "dims", "groups",
           "joined_dtypes", "rank_error", "reads_known_sizes", "reads_ranks", "shifted",
           "signed", "size_of", "sum_of", "typed"]


def dims(prefix: str, n: int | None = None) -> list[DimVar]:
    """``[a0, a1, ...]``: one dim variable per axis (``dims("a", 3)``); without ``n``,
    the dims named by the words of ``prefix`` (``dims("n m")``)."""
    if n is None:
        return [DimVar(name) for name in prefix.split()]
    return list(_axes(prefix, n))


@lru_cache(maxsize=256)
def _axes(prefix: str, n: int) -> tuple[DimVar, ...]:
    """:func:`dims` of ``prefix`` and ``n``, made once (a DimVar is an immutable value):
    every builder names its inputs' axes so at each new rank, a Conv's ``a`` and ``w``
    again for each attribute set."""
    return tuple(DimVar(f"{prefix}{i}") for i in range(n))


def alternative(inputs: Iterable[object], outputs: Iterable[object],
                where: Iterable[Clause] = (), loop: str | None = None) -> Alternative:
    """One alternative (for a ``{sig}`` placeholder): each operand a TensorPattern or a
    list of dims; ``loop`` None, ``"+"`` or ``"="``."""
    return Alternative(tuple(map(_operand, inputs)), tuple(map(_operand, outputs)),
                       tuple(where), loop)


def _operand(x: object) -> TensorPattern:
    return x if isinstance(x, TensorPattern) else TensorPattern(tuple(x))  # type: ignore


def shifted(size: DimExpr, by: int) -> DimExpr:
    """``size + by`` for an int ``by`` of either sign (a fixed size is never negative:
    ``shifted(n, -1)`` is ``n-1``); ``size`` itself for 0."""
    return size + by if by > 0 else size - (-by) if by < 0 else size


def signed(value: int | DimExpr) -> DimExpr:
    """A dim expression for an int of either sign (``-3`` is ``0-3``, as the text ``-3``
    parses) or a dim expression as it is."""
    if isinstance(value, int):
        return FixedDim(value) if value >= 0 else FixedDim(0) - (-value)
    return value


def sum_of(sizes: Sequence[DimExpr | int]) -> DimExpr:
    """``c0+c1+(c2+c3)``: the sizes added, balanced (so that many nest only a few
    levels deep); ``0`` for none."""
    return _balanced(list(sizes), lambda a, b: a + b, 0)


def _balanced(items: list, op: Callable[[Any, Any], Any], empty: int) -> DimExpr:
    if not items:
        return FixedDim(empty)
    while len(items) > 1:
        items = [op(items[i], items[i + 1]) if i + 1 < len(items) else items[i]
                 for i in range(0, len(items), 2)]
    return FixedDim(items[0]) if isinstance(items[0], int) else items[0]


def groups(prefix: str, n: int, start: int = 0) -> list[TensorPattern]:
    """``(*r0),(*r1),...``: ``n`` operands of any shape (inputs a relation ties to
    nothing), named from ``start``."""
    return [TensorPattern((NamedGroup(f"{prefix}{i}"),)) for i in range(start, start + n)]


def typed(dims: Iterable[object], dtype: str | None = None) -> TensorPattern:
    """An operand of these dims with a dtype (a name or a dtype term)."""
    return TensorPattern(tuple(dims), dtype)


def size_of(dims: Sequence[DimExpr | int]) -> DimExpr:
    """The number of elements of an operand of these dims: their product, ``1`` for no
    dims; balanced (``a0*a1*(a2*a3)``) so that 64 axes nest only 6 levels deep."""
    return _balanced(list(dims), lambda a, b: a * b, 1)


def joined_dtypes(operands: Sequence[Sequence[object]]) -> tuple[list[TensorPattern], Join]:
    """Each operand (its dims) typed by its own dtype variable, and the ``join(...)`` of
    those: the dtype rule of Ops whose output holds every input's values (in the
    relation, never computed here)."""
    made = [TensorPattern(tuple(op), f"t{i}") for i, op in enumerate(operands)]
    return made, Join(tuple(f"t{i}" for i in range(len(operands))))


def checked(clause: Clause, message: Message) -> Clause:
    """``clause`` carrying ``message``, its failure in the user's words (as
    ``torch._check(cond, msg)`` does): ``checked(n >= 1, lambda values, types: ...)``."""
    return _checked(clause, message)


def rank_error(op: str, message: str) -> TypeInferenceError:
    """A type error about ranks, found while rendering a template."""
    return TypeInferenceError(f"{op}: {message}")


class RankType:
    """What a builder marked :func:`reads_ranks` sees of an input type: its dtype and its
    number of axes, nothing else (no ``shape``: reading it is an AttributeError, so a
    mislabelled builder fails loudly instead of being cached wrongly)."""

    __slots__ = ("dtype", "ndim")

    def __init__(self, dtype: str, ndim: int):
        self.dtype = dtype
        self.ndim = ndim

    def __repr__(self) -> str:
        return f"RankType({self.dtype}, ndim={self.ndim})"


#: The registered builders by dotted path (``module.qualname``): the only functions a
#: catalogue entry's ``builder`` may name.
BUILDERS: dict[str, Callable[..., Any]] = {}


def builder(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``fn`` as a builder a catalogue entry may name, under its dotted path
    ``fn.__module__ + "." + fn.__qualname__``."""
    BUILDERS[f"{fn.__module__}.{fn.__qualname__}"] = fn
    return fn


def reads_known_sizes(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register a builder (as :func:`builder` does) whose signature for inputs with some sizes
    known is its relation for every input with those sizes: a relation renders it from
    the sizes its terms know when it runs (ints; unknown sizes as ``None``), as
    make_node does from the inputs' types, instead of from the ranks alone."""
    fn.renders_known_sizes = True
    return builder(fn)


def reads_ranks(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register a builder (as :func:`builder` does) whose signature depends on the inputs'
    ranks and dtypes only (and the parameters): its Ops render once per ranks and dtypes
    instead of once per input type. It is then called with :class:`RankType` inputs."""
    fn.reads_ranks = True
    return builder(fn)
