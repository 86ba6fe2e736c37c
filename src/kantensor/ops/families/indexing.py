"""Builders and implementations for indexing: basic ``x[...]``, take, take_along_axis.

The length of a sliced axis is written as a dim expression of the input's dim
variable (with ``min``/``max``/``//``), so the signature computes it exactly
for a known size, keeps it symbolic for a :class:`~kantensor.Dim` and leaves it
unknown for an unknown size. The expressions follow ``slice.indices(n)``:
start and stop are clamped into ``[0, n]`` (``[-1, n-1]`` for a negative step,
shifted by one here so that both are in ``[0, n]`` as well).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ...syntax.ast import (
    BinOp,
    Broadcasts,
    Clause,
    DimExpr,
    DimVar,
    FixedDim,
    chosen,
    dim_max,
    dim_min,
)
from ...types.dim import Dim
from ...types.intervals import nonnegative
from ..params import normalize_axis
from ..paramvalues import ArrayRef
from ..sizes import SizeNames, concrete, entries, map_entries, negative
from ..templates import alternative, checked, dims, rank_error, reads_ranks, size_of, typed

#: A position in ``[0, n]`` as ("start", p) = min(p, n) or ("end", q) = max(n - q, 0),
#: ``p`` and ``q`` ints (or dim expressions, for a bound that is a size).
Bound = tuple[str, "int | DimExpr"]
#: A size: an int, or a dim expression.
Size = "int | DimExpr"


# --------------------------------------------------------------------------- getitem

def _at(bound: Bound, n: DimVar) -> Size:
    """A clamped position along an axis of size ``n``."""
    side, offset = bound
    if isinstance(offset, int) and offset == 0:
        return 0 if side == "start" else n
    return dim_min(offset, n) if side == "start" else dim_max(n - offset, 0)


def _position(value: int | None, default: Bound, shift: int = 0) -> Bound:
    """``value + shift`` clamped into ``[0, n]``: a non-negative value counts from the
    start, a negative one from the end (Python's slice rule)."""
    if value is None:
        return default
    if value >= 0:
        return ("start", value + shift)
    return ("end", -value - shift)


def _count(upper: Bound, lower: Bound, n: DimVar) -> tuple[Size, bool]:
    """``max(upper - lower, 0)``, simplified where the bounds allow it, as (size,
    clamped): when ``clamped`` the count is ``max(size, 0)``, else ``size`` itself."""
    if upper == ("start", 0) or lower == ("end", 0) or upper == lower or (
            upper[0] == lower[0] == "start" and upper[1] <= lower[1]) or (
            upper[0] == lower[0] == "end" and upper[1] >= lower[1]):
        return 0, False
    if lower == ("start", 0):
        return _at(upper, n), False
    if upper == ("end", 0):  # n - lower
        if lower[0] == "start":
            return n - lower[1], True
        return _at(("start", lower[1]), n), False
    if upper[0] == lower[0] == "start":  # min(p, n) - min(q, n) with p > q
        return dim_min(upper[1], n) - lower[1], True
    if upper[0] == lower[0] == "end":  # max(n-p, 0) - max(n-q, 0) with p < q
        return dim_min(_at(upper, n), lower[1] - upper[1]), False
    if upper[0] == "end":  # max(n-q, 0) - min(p, n)
        return n - (upper[1] + lower[1]), True
    return _at(upper, n) - _at(lower, n), True


#: What a slice bound of the other sign gives: the build's reading of a bound's sign is a
#: choice (NumPy counts a negative bound from the axis' end, a length of another form),
#: said in the user's terms: a bound read as negative that is 0 or more, and one read as
#: 0 or more that is negative
_FROM_START = ("another length (a bound of the other sign counts from the other end: one "
               "that is 0 or more counts from the start, so x[-n:] at n == 0 is all of x)")
_FROM_END = ("another length (a bound of the other sign counts from the other end: a "
             "negative one counts from the end, so x[:n - 5] at n == 3 is x[:-2])")


#: What a step that is a size gives where it is negative (its form shows it positive).
_OTHER_STEP = "another length (a negative step walks the axis backwards)"


def _negated(size: Any) -> Any:
    """``0 - size``, where ``size`` is ``0 - e``: ``e`` (``x[-n:]`` needs ``n >= 1``, said
    so, not ``0-(0-n) >= 1``)."""
    if isinstance(size, BinOp) and size.op == "-" and size.left == FixedDim(0):
        return size.right
    return 0 - size


def _sized_position(value: Dim, sizes: SizeNames, clauses: list[Clause],
                    flipped: bool = False, shift: int = 0) -> Bound:
    """A size as a slice bound, plus ``shift``: ``("start", E + shift)`` for ``E >= 0``,
    ``("end", -E - shift)`` for ``E <= -1``, with that sign stated as a where-clause, the
    build's choice: where it fails the slice has another length (``x[:len(x) - 1]`` at
    ``len(x) == 0`` is empty), so those sizes are not covered, never invalid. The sign
    read is the one the size's form shows (``-n`` negative), or the other one if
    ``flipped`` (a later alternative, which applies where the facts refute the first
    reading: :func:`readings`)."""
    if negative(value) != flipped:
        back = _negated(sizes.expr(value))
        clauses.append(chosen(back >= 1, _FROM_START))
        return "end", back - shift if shift else back
    size = sizes.expr(value)
    clauses.append(chosen(size >= 0, _FROM_END))
    return "start", size + shift if shift else size


#: The most size bounds whose signs a slice's alternatives read both ways (2**4 of them)
MAX_READINGS = 4


def readings(count: int) -> list[tuple[bool, ...] | None]:
    """The readings of ``count`` size bounds' signs a builder's alternatives take, in
    order (True: a bound read against its form): the forms' own first, then every other
    one, so that where the facts refute a reading the one they allow applies. Past
    :data:`MAX_READINGS` bounds, the forms' own, then None: the axes they slice unknown."""
    if count > MAX_READINGS:
        return [(False,) * count, None]
    return list(itertools.product((False, True), repeat=count))


def sized_bounds(items: Iterable[Any]) -> int:
    """How many slice bounds (start or stop) of an index's ``items`` are sizes."""
    return sum(isinstance(b, Dim) for item in items if isinstance(item, tuple)
               for b in item[1:3])


def symbolic_length(n: DimVar, start: Any, stop: Any, step: int | None, sizes: SizeNames,
                    clauses: list[Clause], flipped: tuple[bool, bool] = (False, False)
                    ) -> DimExpr:
    """:func:`slice_length` when a bound is a size: ``max(upper - lower, 0)`` over the
    clamped positions (shifted by one for a negative step, as there), simplified where
    one side is the axis's start or end; ``flipped`` says of (start, stop) whether its
    sign is read against its form (:func:`_sized_position`)."""
    step = 1 if step is None else step
    shift = 1 if step < 0 else 0

    def position(value: Any, default: Bound, flip: bool) -> Bound:
        if isinstance(value, Dim):
            return _sized_position(value, sizes, clauses, flip, shift)
        return _position(value, default, shift)

    if step > 0:
        lower = position(start, ("start", 0), flipped[0])
        upper = position(stop, ("end", 0), flipped[1])
    else:  # walked backwards: from start (by default the last entry) down to stop
        upper = position(start, ("end", 0), flipped[0])
        lower = position(stop, ("start", 0), flipped[1])
    if lower == ("start", 0):
        count = _at(upper, n)
    elif upper == ("end", 0):
        count = dim_min(lower[1], n) if lower[0] == "end" else dim_max(n - lower[1], 0)
    else:
        count = dim_max(_at(upper, n) - _at(lower, n), 0)
    size = abs(step)
    return count if size == 1 else (count + (size - 1)) // size


def slice_length(n: DimVar, start: int | None, stop: int | None, step: int | None) -> Size:
    """The length of ``x[start:stop:step]`` along an axis of size ``n``, as a dim
    expression (``len(range(*slice(start, stop, step).indices(n)))``)."""
    step = 1 if step is None else step
    if step > 0:
        count, clamped = _count(_position(stop, ("end", 0)), _position(start, ("start", 0)),
                                n)
    else:  # positions shifted by +1: start in [0, n], stop in [0, n]
        count, clamped = _count(_position(start, ("end", 0), 1),
                                _position(stop, ("start", 0), 1), n)
    size = abs(step)
    if isinstance(count, int) and count == 0:
        return 0
    if size == 1:
        return dim_max(count, 0) if clamped else count
    # (max(c, 0) + size - 1)//size == max(c + size - 1, 0)//size
    if clamped:
        return dim_max(count + (size - 1), 0) // size
    return (count + (size - 1)) // size


def _expand(index: tuple, ndim: int) -> list:
    """The index with ``...`` replaced by full slices; IndexError-like rank errors for
    too many indices. Trailing axes without an index are kept whole."""
    used = sum(item is not None and item is not Ellipsis for item in index)
    if used > ndim:
        raise rank_error("getitem", f"too many indices for tensor: tensor is "
                                    f"{ndim}-dimensional, but {used} were indexed")
    full = ("slice", None, None, None)
    items: list = []
    for item in index:
        if item is Ellipsis:
            items.extend([full] * (ndim - used))
        else:
            items.append(item)
    if Ellipsis not in index:
        items.extend([full] * (ndim - used))
    return items


@reads_ranks
def basic_index(types: tuple, index: tuple, **_: Any) -> dict[str, Any]:
    """``x`` -> ``y`` for a basic index (ints, slices, None, ``...``).

    An int drops its axis and needs the axis to be long enough (``a >= i + 1``, or
    ``a >= -i`` for a negative ``i``); a slice gives :func:`slice_length`; None
    inserts an axis of size 1. One alternative per reading of the size bounds' signs
    (:func:`readings`)."""
    out = []
    for reading in readings(sized_bounds(index)):
        a, y, clauses, sizes = selection(types[0].ndim, index, reading)
        out.append(alternative([typed(a, "t"), *sizes.patterns()], [typed(y, "t")], clauses))
    return {"sig": out}


def selection(ndim: int, index: tuple, reading: tuple[bool, ...] | None = ()
              ) -> tuple[list[DimVar], list, list[Clause], SizeNames]:
    """For a basic index of a tensor of rank ``ndim``: its dim variables, the dims of
    ``x[index]``, the where-clauses (an int out of bounds said in NumPy's words), and
    the names of the sizes the index holds. ``reading`` says how the size bounds' signs
    are read, in turn (True: against the form; missing: as the form shows), or None:
    an axis sliced by a size bound is of an unknown length (:func:`readings`)."""
    sizes = SizeNames(index)
    a = dims("a", ndim)
    out: list = []
    clauses: list[Clause] = []
    flips = iter(reading or ())
    axis = 0
    for item in _expand(index, ndim):
        if item is None:
            out.append(1)
            continue
        dim = a[axis]
        axis += 1
        if isinstance(item, Dim):  # of either sign: NumPy counts a negative one from
            size = sizes.expr(item)  # the end, and drops the axis alike
            clauses += [dim >= size + 1, dim + size >= 0]
        elif isinstance(item, int):
            clauses.append(checked(
                dim >= (item + 1 if item >= 0 else -item),
                lambda values, _, item=item, axis=axis - 1, dim=dim.name:
                    f"index {item} is out of bounds for axis {axis} with size {values[dim]}"))
        else:
            out.append(sliced(dim, item, sizes, clauses, None if reading is None else flips,
                              f"u{axis - 1}"))
    return a, out, clauses, sizes


def sliced(n: DimVar, item: tuple, sizes: SizeNames, clauses: list[Clause],
           flips: Iterator[bool] | None, unknown: str) -> Size:
    """The length of the slice ``item`` (``("slice", start, stop, step)``) along an axis
    of size ``n``; of bounds that are sizes, their signs read as ``flips`` gives them in
    turn (:func:`symbolic_length`), or, where ``flips`` is None, a size of its own named
    ``unknown``, unknown."""
    _, start, stop, step = item
    if isinstance(step, Dim):  # every step-th of the slice's entries: not 0, where NumPy
        s = sizes.expr(step)  # raises (a size's >= 1: the relation's divisor rule says so);
        # one that may be negative also positive as its form shows, the build's choice
        clauses += [] if nonnegative(step) else [s.ne(0), chosen(s >= 1, _OTHER_STEP)]
        count = sliced(n, ("slice", start, stop, None), sizes, clauses, flips, unknown)
        return (count + (s - 1)) // s
    if not (isinstance(start, Dim) or isinstance(stop, Dim)):
        return slice_length(n, start, stop, step)
    if flips is None:
        clauses.append(DimVar(unknown) >= 0)
        return DimVar(unknown)
    return symbolic_length(n, start, stop, step, sizes, clauses, (
        isinstance(start, Dim) and next(flips, False),
        isinstance(stop, Dim) and next(flips, False)))


def as_key(index: tuple) -> tuple:
    """A normalised index back in NumPy's form (slices instead of tuples)."""
    return tuple(slice(*item[1:]) if isinstance(item, tuple) else item for item in index)


def resolve(index: tuple, sizes: tuple[np.ndarray, ...]) -> tuple:
    """An index's sizes replaced by their values, read from the size inputs."""
    if not sizes:
        return index
    dims = [e for e in entries(index) if isinstance(e, Dim)]
    values = dict(zip(dims, concrete(dims, sizes), strict=True))
    return map_entries(index, lambda e: values[e] if isinstance(e, Dim) else e)


def getitem(x: np.ndarray, *sizes: np.ndarray, index: tuple) -> np.ndarray:
    """``x[index]`` for a normalised basic index (a view, as in NumPy)."""
    return x[as_key(resolve(index, sizes) if sizes else index)]


# --------------------------------------------------------------------------- take

def values_need(item: ArrayRef, own: list[DimVar], sizes: SizeNames) -> Size | None:
    """How long an axis the values of the index array ``item`` (whose dims are ``own``)
    need it to be, as its :class:`ArrayRef` says them: ``max(hi + 1, -lo)`` of int
    bounds, ``k`` (capped) of a counting vector ``arange(k)``, its reach (a size of the
    call, over the size inputs), its own length along a permuted axis; None where the
    values are not known. The caller states ``min(1, looked up) * need <= n``."""
    if item.bounds is not None:  # a constant's values, checked as ints are
        low, high = item.bounds
        return max(high + 1, -low)
    if item.counting and len(own) == 1:  # arange(k): 0 .. k - 1
        return own[0] if item.cap is None else dim_min(own[0], item.cap)
    if item.reach is not None:  # values whose bounds are sizes
        return sizes.expr(item.reach)
    if item.along is not None and item.along < len(own):  # argsort's: 0 .. m - 1
        return own[item.along]
    return None


def _nonempty(looked_up: list, n: Size, axis: int | None) -> list[Clause]:
    """``min(size, 1) <= n``: NumPy checks every index it looks up against the axis
    length ``n``, so looking up anything in an empty axis is an error. It looks up each
    index once per position of the axes before ``axis``; the axes after it do not
    matter (``take(zeros((0, 0)), 0, axis=0)`` raises). Its failure in NumPy's words,
    naming the axis (None: the flattened tensor)."""
    return [checked(dim_min(size_of(looked_up), 1) <= n, lambda _, types: (
        "cannot do a non-empty take from an empty axis: "
        + (f"{types[0]} has no elements" if axis is None else
           f"axis {axis} of {types[0]} has size 0")))]


@reads_ranks
def take(types: tuple, axis: int | None, **_: Any) -> dict[str, Any]:
    """np.take: the axis is replaced by the indices' shape; ``None`` (or any of the
    axes 0 and -1 of a 0-d tensor, as in NumPy) takes from the flattened tensor."""
    x, indices = types
    a = dims("a", x.ndim)
    taken = dims("b", indices.ndim)
    if axis is None or (x.ndim == 0 and axis in (0, -1)):
        return {"x": a, "i": taken, "y": taken, "cond": _nonempty(taken, size_of(a), None),
                "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    out = [*a[:ax], *taken, *a[ax + 1:]]
    return {"x": a, "i": taken, "y": out, "cond": _nonempty([*a[:ax], *taken], a[ax], ax),
            "params": {"axis": ax}}


@reads_ranks
def take_along_axis(types: tuple, axis: int | None, values: tuple = (), **_: Any
                    ) -> dict[str, Any]:
    """np.take_along_axis: same ranks, the axis takes the indices' size, the other axes
    broadcast (a ``broadcast`` clause each); ``None`` takes from the flattened tensor with
    1-d indices. A non-empty result cannot be taken from an empty axis (NumPy raises
    whatever the index values are): ``min(size of the result, 1) <= n``. ``values``, ``()``
    or the indices' :class:`ArrayRef` (position 0) where their values are known (see
    :func:`~kantensor.ops.families.advanced.array_ref`, which the NumPy entry computes):
    every one of them is looked up where the result is not empty, so ``min(size of the
    result, 1) * need <= n`` (:func:`values_need`; a reach is a size input)."""
    x, indices = types[:2]
    sizes = SizeNames(values)
    ref = next((i for i in values if isinstance(i, ArrayRef)), None)
    (n, k) = dims("n k")
    if axis is None:
        if indices.ndim != 1:
            raise rank_error("take_along_axis", f"with axis=None the indices must be 1-d, "
                                                f"got {indices.ndim} dimensions")
        a = dims("a", x.ndim)
        return {"x": a, "i": [k], "y": [k], "sizes": sizes.patterns(),
                "cond": _nonempty([k], size_of(a), None) +
                _fitting(ref, [k], sizes, [k], size_of(a))}
    ax = normalize_axis(axis, x.ndim)
    if indices.ndim != x.ndim:
        raise rank_error("take_along_axis", f"the indices must have as many dimensions as "
                                            f"the tensor ({x.ndim}), got {indices.ndim}")
    a, b, c = (dims(p, x.ndim) for p in "abc")
    a[ax], b[ax], c[ax] = n, k, k
    clauses: list[Clause] = [Broadcasts((a[i], b[i]), c[i]) for i in range(x.ndim) if i != ax]
    return {"x": a, "i": b, "y": c, "sizes": sizes.patterns(),
            "cond": clauses + _nonempty(c, n, ax) + _fitting(ref, b, sizes, c, n),
            "params": {"axis": ax}}


def _fitting(ref: ArrayRef | None, own: list, sizes: SizeNames, out: list, n: Size
             ) -> list[Clause]:
    """``min(size of out, 1) * need <= n`` for the known values of ``ref`` (none for
    unknown ones), in NumPy's words where it fails."""
    need = None if ref is None else values_need(ref, own, sizes)
    if need is None:
        return []
    return [checked(dim_min(size_of(out), 1) * need <= n, lambda _, types: (
        f"an index of take_along_axis is out of bounds for the axis of {types[0]}: the "
        f"indices' known values need a longer one"))]


def take_along(arr: np.ndarray, indices: np.ndarray, *sizes: np.ndarray, axis: int | None,
               values: tuple = ()) -> np.ndarray:
    """``numpy.take_along_axis`` (``values`` and the size inputs only type it)."""
    return np.take_along_axis(arr, indices, axis=axis)


def array_key(arrays: tuple, index: tuple) -> tuple:
    """NumPy's key of an advanced index: each :class:`ArrayRef` replaced by its array,
    each size by its value (the size inputs follow the arrays)."""
    n = sum(isinstance(i, ArrayRef) for i in index)
    index = resolve(index, arrays[n:])
    return as_key(tuple(arrays[i.position] if isinstance(i, ArrayRef) else i
                         for i in index))


def index(x: np.ndarray, *arrays: np.ndarray, index: tuple) -> np.ndarray:
    """``x[index]`` with each :class:`ArrayRef` replaced by its array."""
    return np.asarray(x[array_key(arrays, index)])
