"""Where a size in one symbol ``v`` is nowhere 0 from some ``v`` on: a polynomial past its
roots' bound (:func:`past_roots`), and a sum of quotients and remainders of polynomials
by polynomials past the roots of the polynomials that bound it, or a remainder by a
divisor linear in ``v`` past the size it must divide (:func:`bounded_end`).

:mod:`.quotients` reads a quotient exactly where its leading coefficients make few
classes of ``v``'s residues; past :data:`~.quotients.MAX_CLASSES` of them it does not,
and ``(m**4)//(4*m + 1) == 2`` stayed pending, so a goal that grounded its other side
(``membero``) got an answer no size gives. A floor needs no classes to be bounded:
``n//d`` lies in ``[(n - d + 1)/d, n/d]`` and ``n % d`` in ``[0, d - 1]`` where ``d > 0``,
so the sum times the divisors' product lies between two polynomials; past the roots of
the one whose sign it keeps, the sum is not 0, and the sizes below are tried one by one.
A remainder alone keeps no sign (``m**4 % (4*m + 1) == 5``), but by ``d == a*v + b`` it
is ``k`` only where ``d`` divides an int that ``k`` and the dividend give (``256*5 - 1``).
"""

from __future__ import annotations

from typing import Any

from ..types.dim import Dim, DimLike, unknown
from ..types.divisors import int_divisors
from ..types.poly import Opaque

__all__ = ["MAX_DIVIDEND", "bounded_sizes", "coefficients", "int_roots", "past_roots"]

#: The largest int whose divisors are listed (by trial division to its root).
MAX_DIVIDEND = 10**12


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


def int_roots(diff: DimLike, v: Any) -> tuple[int, ...] | None:
    """The sizes that are roots of a polynomial in ``v`` alone (each divides its lowest
    coefficient, or is 0); None where it is no such polynomial or that coefficient is
    past :data:`MAX_DIVIDEND`."""
    powers = coefficients(diff, v)
    if powers is None:
        return None
    low = min(k for k, c in powers.items() if c)
    lowest = abs(powers[low])
    if lowest > MAX_DIVIDEND:
        return None
    tried = {0, *int_divisors(lowest)} if low > 0 else set(int_divisors(lowest))
    return tuple(r for r in sorted(tried)
                 if sum(c * r**k for k, c in powers.items()) == 0)


def bounded_sizes(diff: DimLike, v: Any) -> range | list[int] | None:
    """Sizes ``v`` among which are all the roots of ``diff``, a polynomial in ``v`` plus int
    multiples of products of powers of ``v`` and of quotients ``n // d`` and remainders
    ``n % d`` of polynomials in ``v`` (``d``'s leading coefficient positive): those below
    the roots' bound of every ``d``, of each factor's lower bound where a product needs
    it ``>= 0``, and of the lower (upper) bound of ``diff`` times the divisors, where that
    bound's leading coefficient is positive (negative); for a lone remainder the sizes
    :func:`_remainder_sizes` leaves. None where ``diff`` is not of that form or neither
    applies."""
    if not isinstance(diff, Dim):
        return None
    x = Dim(v) if isinstance(v, str) else unknown(v)
    plain: DimLike = 0
    parts = []  # (c, lo, hi, den): the term lies in [lo/den, hi/den] from `start` on
    single = []  # (c, op, n, d): the terms that are one quotient or remainder
    start, divisors = 0, []
    for mono, c in diff._terms:  # the canonical polynomial (same package family)
        if all(atom == v for atom, _ in mono):
            plain = plain + c * (x ** mono[0][1] if mono else 1)
            continue
        lone = len(mono) == 1 and mono[0][1] == 1
        lo: DimLike = c
        hi: DimLike = c
        den: DimLike = 1
        for atom, power in mono:
            found = _factor(atom, v, x, lone)
            if found is None:
                return None
            f_lo, f_hi, f_den, f_start, d = found
            start = max(start, f_start)
            if d is not None:
                divisors.append(d)
            lo, hi, den = lo * f_lo**power, hi * f_hi**power, den * f_den**power
        if lone and isinstance(mono[0][0], Opaque):
            single.append((c, mono[0][0].op, *mono[0][0].args))
        parts.append((lo, hi, den) if c > 0 else (hi, lo, den))
    product: DimLike = 1
    for _, _, den in parts:
        product = product * den
    low: DimLike = plain * product
    high: DimLike = plain * product
    for k, (lo, hi, _) in enumerate(parts):
        others = _without([d for _, _, d in parts], k)
        low, high = low + lo * others, high + hi * others
    end = _signed_end(low, v, 1)
    end = _signed_end(high, v, -1) if end is None else end
    if end is None and len(single) == 1 and len(parts) == 1 and isinstance(plain, int) \
            and abs(single[0][0]) == 1:
        c, op, n, d = single[0]  # a lone remainder: c*(n % d) + plain == 0
        return _remainder_sizes(op, n, d, -plain * c, v)
    if end is None:
        return None
    for d in divisors:  # (every divisor positive: the bounds hold there)
        past = past_roots(d, v, 0)
        if past is None:
            return None
        end = max(end, past)
    return range(max(end, start))


