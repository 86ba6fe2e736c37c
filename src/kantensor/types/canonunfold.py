"""Remainders of one size inside floors and remainders of several sizes, written over
the size (:func:`unfolded`): ``(n + m % 2)//2`` is ``(m + n)//2 - m//2``, so floors of a
linear form over a size and over its remainders are one atom for
:mod:`kantensor.types.canon`."""

from __future__ import annotations

import math

from .dim import Dim, DimLike, atom_dim
from .dimdivide import dim_floordiv
from .narrow import constants_out
from .poly import Opaque
from .readback import atom_symbols, by_int, several
from .symbols import APPLY

__all__ = ["unfolded"]


def unfolded(x: Dim) -> DimLike:
    """``x`` with each remainder ``c*(a % e)`` of one size inside a floor or remainder
    by ``d`` of several sizes written ``c*a`` where ``d`` divides ``c*e`` (``c*a - c*e*(a
    //e)``: the multiple of ``d`` comes out of the floor, and out of a remainder):
    ``(n + m % 2)//2`` is ``(m + n)//2 - m//2``, so floors of a linear form over a size
    and over its remainders are written one way. Not where another atom of the
    argument holds ``a % e`` (:func:`_nested`), nor where a floor of ``x`` by a ``d``
    that does not divide ``c*e`` holds it (:func:`_blocked`): there the floors over
    ``m + n`` are written over ``n + m % 2`` instead (:func:`_folded`), so Hermite's
    identity over it meets them all. A min or max there has its least
    constant out (``min(6, m + 1)`` is ``min(5, m) + 1``), so that floors over
    ``k + min(5, m)`` and over ``k + min(6, m + 1)`` are of one ``u``."""
    kept = _blocked(x)
    if kept and (y := _folded(x, kept)) is not x:
        return y if isinstance(y, int) else unfolded(y)
    for mono, k in x._terms:
        atom = mono[0][0] if len(mono) == 1 and mono[0][1] == 1 else None
        if not (by_int(atom, "//") or by_int(atom, "%")) or not several(atom):
            continue
        arg, d = atom.args
        out: DimLike = 0
        for inner, c in arg._terms:
            r = inner[0][0] if len(inner) == 1 and inner[0][1] == 1 else None
            if by_int(r, "%") and not (c * r.args[1]) % d and r not in kept and \
                    len(atom_symbols(r)) == 1 and not _nested(arg, r):
                arg = arg - c * atom_dim(r) + c * r.args[0]
                out = out - c * r.args[1] // d * dim_floordiv(r.args[0], r.args[1])
        arg = constants_out(arg)
        if arg is not atom.args[0]:
            y = x - k * atom_dim(atom) + k * APPLY[atom.op](arg, d)
            if atom.op == "//":
                y = y + k * out
            return y if isinstance(y, int) else unfolded(y)
    return x


def _floors(x: Dim) -> list[tuple[int, Opaque]]:
    """The terms ``k*atom`` of ``x`` that are floors or remainders by ints of several
    sizes."""
    found = []
    for mono, k in x._terms:
        atom = mono[0][0] if len(mono) == 1 and mono[0][1] == 1 else None
        if (by_int(atom, "//") or by_int(atom, "%")) and several(atom):
            found.append((k, atom))
    return found


def _blocked(x: Dim) -> dict[Opaque, set]:
    """The remainders ``a % e`` of one size that some floor or remainder by ``d`` of
    several sizes in ``x`` holds as ``c*(a % e)`` with ``d`` not dividing ``c*e``, each
    with the cores (:func:`_core`) of those floors' arguments: those stay in every floor
    (``(n + m % 2 + 1)//4 + (n + m % 2)//2`` is a function of ``u = n + m % 2``, and
    Hermite's identity over ``u`` makes it ``u - (u + 3)//4``; writing the floor by 2
    alone over ``m`` hid that)."""
    found: dict[Opaque, set] = {}
    for _, atom in _floors(x):
        arg, d = atom.args
        for inner, c in arg._terms:
            r = inner[0][0] if len(inner) == 1 and inner[0][1] == 1 else None
            if by_int(r, "%") and (c * r.args[1]) % d:
                found.setdefault(r, set()).add(_core(arg))
    return found


def _folded(x: Dim, kept: dict[Opaque, set]) -> DimLike:
    """``x`` with a floor or remainder by ``d`` of several sizes whose argument holds
    ``c*m`` written over a kept remainder ``(m + s) % e`` (``c*m`` is ``c*((m + s) % e) +
    c*e*((m + s)//e) - c*s``) where ``d`` divides ``c*e`` and the argument is then over
    the core of a floor that keeps it: ``(m + n)//2`` beside ``(n + m % 2 + 1)//4`` is
    ``(n + m % 2)//2 + m//2``, the inverse of :func:`unfolded`, so that both ways of
    writing the floor by 2 meet Hermite's identity over ``n + m % 2``; ``x`` itself
    where none is."""
    for r, cores in kept.items():
        a, e = r.args
        linear = [(mono, c) for mono, c in a._terms if mono]
        if len(linear) != 1 or linear[0][1] != 1:
            continue
        symbol = linear[0][0]
        s = a - atom_dim(symbol[0][0])
        for k, atom in _floors(x):
            arg, d = atom.args
            c = dict(arg._terms).get(symbol, 0)
            if not c or (c * e) % d or any(r in dict(m) for m, _ in arg._terms):
                continue
            new = arg - c * atom_dim(symbol[0][0]) + c * atom_dim(r) - c * s
            if isinstance(new, int) or _core(new) not in cores or _nested(new, r):
                continue
            y = x - k * atom_dim(atom) + k * APPLY[atom.op](new, d)
            if atom.op == "//":
                y = y + k * (c * e // d) * dim_floordiv(a, e)
            return y
    return x


def _core(arg: Dim) -> tuple:
    """The terms of ``arg`` that are not its constant, over their coefficients' gcd."""
    terms = [(mono, c) for mono, c in arg._terms if mono]
    g = math.gcd(*(c for _, c in terms)) if terms else 1
    return tuple((mono, c // g) for mono, c in terms)


def _nested(x: Dim, atom: Opaque) -> bool:
    """Whether ``atom`` is inside another atom of ``x`` (``m % 2`` in ``n + m % 2 + (n +
    m % 2) % 4``: that argument is a function of ``u = n + m % 2``, which writing its
    outer ``m % 2`` as ``m`` would hide from :func:`_core`)."""
    return any(isinstance(a, Opaque) and any(_mentions(g, atom) for g in a.args)
               for mono, _ in x._terms for a, _ in mono)


def _mentions(x: DimLike, atom: Opaque) -> bool:
    """Whether ``atom`` is an atom of ``x`` or inside one."""
    return not isinstance(x, int) and any(
        a == atom or (isinstance(a, Opaque) and any(_mentions(g, atom) for g in a.args))
        for mono, _ in x._terms for a, _ in mono)
