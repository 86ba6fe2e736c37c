"""What several ONNX families share: helpers of their builders, two builders and the
implementation of the ops that are typed but not computed.

A builder renders a signature's text from the input ranks (or types), the attributes and
the values of constant inputs; the relation decides every type. ONNX's axis conventions
are resolved in the builders (negative axes made positive, ``keepdims``, ``allowzero``),
so each implementation computes exactly what its type says. Values of inputs are
parameters named ``<input>_value`` (None when unknown when the model was read): ints,
Dims (each carried by a ``(s0):bool`` size input, see
:class:`~kantensor.ops.sizes.SizeNames`) and None.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

import numpy as np

from ..ops.params import ParamError
from ..ops.sizes import SizeNames
from ..ops.templates import groups
from ..syntax.errors import Unrendered
from ..types.dim import Dim
from ..types.dimminmax import dim_max, dim_min
from ..types.facts import EMPTY, Facts
from ..types.intervals import interval
from ..types.symbols import free_symbols

#: The facts a kernel folding values that hold sizes may use (:func:`.values.fold` sets
#: them: the reader's facts about those sizes, part of the node memo's key): ONNX's
#: integer Div truncates, which is a floor only where the quotient is >= 0.
FOLD_FACTS: ContextVar[Facts] = ContextVar("FOLD_FACTS", default=EMPTY)

#: Where a kernel folding values that hold sizes records what the value it makes needs
#: of them (:func:`.values.fold` sets a list and gives them as the node's conditions): a
#: size held exactly in a float (:mod:`.floatsizes`).
FOLD_NEEDS: ContextVar[list] = ContextVar("FOLD_NEEDS")

#: Where a kernel folding values that hold sizes records what its node needs of them
#: whether or not the value folds (:func:`.values.fold` gives them as the node's
#: conditions either way): an integer divisor not 0, which onnxruntime refuses
#: ('Integer division by zero'); a literal 0 as a condition that never holds.
FOLD_REFUSED: ContextVar[list] = ContextVar("FOLD_REFUSED")

#: The dtype of the first output of the node whose values are folded: a kernel of both
#: integers and floats (Div) reads which it computes when its inputs hold sizes.
FOLD_DTYPE: ContextVar[str] = ContextVar("FOLD_DTYPE", default="int64")


class FloatSize:
    """An entry of a float value of sizes (:mod:`.floatsizes`): the exact value ``a / b``
    (``a`` an int or a Dim, ``b`` an int >= 1), which the float holds, rounded only by
    Floor, Ceil or a cast to an integer, wherever each size ``d`` of ``needs`` (pairs
    ``(d, dtype)``) is below ``2**p`` in magnitude (``p``: the float dtype's precision):
    the conditions a value cast back to an integer states."""

    __slots__ = ("a", "b", "needs")

    def __init__(self, a: Any, b: int = 1, needs: frozenset = frozenset()):
        self.a, self.b, self.needs = a, b, needs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FloatSize) and self.b == other.b and \
            self.needs == other.needs and (self.a is other.a or self.a == other.a)

    def __hash__(self) -> int:
        return hash((FloatSize, self.a, self.b, self.needs))

    def __repr__(self) -> str:
        return f"FloatSize({self.a}, {self.b})"

    def symbols(self) -> set:
        found = set(free_symbols(self.a)) if isinstance(self.a, Dim) else set()
        for d, _ in self.needs:
            found |= free_symbols(d)
        return found

    def whole(self) -> tuple[Any, frozenset]:
        """Its value and needs where it is an integer (``b`` 1); TypeError otherwise (a
        fraction takes part in nothing but Floor, Ceil and a cast to an integer)."""
        if self.b != 1:
            raise TypeError(f"{self.a}/{self.b}: a float fraction of sizes is not folded")
        return self.a, self.needs


def _of_sizes(pick: Any) -> Any:
    """``pick`` (dim_min, dim_max) of two entries of values of sizes (ints, Dims,
    :class:`FloatSize` integers, None: unknown) as a ufunc on object arrays."""
    def one(a: Any, b: Any) -> Any:
        if a is None or b is None:
            return None
        if isinstance(a, FloatSize) or isinstance(b, FloatSize):
            (x, m), (y, n) = (v.whole() if isinstance(v, FloatSize) else (v, frozenset())
                              for v in (a, b))
            return FloatSize(pick(x, y), 1, m | n)
        return pick(a, b)
    return np.frompyfunc(one, 2, 1)


def value_symbols(values: Any) -> set:
    """The named sizes in ``values`` (arrays, None for one unknown): those of each Dim."""
    found: set = set()
    for v in values:
        if v is not None and v.dtype == object:
            for x in v.ravel().tolist():
                if isinstance(x, Dim):  # (else an int, or None: unknown)
                    found |= free_symbols(x)
                elif isinstance(x, FloatSize):
                    found |= x.symbols()
    return found


class NotKnown(ParamError, Unrendered):
    """A value or a size a builder needs (to know the output's rank or sizes at all) is
    not known when the model is read: the node is left untyped, and what it reaches, as
    an unsupported node's (see :func:`kantensor.onnx.from_onnx`); a query not given it
    says so (:class:`~kantensor.syntax.errors.Unrendered`)."""


#: Why a value of ints that holds sizes cannot type a node whose rank it decides (a
#: Squeeze, a reduction without keepdims): :func:`constant_ints`'s ``why``
RANK_BY_VALUES = ", and the output's rank depends on their values"


def constant_ints(value: Any, what: str, why: str = "") -> tuple[int, ...]:
    """A known value of ints (axes, perm); NotKnown if unknown or symbolic (sizes, such
    as a Loop's iteration number: the message says so, and ``why`` the node needs
    their values)."""
    if value is None or not all(isinstance(v, int) for v in value):
        got = f"({', '.join(map(str, value))}): sizes known only when the model runs" \
            if value is not None and all(isinstance(v, int | Dim) for v in value) else \
            "a value known only when the model runs" if value is None else repr(value)
        raise NotKnown(f"{what} must be constant integers when the model is read, "
                       f"got {got}{why}")
    return tuple(value)


def known_ints(value: Any) -> tuple | None:
    """``value`` when it is known and of ints; None when it is unknown or holds sizes
    (a Loop's iteration number): for a node typed alike when its value is not known."""
    return value if value is not None and all(isinstance(v, int) for v in value) else None


def value_entries(value: Any, n: int, what: str) -> list:
    """``value`` as ``n`` entries (None if unknown)."""
    if value is None:
        return [None] * n
    if len(value) != n:
        raise ParamError(f"{what} has {len(value)} entries, expected {n}")
    return list(value)


def size_entry(sizes: SizeNames, entry: Any, clauses: list, what: str) -> Any:
    """A known entry of a value that gives a size (a shape's, Tile's repeats) as that
    size: an int must be >= 0 (ParamError), and of a size expression the relation needs
    ``>= 0`` (``-(N % 2)`` from a Mod by -2: onnxruntime refuses it where N is odd)."""
    if isinstance(entry, int):
        if entry < 0:
            raise ParamError(f"{what} has a negative entry {entry}")
        return entry
    expr = sizes.expr(entry)
    clauses.append(expr >= 0)
    return expr


def nonzero_entry(sizes: SizeNames, entry: Any, what: str) -> list:
    """What a size entry that divides (Range's delta, Slice's step: ``what``) needs: not
    0, where onnxruntime refuses it ('delta in Range operator can not be zero', 'Slice
    step cannot be 0'); ``>= 1`` of one never negative (``D``), else ``!= 0`` (``-D``),
    no clause of a nonzero int or an entry not known (None); an int 0 fails at every
    size: ParamError (as :func:`size_entry`'s negative int)."""
    if isinstance(entry, int | np.integer) and entry == 0:
        raise ParamError(f"{what} is 0 (onnxruntime refuses it at every size)")
    if not isinstance(entry, Dim):
        return []
    low, high = interval(entry)
    expr = sizes.expr(entry)
    if low is not None and low >= 0:
        return [expr >= 1] if low < 1 else []
    if high is not None and high <= 0:
        return [expr + 1 <= 0] if high > -1 else []
    return [expr.ne(0)]


def rest_operands(types: tuple, skip: int, sizes: SizeNames | None = None) -> list:
    """The inputs after the first ``skip``: each of any shape (``(*r0)``, ...), then the
    inputs that carry the sizes of ``sizes`` (which come last)."""
    more = len(types) - skip - (len(sizes.dims) if sizes else 0)
    return [*groups("r", more), *(sizes.patterns() if sizes else ())]


def not_computed(*arrays: np.ndarray, **_: Any) -> Any:
    raise NotImplementedError("this op is typed but not computed")


#: the least and the greatest of entries of values of sizes, entry by entry (Min, Max
#: and ReduceMin, ReduceMax of sizes while a model is read: ``min(5, count)``)
SIZE_MIN, SIZE_MAX = _of_sizes(dim_min), _of_sizes(dim_max)


def size_reduce(extreme: Any, x: np.ndarray, axes: tuple, keepdims: bool) -> np.ndarray:
    """``x`` (an object array of sizes) reduced over ``axes`` by ``extreme`` (SIZE_MIN or
    SIZE_MAX), one axis after the other (the last first, so the others keep their
    index)."""
    out = x
    for a in sorted(axes, reverse=True):
        out = extreme.reduce(out, axis=a, keepdims=keepdims, dtype=object)
    return np.asarray(out, dtype=object)
