"""Floors and remainders of a narrow argument: one form for each table.

Where the argument ``a`` of ``a//d`` or ``a % d`` stays within ``[lo, hi]`` and that
range meets at most two blocks of ``d`` (``hi//d <= lo//d + 1``), the atom's values
depend only on whether ``a`` has reached the one multiple ``b`` of ``d`` in it: ``a//d``
is ``lo//d + [a >= b]``. That step is written with the least divisor that has it on
the range, ``(a - lo + D - c)//D`` for ``c = b - lo`` and ``D = max(c, hi - lo - c +
1)`` (``a - lo`` where ``D`` is 1), so every writing of the same step on the same range
gets one form: ``min(m, n % 4)//3`` and ``(min(m, n % 4) + 3)//6`` are both ``min(m, n
% 4)//3``; ``(min(k % 2, n) + 1)//2`` is ``min(k % 2, n)``; ``(n + 4)//9`` under ``1 <=
n <= 5`` is ``(n - 1)//4``. Exact for every ``a`` in the range, so sound wherever the
range is (the interval of the argument's structure, or the facts' bounds).

Also how such an argument is written so that what comes out of the floor is seen: a
floor of a linear form plus bounded atoms without those that never move it across a
multiple (:func:`absorbed`), and a min or max in it with its least constant out
(:func:`constants_out`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable
from typing import Final

from .dim import Dim, DimLike, atom_dim
from .dimdivide import dim_floordiv, dim_mod
from .intervals import interval
from .poly import Opaque, lone_atom
from .symbols import APPLY, free_symbols, rebuild

__all__ = ["absorbed", "constants_out", "narrow", "narrowed"]

MAX_ADDENDS: Final = 3
"""Most bounded atoms in a floor's argument :func:`absorbed` takes out (it tries the
coefficients ``c % d`` and ``c % d - d`` of each)."""


def narrowed(x: Dim) -> DimLike:
    """``x`` with each floor or remainder by an int of several sizes whose argument's
    interval (by its structure) meets at most two blocks written in its one form on
    that interval; ``x`` where none changes."""
    def value(atom: Hashable) -> DimLike | None:
        if not isinstance(atom, Opaque) or atom.op not in ("//", "%") or \
                type(atom.args[1]) is not int or atom.args[1] < 1 or \
                len(free_symbols(atom.args[0])) < 2:
            return None
        lo, hi = interval(atom.args[0])
        found = absorbed(atom.op, atom.args[0], atom.args[1]) if lo is None or \
            hi is None else narrow(atom.op, atom.args[0], atom.args[1], lo, hi)
        return None if found is None or not isinstance(found, int) and \
            found._terms == atom_dim(atom)._terms else found

    return x if not any(value(a) is not None for mono, _ in x._terms for a, _ in mono) \
        else rebuild(x, value)


def narrow(op: str, a: DimLike, d: int, lo: int, hi: int) -> DimLike | None:
    """``a//d`` (``op`` ``"//"``) or ``a % d`` (``"%"``) for ``a`` within ``[lo, hi]``
    and ``d >= 1``, written as above; None where the range meets more than two blocks
    of ``d``, or the step's least divisor is ``d`` (the atom is its own form)."""
    base = lo // d
    if hi // d > base + 1:
        return None
    step: DimLike = 0
    if hi // d == base + 1:
        c = d * (base + 1) - lo  # a >= lo + c: the step (1 <= c <= hi - lo)
        size = max(c, hi - lo - c + 1)
        if size == d:  # (a - lo + d - c)//d is a//d - base
            return None
        step = a - lo if size == 1 else dim_floordiv(a - lo + size - c, size)
    return base + step if op == "//" else a - d * base - d * step


