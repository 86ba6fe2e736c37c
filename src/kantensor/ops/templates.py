"""Helpers for builders: the text of operands and where-clauses.

A builder gets the input TensorTypes and the Op's parameters and returns the
text for the placeholders of its template signature. Builders name each axis
of an input explicitly (``a0, a1, ...``) because parameters such as ``axis``
refer to positions that only mean something once the rank is known.

A catalogue entry names its builder by dotted path, and the path is looked up in
:data:`BUILDERS` only: a function is a builder because :func:`builder` registered it,
never because a catalogue file names it (see :mod:`kantensor.ops.catalogue`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..syntax.errors import TypeInferenceError
from ..syntax.limits import balanced_join
from ..syntax.parser import parse_alternatives

#: What a where-clause's failure means in the user's words: called with the value of
#: each size name of the clause where it failed (the relation's own failure
#: information) and the input types as given, it returns NumPy's sentence.
Message = Callable[[Mapping[str, Any], tuple], str]


def names(prefix: str, n: int) -> list[str]:
    """``["a0", "a1", ...]``: one dim variable per axis."""
    return [f"{prefix}{i}" for i in range(n)]


def operand(dims: Iterable[object]) -> str:
    """``(a0,3,a2)``."""
    return "(" + ",".join(map(str, dims)) + ")"


def joined_dtypes(operands: Sequence[str]) -> tuple[list[str], str]:
    """Each operand typed by its own dtype variable, and the ``join(...)`` of those:
    the dtype rule of Ops whose output holds every input's values (in the relation,
    never computed here)."""
    typed = [f"{op}:t{i}" for i, op in enumerate(operands)]
    return typed, f"join({','.join(f't{i}' for i in range(len(operands)))})"


def where(clauses: Sequence[str]) -> str:
    """`` where c1, c2`` or nothing: append to an alternative."""
    return f" where {', '.join(clauses)}" if clauses else ""


def checked(clause: str, message: Message) -> tuple[str, Message]:
    """A where-clause and its :data:`Message`, keyed by the clause's canonical text (the
    text its failure reports). A builder returns ``{"messages": dict(pairs), ...}``
    beside the placeholders, with the clauses themselves in its ``where(...)``."""
    return _canonical(clause), message


@lru_cache(maxsize=4096)
def _canonical(clause: str) -> str:
    names = sorted(set(re.findall(r"[A-Za-z_]\w*", clause)) - {"min", "max"})
    (alt,) = parse_alternatives(f"({','.join(names)})->() where {clause}")
    return str(alt.where[0])


def product(dims: Sequence[str]) -> str:
    """``a0*a1*a2``, or ``1`` for no dims (the size of a 0-d tensor); balanced
    (``a0*a1*(a2*a3)``) so that 64 axes nest only 6 levels deep."""
    return balanced_join(dims, "*") if dims else "1"


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
    """Register a builder (as :func:`builder` does) whose text for inputs with some sizes
    known is its relation for every input with those sizes: a relation renders it from
    the sizes its terms know when it runs (ints; unknown sizes as ``None``), as
    make_node does from the inputs' types, instead of from the ranks alone."""
    fn.renders_known_sizes = True
    return builder(fn)


def reads_ranks(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register a builder (as :func:`builder` does) whose text depends on the inputs'
    ranks and dtypes only (and the parameters): its Ops render once per ranks and dtypes
    instead of once per input type. It is then called with :class:`RankType` inputs."""
    fn.reads_ranks = True
    return builder(fn)
