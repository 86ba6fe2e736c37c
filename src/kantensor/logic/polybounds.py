"""Polynomial bounds of a size in one symbol ``v`` from some ``v`` on (:func:`bounds`):
``lo <= den*x <= hi`` for every ``v >= start``, ``lo``, ``hi`` and ``den > 0`` polynomials
in ``v``. :mod:`.polyends` ends an equation ``x == 0`` with them: past the roots of a
bound that keeps its sign, ``x`` is never 0.

A quotient ``n // d`` by a polynomial ``d`` that ends positive lies in ``[(n - d + 1)/d,
n/d]`` and a remainder ``n % d`` in ``[0, d - 1]``; a sum's bounds are its terms' over
one denominator; a product's are its factors' products where each factor's lower bound
ends ``>= 0`` (a lone factor needs no sign); a ``min`` or ``max`` is bounded by the
argument bounds that end least (greatest): past the roots of their differences, one
rational function stays below the others. A size dividing by a size whose divisor is
0 from some ``v`` on has no value there, so any bound holds of it vacuously; callers
try the sizes below ``start`` one by one.
"""

from __future__ import annotations

from typing import Any

from ..types.dim import Dim, DimLike
from ..types.poly import Opaque

__all__ = ["MAX_DEGREE", "bounds", "coefficients", "lead", "past_roots"]

#: The highest degree a bound may reach (a product of many quotients): past it, None.
MAX_DEGREE = 24

Bounds = tuple[DimLike, DimLike, DimLike, int]  # (lo, hi, den, start)


def coefficients(x: DimLike, v: Any) -> dict[int, int] | None:
    """A polynomial in ``v`` alone as its coefficients by power (``{0: x}`` for an int);
    None where ``x`` is not one."""
    if isinstance(x, int):
        return {0: x}
    found = {}
    for mono, c in x._terms:  # the canonical polynomial (same package family)
        if len(mono) > 1 or (mono and mono[0][0] != v):
            return None
        found[mono[0][1] if mono else 0] = c
    return found


