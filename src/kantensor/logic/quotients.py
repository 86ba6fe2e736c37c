"""Sizes that divide by a size: the values of the one symbol ``v`` of a divisor that
meet ``c // e == k`` or ``c % e == k`` (``c`` and ``k`` ints, ``e`` linear in ``v``).

A floor division by an int is :func:`~.oneunknown.solve_one`'s own (``a0//2 == 3``: 6 or 7);
by a size, the quotient falls as the divisor grows, so a quotient ``k >= 1`` leaves the
divisor a few values and a remainder ``k < c`` leaves it the divisors of ``c - k``
(``2 == 3//b`` holds at no ``b``: ``3//1 == 3``, ``3//2 == 3//3 == 1``, then 0). A size
that divides by a size growing with ``v`` takes from some ``v`` on a polynomial's values,
its dividend too (``b//b`` is 1 from ``b == 1``, ``(b + 1)//b`` 1 from 2): the sizes
below are few (:func:`tail_values`). Without these an equation the facts cannot decide
stayed pending, and a goal that grounded its other side (``membero``) got an answer that
no size gives.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

from ..types.dim import Dim, DimLike, unknown
from ..types.dimfacts import NO_SOLUTION
from ..types.divisors import by_size, divides, int_divisors
from ..types.poly import Opaque
from ..types.readback import has_opaque
from ..types.symbols import free_symbols, substitute
from .polyends import MAX_DIVIDEND, bounded_sizes, coefficients, int_roots, past_roots

__all__ = ["SUBSTITUTIONS", "Spent", "charge", "divided_values", "linear_form", "lone_atom",
           "may_hold", "named_values", "no_divisor", "tail_values"]

#: The substitutions :func:`may_hold` may still make, where a caller bounds the work
#: of its asks (``run``'s witness search: one budget over all its asks), else None.
SUBSTITUTIONS: ContextVar[list[int] | None] = ContextVar("SUBSTITUTIONS", default=None)


class Spent(Exception):
    """:data:`SUBSTITUTIONS` ran out: the ask is abandoned (its caller refuses)."""

#: Most divisors a quotient leaves listed (more: the equation waits, as before); the
#: largest dividend whose divisors a remainder lists is polyends.MAX_DIVIDEND.
MAX_VALUES = 64
#: Most sizes :func:`tail_values` tries one by one below the point where every divisor
#: exceeds its dividend.
MAX_TRIED = 256
#: Most sizes tried where the floors' bounds end ``diff`` (logic/polyends): more than
#: :data:`MAX_TRIED`, since only they decide it there (else a grounding waits for a
#: witness, :mod:`.witness`).
MAX_BOUNDED = 2048


def divided_values(diff: Dim, v: Any) -> int | tuple[int, ...] | Any:
    """The sizes ``v`` (an unknown's key or a name) with ``diff == 0`` where ``diff`` is
    ``±(c // e) + k`` or ``±(c % e) + k``, ``c >= 0`` an int and ``e`` linear in ``v``
    and growing with it: an int if one, a tuple if several, NO_SOLUTION if none; None
    where ``diff`` is not of that form or the values are unbounded."""
    form = _form(diff, v)
    if form is None:
        return None
    op, c, k, (a, b) = form
    divisors = _divisors(op, c, k)
    if divisors is None:
        return None
    values = tuple(sorted({(e - b) // a for e in divisors if (e - b) % a == 0 and e >= b}))
    if len(values) > MAX_VALUES:
        return None
    return NO_SOLUTION if not values else values[0] if len(values) == 1 else values


def no_divisor(diff: Dim) -> bool:
    """Whether ``diff == 0`` says ``c // e == k`` or ``c % e == k`` (ints ``c, k >= 0``)
    where no int ``e`` gives ``k``, whatever sizes ``e`` is of (``4 % e == 2``: ``e``
    would divide 2 and exceed 2)."""
    lone = lone_atom(diff)
    if lone is None:
        return False
    atom, k = lone
    op, args = getattr(atom, "op", None), getattr(atom, "args", ())
    if op not in ("//", "%") or not isinstance(args[0], int) or args[0] < 0 or k < 0:
        return False
    found = _divisors(op, args[0], k)
    return found is not None and len(found) == 0


def lone_atom(diff: Dim) -> tuple[Any, int] | None:
    """``(atom, k)`` where ``diff`` is ``±atom + c`` (one atom, to the first power), so that
    ``diff == 0`` says ``atom == k``; None where it is not that."""
    atoms = [(mono, c) for mono, c in diff._terms if mono]
    if len(atoms) != 1 or len(atoms[0][0]) != 1 or atoms[0][0][0][1] != 1 \
            or abs(atoms[0][1]) != 1:
        return None
    (((atom, _),), sign) = atoms[0]
    return atom, -sign * sum(c for mono, c in diff._terms if not mono)


def _form(diff: Dim, v: Any) -> tuple[str, int, int, tuple[int, int]] | None:
    """``(op, c, k, (a, b))`` where ``diff == 0`` says ``c op (a*v + b) == k``, ``op``
    ``//`` or ``%``, ``c, k >= 0`` ints and ``a >= 1``; None where it is not that."""
    lone = lone_atom(diff)
    if lone is None:
        return None
    atom, k = lone
    op, args = getattr(atom, "op", None), getattr(atom, "args", ())
    if op not in ("//", "%") or not isinstance(args[0], int) or args[0] < 0 or k < 0:
        return None
    line = linear_form(args[1], v)
    return None if line is None or line[0] <= 0 else (op, args[0], k, line)


def named_values(diff: DimLike, s: dict, pending: Iterable) -> int | tuple[int, ...] | Any:
    """:func:`divided_values` for a difference over one named size (``2 - 3//b``), which
    the facts alone may leave undecided, less the values at which another pending
    equation over that name fails whatever its other sizes are (``3//b == 0`` leaves
    ``b >= 4``, unbounded, but ``3 % b == 1`` leaves 2: together, none); None where
    that does not apply. A name is never bound, so the values are a refutation only:
    NO_SOLUTION, or else the equation stays a condition."""
    names = free_symbols(diff) if isinstance(diff, Dim) else set()
    if len(names) != 1 or not isinstance(next(iter(names)), str):
        return None
    (name,) = names
    if not has_opaque(diff):  # a polynomial in the name: its int roots (3*b*(b - 3) == 3:
        roots = int_roots(diff, name)  # none)
        return roots if roots is None or roots else NO_SOLUTION
    if not divides(diff) and not by_size(diff) and not _floored(diff._terms):
        return None  # (a divisor inside min or max too: min(2, b//4) + min(2, (b + 2) % 33))
    sides = [_difference(c, s) for c in pending if getattr(c, "op", "==") == "=="]
    sides = [diff] + [d for d in sides if d is not None and name in free_symbols(d)]
    values = next((v for d in sides for v in (divided_values(d, name),
                                              tail_values(d, name)) if v is not None), None)
    if values is None or values is NO_SOLUTION:
        return values
    values = values if isinstance(values, tuple) else (values,)
    return tuple(n for n in values if all(may_hold(d, {name: n}) for d in sides)) \
        or NO_SOLUTION


def _floored(terms: tuple) -> bool:
    """Whether a size has a quotient or remainder at any depth (by an int too)."""
    return any(isinstance(a, Opaque) and (a.op in ("//", "%") or any(
        not isinstance(g, int) and _floored(g._terms) for g in a.args))
        for mono, _ in terms for a, _ in mono)


def tail_values(diff: DimLike, v: Any) -> tuple[int, ...] | None:
    """Every size ``v`` with ``diff == 0``, ``v`` its one symbol, where ``diff`` has a
    ``//``, ``%``, ``min`` or ``max``, each ``//`` and ``%`` of it divides by a size
    growing with ``v`` (from some ``v`` on) a dividend that is from some ``v`` on a
    polynomial in ``v`` (one the divisor divides but for its last coefficient's floor;
    by an int, in each class of ``v``'s residues: :func:`_by_residues`), and each
    ``min`` and ``max`` is of such sizes (``3//v + 3 % v``, ``10//v//v``, ``v//v``,
    ``(2*v + 3) % v``, ``(v*v)//v``, ``(v*v) % 4``): from some ``v`` on a quotient and
    a remainder are polynomials in ``v`` (``(2*v + 3) % v`` is 3 from ``v == 4``), or a
    divisor is 0 (``v//(1//v)`` has no value from ``v == 2``), so ``diff`` is there a
    polynomial in ``v`` (0: unbounded, None; else no size past its roots' bound) or has
    no value, and the sizes below are tried one by one. None where it does not apply,
    the sizes to try are more than :data:`MAX_TRIED` or those found more than
    :data:`MAX_VALUES`."""
    if not isinstance(diff, Dim) or free_symbols(diff) != {v} or not has_opaque(diff):
        return None  # (a polynomial's roots are solve_one's)
    end = _end(diff, v)
    if end is None:
        found = next((found for period in (_period(diff._terms, v), MAX_PERIOD)
                      if period is not None and period > 1
                      and (found := _by_residues(diff, v, period)) is not None), None)
        sizes = bounded_sizes(diff, v) if found is None else None  # (classes past the cap)
        if sizes is None or len(sizes) > MAX_BOUNDED:
            far = _period(diff._terms, v, MAX_FAR_CLASSES) if found is None else None
            return _by_residues(diff, v, far) if far is not None and far > MAX_CLASSES \
                else found  # (a remainder by an int past the cap: (m*m) % 33 == 2)
    else:
        sizes = range(end)
    found = tuple(n for n in sizes if may_hold(diff, {v: n}))
    return found if len(found) <= MAX_VALUES else None


def _end(diff: DimLike, v: Any) -> int | None:
    """A size from which on ``diff`` (``v`` its one symbol) is nowhere 0, at most
    :data:`MAX_TRIED`, by :func:`_tail`; None where there is none such."""
    tail = _tail(diff, v)
    if tail is None:
        return None
    value, start = tail
    end = start if value is _NOWHERE else past_roots(value, v, start)
    return None if end is None or end > MAX_TRIED else end


#: The period :func:`_by_residues` tries where a size's divisors give none that reads it
#: (the lcm of 1 .. 4), and the largest it splits a size by (the lcm of its int divisors
#: and of its polynomial quotients' denominators, :func:`_period`).
MAX_PERIOD = 12
MAX_CLASSES = 32
#: The most classes tried where neither those nor the floors' bounds (logic/polyends)
#: decide an equation: else it waits, and ``run`` gives its other side only where a
#: witness holds (:mod:`.witness`; ``m//m + (m*m) % 33 == 3`` holds nowhere: 2 is no
#: square modulo 3).
MAX_FAR_CLASSES = 256
#: The most sizes :func:`_by_residues` tries over all its classes (each below its end):
#: past it the equation is left undecided, never guessed.
MAX_RESIDUE_TRIED = 8192


def _by_residues(diff: Dim, v: Any, period: int) -> tuple[int, ...] | None:
    """:func:`tail_values` where ``diff`` divides by ints too (``(m % 2) % m``, ``(m*m) %
    4``) or by a polynomial whose leading coefficient does not divide the quotient's
    (``(m*m)//(2*m + 1)`` is ``m/2 - 1/4`` but for a fraction that falls to 0): in each
    class ``v == L*t + r`` (``L`` the ``period``: :func:`_period`'s, or
    :data:`MAX_PERIOD` where an int divisor shows only from some size on, ``m % ((2*m)//m)``)
    each is a polynomial in ``t`` where its dividend is (the quotient's coefficients ints
    but for the last), so :func:`_tail` reads ``diff`` over ``t``; the sizes below each
    class's end are tried one by one. None where some class has no end, the sizes to
    try are more than :data:`MAX_RESIDUE_TRIED` in all, or too many sizes hold."""
    key = object()  # t: a fresh unknown's key
    t = unknown(key)
    ends = []
    for r in range(period):
        try:
            over = substitute(diff, {v: period * t + r})
        except ZeroDivisionError:  # (no value in this class)
            continue
        end = (0 if over else None) if isinstance(over, int) else _end(over, key)
        if end is None:
            return None
        ends.append((r, end))
    if sum(end for _, end in ends) > MAX_RESIDUE_TRIED:
        return None  # (undecided: ``(m*m) % 255 + 3*(60000//(m + 1))`` would try 120k)
    found = []
    for r, end in ends:
        for k in range(end):
            if may_hold(diff, {v: period * k + r}):
                found.append(period * k + r)
                if len(found) > MAX_VALUES:
                    return None
    return tuple(sorted(found))


def _period(terms: tuple, v: Any, cap: int = MAX_CLASSES) -> int | None:
    """The lcm of the ints a size's quotients and remainders divide by, of a min's or
    max's int arguments (a divisor from some size on) and of :func:`_denominator` of its
    quotients and remainders by polynomials in ``v``, at any depth (1 where there are
    none); None past ``cap`` (:data:`MAX_CLASSES`)."""
    period = 1
    for mono, _ in terms:  # the canonical polynomial (same package family)
        for atom, _ in mono:
            if not isinstance(atom, Opaque):
                continue
            if atom.op in ("//", "%") and isinstance(atom.args[1], int) or \
                    atom.op in ("min", "max"):  # (min(m, 3) is 3 from some m on)
                ints = atom.args[1:] if atom.op in ("//", "%") else atom.args
                period = math.lcm(period, *(abs(a) or 1 for a in ints if isinstance(a, int)))
            elif atom.op in ("//", "%"):
                period = math.lcm(period, _denominator(*atom.args, v))
            for arg in atom.args:
                inner = 1 if isinstance(arg, int) else _period(arg._terms, v, cap)
                if inner is None or period > cap:
                    return None
                period = math.lcm(period, inner)
            if period > cap:
                return None
    return period


def _denominator(n: DimLike, d: Dim, v: Any) -> int:
    """A period ``L`` over whose classes ``v == L*t + r`` the quotient of the polynomial
    ``n`` by the polynomial ``d`` (in ``v``) has int coefficients but for the last: ``b**(N
    - D)`` for ``d``'s leading coefficient ``b`` and degrees ``N >= D`` (the quotient's
    coefficient of ``v**i`` is a fraction over ``b**(N - D - i + 1)``, and each of
    ``t**j``, ``j >= 1``, takes ``L**j`` times it); 1 where they are no polynomials in
    ``v`` or :data:`MAX_CLASSES` is passed (then the classes are not tried)."""
    top, bottom = coefficients(n, v), coefficients(d, v)
    if top is None or bottom is None:
        return 1
    high = max(k for k, c in bottom.items() if c)
    lead, excess = abs(bottom[high]), max(top) - high
    if lead == 1 or excess <= 0 or excess * (lead.bit_length() - 1) > MAX_CLASSES.bit_length():
        return 1
    found = lead**excess
    return found if found <= MAX_CLASSES else 1


#: What :func:`_tail` gives for a size that has no value from some size on.
_NOWHERE = object()


def _tail(x: DimLike, v: Any) -> tuple[Any, int] | None:
    """``(value, start)``: ``x``'s value for every ``v >= start``, a polynomial in ``v``
    with each ``//`` and ``%`` of it replaced as :func:`tail_values` says, or
    :data:`_NOWHERE`; None where one is not of that kind."""
    if isinstance(x, int):
        return x, 0
    total: DimLike = 0
    start = 0
    for mono, coefficient in x._terms:  # the canonical polynomial (same package family)
        term: DimLike = coefficient
        for atom, power in mono:
            if not isinstance(atom, Opaque):
                term = term * (Dim(atom) if isinstance(atom, str) else unknown(atom)) ** power
                continue
            found = _divided_tail(atom, v) if atom.op in ("//", "%") else \
                _extreme_tail(atom, v) if atom.op in ("min", "max") else None
            if found is None or found[0] is _NOWHERE:
                return found  # (no value there, whatever the other atoms are)
            start = max(start, found[1])
            term = term * found[0] ** power
        total = total + term
    return total, start


def _divided_tail(atom: Opaque, v: Any) -> tuple[Any, int] | None:
    """:func:`_tail` of a quotient or remainder ``n // d`` or ``n % d``, ``n`` and ``d``
    from some ``v`` on polynomials in ``v`` (their own :func:`_tail`); a divisor 0 there
    leaves no value. By an int ``d``, ``n == d*p + c`` with ``p``'s coefficients ints
    (else None: :func:`_by_residues` splits ``v`` into classes first) gives ``p + c//d``
    and ``c % d``. By ``d == a2*v + b2`` and ``n == a1*v + b1`` (``a2 >= 1``; a falling
    divisor is read with both signs turned, as Python's ``//`` and ``%`` allow), ``n`` is
    ``q*d + r*v + s`` (``q, r = divmod(a1, a2)``), so the quotient is ``q`` and the
    remainder ``r*v + s`` once that lies in ``[0, d)`` (``r == 0 > s``: ``q - 1`` and
    ``d + s``). A dividend or divisor of degree 2 or more is :func:`_by_polynomial`'s."""
    top, bottom = _tail(atom.args[0], v), _tail(atom.args[1], v)
    if top is None or bottom is None or top[0] is _NOWHERE:
        return None if top is None or bottom is None else top
    if bottom[0] is _NOWHERE:
        return bottom
    (n, n_start), (d, start) = top, bottom
    start = max(start, n_start)
    if isinstance(d, int):
        if d == 0:
            return _NOWHERE, start
        if isinstance(n, int):
            return (n // d if atom.op == "//" else n % d), start
        top = coefficients(n, v)  # d*p + c: p + c//d and c % d (a class of v's residues)
        if top is None or any(c % d for k, c in top.items() if k):
            return None
        c = top.get(0, 0)
        x = Dim(v) if isinstance(v, str) else unknown(v)
        p = _polynomial({k: c // d for k, c in top.items() if k}, x)
        return (p + c // d if atom.op == "//" else c % d), start
    line = linear_form(d, v)
    top = coefficients(n, v)
    if top is None:
        return None
    if line is None or max(top) > 1:  # (a divisor of degree 2 or more, or a dividend:
        found = _by_polynomial(top, coefficients(d, v), v)  # (v*v)//v is v from 1)
        return None if found is None else \
            (found[0] if atom.op == "//" else found[1], max(start, found[2]))
    if line[0] == 0:
        return None
    (a2, b2), x = line, Dim(v) if isinstance(v, str) else unknown(v)
    sign = 1 if a2 > 0 else -1  # n // d is (-n) // (-d), n % d is -((-n) % (-d))
    a2, b2, top = sign * a2, sign * b2, {k: sign * c for k, c in top.items()}
    q, r = divmod(top.get(1, 0), a2)
    s = top.get(0, 0) - q * b2
    if r == 0 and s < 0:
        q, r, s = q - 1, a2, b2 + s
    start = max(start, _from(r, s, 0), _from(a2 - r, b2 - s, 1))  # 0 <= r*v + s < d
    return (q if atom.op == "//" else sign * (r * x + s)), start


def _by_polynomial(top: dict[int, int], bottom: dict[int, int] | None, v: Any
                   ) -> tuple[DimLike, DimLike, int] | None:
    """``(quotient, remainder, start)`` of ``n // d`` and ``n % d`` for polynomials ``n``
    (``top``) and ``d`` (``bottom``, its coefficients by power) in ``v``, where from
    ``start`` on both are polynomials: ``n == q*d + r`` with ``q``'s coefficients ints
    (each an exact quotient by ``d``'s leading coefficient but the last, a floor) and
    ``0 <= r < d`` past the roots of ``r`` and ``d - r`` (``r`` read as ``r + d``, ``q``
    as ``q - 1``, where ``r`` ends negative); a falling ``d`` with both signs turned,
    as Python's ``//`` and ``%`` allow. None where ``q`` has another coefficient."""
    if bottom is None:
        return None
    high = max(k for k, c in bottom.items() if c)
    sign = 1 if bottom[high] > 0 else -1
    top = {k: sign * c for k, c in top.items()}
    bottom = {k: sign * c for k, c in bottom.items()}
    left, quotient = dict(top), {}
    for k in range(max(top), high - 1, -1):
        c, odd = divmod(left.get(k, 0), bottom[high])
        if odd and k > high:
            return None  # (a coefficient no int: no polynomial from any size on)
        quotient[k - high] = c
        for j, b in bottom.items():
            left[j + k - high] = left.get(j + k - high, 0) - c * b
    x = Dim(v) if isinstance(v, str) else unknown(v)
    q, r, d = (_polynomial(p, x) for p in (quotient, left, bottom))
    if not isinstance(r, int) and _leading(r, v) < 0 or isinstance(r, int) and r < 0:
        q, r = q - 1, r + d
    start = 0
    for part in (r, d - r):
        if not isinstance(part, int):
            past = past_roots(part, v, 0)
            if past is None:
                return None
            start = max(start, past)
    return q, sign * r, start


def _polynomial(coefficients: dict[int, int], x: Dim) -> DimLike:
    """The polynomial in ``x`` with these coefficients by power."""
    return sum((c if k == 0 else c * x**k for k, c in coefficients.items() if c), 0)


def _extreme_tail(atom: Opaque, v: Any) -> tuple[Any, int] | None:
    """:func:`_tail` of a ``min`` or ``max``: from past the roots of its arguments'
    differences on, the one argument its leading coefficients make least (greatest)."""
    found = [_tail(arg, v) for arg in atom.args]
    if any(f is None or f[0] is _NOWHERE for f in found):
        return None if any(f is None for f in found) else \
            next(f for f in found if f[0] is _NOWHERE)
    start = max(f[1] for f in found)
    best = found[0][0]
    for value, _ in found[1:]:
        gap = value - best
        if gap == 0:
            continue
        past = past_roots(gap, v, start)
        lead = _leading(gap, v)
        if past is None or lead is None:
            return None
        start = past
        if (lead > 0) == (atom.op == "max"):
            best = value
    return best, start


def _leading(x: DimLike, v: Any) -> int | None:
    """The leading coefficient of a polynomial in ``v`` alone, None where it is none."""
    powers = coefficients(x, v)
    return None if powers is None else powers[max(powers)]


def _from(a: int, b: int, least: int) -> int:
    """The least size ``v`` with ``a*v + b >= least`` for an ``a >= 0`` (with ``a == 0``,
    ``b >= least``: each use's form has it)."""
    return 0 if a == 0 else max(0, -((b - least) // a))


def _difference(c: Any, s: dict) -> DimLike | None:
    """A pending equation's ``left - right`` at ``s``, None where it has no value."""
    try:
        return c.left.value(s) - c.right.value(s)
    except (AttributeError, ZeroDivisionError):
        return None


def charge(diff: DimLike) -> None:
    """Count a substitution of values into ``diff`` against :data:`SUBSTITUTIONS` (where
    a caller set it) by its work, one per term of ``diff``; :class:`Spent` past it."""
    left = SUBSTITUTIONS.get()
    if left is not None:
        left[0] -= len(diff._terms) if isinstance(diff, Dim) else 1
        if left[0] < 0:
            raise Spent


def may_hold(diff: DimLike, at: dict) -> bool:
    """``diff == 0`` may hold with the names ``at`` their values: not where it is then a
    nonzero int, nor where it has no value (a divisor 0). Charged (:func:`charge`)."""
    charge(diff)
    try:
        value = substitute(diff, at)
    except ZeroDivisionError:
        return False
    return not isinstance(value, int) or value == 0


def _divisors(op: str, c: int, k: int) -> range | list[int] | None:
    """The nonzero ints ``e`` with ``c // e == k`` (``op`` ``//``) or ``c % e == k``
    (``%``), for ints ``c, k >= 0``; None where they are unbounded or too many to list."""
    if op == "//":  # e < 0 gives c//e <= 0; e > c gives 0
        found = None if k == 0 else range(c // (k + 1) + 1, c // k + 1)
        return None if found is None or len(found) > MAX_VALUES else found
    if k >= c:  # 0 <= c % e <= c for e > 0, and c % e <= 0 for e < 0
        return None if k == c else []
    if c > MAX_DIVIDEND:
        return None
    found = [e for e in int_divisors(c - k) if e > k]
    return found + [-e for e in int_divisors(c)] if k == 0 else found


def linear_form(e: DimLike, v: Any) -> tuple[int, int] | None:
    """``(a, b)`` with ``e == a*v + b`` (``v`` a name or an unknown's key), or None: where
    ``e`` is no Dim, has another symbol, or has no value at ``v == 0`` or ``v == 1``."""
    if not isinstance(e, Dim) or free_symbols(e) != {v}:
        return None
    try:  # (a divisor that itself divides by the size: 7//(8//m) has no value at m == 0)
        b = substitute(e, {v: 0})
        a = substitute(e, {v: 1}) - b
    except ZeroDivisionError:
        return None
    x = Dim(v) if isinstance(v, str) else unknown(v)
    if not isinstance(a, int) or not isinstance(b, int) or e != a * x + b:
        return None
    return a, b
