"""Floors and remainders by ``d`` of a sum of min and max whose pieces agree modulo ``d``.

A floor or remainder by an int ``d`` whose argument has min and max of several sizes (or
of one size, in a floor of several: ``(max(3*n - 2, n) + min(4, k))//2``, pieces ``3*n -
2 + v`` and ``n + v``) is a function of that argument, but the Dim algebra only takes
out of it the terms whose coefficients are multiples of ``d``: ``(m + 3*min(2, k))//6``
and ``(max(m, n - k) - max(0, n - k - m) + 3*min(2, k))//6`` are equal (``max(t, u) -
max(0, u - t)`` is ``t``), yet the second is built as ``(5*max(0, n - k - m) + max(m, n
- k) + 3*min(2, k))//6 - max(0, n - k - m)``, whose argument is piecewise affine with
pieces ``m + 3*v`` and ``6*n - 6*k - 5*m + 3*v`` (``v = min(2, k)``).

Where every piece of the argument's sum of min and max over several sizes
(:mod:`kantensor.types.lattice`'s, with min and max of one size and the other atoms
taken as free variables ``>= 0``) has the same coefficients and constant modulo ``d``,
the argument is ``g + d*H``: ``g`` the pieces' coefficients and constant reduced into
``0 .. d - 1`` (one for all pieces, so a function of the pieces alone), ``H`` the rest
divided by ``d``, an integer sum of min and max. The argument is written ``g`` plus the
lattice's form of the rest, whose every coefficient is then a multiple of ``d`` (the
pieces' shared part and common factor come out), so the Dim algebra takes ``H`` out of
the floor (and out of the remainder): ``(m + 3*min(2, k))//6 + max(k + m, n) - k - m``
for the second size above, ``(m + 3*min(2, k))//6`` once the rest cancels. The rewrite
keeps the value at every size (the lattice's form equals what it forms); it is made
only where it leaves no min or max of several sizes in the argument.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Final

from .dim import Dim, DimLike, atom_dim
from .fourier import TooLarge
from .intervals import nonnegative_atom
from .lattice import lattice_form, lattice_parts, one_extreme, several_extreme
from .poly import Opaque, atom_key, lone_atom
from .readback import of_terms
from .symbols import APPLY, free_symbols, rebuild

__all__ = ["MAX_HIDDEN", "congruent_out"]

MAX_HIDDEN: Final = 3
"""Most min and max (of one size, then of several sizes inside other atoms) whose sets
:func:`_split` tries as free variables."""


def congruent_out(x: DimLike, form: Callable[[DimLike], DimLike]) -> DimLike:
    """``x`` with each floor and remainder by an int ``d`` whose argument's min and max
    of several sizes have pieces that agree modulo ``d`` written with their multiple
    of ``d`` out (module docstring; ``form`` forms a rest that the lattice leaves with
    its multiple of ``d`` inside); ``x`` itself where there is none."""
    if isinstance(x, int):
        return x
    for mono, k in x._terms:
        atom = lone_atom(((mono, 1),)) if len(mono) == 1 and mono[0][1] == 1 else None
        if not (isinstance(atom, Opaque) and atom.op in ("//", "%")
                and type(atom.args[1]) is int and atom.args[1] > 1
                and not isinstance(atom.args[0], int)
                and _extremes_of_several(atom)):
            continue
        arg = _split(atom.args[0]._terms, atom.args[1], form)
        if arg is None:
            continue
        y = x - k * atom_dim(atom) + k * APPLY[atom.op](arg, atom.args[1])
        return y if isinstance(y, int) else congruent_out(y, form)
    return x


def _extremes_of_several(atom: Opaque) -> bool:
    """Whether ``atom``'s argument has a min or max over several sizes, or one of one
    size while the argument is over several sizes (``(max(3*n - 2, n) + min(4, k))//2``,
    pieces ``3*n - 2 + v`` and ``n + v``: its one-size parts are not formed alone)."""
    terms = dict(atom.args[0]._terms)
    if any(map(several_extreme, terms)):
        return True
    return len(_symbols(atom)) > 1 and any(one_extreme(mono) for mono in terms)


class _Free:
    """An atom taken as a free variable ``>= 0`` (a min or max of one size): printed as
    the atom, so forms over it are ordered as over the atom."""

    __slots__ = ("atom",)

    def __init__(self, atom: Opaque) -> None:
        self.atom = atom

    def __str__(self) -> str:
        return self.atom.text


@lru_cache(maxsize=1 << 12)
def _free(atom: Opaque) -> _Free:
    """One free variable per atom (the lattice's own caches are per terms)."""
    return _Free(atom)


@lru_cache(maxsize=1 << 12)
def _split(terms: tuple, d: int, form: Callable[[DimLike], DimLike]) -> DimLike | None:
    """The argument ``g + `` the lattice's form of the rest (module docstring), with the
    first set of its min and max of one size, then of several sizes inside other atoms
    (fewest first, then in their order; of the first :data:`MAX_HIDDEN`) taken as free
    variables that makes the pieces agree modulo ``d``; None where none does, or the
    rest's form keeps its multiple of ``d`` inside."""
    x = of_terms(terms)
    ones = sorted({a for a in _atoms(x) if a.op in ("min", "max") and len(_symbols(a)) == 1
                   and nonnegative_atom(a)}, key=atom_key)[:MAX_HIDDEN]
    ones += sorted({a for a in _nested(x) if a.op in ("min", "max") and len(_symbols(a)) > 1
                    and nonnegative_atom(a)}, key=atom_key)[:MAX_HIDDEN - len(ones)]
    for hidden in sorted((s for r in range(len(ones) + 1)
                          for s in itertools.combinations(ones, r)), key=len):
        found = _congruent(x, dict.fromkeys(hidden), d, form)
        if found is not None:
            return found
    return None


def _congruent(x: Dim, hidden: dict, d: int, form: Callable[[DimLike], DimLike]
               ) -> DimLike | None:
    """:func:`_split` with the atoms ``hidden`` taken as free variables."""
    free = {a: _free(a) for a in hidden}

    def hide(a: Hashable) -> DimLike | None:
        if a in free:
            return atom_dim(free[a])
        if isinstance(a, Opaque) and a.op in ("min", "max"):
            return APPLY[a.op](*(g if isinstance(g, int) else rebuild(g, hide)
                                 for g in a.args))
        return None

    try:
        y = rebuild(x, hide) if free else x
        found = None if isinstance(y, int) else lattice_parts(y._terms)
    except TooLarge:
        return None
    if found is None or len(found[3]) < 2:
        return None
    part, rest, _, forms, _, _ = found
    first = dict(forms[0][0])
    for f, c in forms[1:]:
        other = dict(f)
        if (c - forms[0][1]) % d or any((other.get(v, 0) - first.get(v, 0)) % d
                                        for v in first.keys() | other.keys()):
            return None
    g: DimLike = forms[0][1] % d
    for v, c in forms[0][0]:
        g = g + c % d * atom_dim(v)
    formed = lattice_form(part - g)
    if not isinstance(formed, int) and any(c % d for _, c in formed._terms):
        formed = form(part - g)  # (its parts of one size each: their tables' forms)
    if not isinstance(formed, int) and any(c % d for _, c in formed._terms):
        return None  # (not the lattice's form: its multiple of d would stay inside)
    return _shown(g + formed + rest, free)


def _atoms(x: DimLike):
    """Every opaque atom of ``x`` and inside their arguments."""
    if isinstance(x, int):
        return
    for mono, _ in x._terms:
        for a, _ in mono:
            if isinstance(a, Opaque):
                yield a
                for g in a.args:
                    yield from _atoms(g)


def _nested(x: DimLike):
    """Every opaque atom inside the arguments of an atom of ``x`` (a min of several sizes
    inside two maxes: ``(max(0, n % 2 - min(m, n)) + max(min(m, n), n % 2)) % 2``, whose
    argument is ``min(m, n)`` or ``2*(n % 2) - min(m, n)``, congruent modulo 2 as long as
    ``min(m, n)`` is not opened: it is ``min(m, n) % 2``)."""
    for a in _atoms(x):
        for g in a.args:
            yield from _atoms(g)


def _symbols(a: Opaque) -> frozenset:
    return frozenset().union(*(free_symbols(g) for g in a.args))


def _shown(x: DimLike, free: dict[Opaque, _Free]) -> DimLike:
    """``x`` with the free variables written as their atoms again."""
    if isinstance(x, int) or not free:
        return x
    back = {v: a for a, v in free.items()}

    def show(a: Hashable) -> DimLike | None:
        if isinstance(a, _Free):
            return atom_dim(back[a])
        if isinstance(a, Opaque):
            return APPLY[a.op](*(g if isinstance(g, int) else rebuild(g, show)
                                 for g in a.args))
        return None

    return rebuild(x, show)