def absorbed(op: str, a: Dim, d: int) -> DimLike | None:
    """``a//d`` or ``a % d`` for ``a = L + B``, ``L`` a linear form over sizes and ``B``
    a sum of bounded atoms, without ``B`` where it never moves ``a`` across a multiple
    of ``d``: ``L``'s remainders by ``d`` are ``r0, r0 + g, .., r0 + d - g`` (``g`` the
    gcd of ``d`` and ``L``'s coefficients), so where ``B`` (each coefficient taken as
    ``c % d`` or ``c % d - d``, the difference a multiple of ``d`` out of the floor)
    stays within ``[-r0, d - 1 - r0 - d + g]``, ``a//d`` is ``L//d`` plus that multiple:
    ``(6*n + 7*((m + n) % 2) + 1)//8`` is ``(6*n + 1)//8 + (m + n) % 2``. First a size
    ``s`` of ``L`` beside its floor ``s//e`` in ``B`` is written ``e*(s//e) + s % e``
    where that makes the floor's coefficient a multiple of ``d`` (``(k + 4*n +
    4*(k//2))//6`` is ``k//2 + (4*n + k % 2)//6``, which is ``k//2 + (4*n)//6``). None
    where nothing is taken out."""
    linear: dict = {}
    bounded: dict = {}
    constant = 0
    for mono, c in a._terms:
        if not mono:
            constant = c
        elif len(mono) != 1 or mono[0][1] != 1:
            return None
        elif not isinstance(mono[0][0], Opaque):
            linear[mono[0][0]] = c
        else:
            bounded[mono[0][0]] = c
    if not linear or not bounded or len(bounded) > MAX_ADDENDS:
        return None
    for atom, c in bounded.items():  # s beside s//e: s == e*(s//e) + s % e
        if atom.op != "//" or type(atom.args[1]) is not int or isinstance(atom.args[0], int):
            continue
        s_, e = atom.args
        t = lone_atom(s_._terms)
        if t in linear and (c + e * linear[t]) % d == 0 and (e * linear[t]) % d:
            rest = a + linear[t] * (e * atom_dim(atom) + dim_mod(s_, e) - s_)
            return dim_floordiv(rest, d) if op == "//" else dim_mod(rest, d)
    atoms = list(bounded)
    bounds = [interval(atom_dim(atom)) for atom in atoms]
    if any(lo is None or hi is None for lo, hi in bounds):
        return None
    g = math.gcd(d, *linear.values())
    r0 = constant % g
    plain = a - sum(c * atom_dim(atom) for atom, c in bounded.items())
    for choice in itertools.product(*((c % d, c % d - d) for c in bounded.values())):
        ends = [(k * lo, k * hi) for k, (lo, hi) in zip(choice, bounds, strict=True)]
        if r0 + sum(map(min, ends)) < 0 or r0 + d - g + sum(map(max, ends)) > d - 1:
            continue
        if op == "%":
            return dim_mod(plain, d) + sum(k * atom_dim(t)
                                           for k, t in zip(choice, atoms, strict=True))
        return dim_floordiv(plain, d) + sum((bounded[t] - k) // d * atom_dim(t)
                                         for k, t in zip(choice, atoms, strict=True))
    return None


def constants_out(x: Dim) -> Dim:
    """``x`` with each min or max of its terms written with its shared part out (its
    least constant: ``min(6, m + 1)`` is ``min(5, m) + 1``; its terms' least coefficients
    > 0: :func:`_shared`), and as minus a max or min where each of its
    arguments falls with every size (``min(2, 6 - m)`` is ``6 - max(4, m)``, so that the
    Dim algebra takes its multiples of a divisor out as it does a size's); ``x`` itself
    where none has one."""
    for mono, c in x._terms:
        r = mono[0][0] if len(mono) == 1 and mono[0][1] == 1 else None
        if isinstance(r, Opaque) and r.op in ("min", "max") and _falling(r.args):
            flip = APPLY["max" if r.op == "min" else "min"](*(-g for g in r.args))
            x = x - c * flip - c * atom_dim(r)
            if isinstance(x, int):
                return x
            return constants_out(x)
        if isinstance(r, Opaque) and r.op in ("min", "max") and (low := _shared(r.args)):
            x = x + c * (APPLY[r.op](*(g - low for g in r.args)) + low - atom_dim(r))
    return x


def _shared(args: tuple) -> DimLike:
    """What every argument of a min or max holds: their least constant, and ``e*t`` for
    each term ``t`` every argument has with a coefficient ``>= e > 0`` (``min(2*k + 5,
    3*k)`` is ``2*k + min(5, k)``): a function of the pieces, so of the min or max."""
    terms = [{(): g} if isinstance(g, int) else dict(g._terms) for g in args]
    shared: DimLike = min(t.get((), 0) for t in terms)
    for mono in terms[0]:
        if mono and (e := min(t.get(mono, 0) for t in terms)) > 0:
            shared = shared + e * _term(mono)
    return shared


def _term(mono: tuple) -> DimLike:
    out: DimLike = 1
    for atom, p in mono:
        out = out * atom_dim(atom) ** p
    return out


def _falling(args: tuple) -> bool:
    """Whether some argument has sizes and every one's sizes have coefficients < 0."""
    return any(not isinstance(g, int) for g in args) and all(
        isinstance(g, int) or all(c < 0 for mono, c in g._terms if mono) for g in args)