def _factor(atom: Any, v: Any, x: Dim, lone: bool
            ) -> tuple[DimLike, DimLike, DimLike, int, DimLike | None] | None:
    """``(lo, hi, den, start, d)``: ``atom`` (``v``, or a quotient or remainder of
    polynomials in ``v`` by ``d``) lies in ``[lo/den, hi/den]`` wherever ``d > 0``, and, where
    it is not ``lone`` (a factor of a product), ``lo >= 0`` from ``start`` on (a product's
    bounds are the products of its factors' only where they are ``>= 0``): ``n//d`` in
    ``[(n - d + 1)/d, n/d]`` (from 0, in a product, where ``n - d + 1`` does not end
    positive but ``n >= 0``), ``n % d`` in ``[0, d - 1]``. None
    where it is none of these, or a factor's sign is not known."""
    if atom == v:
        return x, x, 1, 0, None
    if not isinstance(atom, Opaque) or atom.op not in ("//", "%"):
        return None
    n, d = atom.args
    top, bottom = coefficients(n, v), coefficients(d, v)
    if top is None or bottom is None or bottom[max(bottom)] <= 0:
        return None
    if atom.op == "%":
        return 0, d - 1, 1, 0, d
    if lone:
        return n - d + 1, n, d, 0, d
    low = n - d + 1
    if _lead(low, v) > 0:  # (n - d + 1)/d ends positive: from past its roots
        past = past_roots(low, v, 0)
        return None if past is None else (low, n, d, past, d)
    lead = _lead(n, v)
    if lead < 0:
        return None  # (a dividend that ends negative: a quotient of unknown sign)
    past = 0 if lead == 0 else past_roots(n, v, 0)  # n >= 0 from there: n//d >= 0
    return None if past is None else (0, n, d, past, d)


def _lead(x: DimLike, v: Any) -> int:
    """The leading coefficient of a polynomial in ``v`` alone (0 for 0)."""
    found = coefficients(x, v) or {}
    return next((found[k] for k in sorted(found, reverse=True) if found[k]), 0)


def _remainder_sizes(op: str, n: DimLike, d: DimLike, k: int, v: Any) -> list[int] | None:
    """The sizes where ``n % d == k`` may hold, ``d == a*v + b`` (``a >= 1``) and ``n`` of
    degree ``N`` in ``v``: ``a*v`` is ``-b`` modulo ``d``, so ``a**N * n`` is the int
    ``C == a**N * n(-b/a)`` modulo ``d``, and a positive ``d`` divides ``a**N * k - C``
    (those ``v``, and the ``v`` where ``d <= 0``). None where that int is 0, past
    :data:`MAX_DIVIDEND`, or the form differs."""
    top, line = coefficients(n, v), coefficients(d, v)
    if op != "%" or top is None or line is None or k < 0 or max(line) < 1:
        return None
    if max(line) > 1:
        return _remainder_past(top, line, k, v)
    a, b, degree = line[1], line.get(0, 0), max(top)
    gap = abs(a**degree * k - sum(c * a**(degree - i) * (-b)**i for i, c in top.items()))
    if gap == 0 or gap > MAX_DIVIDEND:
        return None
    low = range(max(0, -(b // a) + 1))  # (d <= 0 there)
    return sorted({*low, *((e - b) // a for e in int_divisors(gap) if (e - b) % a == 0
                           and e >= b)})


def _remainder_past(top: dict[int, int], bottom: dict[int, int], k: int, v: Any
                    ) -> list[int] | None:
    """:func:`_remainder_sizes` by a ``d`` of degree ``D >= 2``: the pseudo-remainder
    ``R`` (``lead**e * n == Q*d + R``, ``e == N - D + 1``, ``R`` of degree below ``D``)
    makes ``d`` divide ``g == R - lead**e * k``, so where ``d > |g|`` (past the roots of
    ``d - g`` and ``d + g``) ``g`` is 0: the sizes below, and ``g``'s int roots. None
    where ``g`` is 0 or its roots are not listed."""
    high, lead = max(bottom), bottom[max(bottom)]
    left, steps = {p: c for p, c in top.items() if c}, 0
    while left and max(left) >= high:
        shift, c = max(left) - high, left[max(left)]
        left = {p: lead * c for p, c in left.items()}
        for p, b in bottom.items():
            left[p + shift] = left.get(p + shift, 0) - c * b
        left, steps = {p: c for p, c in left.items() if c}, steps + 1
    scale = lead ** max(0, max(top) - high + 1 - steps)
    power = lead ** max(steps, max(top) - high + 1)
    g = {p: c * scale for p, c in left.items()}
    g[0] = g.get(0, 0) - power * k
    x = unknown(v) if not isinstance(v, str) else Dim(v)
    gap, d = _polynomial(g, x), _polynomial(bottom, x)
    roots = int_roots(gap, v) if not isinstance(gap, int) else () if gap else None
    ends = [past_roots(d + gap, v, 0), past_roots(d - gap, v, 0), past_roots(d, v, 0)]
    if roots is None or None in ends:
        return None
    return sorted({*range(max(ends)), *roots})


def _polynomial(found: dict[int, int], x: Dim) -> DimLike:
    """The polynomial in ``x`` with these coefficients by power."""
    return sum((c if p == 0 else c * x**p for p, c in found.items() if c), 0)


def _without(divisors: list, k: int) -> DimLike:
    """The product of ``divisors`` but the ``k``-th."""
    product: DimLike = 1
    for j, e in enumerate(divisors):
        if j != k:
            product = product * e
    return product


def _signed_end(bound: DimLike, v: Any, sign: int) -> int | None:
    """A size past which the polynomial ``bound`` (in ``v``) has the sign ``sign`` and is
    not 0; None where its leading coefficient has the other sign, or it is none."""
    found = coefficients(bound, v)
    if found is None or not any(found.values()):
        return None
    lead = found[max(k for k, c in found.items() if c)]
    if (lead > 0) != (sign > 0):
        return None
    return past_roots(bound, v, 0)
