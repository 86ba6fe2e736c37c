"""Sizes in the plainest form that equals them at every size ``>= 0``.

A relation states sizes as it made them: ``max(1, K)*min(1, K)`` for an index that
broadcasts (0 wins), ``n*min(1, n)`` for two index arrays of one length. There,
``max(a, b)*min(a, b)`` is ``a*b``; ``a*min(1, a)`` is ``a`` (and ``m*min(1, a, b)`` for
a monomial ``m`` that ``a`` and ``b`` divide); a power of ``min(1, a)`` is
``min(1, a)`` (it is 0 or 1), and ``min(1, a*b)`` is ``min(1, a, b)``. Conditions are
:mod:`kantensor.types.tidy`'s.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache

from .dim import Dim, DimLike, atom_dim
from .facts import simplify
from .intervals import nonnegative, nonnegative_atom
from .poly import Opaque
from .symbols import APPLY

__all__ = ["tidy_size"]


def tidy_size(x: DimLike) -> DimLike:
    """``x`` with the products of min and max that equal a plainer product replaced (see
    the module), inside every atom too; equal to ``x`` for every sizes ``>= 0``."""
    return x if isinstance(x, int) else _tidy_size(x)


@lru_cache(maxsize=1 << 14)
def _tidy_size(x: Dim) -> DimLike:
    total: DimLike = 0
    for mono, coeff in x._terms:
        factors = [(_tidy_atom(a), p) for a, p in mono]
        factors = _products(factors)
        term: DimLike = coeff
        for a, p in factors:
            term = term * (a if isinstance(a, Dim | int) else atom_dim(a)) ** p
        total = total + term
    return total


def _tidy_atom(a: Hashable) -> Hashable | int:
    if not isinstance(a, Opaque):
        return a
    args = [tidy_size(g) for g in a.args]
    if a.op == "min" and 1 in args:  # min(1, k*x*y) is min(1, x, y) (k >= 1, x, y >= 0)
        args = [h for g in args for h in _factors(g)]
    value = simplify(APPLY[a.op](*args))  # min(1, max(m, n), m, n) is min(1, m, n)
    if isinstance(value, int):
        return value
    lone = _lone(value)
    return lone if lone is not None else _Expr(value)


def _factors(x: DimLike) -> list[DimLike]:
    """The factors of a product ``k*x*y`` with ``k >= 1`` and factors ``>= 0`` (each of
    them is at least 1 where the product is), else ``[x]``."""
    if isinstance(x, int) or len(x._terms) != 1:
        return [x]
    (mono, coeff), = x._terms
    if coeff < 1 or not mono or not all(nonnegative_atom(a) for a, _ in mono):
        return [x]
    return [atom_dim(a) for a, _ in mono]


class _Expr:
    """A factor that tidied into an expression (no longer one atom)."""

    __slots__ = ("value",)

    def __init__(self, value: Dim):
        self.value = value


def _lone(x: DimLike) -> Hashable | None:
    """The atom ``x`` is, if it is one atom (coefficient 1, power 1)."""
    if isinstance(x, int) or len(x._terms) != 1:
        return None
    (mono, coeff), = x._terms
    return mono[0][0] if coeff == 1 and len(mono) == 1 and mono[0][1] == 1 else None


def _extreme(a: Hashable, op: str) -> tuple | None:
    return a.args if isinstance(a, Opaque) and a.op == op else None


def _products(factors: list) -> list:
    """The rules of products on one monomial's factors ``[(atom, power)]``."""
    out = [[a, p] for a, p in factors]
    for f in out:  # min(1, a) is 0 or 1: a power of it is itself
        args = _extreme(f[0], "min")
        if args is not None and 1 in args and all(nonnegative(g) for g in args):
            f[1] = 1
    for f in out:  # max(a, b)*min(a, b) == a*b
        big = _extreme(f[0], "max")
        if big is None or len(big) != 2 or not f[1]:
            continue
        for g in out:
            small = _extreme(g[0], "min")
            if small is not None and g[1] and set(small) == set(big):
                k = min(f[1], g[1])
                f[1] -= k
                g[1] -= k
                out.extend([[_Expr(big[0] * big[1]), k]])
                break
    for f in out:  # m*min(1, a, b) == m where a and b divide m (one is 0: both are 0)
        args = _extreme(f[0], "min")
        if args is None or 1 not in args or not f[1]:
            continue
        rest = [g for g in out if g is not f and g[1]]
        if all(a == 1 or nonnegative(a) and _divides(a, rest) for a in args):
            f[1] = 0
    found = []
    for a, p in out:
        if not p:
            continue
        found.append((a.value, p) if isinstance(a, _Expr) else (a, p))
    return found


def _divides(a: DimLike, factors: list) -> bool:
    """Whether the monomial ``a`` (coefficient 1) divides the product of ``factors``."""
    atom_powers: dict = {}
    for g, p in factors:
        if not isinstance(g, _Expr | int):
            atom_powers[g] = atom_powers.get(g, 0) + p
    if isinstance(a, int) or len(a._terms) != 1 or a._terms[0][1] != 1:
        return False
    return all(atom_powers.get(atom, 0) >= p for atom, p in a._terms[0][0])
