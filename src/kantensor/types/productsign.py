"""Conditions on a product of factors over disjoint sizes, decided by its factors' bounds.

A Flatten or Reshape after a stack of windows asks ``3*((H + 3)//4 - 1)*((W + 3)//4 - 1)
>= 0``; its terms, multiplied out, are neither monotone in ``H`` nor linear, so the
prover leaves it open even where the windows' own conditions (``H >= 5``, ``W >= 5``)
make each factor at least 1. Bounding each factor alone and multiplying the intervals
decides it: the product's least and greatest values lie among the products of its
factors' bounds. Sound whatever the bounds are, as long as each one holds: an interval
that is too wide only leaves the question open.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from .dim import DimLike

__all__ = ["product_interval", "decided_by_interval"]

Bound = int | float  # an int, or -inf / inf for a side not bounded
_INF = math.inf


def _times(a: Bound, b: Bound) -> Bound:
    """``a * b`` over the extended integers, with ``0 * inf == 0`` (each side is the
    bound of a finite value: a factor that is exactly 0 makes the product 0)."""
    if a == 0 or b == 0:
        return 0
    return a * b  # an int times an int stays an exact int; inf carries its sign


def product_interval(k: int, factors: Sequence[DimLike], r: int,
                     bounds: Callable[[DimLike], tuple[int | None, int | None]]
                     ) -> tuple[int | None, int | None]:
    """The least and greatest value of ``k*f1*f2*... + r`` given each factor's bounds
    (``bounds(f)``: least and greatest, None where not bounded); None: not bounded."""
    lo: Bound = k
    hi: Bound = k
    for f in factors:
        f_lo, f_hi = bounds(f)
        ends = (-_INF if f_lo is None else f_lo, _INF if f_hi is None else f_hi)
        corners = [_times(x, y) for x in (lo, hi) for y in ends]
        lo, hi = min(corners), max(corners)
    low = None if lo == -_INF else int(lo) + r
    high = None if hi == _INF else int(hi) + r
    return low, high


def decided_by_interval(op: str, low: int | None, high: int | None) -> bool | None:
    """What ``d op 0`` (op one of ``== != >= >``) is where ``low <= d <= high``: True or
    False when every value in the interval answers alike, else None."""
    if op == ">=":
        return True if low is not None and low >= 0 else (
            False if high is not None and high < 0 else None)
    if op == ">":
        return True if low is not None and low > 0 else (
            False if high is not None and high <= 0 else None)
    never_zero = (low is not None and low > 0) or (high is not None and high < 0)
    only_zero = low == 0 and high == 0
    if op == "==":
        return False if never_zero else (True if only_zero else None)
    if op == "!=":
        return True if never_zero else (False if only_zero else None)
    return None
