"""Interval arithmetic of elementwise Ops on the bounds of integer values
(:mod:`.values` follows the graph; this computes one Op's bounds from its inputs'):
``+``, ``-``, negation, ``minimum``/``maximum``, and ``*``, ``//``, ``%`` by an int
(``*``, ``//`` and ``%`` by a size too). A bound is an int, a Dim or None (not known);
the result holds every value, exact where the inputs' bounds are reached."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...types.dim import Dim, DimLike
from ...types.dimminmax import dim_max, dim_min
from ...types.intervals import interval

#: (least, greatest) value, None for a side not known.
Range = tuple["DimLike | None", "DimLike | None"]
#: Nothing known of either side.
UNKNOWN: Range = (None, None)


def _constant(r: Range) -> int | None:
    """The int that every value of ``r`` is, else None."""
    return r[0] if type(r[0]) is int and r[0] == r[1] else None


def _size(r: Range) -> Dim | None:
    """The size every value of ``r`` is (a Dim, never negative: a size used as a number,
    ``len(x)``, ``x.shape[1]``), else None."""
    d = r[0]
    return d if isinstance(d, Dim) and r[1] == d and _at_least(d, 0) else None


def _floor_by_size(x: DimLike | None, d: Dim) -> DimLike | None:
    """``x // d`` for a size ``d``, as NumPy's integer floor division gives it: 0 where
    ``d`` is 0 (NumPy warns and gives 0), so ``min(1, d)*(x//max(1, d))`` where d may
    be 0."""
    if x is None or x == 0:
        return None if x is None else 0
    return x // d if _at_least(d, 1) else dim_min(d, 1) * (x // dim_max(d, 1))


def computed(impl: Any, ranges: list[Range]) -> Range:
    """Interval arithmetic of the elementwise Op ``impl`` on its inputs' bounds."""
    if impl is np.negative and len(ranges) == 1:
        lo, hi = ranges[0]
        return (_neg(hi), _neg(lo))
    if len(ranges) != 2:
        return UNKNOWN
    a, b = ranges
    if impl is np.add:
        return (_sum(a[0], b[0]), _sum(a[1], b[1]))
    if impl is np.subtract:
        return (_sum(a[0], _neg(b[1])), _sum(a[1], _neg(b[0])))
    if impl is np.minimum:  # (a known greatest of either bounds the greatest)
        return (_both(dim_min, a[0], b[0]), _either(dim_min, a[1], b[1]))
    if impl is np.maximum:  # (a known least of either bounds the least)
        return (_either(dim_max, a[0], b[0]), _both(dim_max, a[1], b[1]))
    if impl is np.multiply:
        for x, c in ((a, b), (b, a)):
            k = _constant(c)
            if k is not None:  # by one known int
                ends = (_times(x[0], k), _times(x[1], k))
                return ends if k >= 0 else (ends[1], ends[0])
        for x, c in ((a, b), (b, a)):
            d = _size(c)
            if d is not None:  # by a size d >= 0: monotone (not decreasing)
                return (_times(x[0], d), _times(x[1], d))
        return UNKNOWN
    k, d = _constant(b), _size(b)
    if impl is np.remainder and k is None and d is not None:  # by a size d (np.take's
        return 0, dim_max(d - 1, 0)  # mode='wrap'): 0 .. d - 1, any a
    if impl is np.floor_divide and k is None and d is not None:  # by a size d: monotone
        return (_floor_by_size(a[0], d), _floor_by_size(a[1], d))  # (0 where d is 0)
    if k is None or k == 0:
        return UNKNOWN
    if impl is np.floor_divide:  # monotone (decreasing for k < 0)
        ends = (None if a[0] is None else a[0] // k, None if a[1] is None else a[1] // k)
        return ends if k > 0 else (ends[1], ends[0])
    if impl is np.remainder:  # NumPy's (and Python's) remainder takes the divisor's sign
        return _remainder(a, k)
    return UNKNOWN


def _remainder(a: Range, k: int) -> Range:
    """Bounds of ``a % k``: ``a`` itself where it is already within ``0 .. k - 1`` (or
    ``k + 1 .. 0``); of values of one sign that may not be, those values' side capped by
    the divisor's (a remainder is no farther from 0 than the value); else the divisor's."""
    lo, hi = a
    if k > 0:
        if _at_least(lo, 0) and hi is not None:
            return (lo, hi) if _at_most(hi, k - 1) else (0, dim_min(hi, k - 1))
        return (0, k - 1)
    if _at_most(hi, 0) and lo is not None:
        return (lo, hi) if _at_least(lo, k + 1) else (dim_max(lo, k + 1), 0)
    return (k + 1, 0)


def _at_least(x: DimLike | None, c: int) -> bool:
    least = None if x is None else interval(x)[0]
    return least is not None and least >= c


def _at_most(x: DimLike | None, c: int) -> bool:
    most = None if x is None else interval(x)[1]
    return most is not None and most <= c


def _both(pick: Any, x: DimLike | None, y: DimLike | None) -> DimLike | None:
    return None if x is None or y is None else pick(x, y)


def _either(pick: Any, x: DimLike | None, y: DimLike | None) -> DimLike | None:
    known = [z for z in (x, y) if z is not None]
    return pick(*known) if known else None


def _sum(x: DimLike | None, y: DimLike | None) -> DimLike | None:
    return None if x is None or y is None else x + y


def _neg(x: DimLike | None) -> DimLike | None:
    return None if x is None else -x


def _times(x: DimLike | None, k: DimLike) -> DimLike | None:
    return None if x is None else x * k
