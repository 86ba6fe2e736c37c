"""Where a size in one symbol ``v`` is nowhere 0 from some ``v`` on: a polynomial past its
roots' bound (:func:`~.polybounds.past_roots`), and a sum of products of quotients,
remainders, min and max of polynomials past the roots of the polynomials that bound it
(:mod:`.polybounds`), or a remainder by a divisor linear in ``v`` past the size it must
divide (:func:`bounded_sizes`).

:mod:`.quotients` reads a quotient exactly where its leading coefficients make few
classes of ``v``'s residues; past :data:`~.quotients.MAX_CLASSES` of them it does not,
and ``(m**4)//(4*m + 1) == 2`` stayed pending, so a goal that grounded its other side
(``membero``) got an answer no size gives. A floor needs no classes to be bounded:
``n//d`` lies in ``[(n - d + 1)/d, n/d]`` and ``n % d`` in ``[0, d - 1]`` where ``d > 0``,
so the sum times the divisors' product lies between two polynomials (a product of such
sizes, ``m*(3 % m) + m//36``, and a min or max of them too: :mod:`.polybounds`); past the
roots of the one whose sign it keeps, the sum is not 0, and the sizes below are tried
one by one.
A remainder alone keeps no sign (``m**4 % (4*m + 1) == 5``), but by ``d == a*v + b`` it
is ``k`` only where ``d`` divides an int that ``k`` and the dividend give (``256*5 - 1``).
"""

from __future__ import annotations

from typing import Any

from ..types.dim import Dim, DimLike, unknown
from ..types.divisors import int_divisors
from ..types.poly import Opaque
from .polybounds import bounds, coefficients, lead, past_roots

__all__ = ["MAX_DIVIDEND", "bounded_sizes", "coefficients", "int_roots", "past_roots"]

#: The largest int whose divisors are listed (by trial division to its root).
MAX_DIVIDEND = 10**12


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
    """Sizes ``v`` among which are all the roots of ``diff``, a size in ``v`` built from
    ints, ``+``, ``*``, quotients and remainders by polynomials in ``v`` that end positive,
    min and max: those below where its polynomial bounds (:func:`.polybounds.bounds`)
    hold and the lower (upper) one, with a positive (negative) leading coefficient, has
    no more roots; for a lone remainder the sizes :func:`_remainder_sizes` leaves. None
    where ``diff`` is not of that form or neither applies."""
    if not isinstance(diff, Dim):
        return None
    x = Dim(v) if isinstance(v, str) else unknown(v)
    found = bounds(diff, v, x)
    if found is not None:
        lo, hi, _, start = found
        end = _signed_end(lo, v, 1)
        end = _signed_end(hi, v, -1) if end is None else end
        if end is not None:
            return range(max(end, start))
    atoms = [(mono, c) for mono, c in diff._terms if mono]
    if len(atoms) != 1 or len(atoms[0][0]) != 1 or atoms[0][0][0][1] != 1 \
            or abs(atoms[0][1]) != 1 or not isinstance(atoms[0][0][0][0], Opaque):
        return None
    (((atom, _),), c) = atoms[0]  # a lone remainder: c*(n % d) + plain == 0
    if atom.op != "%" or lead(atom.args[1], v) <= 0:
        return None
    plain = sum((k for mono, k in diff._terms if not mono), 0)
    return _remainder_sizes(atom.op, *atom.args, -plain * c, v)


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
