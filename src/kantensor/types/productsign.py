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
from typing import Any

from .dim import Dim, DimLike
from .poly import Opaque

__all__ = ["decided_by_interval", "parts_bounds", "product_interval"]

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


#: How many levels of min/max and products :func:`parts_bounds` looks through.
MAX_PARTS_DEPTH = 3

Bounds = Callable[[DimLike], tuple[int | None, int | None]]


def parts_bounds(bounds: Bounds, split: Callable[[DimLike], Any],
                 depth: int = MAX_PARTS_DEPTH) -> Bounds:
    """``bounds`` (the facts' least and greatest value of a size expression) narrowed,
    where it leaves a side open, by the expression's parts: ``k*f1*f2*... + r`` (as
    ``split`` finds it: a product of factors over disjoint sizes) by its factors' bounds,
    ``c*min(a, b, ...) + r`` and ``c*max(...) + r`` by their arguments' (each of those
    narrowed alike, ``depth`` levels down). Sound where ``bounds`` is: each side is a
    bound of every value the parts take."""
    def narrowed(x: DimLike, level: int) -> tuple[int | None, int | None]:
        lo, hi = bounds(x)
        if level <= 0 or isinstance(x, int) or (lo is not None and hi is not None):
            return lo, hi
        def below(f: DimLike) -> tuple[int | None, int | None]:
            return narrowed(f, level - 1)
        found = split(x)
        if found is not None:
            k, fs, r = found
            plo, phi = product_interval(k, fs, r, below)
        else:
            plo, phi = _extreme(x, below)
        return (plo if lo is None else lo if plo is None else max(lo, plo),
                phi if hi is None else hi if phi is None else min(hi, phi))
    return lambda x: narrowed(x, depth)


def _extreme(x: Dim, bounds: Bounds) -> tuple[int | None, int | None]:
    """The bounds of ``c*op(args) + r`` (``op`` min or max) from its arguments'; (None,
    None) for any other expression."""
    terms = x._terms
    lead = [(mono, c) for mono, c in terms if mono]
    rest = [c for mono, c in terms if not mono]
    if len(lead) != 1 or len(lead[0][0]) != 1 or lead[0][0][0][1] != 1:
        return None, None
    atom, c = lead[0][0][0][0], lead[0][1]
    if not isinstance(atom, Opaque) or atom.op not in ("min", "max"):
        return None, None
    ends = [(a, a) if isinstance(a, int) else bounds(a) for a in atom.args]
    los, his = [e[0] for e in ends], [e[1] for e in ends]
    if atom.op == "min":
        lo = None if None in los else min(los)
        hi = min((h for h in his if h is not None), default=None)
    else:
        lo = max((v for v in los if v is not None), default=None)
        hi = None if None in his else max(his)
    if c < 0:
        lo, hi = hi, lo
    r = sum(rest)
    return (None if lo is None else c * lo + r, None if hi is None else c * hi + r)
