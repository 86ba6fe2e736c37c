"""Floors of a min or max of several sizes whose pieces' floors are linear
(:func:`extremes_floored`, a step of :mod:`kantensor.types.canon`).

A floor by an int ``d > 0`` is monotone, so ``(a*min(p1, p2, ...) + L)//d`` is
``min((a*p1 + L)//d, (a*p2 + L)//d, ...)`` for ``a > 0`` at every size (and so with
max). Where every piece's floor is then linear, or is never alone the least (greatest)
at any point the lattice sees, the floor is that min of linear pieces, which
:mod:`kantensor.types.lattice` forms: ``min(4*m + 1, 4*n + 1, 5*n)//4`` is ``min(m, n,
n + n//4)``, so ``min(m, n)`` (``n + n//4 >= n``). Such a floor is equal only at
integers to its min of several, and the lattice forms functions over the rationals:
``(max(min(1, n), min(m, n)) + min(1, m, n) + 3*min(m, n))//4 - min(m, n)``, whose
argument's form is ``min(4*m + 1, 4*n + 1, 5*n)`` (``5*n`` is the least at ``n = 0``
only, where the floor is ``0`` either way), is ``0`` (``canon_rate --seed 9``). The
rewrite is made only where it leaves no floor or remainder that the argument has not,
and ``M`` is met nowhere else in the size (:mod:`kantensor.types.canon` applies it after
forming the parts over linear forms, so Hermite's identity over ``M`` has joined its
floors first: spreading ``h//2`` alone in ``(h + 1)//2 + h//2`` would hide that it is
``h``); elsewhere the floor stays as it is.
"""

from __future__ import annotations

from functools import lru_cache

from .dim import Dim, DimLike, atom_dim
from .lattice import lattice_form
from .poly import Opaque
from .readback import by_int, of_terms, several
from .symbols import APPLY

__all__ = ["extremes_floored"]


def extremes_floored(x: Dim) -> DimLike:
    """``x`` with each floor of a min or max of several sizes whose pieces' floors
    leave no new floor written as the lattice's form of the min or max of those floors
    (module docstring); ``x`` itself where there is none."""
    return _floored(x._terms) or x


@lru_cache(maxsize=1 << 12)
def _floored(terms: tuple) -> DimLike | None:
    """:func:`extremes_floored` of the size of ``terms``; None where it changes none."""
    out = None
    for mono, k in terms:
        atom = mono[0][0] if len(mono) == 1 and mono[0][1] == 1 else None
        if not (by_int(atom, "//") and several(atom)) or isinstance(atom.args[0], int):
            continue
        spread = _spread(atom.args[0], atom.args[1], terms)
        if spread is not None:
            out = (of_terms(terms) if out is None else out) - k * atom_dim(atom) + k * spread
    return out


def _spread(arg: Dim, d: int, terms: tuple) -> DimLike | None:
    """``arg//d`` as the lattice's form of the min or max of its pieces' floors, for
    ``arg`` an ``a*M + L`` (``M`` its one min or max of several, ``a > 0``, met nowhere
    else in the size of ``terms``), where that leaves no floor or remainder ``arg`` has
    not; None elsewhere. (Where ``M`` is met again, Hermite's identity over ``M`` may
    join this floor to another that does not spread: ``(h + 1)//2 + h//2`` is ``h``.)"""
    top = [(mono, a) for mono, a in arg._terms if len(mono) == 1 and mono[0][1] == 1
           and isinstance(mono[0][0], Opaque) and mono[0][0].op in ("min", "max")
           and several(mono[0][0])]
    if len(top) != 1 or top[0][1] <= 0:
        return None
    (mono, a), = top
    extreme = mono[0][0]
    if sum(_count(t, extreme) for t, _ in terms) != 1:
        return None
    rest = arg - a * atom_dim(extreme)
    spread = lattice_form(APPLY[extreme.op](*((a * p + rest) // d for p in extreme.args)))
    return spread if _floors(spread) <= _floors(arg) else None


def _count(mono: tuple, atom: Opaque) -> int:
    """How often ``atom`` is met in ``mono`` and inside its atoms' arguments."""
    return sum((a == atom) + sum(_count(t, atom) for g in getattr(a, "args", ())
                                 if not isinstance(g, int) for t, _ in g._terms)
               for a, _ in mono if isinstance(a, Opaque))


def _floors(x: DimLike) -> frozenset:
    """The floors and remainders by ints in ``x`` and inside its atoms."""
    if isinstance(x, int):
        return frozenset()
    found: set = set()
    for mono, _ in x._terms:
        for atom, _ in mono:
            if isinstance(atom, Opaque):
                if atom.op in ("//", "%"):
                    found.add(atom)
                for g in atom.args:
                    found |= _floors(g)
    return frozenset(found)
