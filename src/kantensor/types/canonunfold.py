"""Remainders of one size inside floors and remainders of several sizes, written over
the size (:func:`unfolded`): ``(n + m % 2)//2`` is ``(m + n)//2 - m//2``, so floors of a
linear form over a size and over its remainders are one atom for
:mod:`kantensor.types.canon`."""

from __future__ import annotations

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
    argument holds ``a % e`` (:func:`_nested`). A min or max there has its least
    constant out (``min(6, m + 1)`` is ``min(5, m) + 1``), so that floors over
    ``k + min(5, m)`` and over ``k + min(6, m + 1)`` are of one ``u``."""
    for mono, k in x._terms:
        atom = mono[0][0] if len(mono) == 1 and mono[0][1] == 1 else None
        if not (by_int(atom, "//") or by_int(atom, "%")) or not several(atom):
            continue
        arg, d = atom.args
        out: DimLike = 0
        for inner, c in arg._terms:
            r = inner[0][0] if len(inner) == 1 and inner[0][1] == 1 else None
            if by_int(r, "%") and not (c * r.args[1]) % d and \
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
