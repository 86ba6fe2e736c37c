"""A bounded size of one symbol with no sparse fit, written as a remainder of one.

A size of one symbol with no threshold whose increments have no sparse fit (one or two
floors, :func:`kantensor.types.quasi.fits`) may still be a remainder of a size that has
one: ``(n + n//4) % 4`` (period 16), ``(k % 3 + k//2) % 4`` (period 24, past
:data:`~kantensor.types.quasiform.MAX_COMB_PERIOD`). Such a size ``f`` (0 at 0, its
increments summing to 0 over a period, so bounded: ``lo <= f <= hi``) is ``(g + s) % e -
s`` for every modulus ``e > hi - lo``, shift ``-lo <= s <= e - 1 - hi`` and size ``g`` (0
at 0) whose increments are ``f``'s modulo ``e``: ``g`` is ``f`` plus a multiple of ``e``
at every size, and ``f + s`` is in ``0 .. e - 1``. :func:`remainder_forms` gives these
for the least ``e`` (at most :data:`MAX_MODULUS`) where the increments modulo ``e`` have a
fit of at most two floors (over their least period modulo ``e``, at most
:data:`MAX_MOD_PAIR_PERIOD` for two floors), each ``g`` with every such fit and every
``s``; a size whose increments have a common factor ``c`` is also ``c`` (and ``-c``)
times those of its increments divided by it. The set depends on the increments alone,
so the form chosen from it (fewest terms, then shortest text) is one form per function:
``(n + n//4) % 4`` however it is written, ``(k + k//2 + k//3) % 4`` for ``(k % 3 +
k//2) % 4`` (``k % 3`` is ``k + k//3`` modulo 4: the Dim algebra reduces ``g``'s
coefficients modulo ``e``, so which lift of a fit's coefficients is taken does not
matter).
"""

from __future__ import annotations

import math
from typing import Final

from .dim import Dim, DimLike
from .dimdivide import dim_floordiv, dim_mod
from .divisors import int_divisors

__all__ = ["MAX_MODULUS", "MAX_MOD_PAIR_PERIOD", "remainder_forms"]

MAX_MODULUS: Final = 16
"""Largest modulus ``e`` tried."""
MAX_MOD_PAIR_PERIOD: Final = 64
"""Longest period (of the increments modulo ``e``) whose two-floor fits are searched."""

_Comb = tuple[int, int, int]  # (c, d, r): c added to the increments at m == r (mod d)


def remainder_forms(n: Dim, increments: tuple[int, ...]) -> list[DimLike]:
    """The forms ``c*((g + s) % e - s)`` (module docstring) of the size of ``n`` that is
    0 at 0 with these periodic increments (one least period); [] where there is none."""
    if sum(increments):
        return []  # not bounded
    g = math.gcd(*increments)
    if not g:
        return []
    out: list[DimLike] = []
    for c in (g, -g):
        out.extend(c * f for f in _forms(n, tuple(v // c for v in increments)))
    return out


def _forms(n: Dim, increments: tuple[int, ...]) -> list[DimLike]:
    values = [0]
    for v in increments[:-1]:
        values.append(values[-1] + v)
    lo, hi = min(values), max(values)
    for e in range(max(2, hi - lo + 1), MAX_MODULUS + 1):
        found = _fits_mod(_least([v % e for v in increments]), e)
        if not found:
            continue
        out = []
        for slope, combs in found:
            total: DimLike = slope * n
            for c, d, r in combs:
                total = total + c * dim_floordiv(n + d - 1 - r, d)
            out.extend(dim_mod(total + s, e) - s for s in range(-lo, e - hi))
        return out
    return []


def _least(steps: list[int]) -> tuple[int, ...]:
    """One least period of periodic steps."""
    size = len(steps)
    for p in range(1, size + 1):
        if size % p == 0 and all(steps[m] == steps[m % p] for m in range(size)):
            return tuple(steps[:p])
    return tuple(steps)


def _fits_mod(seq: tuple[int, ...], e: int) -> list[tuple[int, tuple[_Comb, ...]]]:
    """The fits of a slope and at most two combs (the fewest) of the increments ``seq``
    modulo ``e`` (one least period, each in ``0 .. e - 1``)."""
    q = len(seq)
    divisors = [d for d in int_divisors(q) if d >= 2]  # (a comb's step: 1 is a slope)
    ones: list[tuple[int, tuple[_Comb, ...]]] = []
    for a in range(e):
        left = [(v - a) % e for v in seq]
        odd = [m for m, v in enumerate(left) if v]
        if not odd:
            return [(a, ())]
        for d in divisors:
            r = odd[0] % d
            if odd == list(range(r, q, d)) and len({left[m] for m in odd}) == 1:
                ones.append((a, ((left[r], d, r),)))
    if ones or q > MAX_MOD_PAIR_PERIOD:
        return ones
    twos = set()
    for a in range(e):
        left = [(v - a) % e for v in seq]
        for d1 in divisors:
            for r1 in range(d1):
                found = _second(left, e, d1, r1, divisors)
                if found is not None:
                    twos.add((a, found))
    return sorted(twos)


def _second(left: list[int], e: int, d1: int, r1: int, divisors: list[int]
            ) -> tuple[_Comb, ...] | None:
    """The two combs, the first by ``d1`` at ``r1``, that give ``left`` modulo ``e``;
    None where there are none."""
    q = len(left)
    outside = [m for m in range(q) if m % d1 != r1 and left[m]]
    if not outside or len({left[m] for m in outside}) != 1:
        return None
    c2 = left[outside[0]]
    for d2 in divisors:
        r2 = outside[0] % d2
        if (d2, r2) == (d1, r1) or outside != [m for m in range(q)
                                               if m % d1 != r1 and m % d2 == r2]:
            continue
        own = {(left[m] - c2 * (m % d2 == r2)) % e for m in range(r1, q, d1)}
        if len(own) == 1 and (c1 := own.pop()):
            return tuple(sorted(((c1, d1, r1), (c2, d2, r2)), key=lambda t: (t[1], t[2])))
    return None
