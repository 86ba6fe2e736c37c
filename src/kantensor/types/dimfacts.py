"""What equations and where-clauses tell about sizes: the integer solution of an equation
(:func:`solve_for`, :data:`NO_SOLUTION`) and the exact quotients a divisibility fact allows
(:func:`assume_divisible`)."""

from __future__ import annotations

import enum
import math
from collections.abc import Hashable, Iterable
from typing import Final, Literal

from .dim import Dim, DimLike, as_dim, known_quotient, unknown
from .poly import Atom, Monomial, Opaque
from .symbols import APPLY, free_symbols, rebuild

__all__ = ["NO_SOLUTION", "assume_divisible", "remainder_fact", "solve_for"]


class _NoSolution(enum.Enum):
    NO_SOLUTION = "NO_SOLUTION"

    def __repr__(self) -> str:
        return "NO_SOLUTION"

    __str__ = __repr__


NO_SOLUTION: Final = _NoSolution.NO_SOLUTION
"""Returned by :func:`solve_for` when provably no integer value solves the equation."""


def _holds(atom: Atom, symbol: Hashable) -> bool:
    """Whether ``symbol`` occurs in one atom of a canonical polynomial."""
    if isinstance(atom, Opaque):
        return any(symbol in free_symbols(a) for a in atom.args)
    return atom == symbol


def solve_for(
    expr: DimLike, symbol: Hashable, target: DimLike,
) -> DimLike | Literal[_NoSolution.NO_SOLUTION] | None:
    """The value of ``symbol`` making ``expr == target``, over the integers.

    Solves ``c*symbol + rest == 0`` for ``expr - target`` linear in ``symbol`` with an int
    coefficient ``c``. Returns the (possibly negative) solution when ``c`` divides every
    coefficient of ``rest``; :data:`NO_SOLUTION` when provably no integer solves it (the
    gcd of the non-constant coefficients does not divide the constant, e.g.
    ``2*n == 7``, or a nonzero int difference); ``None`` when undecidable (not linear,
    ``symbol`` inside ``//``/``%``/min/max, a symbolic coefficient, inexact division,
    ``symbol`` absent, or any value works).
    """
    d = as_dim(expr) - as_dim(target)
    if isinstance(d, int):
        return NO_SOLUTION if d else None
    const = 0 if d._terms[-1][0] else d._terms[-1][1]
    if const % math.gcd(*(c for m, c in d._terms if m)):
        return NO_SOLUTION
    coeff = 0
    rest: dict[Monomial, int] = {}
    for mono, c in d._terms:
        if mono == ((symbol, 1),):
            coeff = c
        elif any(_holds(a, symbol) for a, _ in mono):
            return None
        else:
            rest[mono] = c
    if not coeff or any(c % coeff for c in rest.values()):
        return None
    sym = Dim(symbol) if isinstance(symbol, str) else unknown(symbol)
    return (d - coeff * sym) // -coeff  # every coefficient divisible: exact


def remainder_fact(zero: DimLike) -> tuple[Dim, int] | None:
    """``(r, k)`` when ``zero == 0`` says that ``k`` divides ``r``: ``zero`` is ``c*(r % k)``
    for an int ``k`` (as a where-clause ``(4*d) % 8 == 0`` is, canonically ``4*(d % 2)``)."""
    if isinstance(zero, int) or len(zero._terms) != 1 or len(zero._terms[0][0]) != 1:
        return None
    ((atom, _),), _c = zero._terms[0]
    if isinstance(atom, Opaque) and atom.op == "%" and type(atom.args[1]) is int:
        return atom.args
    return None


def assume_divisible(x: DimLike, zeros: Iterable[DimLike]) -> DimLike:
    """``x`` where each of ``zeros`` is 0: a remainder ``r % k`` among them (see
    :func:`remainder_fact`; where-clauses of the node whose size ``x`` is) says that ``k``
    divides ``r``, so the floor quotients ``r//j`` of ``x`` (``j`` dividing ``k``) become
    exact quotients ``r/j``, printed ``r//j`` but with ``j*(r/j) == r``, and its
    remainders ``r % j`` become 0. Never made otherwise: ``2*(h//2)`` stays."""
    facts = {f for f in map(remainder_fact, zeros) if f is not None}
    return x if isinstance(x, int) or not facts else _assume(x, facts)


def _assume(x: DimLike, facts: set) -> DimLike:
    if isinstance(x, int):
        return x
    return rebuild(x, lambda a: known_quotient(a, facts)
                   if known_quotient(a, facts) is not None else
                   _applied(a, facts) if isinstance(a, Opaque) else None)


def _applied(a: Opaque, facts: set) -> DimLike | None:
    """The atom ``a`` over its arguments under ``facts``; None (kept as it is) where that
    divides by 0: a quotient by a size the facts make 0 (``x // (n % 2)`` where ``2``
    divides ``n``) is nowhere defined there."""
    try:
        return APPLY[a.op](*(_assume(g, facts) for g in a.args))
    except ZeroDivisionError:
        return None
