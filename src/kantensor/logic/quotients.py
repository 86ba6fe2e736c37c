"""Sizes that divide by a size: the values of the one symbol ``v`` of a divisor that
meet ``c // e == k`` or ``c % e == k`` (``c`` and ``k`` ints, ``e`` linear in ``v``).

A floor division by an int is :func:`~.dims.solve_one`'s own (``a0//2 == 3``: 6 or 7);
by a size, the quotient falls as the divisor grows, so a quotient ``k >= 1`` leaves the
divisor a few values and a remainder ``k < c`` leaves it the divisors of ``c - k``
(``2 == 3//b`` holds at no ``b``: ``3//1 == 3``, ``3//2 == 3//3 == 1``, then 0). Without
these an equation the facts cannot decide stayed pending, and a goal that grounded its
other side (``membero``) got an answer that no size gives.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..types.dim import Dim, DimLike, unknown
from ..types.dimfacts import NO_SOLUTION
from ..types.divisors import divides, int_divisors
from ..types.poly import Opaque
from ..types.symbols import free_symbols, substitute

__all__ = ["divided_values", "linear_form", "lone_atom", "may_hold", "named_values",
           "tail_values"]

#: Most divisors a quotient leaves listed (more: the equation waits, as before), and the
#: largest dividend whose divisors a remainder lists (by trial division to its root).
MAX_VALUES = 64
MAX_DIVIDEND = 10**12
#: Most sizes :func:`tail_values` tries one by one below the point where every divisor
#: exceeds its dividend.
MAX_TRIED = 256


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
    if not divides(diff):
        return None
    sides = [_difference(c, s) for c in pending if getattr(c, "op", "==") == "=="]
    sides = [diff] + [d for d in sides if d is not None and name in free_symbols(d)]
    values = next((v for d in sides for v in (divided_values(d, name),
                                              tail_values(d, name)) if v is not None), None)
    if values is None or values is NO_SOLUTION:
        return values
    values = values if isinstance(values, tuple) else (values,)
    return tuple(n for n in values if all(may_hold(d, {name: n}) for d in sides)) \
        or NO_SOLUTION


def tail_values(diff: DimLike, v: Any) -> tuple[int, ...] | None:
    """Every size ``v`` with ``diff == 0``, ``v`` its one symbol, where each ``//`` and
    ``%`` of it divides by a size growing with ``v`` a dividend that is, from some
    ``v`` on, an int ``c >= 0`` (``3//v + 3 % v``, ``10//v//v``): from the ``v`` where
    every such divisor exceeds its ``c``, a quotient is 0 and a remainder ``c``, so
    ``diff`` is there an int (nonzero: no size beyond; 0: unbounded, None), and the
    sizes below are tried one by one. None where it does not apply, the sizes to try
    are more than :data:`MAX_TRIED` or those found more than :data:`MAX_VALUES`."""
    if not isinstance(diff, Dim) or free_symbols(diff) != {v}:
        return None
    tail = _tail(diff, v)
    if tail is None or not isinstance(tail[0], int) or tail[0] == 0 or tail[1] > MAX_TRIED:
        return None
    found = tuple(n for n in range(tail[1]) if may_hold(diff, {v: n}))
    return found if len(found) <= MAX_VALUES else None


def _tail(x: DimLike, v: Any) -> tuple[DimLike, int] | None:
    """``(value, start)``: ``x``'s value for every ``v >= start`` with each ``//`` and
    ``%`` of it replaced as :func:`tail_values` says; None where one is not of that
    kind."""
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
            inner = _tail(atom.args[0], v) if atom.op in ("//", "%") else None
            line = linear_form(atom.args[1], v) if inner is not None else None
            if line is None or line[0] <= 0 or not isinstance(inner[0], int) or inner[0] < 0:
                return None
            (c, begins), (a, b) = inner, line
            start = max(start, begins, (c - b) // a + 1)  # from there a*v + b > c
            term = term * (0 if atom.op == "//" else c) ** power
        total = total + term
    return total, start


def _difference(c: Any, s: dict) -> DimLike | None:
    """A pending equation's ``left - right`` at ``s``, None where it has no value."""
    try:
        return c.left.value(s) - c.right.value(s)
    except (AttributeError, ZeroDivisionError):
        return None


def may_hold(diff: DimLike, at: dict) -> bool:
    """``diff == 0`` may hold with the names ``at`` their values: not where it is then a
    nonzero int, nor where it has no value (a divisor 0)."""
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
