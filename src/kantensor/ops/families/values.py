"""Bounds of the values of an integer tensor that the graph computes from numbers it
knows and from sizes: ``np.arange(4) + 1`` (1 .. 4), ``np.arange(k) % 2`` (0 .. min(k -
1, 1)), ``-np.arange(3)``, ``np.arange(k)[::-1] * 2 - 1`` (-1 .. 2*k - 3).

An index array's values decide whether NumPy raises IndexError (a value out of ``[-n,
n)``), so what reads the values of index arrays reads them here, in one place: the
index Op's relation checks them against its axis: ``max(hi + 1, -lo) <= n``, for int
bounds and for bounds that are sizes alike (:func:`value_reach`, carried as a size of the
call: :func:`~kantensor.ops.families.advanced.array_ref`,
:class:`~kantensor.ops.paramvalues.ArrayRef`); ``eval_shape`` states what it does not read,
values made of sizes in other ways (:mod:`kantensor.evalshape.indexvalues`).
:func:`value_range` follows the Ops that keep the values within bounds it can say, each
identified by its implementation function (or, for ``arange``, its builder): constants
(floats whose values are integers too), sizes used as numbers, ``arange``, ``ones``,
``zeros``, ``full``, ``tril``/``triu`` (``np.tri``), casts, the Ops that only move,
repeat or join values (``reshape``, ``x[::-1]``, ``concatenate``, ``repeat``, ``sort``,
``swapaxes``, ...), the Ops that pick some of them where data decide which (fancy
indices and masks, ``take``, ``take_along_axis``, ``diagonal``, ``max``/``min``,
``where``: :func:`_picked`), ``+``, ``-``, negation, ``minimum``/``maximum``, ``clip``,
and ``*``, ``//``, ``%`` by an int or a size, and ``argsort`` / ``argpartition`` / ``lexsort``
(:func:`permutation_axis`), ``argmax`` / ``argmin``.
A bool the graph computes (a comparison, ``x > 0``) is 0 .. 1 where nothing narrower is
known: each value is reached for some data, so its hull is the for-every-data reading, as
``argmax``'s is (``x[(x > 0).astype(int)]`` needs ``N >= 2``). Anything else is None.

``argsort``'s values (``argpartition``'s, ``lexsort``'s) are no data: along its axis (of
length n; the flattened size for ``axis=None``) they are a permutation of ``0 .. n -
1``, every value reached wherever the output is not empty. Its bounds are ``0 .. min(1,
size)*n - 1``, so that an empty output (no lookups) needs nothing. An index made of the
argsort itself states that exactly (:attr:`~kantensor.ops.paramvalues.ArrayRef.along`: the
index array's own axis, known or not); values the graph moves, slices or joins keep the
hull ``0 .. n - 1``, which is the for-every-data reading: ``np.argsort(x, axis=0)[:1]``
may hold only small values for some data, yet the hull refuses the sizes where one of
them could be out of bounds. A hull needs the argsort's sizes (ints, or Dims an input
names); in a ``kt`` graph whose axes are unknown (None) only the argsort itself is read,
and what moves it is unknown (unchecked, as an index of data is: never a wrong bound).
An argsort whose axes are permuted (``.T``, ``swapaxes``, ``moveaxis``) permutes the
axis its own went to (:func:`permutation_axis`).

``argmax``/``argmin`` are data-decided positions within ``0 .. n - 1``, not a
permutation; each of them is reached for some data (the greatest where the data grow
along the axis), so their hull ``0 .. n - 1`` (empty outputs aside) is the for-every-data
reading too: an index of them is refused wherever some data would put it out of bounds
(``x[np.argmax(y, 1)]`` needs ``V <= N``; it held at ``N = 1``). Of values no data
decide (``np.argmax(np.eye(k), 1)``) the sizes decide which are reached: unknown here
(:func:`_positioned`).

The bounds are ints or Dims and hold every value: exact where the values reach them
(an ``arange`` and sums of them), wider only where they cannot be exact (``np.arange(k)
[1:]`` keeps 0 as its least; a remainder of values that may not reach ``k - 1``), so
that an interval refuses more sizes, never fewer. A result its dtype could wrap around
(an int out of its range, a size in a dtype narrower than 32 bits, a negative value in
an unsigned one) or round (a float past 2**24) is unknown.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ...graph.basic import Constant, Variable
from ...types.dim import Dim, DimLike
from ...types.dimminmax import dim_max, dim_min
from ...types.dtypes import FLOATING, dtype_info, integer_range, is_integer
from ...types.intervals import interval
from ...types.symbols import free_symbols
from ...types.variable import SizeNumber
from ..pyints import size_of_number
from ..sizes import axis_length
from .arrange import repeat, roll, tile, tril, triu
from .creation import empty_like, full, ones, random, ranged, zeros
from .elementwise import cast
from .indexing import getitem, index, take_along
from .positions import counted, position_row
from .selecting import argpartition, lexsort, partition
from .shape import argsort, broadcast_to, concatenate, hstack, reshape, stack, vstack
from .squeezing import squeeze
from .valuearith import UNKNOWN as _UNKNOWN
from .valuearith import Range, computed

#: How many Ops back the values are followed.
DEPTH = 64
#: Ops (by their implementation) whose values are some of their first input's: they
#: move, repeat, view or sort them.
_SAME_VALUES = frozenset({np.copy, getitem, np.flip, reshape, np.ravel, broadcast_to,
                          np.transpose, np.permute_dims, np.matrix_transpose,
                          np.swapaxes, np.moveaxis, np.expand_dims, squeeze, repeat, tile,
                          roll, np.sort, partition})
#: Ops that pick some of their first input's values (reductions: none on an empty axis,
#: where NumPy raises; unless an ``initial`` joins them). Which are picked is the data's
#: or the sizes': of values no data decide the input's hull is not the picked values'
#: (``np.arange(k)[[0]]`` is 0), so those are unknown (:func:`_picked`).
_PICKING = frozenset({index, np.take, take_along, np.diagonal, np.max, np.min})
#: Ops whose values are some of all their inputs'.
_UNION = frozenset({concatenate, stack, vstack, hstack})
#: Ops whose output is a permutation of 0 .. n - 1 along their (normalised) axis.
_PERMUTING = frozenset({argsort, argpartition, lexsort})
#: Ops whose output holds positions along their (normalised) axis of their input, of
#: the flattened input for None, that the data decide: any of 0 .. n - 1.
_POSITIONS = frozenset({np.argmax, np.argmin})
#: A size may be any int >= 0: dtypes narrower than this may wrap it around.
_WIDE = 2**31 - 1


def value_range(v: Any) -> tuple[DimLike, DimLike] | None:
    """The least and greatest value (ints or Dims) of the integer tensor ``v`` (a graph
    value), where the Ops computing it keep them known (see the module's doc); None
    otherwise, and for a tensor of no integer dtype (a mask is no index of values)."""
    if not isinstance(v, Variable) or not is_integer(v.type.dtype):
        return None
    lo, hi = _range(v, DEPTH, {})
    return None if lo is None or hi is None else (lo, hi)


def value_bounds(v: Any) -> tuple[int, int] | None:
    """:func:`value_range` where both bounds are ints (what an :class:`ArrayRef`
    holds), else None."""
    found = value_range(v)
    return found if found is not None and type(found[0]) is int and \
        type(found[1]) is int else None


def value_reach(v: Any, found: tuple[DimLike, DimLike] | None | bool = False
                ) -> Dim | None:
    """``max(hi + 1, -lo)`` for the bounds lo .. hi of :func:`value_range` where one is a
    size (a Dim over named sizes only, which a call carries in an input of its own): how
    long an axis must be for every value of the index array ``v`` to be in bounds
    (``(arange(n) + 1) % 3``: ``min(n, 2) + 1``). None where the bounds are ints
    (:func:`value_bounds`), unknown, or over sizes no input names. ``found``: v's
    :func:`value_range`, where the caller has it already."""
    if found is False:
        found = value_range(v)
    if found is None or type(found[0]) is int and type(found[1]) is int:
        return None
    return _reach(*found)


@lru_cache(maxsize=256)
def _reach(lo: DimLike, hi: DimLike) -> Dim | None:
    """:func:`value_reach` of the bounds ``lo .. hi`` (once per bounds: a traced
    program indexes by the same values at every call)."""
    need = dim_max(hi + 1, -lo)
    if not isinstance(need, Dim) or not all(isinstance(s, str) for s in free_symbols(need)):
        return None
    return need


def permutation_axis(v: Any) -> int | None:
    """The axis of ``v`` along which its values are a permutation of ``0 .. n - 1``
    (n that axis's length): ``v`` is an ``argsort``, ``argpartition`` or ``lexsort``
    (along their axis; axis None, and a 0-d input of the first two, give a vector: its
    axis 0; lexsort's 0-d output has no axis, and callers check the axis is v's), or
    one with its axes permuted (``.T``, ``transpose``, ``swapaxes``, ``moveaxis``,
    ``mT``: the permuted axis is where that axis went). None otherwise."""
    node = getattr(v, "owner", None)
    impl = None if node is None else getattr(node.op, "impl", None)
    if impl in _AXIS_ORDER:
        order = _AXIS_ORDER[impl](v.type.ndim, dict(node.op.params))
        inner = permutation_axis(node.inputs[0])
        return None if order is None or inner not in order else order.index(inner)
    if impl not in _PERMUTING:
        return None
    axis = dict(node.op.params).get("axis")
    return 0 if axis is None else axis


def _moved(ndim: int, params: dict) -> list[int] | None:
    """``moveaxis``'s order of the input's axes (NumPy's own construction)."""
    source, destination = params.get("source"), params.get("destination")
    if not isinstance(source, tuple) or not isinstance(destination, tuple):
        return None
    order = [a for a in range(ndim) if a not in source]
    for dest, axis in sorted(zip(destination, source, strict=True)):
        order.insert(dest, axis)
    return order


def _swapped(ndim: int, params: dict) -> list[int] | None:
    i, j = params.get("axis1"), params.get("axis2")
    if type(i) is not int or type(j) is not int:
        return None
    order = list(range(ndim))
    order[i], order[j] = order[j], order[i]
    return order


#: Ops that permute their input's axes, each with the order of the input's axes in the
#: output (output axis k is input axis order[k]), from its rank and normalised params.
_AXIS_ORDER = {
    np.transpose: lambda ndim, params: list(params["axes"]) if isinstance(
        params.get("axes"), tuple) else None,
    np.matrix_transpose: lambda ndim, params: _swapped(ndim, {"axis1": ndim - 2,
                                                               "axis2": ndim - 1}),
    np.swapaxes: _swapped, np.moveaxis: _moved}
_AXIS_ORDER[np.permute_dims] = _AXIS_ORDER[np.transpose]


def made_of_sizes(v: Variable) -> bool:
    """Whether ``v``'s values are decided by sizes alone: nothing it is computed from is
    data (a graph input's values, a sampler's); ``shape_of(x)`` reads only x's length.
    Where :func:`value_range` does not read such values, they are still the sizes' to
    decide: ``eval_shape`` assumes them in bounds, on an unknown it names.
    (``ones_like``/``zeros_like`` of data read its shape only; ``np.empty_like``'s values
    are data, NumPy's uninitialised memory, as a sampler's are.)"""
    seen, todo = set(), [v]
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, Constant):
            continue
        seen.add(id(x))
        if x.owner is None:
            return False
        impl = getattr(x.owner.op, "impl", None)
        if impl is random or impl is empty_like:  # (data, though they take none)
            return False
        if impl not in _SHAPE_ONLY:
            todo.extend(x.owner.inputs)
    return True


#: Ops whose values read only the shape of their input: ``shape_of``'s length,
#: ``ones_like``/``zeros_like`` of data are no data.
_SHAPE_ONLY = frozenset({axis_length, np.ones_like, np.zeros_like})


def _range(v: Any, depth: int, memo: dict) -> Range:
    if not isinstance(v, Variable) or not _numeric(v.type.dtype):
        return _UNKNOWN
    if isinstance(v, Constant):
        data = np.asarray(v.data)
        if not data.size or not np.all(np.isfinite(data)) or not np.all(data == np.trunc(data)):
            return _UNKNOWN  # (a float that is no integer: no bounds in ints)
        return int(data.min()), int(data.max())
    if isinstance(v, SizeNumber):
        d = size_of_number(v)
        return _UNKNOWN if d is None else (d, d)
    node = v.owner
    if node is None or depth <= 0 or len(node.outputs) != 1:
        return _UNKNOWN
    if v in memo:
        return memo[v]
    memo[v] = _UNKNOWN  # (a graph has no cycles: this only guards the recursion)
    found = _of_node(v, node, depth - 1, memo)
    found = found if _fits(found, v.type.dtype) else _UNKNOWN
    if v.type.dtype == "bool" and (found[0] is None or found[1] is None):
        found = (0, 1)  # a computed bool's values (a comparison's): each, for some data
    memo[v] = found
    return found


def _of_node(v: Variable, node: Any, depth: int, memo: dict) -> Range:
    op = node.op
    impl = getattr(op, "impl", None)
    ins = node.inputs
    if getattr(op, "builder", None) is ranged:
        return _ranged(v, dict(op.params))
    if impl in _PERMUTING:
        return _permuted(v)
    if impl in _POSITIONS:
        return _positioned(v, ins[0], dict(op.params).get("axis"))
    if impl is getitem:  # a row of the stacked positions a mask picks (np.nonzero's)
        row = position_row(ins[0], dict(op.params).get("index", ()),
                           lambda x: _range(x, depth, memo), _picked)
        if row is not None:
            return row
    if impl in _SAME_VALUES:
        return _range(ins[0], depth, memo)
    if impl is np.cumsum:
        return counted(ins[0], dict(op.params).get("axis"), lambda x: _range(x, depth, memo))
    if impl in _PICKING and dict(op.params).get("initial") is None:
        return _picked(v, lambda: _range(ins[0], depth, memo))
    if impl is np.where and len(ins) == 3:  # some of x's, some of y's
        return _picked(v, lambda: _joined([_range(x, depth, memo) for x in ins[1:]]))
    if impl in _UNION:
        return _joined([_range(x, depth, memo) for x in ins])
    if impl is ones or impl is np.ones_like:
        return (1, 1)
    if impl is zeros or impl is np.zeros_like:
        return (0, 0)
    if impl is full:
        return _range(ins[0], depth, memo)
    if impl is cast:  # NumPy truncates a float: its integer values stay (to bool, 0
        return _range(ins[0], depth, memo)  # or 1: _fits keeps only values within those)
    if impl is np.clip and len(ins) == 3:  # minimum(maximum(x, lo), hi)
        x, lo, hi = (_range(y, depth, memo) for y in ins)
        return computed(np.minimum, [computed(np.maximum, [x, lo]), hi])
    if impl in (tril, triu, np.diag):  # its values and 0 (diag of a matrix: some
        lo, hi = _range(ins[0], depth, memo)  # of them, within the same hull)
        found = _UNKNOWN if lo is None or hi is None else (dim_min(lo, 0), dim_max(hi, 0))
        return found if impl is not np.diag or v.type.ndim == 2 else _picked(v, lambda: found)
    if v.type.dtype == "bool":
        return _UNKNOWN  # bool arithmetic is logical (True + True is True)
    return computed(impl, [_range(x, depth, memo) for x in ins])


def _picked(v: Variable, hull: Any) -> Range:
    """The ``hull()`` of the values ``v`` picks, where data decide them (any of the hull
    is picked for some data: the for-every-data reading); unknown where sizes alone do
    (:func:`made_of_sizes`: the picked ones may lie well inside the hull, and refusing
    sizes where NumPy runs is a wrong answer too)."""
    return _UNKNOWN if made_of_sizes(v) else hull()


def _joined(found: list[Range]) -> Range:
    """The hull of the values of several tensors (unknown where one's is)."""
    if not found or any(lo is None or hi is None for lo, hi in found):
        return _UNKNOWN
    return dim_min(*(lo for lo, _ in found)), dim_max(*(hi for _, hi in found))


def _numeric(dtype: str) -> bool:
    return is_integer(dtype) or dtype == "bool" or _real_numpy_float(dtype)


def _real_numpy_float(dtype: str) -> bool:
    """A float dtype of NumPy's own (its integers exact up to 2**(nmant + 1))."""
    info = dtype_info(dtype)
    return info.category is FLOATING and info.package == "numpy"


def _exact_ints(dtype: str) -> tuple[int, int]:
    """The integers a float dtype holds exactly, each one and its neighbours (float16:
    -2048 .. 2048; rounding beyond them could move a value past a bound)."""
    top = 2 ** (np.finfo(dtype).nmant + 1)
    return -top, top


def _fits(found: Range, dtype: str) -> bool:
    """Whether no value of ``found`` could be wrapped around (or rounded) by ``dtype``:
    an int within its range; a size only in an integer dtype of 32 bits or more, and in
    an unsigned one only where it is never negative."""
    low, high = integer_range(dtype) if is_integer(dtype) else \
        (0, 1) if dtype == "bool" else _exact_ints(dtype)
    for end in found:
        if end is None:
            continue
        if isinstance(end, Dim):
            least = interval(end)[0]
            if high < _WIDE or not is_integer(dtype) or \
                    low == 0 and (least is None or least < 0):
                return False
        elif not low <= end <= high:
            return False
    return True


def _ranged(v: Variable, params: dict) -> Range:
    """``arange``: ``start + i*step`` for i < its length (the output's size, an int or
    a Dim; by a step that is a size, its relation's: positive, the last value below
    ``stop`` too); of an unknown length, bounded on the start's side."""
    start, step = params.get("start"), params.get("step")
    if not isinstance(start, int | Dim) or not isinstance(step, int | Dim) or step == 0 \
            or v.type.ndim != 1:
        return _UNKNOWN
    count, up = v.type.shape[0], isinstance(step, Dim) or step > 0
    if count is None or count == 0:  # (no values)
        return _UNKNOWN if count == 0 else (start, None) if up else (None, start)
    last = start + (count - 1) * step
    return (last, start) if not up else (start, dim_min(last, params["stop"] - 1)
                                         if isinstance(step, Dim) else last)


def _permuted(v: Variable) -> Range:
    """``argsort``: ``0 .. min(1, size)*n - 1`` (n the length of its axis; an empty
    output has no values, and its hull then needs no axis to be long)."""
    axis = permutation_axis(v)
    shape = v.type.shape
    if axis is None or axis >= len(shape) or any(s is None for s in shape):
        return _UNKNOWN
    return _permutation_hull(shape, axis)


@lru_cache(maxsize=256)
def _permutation_hull(shape: tuple[DimLike, ...], axis: int) -> Range:
    """``(0, min(1, size)*n - 1)`` of a permutation along ``axis`` of an array of
    ``shape`` (decided once per shape: Dim arithmetic is the cost of a traced argsort's
    index)."""
    size: DimLike = 1
    for s in shape:
        size = size * s
    return (0, dim_min(1, size) * shape[axis] - 1)


def _positioned(v: Variable, x: Variable, axis: int | None) -> Range:
    """``argmax``/``argmin`` of ``x``: ``0 .. min(1, size)*n - 1`` (n the length of the
    axis, the size of ``x`` for None; size the output's: an empty one has no values).
    For every data each position is reached (the greatest where the data are largest
    last), so these are the for-every-data bounds; where no data decide ``x``
    (:func:`made_of_sizes`: ``np.argmax(np.eye(k), 1)``) the sizes decide which are
    reached, which these bounds do not say: unknown (an index of such values is then
    an assumption on an unknown, :mod:`kantensor.evalshape.indexvalues`)."""
    shape = x.type.shape
    if any(s is None for s in shape) or any(s is None for s in v.type.shape) or \
            axis is not None and not 0 <= axis < len(shape) or made_of_sizes(x):
        return _UNKNOWN
    return _position_hull(shape, axis, v.type.shape)


@lru_cache(maxsize=256)
def _position_hull(shape: tuple[DimLike, ...], axis: int | None,
                   out: tuple[DimLike, ...]) -> Range:
    """:func:`_positioned`'s bounds (once per shapes, as :func:`_permutation_hull`)."""
    n: DimLike = 1
    for s in shape if axis is None else (shape[axis],):
        n = n * s
    size: DimLike = 1
    for s in out:
        size = size * s
    return (0, dim_min(1, size) * n - 1)
