"""Sizes of one symbol as quasi-affine functions: the table that decides their equality.

A size ``f`` of one symbol ``n`` built from ``n``, ints, ``+``, int multiples, floor
division and remainder by ints, min and max is *eventually quasi-affine*: there are a
period ``L`` and a threshold ``T`` with ``f(n + L) - f(n)`` the same int for every
``n >= T``. Floors and remainders by ``k`` multiply the period of their argument by ``k``,
a sum takes the lcm of its terms' (a floor by ``k`` of a size that grows by ``D``
per period, ``L*k/gcd(k, D)``), and a min or max settles (each pair of its arguments
is either ordered or compared periodically) one period after the point where the
trend of their difference outweighs its periodic part. So two such sizes are equal at
every ``n >= 0`` iff they agree on ``0 <= n <= T + L`` (both quasi-affine past ``T``):
:func:`table` gives those values, with the least period and threshold.

Where the increments ``f(n + 1) - f(n)`` are periodic from ``n = 0`` (``T == 0``),
:func:`fits` finds the sparsest ways of writing ``f - f(0)`` as ``a*n`` plus int
multiples of floors ``(n + s)//d`` (``d`` dividing ``L``): one floor, then two; each floor
adds ``c`` to the increments at the residues ``m == d - 1 - s (mod d)`` (a *comb*). The
work is bounded: periods past :data:`MAX_PERIOD` and thresholds past
:data:`MAX_THRESHOLD` are not analysed (the size is left as it is: sound, not
canonical), two-floor fits are searched only up to :data:`MAX_PAIR_PERIOD`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from functools import lru_cache
from typing import Any, Final

import numpy as np

from .divisors import int_divisors
from .poly import Opaque

__all__ = ["MAX_PERIOD", "MAX_THRESHOLD", "Table", "fits", "in_fragment", "least_table", "table",
           "values"]

MAX_PERIOD: Final = 1024
"""Longest period analysed (a stack of 10 stride-2 windows has 1024; wav2vec2's 320)."""
MAX_THRESHOLD: Final = 4096
"""Latest threshold analysed (where a min or max of one symbol settles)."""
MAX_PAIR_PERIOD: Final = 64
"""Longest period whose two-floor forms are searched (the search is ``O(L**2)``)."""
MAX_MINMAX_ARGS: Final = 8
"""Most arguments of a min or max analysed (their pairs are compared)."""
MAX_COMBS: Final = 6
"""Most floors of a form made level by level (past it the size is left as it is)."""
_SMALL: Final = 1 << 62  # values bounded by this are computed in int64

Table = tuple[int, int, int, tuple[int, ...]]  # (threshold, period, f(0), increments)


def _terms(x: Any) -> tuple | int:
    return x if isinstance(x, int | tuple) else x._terms


def in_fragment(x: Any, s: Hashable) -> bool:
    """Whether ``x`` is built from the symbol ``s`` alone by ``+``, int multiples, floor
    division and remainder by ints > 0, min and max (no product, power or other symbol)."""
    return _in_fragment(_terms(x), s)


@lru_cache(maxsize=1 << 14)
def _in_fragment(terms: tuple | int, s: Hashable) -> bool:
    if isinstance(terms, int):
        return True
    for mono, _ in terms:
        if not mono:
            continue
        if len(mono) != 1 or mono[0][1] != 1:
            return False
        atom = mono[0][0]
        if not isinstance(atom, Opaque):
            if atom != s:
                return False
        elif atom.op in ("//", "%"):
            k = atom.args[1]
            if type(k) is not int or k <= 0 or not _in_fragment(_terms(atom.args[0]), s):
                return False
        elif atom.op in ("min", "max"):
            if len(atom.args) > MAX_MINMAX_ARGS or not all(
                    _in_fragment(_terms(g), s) for g in atom.args):
                return False
        else:
            return False
    return True


def _magnitude(terms: tuple | int, top: int) -> int:
    """A bound on ``|x|`` for ``0 <= n <= top``."""
    if isinstance(terms, int):
        return abs(terms)
    total = 0
    for mono, c in terms:
        if not mono:
            total += abs(c)
            continue
        atom = mono[0][0]
        if not isinstance(atom, Opaque):
            m = top
        elif atom.op == "//":
            m = _magnitude(_terms(atom.args[0]), top) + 1
        elif atom.op == "%":
            m = atom.args[1]
        else:
            m = max(_magnitude(_terms(g), top) for g in atom.args)
        total += abs(c) * m
    return total


def values(x: Any, n: np.ndarray) -> np.ndarray:
    """``x`` (in the fragment, of one symbol) at each size of ``n`` (ints ``>= 0``)."""
    terms = _terms(x)
    top = int(n.max()) if len(n) else 0
    if _magnitude(terms, top) >= _SMALL:
        n = n.astype(object)  # exact Python ints where int64 could overflow
    return _values(terms, n)


def _values(terms: tuple | int, n: np.ndarray) -> np.ndarray:
    if isinstance(terms, int):
        return np.full(len(n), terms, dtype=n.dtype)
    total = np.zeros(len(n), dtype=n.dtype)
    for mono, c in terms:
        if not mono:
            total = total + c
            continue
        atom = mono[0][0]
        if not isinstance(atom, Opaque):
            v = n
        elif atom.op == "//":
            v = _values(_terms(atom.args[0]), n) // atom.args[1]
        elif atom.op == "%":
            v = _values(_terms(atom.args[0]), n) % atom.args[1]
        else:
            parts = [_values(_terms(g), n) for g in atom.args]
            v = parts[0]
            for p in parts[1:]:
                v = np.minimum(v, p) if atom.op == "min" else np.maximum(v, p)
        total = total + c * v
    return total


def _shape(terms: tuple | int) -> tuple[int, int, int] | None:
    """``(T, L, D)``: ``x(n + L) == x(n) + D`` for every ``n >= T`` (not the least ``T``
    and ``L``); None past the limits. A floor by ``k`` of a ``(T, L, D)`` size is ``(T,
    L*k/g, D/g)`` for ``g = gcd(k, D)``, its remainder ``(T, L*k/g, 0)``."""
    if isinstance(terms, int):
        return 0, 1, 0
    found = []
    for mono, c in terms:
        if not mono:
            continue
        atom = mono[0][0]
        if not isinstance(atom, Opaque):
            found.append((0, 1, c))
            continue
        if atom.op in ("//", "%"):
            inner = _shape(_terms(atom.args[0]))
            if inner is None:
                return None
            t, p, d = inner
            k = atom.args[1]
            g = math.gcd(k, d)
            shape = (t, p * k // g, d // g if atom.op == "//" else 0)
        else:
            shape = _settled(atom.op, atom.args)
            if shape is None:
                return None
        found.append((shape[0], shape[1], c * shape[2]))
    return _sum(found)


def _sum(shapes: list[tuple[int, int, int]]) -> tuple[int, int, int] | None:
    """The ``(T, L, D)`` of a sum of sizes of these; None past the limits."""
    if not shapes:
        return 0, 1, 0
    threshold = max(t for t, _, _ in shapes)
    period = math.lcm(*(p for _, p, _ in shapes))
    if period > MAX_PERIOD or threshold > MAX_THRESHOLD:
        return None
    return threshold, period, sum(d * (period // p) for _, p, d in shapes)


def _settled(op: str, args: tuple) -> tuple[int, int, int] | None:
    """``(T, L, D)`` of a min or max of ``args``: past ``T`` every pair of them is
    ordered or compared with period ``L``, so which one is least (greatest) has period
    ``L``, and ``D`` is the least (greatest) of theirs."""
    shapes = [_shape(_terms(g)) for g in args]
    if None in shapes:
        return None
    start = max(t for t, _, _ in shapes)
    period = math.lcm(*(p for _, p, _ in shapes))
    if period > MAX_PERIOD or start > MAX_THRESHOLD:
        return None
    steps = [d * (period // p) for _, p, d in shapes]
    points = np.arange(start, start + period + 1)
    vals = [values(g, points) for g in args]
    threshold = start
    for i in range(len(args)):
        for j in range(i + 1, len(args)):
            diff = vals[i] - vals[j]
            trend = steps[i] - steps[j]  # the difference's change per period
            if trend > 0:
                worst = int(diff[:period].min())
                blocks = 0 if worst >= 0 else -(worst // trend)  # ceil(-worst / trend)
            elif trend < 0:
                worst = int(diff[:period].max())
                blocks = 0 if worst <= 0 else -(-worst // -trend)
            else:
                blocks = 0
            threshold = max(threshold, start + blocks * period)
    if threshold > MAX_THRESHOLD:
        return None
    return threshold, period, min(steps) if op == "min" else max(steps)


def table(x: Any) -> Table | None:
    """``(T, L, f(0), increments)`` of ``x`` (in the fragment, of one symbol): the least
    threshold and period, and ``f(n + 1) - f(n)`` for ``n`` in ``0 .. T + L - 1``; two
    sizes are equal at every size iff their tables are. None past the limits."""
    return _table(_terms(x))


@lru_cache(maxsize=1 << 12)
def _table(terms: tuple | int) -> Table | None:
    shape = _shape(terms)
    if shape is None:
        return None
    threshold, period, _ = shape
    return least_table(values(terms, np.arange(threshold + 2 * period + 1)), threshold, period)


def least_table(f: np.ndarray, threshold: int, period: int) -> Table:
    """The table (least threshold and period) of the values ``f`` at ``0 .. T + 2*L`` of
    a size with ``f(n + L) - f(n)`` the same for every ``n >= T``."""
    least = period
    for d in int_divisors(period):  # the least period dividing the one found
        steps = f[threshold + d: threshold + d + period] - f[threshold: threshold + period]
        if (steps == steps[0]).all():
            least = d
            break
    step = f[threshold + least] - f[threshold]
    while threshold and f[threshold - 1 + least] - f[threshold - 1] == step:
        threshold -= 1
    increments = f[1: threshold + least + 1] - f[: threshold + least]
    return threshold, least, int(f[0]), tuple(int(v) for v in increments)


Comb = tuple[int, int, int]  # (c, d, r): c added to the increments at m == r (mod d)
Fit = tuple[int, tuple[Comb, ...]]  # (slope a, combs)


def fits(increments: tuple[int, ...]) -> list[Fit]:
    """The sparsest ways of writing periodic increments (one least period of them) as a
    slope plus combs: one comb, else two; else the combs taken level by level from a few
    slopes (:func:`_greedy`), those of at most :data:`MAX_COMBS` combs."""
    period = len(increments)
    distinct = set(increments)
    if len(distinct) == 1:
        return [(increments[0], ())]
    found = _one_comb(increments)
    if not found and period <= MAX_PAIR_PERIOD:
        found = _two_combs(increments)
    if found:
        return found
    out = []
    for slope in sorted({0, min(distinct), max(distinct),
                         max(sorted(distinct), key=increments.count)}):
        combs = _greedy(increments, slope)
        if len(combs) <= MAX_COMBS:
            out.append((slope, combs))
    return out


def _greedy(inc: tuple[int, ...], slope: int) -> tuple[Comb, ...]:
    """The combs of ``inc - slope`` taken level by level (each divisor ``d`` of the
    period, smallest first, each residue): a class whose steps are all of one sign gives
    a comb of its step nearest 0, taken away before the next."""
    period = len(inc)
    left = [v - slope for v in inc]
    combs = []
    for d in int_divisors(period)[1:]:
        for r in range(d):
            steps = left[r::d]
            if all(v > 0 for v in steps) or all(v < 0 for v in steps):
                c = min(steps, key=abs)
                combs.append((c, d, r))
                left[r::d] = [v - c for v in steps]
    return tuple(combs)


def _one_comb(inc: tuple[int, ...]) -> list[Fit]:
    period = len(inc)
    out = []
    for a in sorted(set(inc)):
        odd = [m for m, v in enumerate(inc) if v != a]
        if len(odd) == 1 and len(set(inc)) == 2:  # one comb has the least period's level
            out.append((a, ((inc[odd[0]] - a, period, odd[0]),)))
    return out


def _two_combs(inc: tuple[int, ...]) -> list[Fit]:
    period = len(inc)
    divisors = [d for d in int_divisors(period) if d > 1]
    out: set[Fit] = set()
    for d1 in divisors:
        for d2 in divisors:
            if math.lcm(d1, d2) != period:  # both orders: a comb inside the other
                continue
            for r1 in range(d1):
                rest = [m for m in range(period) if m % d1 != r1]
                seen = sorted({inc[m] for m in rest})
                if len(seen) != 2:
                    continue
                for a in seen:
                    odd = [m for m in rest if inc[m] != a]
                    r2 = odd[0] % d2
                    if odd != [m for m in rest if m % d2 == r2]:
                        continue
                    c2 = inc[odd[0]] - a
                    own = {inc[m] - a - c2 * (m % d2 == r2) for m in range(r1, period, d1)}
                    if len(own) == 1 and (c1 := own.pop()):
                        out.add((a, tuple(sorted(((c1, d1, r1), (c2, d2, r2)),
                                                 key=lambda t: (t[1], t[2])))))
    return sorted(out)