def past_roots(value: DimLike, v: Any, start: int) -> int | None:
    """A size from which on ``value``, a polynomial in ``v`` that ``diff`` equals from
    ``start`` on, is never 0: ``start`` for a nonzero int, else past the bound on its
    roots' size, the less of Cauchy's ``1 + max|c_i| / |c_n|`` and Fujiwara's ``2*max
    (|c_(n-k)| / |c_n|)**(1/k)``; None where it is 0 (every size from ``start`` on is
    one) or no polynomial in ``v`` alone."""
    if isinstance(value, int):
        return None if value == 0 else start
    found = coefficients(value, v)
    if found is None:
        return None
    top = max(found)
    lead = abs(found[top])
    lower = max((abs(c) for k, c in found.items() if k != top), default=0)
    fujiwara = 2 * max((_root_up(-(-abs(c) // lead), top - k) for k, c in found.items()
                        if k != top), default=0) + 1
    return max(start, min(2 + lower // lead, fujiwara))


def _root_up(q: int, k: int) -> int:
    """The least int ``b >= 0`` with ``b**k >= q`` (past a float's range, one such)."""
    if q.bit_length() > 1000:
        return 1 << -(-q.bit_length() // k)
    b = max(0, round(q ** (1 / k)))
    while b**k < q:
        b += 1
    while b > 0 and (b - 1) ** k >= q:
        b -= 1
    return b


def bounds(x: DimLike, v: Any, xv: Dim) -> Bounds | None:
    """``(lo, hi, den, start)`` with ``lo <= den*x <= hi`` and ``den > 0`` for every ``v
    >= start`` (``xv`` the Dim of ``v``); None where ``x`` is not built from ``v``, ints,
    ``+``, ``*``, quotients and remainders by polynomials in ``v`` and min and max, or a
    bound is past :data:`MAX_DEGREE`."""
    if isinstance(x, int):
        return x, x, 1, 0
    parts: list[Bounds] = []
    for mono, c in x._terms:  # the canonical polynomial (same package family)
        lone = len(mono) == 1 and mono[0][1] == 1
        lo: DimLike = 1
        hi: DimLike = 1
        den: DimLike = 1
        start = 0
        for atom, power in mono:
            found = _atom(atom, v, xv)
            if found is None:
                return None
            f_lo, f_hi, f_den, f_start = found
            start = max(start, f_start)
            if not lone:  # (a product: its factors' bounds multiply where they are >= 0)
                past = _nonnegative_from(f_lo, v)
                if past is None:
                    return None
                start = max(start, past)
            lo, hi, den = lo * f_lo**power, hi * f_hi**power, den * f_den**power
        lo, hi = (c * lo, c * hi) if c > 0 else (c * hi, c * lo)
        parts.append((lo, hi, den, start))
    return _sum(parts, v)


def lead(x: DimLike, v: Any) -> int:
    """The leading coefficient of a polynomial in ``v`` alone (0 for 0)."""
    found = coefficients(x, v) or {}
    return next((found[k] for k in sorted(found, reverse=True) if found[k]), 0)


def _atom(atom: Any, v: Any, xv: Dim) -> Bounds | None:
    if atom == v:
        return xv, xv, 1, 0
    if not isinstance(atom, Opaque):
        return None
    if atom.op in ("min", "max"):
        return _extreme(atom, v, xv)
    if atom.op not in ("//", "%"):
        return None
    n, d = atom.args
    bottom = coefficients(d, v)
    if bottom is None or lead(d, v) <= 0:
        return None
    start = past_roots(d, v, 0)  # d > 0 from there
    if start is None:
        return None
    if atom.op == "%":
        return 0, d - 1, 1, start
    found = bounds(n, v, xv)  # lo/den <= n <= hi/den: (n - d + 1)/d <= n//d <= n/d
    if found is None:
        return None
    lo, hi, den, n_start = found
    return _checked(lo - den * (d - 1), hi, den * d, max(start, n_start), v)


def _extreme(atom: Opaque, v: Any, xv: Dim) -> Bounds | None:
    """A ``min`` (``max``) between the least (greatest) of its arguments' lower bounds and
    of their upper bounds from where no two of them cross again."""
    found = [bounds(g, v, xv) for g in atom.args]
    if any(f is None for f in found):
        return None
    common = _sum([(lo, hi, den, start) for lo, hi, den, start in found], v, each=True)
    if common is None:
        return None
    los, his, den, start = common
    picked = []
    for side in (los, his):
        best = side[0]
        for other in side[1:]:
            gap = other - best
            sign = lead(gap, v)
            if sign == 0:
                continue
            past = past_roots(gap, v, start)
            if past is None:
                return None
            start = past
            if (sign < 0) == (atom.op == "min"):
                best = other
        picked.append(best)
    return _checked(picked[0], picked[1], den, start, v)


def _sum(parts: list[Bounds], v: Any, each: bool = False) -> Any:
    """The bounds of a sum of terms with these bounds, over the product of their
    denominators; with ``each``, ``(los, his, den, start)``: every term's over it."""
    den: DimLike = 1
    for _, _, d, _ in parts:
        den = den * d
    los, his, start = [], [], 0
    for k, (lo, hi, _, s) in enumerate(parts):
        others: DimLike = 1
        for j, (_, _, d, _) in enumerate(parts):
            if j != k:
                others = others * d
        los.append(lo * others)
        his.append(hi * others)
        start = max(start, s)
    if each:
        return los, his, den, start
    return _checked(sum(los, 0), sum(his, 0), den, start, v)


def _checked(lo: DimLike, hi: DimLike, den: DimLike, start: int, v: Any) -> Bounds | None:
    """The bounds, None where one is past :data:`MAX_DEGREE` (or not in ``v`` alone)."""
    for p in (lo, hi, den):
        found = coefficients(p, v)
        if found is None or max(found) > MAX_DEGREE:
            return None
    return lo, hi, den, start


def _nonnegative_from(lo: DimLike, v: Any) -> int | None:
    """A size from which the polynomial ``lo`` is ``>= 0``; None where it ends negative."""
    if isinstance(lo, int):
        return 0 if lo >= 0 else None
    if lead(lo, v) < 0:
        return None
    return past_roots(lo, v, 0)
