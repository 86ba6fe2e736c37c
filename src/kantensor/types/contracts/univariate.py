"""The exact set of sizes meeting a condition over one size.

A condition ``d op 0`` (op one of ``== != >= >``) whose ``d`` names one size ``x`` is
solved two ways, both exact over the integers ``0 .. MAX_SIZE``:

* where ``d`` is monotone in ``x`` by its structure (sums with coefficients of one sign
  of floors, products and min/max of monotone non-negative parts: the conv/pool
  arithmetic ``(H + 13)//32 - 1 >= 1``), its boundaries are found by binary search;
* otherwise, where every floor and remainder of ``d`` is by an int, ``x = L*q + r`` for
  each residue ``r`` of the period ``L`` makes ``d`` a polynomial in ``q`` (the Dim
  algebra takes the multiples of each divisor out of its floors), whose integer
  solutions :func:`poly_where` finds by splitting it where its forward difference
  changes sign (``(H + 9)//16 == (H + 1)//16`` is ``H % 16 in {0..6, 15}``).

Anything else (a period past :data:`MAX_PERIOD`, a division by a size) is not solved:
None, never a guess.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Final

from ..dim import DimLike, unknown
from ..limits import MAX_SIZE
from ..poly import Opaque
from ..symbols import substitute
from .evaluate import evaluator
from .sizeset import ALL, NONE, Inexpressible, Piece, SizeSet

__all__ = ["MAX_DEGREE", "MAX_PERIOD", "poly_where", "solve", "trend"]

#: The longest period (lcm of the divisors of floors) a condition is split by.
MAX_PERIOD: Final = 1 << 10
#: The highest degree of a polynomial :func:`poly_where` solves.
MAX_DEGREE: Final = 8


class _Q:
    """The key of the unknown ``q`` of ``x = L*q + r``."""

    def __repr__(self) -> str:
        return "q"


_QDIM = unknown(_Q())
_QKEY = next(iter(_QDIM._terms[0][0]))[0]


@lru_cache(maxsize=1 << 12)
def solve(d: DimLike, op: str, x: Hashable) -> SizeSet | None:
    """The sizes ``v`` of ``x`` with ``d(v) op 0`` (``d`` names ``x`` only; op one of
    ``== != >= >``), exactly; None where it is not solved."""
    if isinstance(d, int):
        return ALL if _holds(d, op) else NONE
    direction = trend(d)[0]
    try:
        if direction is not None:
            f = evaluator(d)
            return _as_set(_monotone_where(lambda v: f({x: v}), direction, op, 0, MAX_SIZE))
        return _periodic(d, op, x)
    except (ZeroDivisionError, Inexpressible, OverflowError):
        return None


def _holds(v: int, op: str) -> bool:
    return v == 0 if op == "==" else v != 0 if op == "!=" else v >= 0 if op == ">=" \
        else v > 0


def _as_set(intervals: list[tuple[int, int]]) -> SizeSet:
    return SizeSet(Piece(a, None if b >= MAX_SIZE else b) for a, b in intervals)


# -- monotone by structure ----------------------------------------------------------------
def trend(d: DimLike) -> tuple[int | None, bool]:
    """``(trend, nonnegative)``: 1 nondecreasing, -1 nonincreasing, 0 constant, None not
    shown, in the (one) size ``d`` names; and whether ``d >= 0`` at every size."""
    if isinstance(d, int):
        return 0, d >= 0
    total: int | None = 0
    nonneg = True
    for mono, c in d._terms:
        if not mono:
            nonneg = nonneg and c >= 0
            continue
        parts = [(_atom_trend(a), p) for a, p in mono]
        if len(parts) == 1 and parts[0][1] == 1:
            t, pos = parts[0][0]
        elif all(pos for (_, pos), _ in parts):  # a product of non-negative parts
            ts = {t for (t, _), _ in parts} - {0}
            t = None if None in ts or len(ts) > 1 else (ts.pop() if ts else 0)
            pos = True  # non-negative parts of one trend: their product has it too
        else:
            return None, False
        if t is None:
            return None, False
        t *= 1 if c > 0 else -1
        nonneg = nonneg and pos and c > 0
        if t:
            if total and total != t:
                return None, False
            total = t
    return total, nonneg


def _atom_trend(a: Hashable) -> tuple[int | None, bool]:
    if not isinstance(a, Opaque):
        return 1, True  # the size itself
    if a.op in ("//", "/") and type(a.args[1]) is int and a.args[1] > 0:
        return trend(a.args[0])
    if a.op in ("min", "max"):
        parts = [trend(g) for g in a.args]
        ts = {t for t, _ in parts} - {0}
        t = None if None in ts or len(ts) > 1 else (ts.pop() if ts else 0)
        pos = all(p for _, p in parts) if a.op == "min" else any(p for _, p in parts)
        return t, pos
    return None, a.op == "%"


def _first(pred: Callable[[int], bool], lo: int, hi: int) -> int | None:
    """The least ``q`` in ``[lo, hi]`` with ``pred(q)``, for a ``pred`` false then true."""
    if lo > hi or not pred(hi):
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if pred(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _monotone_where(f: Callable[[int], int], direction: int, op: str, lo: int, hi: int
                    ) -> list[tuple[int, int]]:
    """The intervals of ``q`` in ``[lo, hi]`` with ``f(q) op 0``, where ``f`` is
    nondecreasing (direction 1), nonincreasing (-1) or constant (0) there."""
    if lo > hi:
        return []
    if direction == 0:
        return [(lo, hi)] if _holds(f(lo), op) else []
    h = f if direction > 0 else (lambda q: -f(q))

    def at_least(t: int) -> int:  # first q with h(q) >= t (hi + 1: none)
        q = _first(lambda v: h(v) >= t, lo, hi)
        return hi + 1 if q is None else q

    def interval(a: int, b: int) -> list[tuple[int, int]]:
        return [(a, b)] if a <= b else []

    if op == "==":
        return interval(at_least(0), at_least(1) - 1)
    if op == "!=":
        return interval(lo, at_least(0) - 1) + interval(at_least(1), hi)
    if direction > 0:  # f >= 0 is h >= 0; f > 0 is h >= 1
        return interval(at_least(0 if op == ">=" else 1), hi)
    # f >= 0 is h <= 0; f > 0 is h <= -1
    return interval(lo, at_least(1 if op == ">=" else 0) - 1)


# -- periodic: a polynomial per residue ---------------------------------------------------
def _period(d: DimLike) -> int | None:
    """The lcm of what the floors and remainders of ``d`` divide by (nested ones
    multiplied), or None where one divides by a size or is a min/max."""
    if isinstance(d, int):
        return 1
    period = 1
    for mono, _ in d._terms:
        for a, _ in mono:
            if not isinstance(a, Opaque):
                continue
            if a.op in ("//", "%", "/") and type(a.args[1]) is int and a.args[1] > 0:
                inner = _period(a.args[0])
                if inner is None:
                    return None
                period = math.lcm(period, inner * a.args[1])
            else:
                return None
            if period > MAX_PERIOD:
                return None
    return period


def _periodic(d: DimLike, op: str, x: Hashable) -> SizeSet | None:
    period = _period(d)
    if period is None:
        return None
    pieces = []
    for r in range(period):
        p = substitute(d, {x: period * _QDIM + r})
        coeffs = _coefficients(p)
        if coeffs is None:
            return None
        top = (MAX_SIZE - r) // period
        for a, b in poly_where(coeffs, op, 0, top):
            pieces.append(Piece(period * a + r, None if b >= top else period * b + r,
                                period, frozenset({r})))
    return SizeSet.union_of(pieces)


def _coefficients(p: DimLike) -> list[int] | None:
    """The coefficients (constant first) of ``p`` as a polynomial in ``q``; None if it
    holds anything else."""
    if isinstance(p, int):
        return [p]
    coeffs: dict[int, int] = {}
    for mono, c in p._terms:
        if not mono:
            coeffs[0] = c
        elif len(mono) == 1 and mono[0][0] == _QKEY:
            coeffs[mono[0][1]] = c
        else:
            return None
    degree = max(coeffs)
    if degree > MAX_DEGREE:
        return None
    return [coeffs.get(k, 0) for k in range(degree + 1)]


def _value(coeffs: list[int], q: int) -> int:
    total = 0
    for c in reversed(coeffs):
        total = total * q + c
    return total


def _difference(coeffs: list[int]) -> list[int]:
    """The coefficients of ``p(q + 1) - p(q)``."""
    shifted = [0] * len(coeffs)
    for k, c in enumerate(coeffs):  # (q + 1)**k by the binomial theorem
        for j in range(k + 1):
            shifted[j] += c * math.comb(k, j)
    diff = [s - c for s, c in zip(shifted, coeffs, strict=True)]
    while len(diff) > 1 and diff[-1] == 0:
        diff.pop()
    return diff


def poly_where(coeffs: list[int], op: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """The intervals of the integers ``q`` in ``[lo, hi]`` with ``p(q) op 0`` (``p`` has
    ``coeffs``, constant first), exactly: ``p`` is monotone between the points where its
    forward difference changes sign, which are found the same way."""
    coeffs = list(coeffs)
    while len(coeffs) > 1 and coeffs[-1] == 0:
        coeffs.pop()
    out: list[tuple[int, int]] = []
    for a, b, direction in _segments(coeffs, lo, hi):
        out += _monotone_where(lambda q: _value(coeffs, q), direction, op, a, b)
    return _merged(out)


def _segments(coeffs: list[int], lo: int, hi: int) -> list[tuple[int, int, int]]:
    """``[lo, hi]`` cut into ``(a, b, trend)`` where ``p`` is monotone (they may share
    their ends)."""
    if lo > hi:
        return []
    if len(coeffs) <= 2:
        slope = coeffs[1] if len(coeffs) == 2 else 0
        return [(lo, hi, (slope > 0) - (slope < 0))]
    if lo == hi:
        return [(lo, hi, 0)]
    diff = _difference(coeffs)
    up = poly_where(diff, ">=", lo, hi - 1)  # p(q + 1) >= p(q) there
    out = [(a, b + 1, 1) for a, b in up]
    at = lo
    for a, b in up + [(hi, hi)]:
        if a > at:
            out.append((at, a, -1))  # p(q + 1) < p(q) for q in [at, a - 1]
        at = b + 1
    return sorted(out)


def _merged(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out
