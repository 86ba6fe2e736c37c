"""Bounds of size expressions from their structure alone: every size is an integer
``>= 0``, a remainder by ``k`` lies in ``[0, k)``, a floor quotient between the
quotients of its argument's bounds, and so on (interval arithmetic over the atoms of a
canonical polynomial, :mod:`kantensor.types.poly`). Sound, and cheap enough for the Dim
algebra to consult whenever it builds a min, max, floor or remainder; the facts-aware
bounds are :func:`kantensor.types.prove.bounds`."""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any

from .poly import Opaque

__all__ = ["Interval", "interval", "mul_interval", "nonnegative", "nonnegative_atom",
           "power_interval"]


def _terms(x: Any) -> tuple | int:
    """The canonical terms of a size (an int is a constant)."""
    return x if isinstance(x, int) else x._terms


def power_interval(lo: int | None, hi: int | None, p: int) -> tuple[int | None, int | None]:
    """Bounds of ``x**p`` for ``x`` in ``[lo, hi]`` (None: unbounded), where cheap."""
    if lo is not None and lo >= 0:
        return lo ** p, None if hi is None else hi ** p
    if p % 2:  # odd: increasing
        return None if lo is None else lo ** p, None if hi is None else hi ** p
    if hi is not None and hi <= 0:  # even, of a negative base: decreasing
        return hi ** p, None if lo is None else lo ** p
    return 0, None


def mul_interval(a: int | None, b: int | None, c: int | None, d: int | None
                 ) -> tuple[int | None, int | None]:
    """Bounds of ``x*y`` for ``x`` in ``[a, b]`` and ``y`` in ``[c, d]``, both ``>= 0``."""
    if a is not None and c is not None and a >= 0 and c >= 0:
        return a * c, None if b is None or d is None else b * d
    return None, None


def nonnegative_atom(atom: Hashable) -> bool:
    """Whether an atom is ``>= 0`` at every size, by its structure."""
    if not isinstance(atom, Opaque):
        return True  # a symbol or an unknown: a size
    if atom.op == "%":  # (Python's: of the divisor's sign; 0 raises)
        return nonnegative(atom.args[1])
    if atom.op in ("//", "/"):
        return nonnegative(atom.args[0]) and nonnegative(atom.args[1])
    if atom.op == "min":
        return all(nonnegative(g) for g in atom.args)
    return any(nonnegative(g) for g in atom.args)  # max


def nonnegative(x: Any) -> bool:
    """A cheap sufficient test that a size expression is ``>= 0`` for every size:
    every coefficient (and the constant) ``>= 0`` over atoms that are."""
    terms = _terms(x)
    if isinstance(terms, int):
        return terms >= 0
    return all(c > 0 and all(nonnegative_atom(a) for a, _ in mono) or (not mono and c >= 0)
               for mono, c in terms)


Interval = tuple[int | None, int | None]  # None: unbounded on that side


def interval(x: Any) -> Interval:
    """Bounds of a size expression from its structure alone (every size ``>= 0``):
    interval arithmetic over its atoms. Sound, and cheap enough for the Dim algebra."""
    terms = _terms(x)
    if isinstance(terms, int):
        return terms, terms
    return _interval_of(terms)


@lru_cache(maxsize=1 << 14)
def _interval_of(terms: tuple) -> Interval:
    lo: int | None = 0
    hi: int | None = 0
    for mono, c in terms:
        mlo, mhi = 1, 1
        for atom, p in mono:
            alo, ahi = power_interval(*_atom_interval(atom), p)
            mlo, mhi = _times(mlo, mhi, alo, ahi)
        tlo, thi = _times(mlo, mhi, c, c)
        lo = None if lo is None or tlo is None else lo + tlo
        hi = None if hi is None or thi is None else hi + thi
    return lo, hi


def _atom_interval(atom: Hashable) -> Interval:
    if not isinstance(atom, Opaque):
        return 0, None
    op, args = atom.op, atom.args
    if op in ("min", "max"):
        bounds_ = [interval(g) for g in args]
        los, his = [b[0] for b in bounds_], [b[1] for b in bounds_]
        if op == "min":
            return (None if None in los else min(los)), \
                (min(h for h in his if h is not None) if any(h is not None for h in his)
                 else None)
        return (max(lo for lo in los if lo is not None) if any(lo is not None for lo in los)
                else None), (None if None in his else max(his))
    num = interval(args[0])
    if type(args[1]) is int and args[1] > 0:
        k = args[1]
        if op == "%":
            if num[0] is not None and num[1] is not None and num[0] // k == num[1] // k:
                return num[0] % k, num[1] % k
            return 0, k - 1
        if op == "/":
            return (None if num[0] is None else -(-num[0] // k),
                    None if num[1] is None else num[1] // k)
        return (None if num[0] is None else num[0] // k,
                None if num[1] is None else num[1] // k)
    den = interval(args[1])  # a size divisor is positive where the algebra made it (a
    # traced program's negative one is divided as a positive one: dimorder.divided); one
    # built as it is (ONNX's Mod of -D) has Python's sign: the remainder the divisor's
    if op == "%":
        if den[0] is not None and den[0] >= 0:  # (0 raises: d >= 1)
            return 0, None if den[1] is None else max(den[1] - 1, 0)
        return (None if den[0] is None else min(den[0] + 1, 0),
                None if den[1] is None else max(den[1] - 1, 0))
    if op == "/" or den[0] is None or den[0] < 0:
        return None, None
    # floor(n/d) for d >= 1 lies between n and 0: in [0, hi] for n >= 0, [lo, -1] for
    # n <= -1 ((-4)//(k - n) is negative), else in [lo, hi]
    return (0 if num[0] is not None and num[0] >= 0 else num[0],
            -1 if num[1] is not None and num[1] <= -1 else num[1])


def _times(a: int | None, b: int | None, c: int | None, d: int | None) -> Interval:
    """``[a, b] * [c, d]`` with None for an unbounded side."""
    inf = float("inf")
    lo1, hi1 = (-inf if a is None else a), (inf if b is None else b)
    lo2, hi2 = (-inf if c is None else c), (inf if d is None else d)
    products = []
    for x in (lo1, hi1):
        for y in (lo2, hi2):
            products.append(0 if (x == 0 or y == 0) else x * y)
    low, high = min(products), max(products)
    return (None if low == -inf else int(low)), (None if high == inf else int(high))
