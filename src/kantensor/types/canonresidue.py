"""Floors and remainders of several sizes whose one-size parts have a threshold: each such
part written by its residues modulo the divisor (a step of :mod:`.canon`).

A floor or remainder by ``d`` of a sum of parts of one size each, ``(A_n(n) + A_k(k) +
c)//d``, depends on each part ``A_k`` only through its residues ``A_k mod d`` and its
quotient: ``A_k == F + d*Q`` for any ``F`` congruent to ``A_k`` modulo ``d`` at every size,
and ``Q = (A_k - F)/d`` comes out of the floor (``//``: ``+ Q``; ``%``: nothing). Parts
without a threshold (sums of ``k`` and floors) are written one way by the Dim algebra,
which reduces their coefficients modulo ``d``; a part with a min or max (a threshold) may
be congruent to another without its terms being so: ``max(2*k, 3 - k) + 1`` and ``min(1,
k) + 4`` agree modulo 2 at every ``k`` (their pieces do not), so ``(n + max(2*k, 3 - k) +
1)//2 + 2*min(0, k - 1)`` is ``k + (n + min(1, k))//2``.

So each part with a threshold is written as ``F``, chosen from its residues alone: of ``a*k
+ g`` for ``a`` in ``0 .. d - 1``, ``g`` the one-size form
(:func:`kantensor.types.quasiform.table_form`) of the residues ``r = (A_k - A_k(0) - a*k)
mod d`` or of the least size congruent to ``r`` that never falls (:func:`_lifts`), the one
of fewest terms, then shortest text (then by text); its constant ``A_k(0)`` stays in the
argument. A part that is its own ``F`` is left as it is (``3*min(2, k)`` in ``(m +
3*min(2, k))//6``). The work is bounded: divisors past :data:`MAX_DIVISOR` are left as
they are.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Final

import numpy as np

from .dim import DimLike, atom_dim
from .dimdivide import dim_floordiv, dim_mod
from .poly import Opaque, lone_atom
from .quasi import Table, in_fragment, least_table, table
from .quasiform import table_form
from .readback import atom_symbols
from .symbols import APPLY

__all__ = ["MAX_DIVISOR", "residues_out"]

MAX_DIVISOR: Final = 64
"""Largest divisor whose floors and remainders have their parts written by residues (each
of its ``d`` slopes ``a`` forms two tables)."""


#: The most rewrites :func:`residues_out` makes of one expression.
MAX_REWRITES: Final = 64


def residues_out(x: DimLike) -> DimLike:
    """``x`` with each floor and remainder by an int ``d > 1`` of a sum of parts of one
    size each (two sizes or more) written with its parts that have a threshold by their
    residues (module docstring); ``x`` itself where none changes. Each rewrite is equal
    to what it rewrites; the Dim algebra may write a rewritten floor back as it was
    (``(4*n + 3*(m % 2) + 6*(m % 3) + 2*min(3, m))//8`` beside ``n``), so it stops at an
    expression met before, or after :data:`MAX_REWRITES`."""
    seen: set[DimLike] = set()
    while not isinstance(x, int) and x not in seen and len(seen) < MAX_REWRITES:
        seen.add(x)
        y = _rewritten(x)
        if y is None:
            break
        x = y
    return x


def _rewritten(x: DimLike) -> DimLike | None:
    """``x`` with its first floor or remainder that :func:`_written` changes rewritten,
    or None where none changes."""
    for mono, k in x._terms:
        atom = lone_atom(((mono, 1),)) if len(mono) == 1 and mono[0][1] == 1 else None
        if not (isinstance(atom, Opaque) and atom.op in ("//", "%")
                and type(atom.args[1]) is int and 1 < atom.args[1] <= MAX_DIVISOR
                and not isinstance(atom.args[0], int)):
            continue
        found = _written(atom.args[0]._terms, atom.args[1])
        if found is None:
            continue
        arg, out = found
        y = x - k * atom_dim(atom) + k * APPLY[atom.op](arg, atom.args[1])
        return y + k * out if atom.op == "//" else y
    return None


@lru_cache(maxsize=1 << 12)
def _written(terms: tuple, d: int) -> tuple[DimLike, DimLike] | None:
    """``(argument, quotient)``: the argument with its parts of one size that have a
    threshold written as their ``F``, and the sum of their ``Q``; None where the argument
    is not a sum of parts of one size each, over two sizes or more, or none changes."""
    parts: dict[Hashable, DimLike] = {}
    constant = 0
    for mono, c in terms:
        if not mono:
            constant += c
            continue
        if len(mono) != 1 or mono[0][1] != 1:
            return None
        symbols = atom_symbols(mono[0][0])
        if len(symbols) != 1:
            return None
        s = next(iter(symbols))
        parts[s] = parts.get(s, 0) + c * atom_dim(mono[0][0])
    if len(parts) < 2:
        return None
    arg: DimLike = constant
    out: DimLike = 0
    changed = False
    for s, p in parts.items():
        f = _residue_form(p, s, d)
        if f is None:
            arg = arg + p
            continue
        form, p0 = f
        arg = arg + form + p0
        out = out + dim_floordiv(p - p0 - form, d)  # exact: p - p0 - form is d*Q
        changed = True
    return (arg, out) if changed else None


def _residue_form(p: DimLike, s: Hashable, d: int) -> tuple[DimLike, int] | None:
    """``(F, p(0))`` for a part ``p`` of the size ``s`` with a threshold, where ``F`` (0 at
    0, congruent to ``p - p(0)`` modulo ``d``) is not ``p - p(0)`` itself; None elsewhere."""
    if isinstance(p, int) or not any(isinstance(a, Opaque) and a.op in ("min", "max")
                                     for mono, _ in p._terms for a, _ in mono):
        return None
    if not in_fragment(p, s):
        return None
    found = table(p)
    if found is None or not found[0]:
        return None
    p0 = found[2]
    n = atom_dim(s)
    best = None
    for a in range(d):
        rest = dim_mod(p - p0 - a * n, d)
        found = None if isinstance(rest, int) else table(rest)
        if found is None and not isinstance(rest, int):
            continue
        for g in [rest] if found is None else _lifts(found, s, d):
            f = a * n + g
            key = (0 if isinstance(f, int) else len(f._terms), len(str(f)), str(f))
            if best is None or key < best[0]:
                best = key, f
    if best is None:
        return None
    f = best[1]
    if _same(f, p - p0):
        return None
    return f, p0


def _lifts(found: Table, s: Hashable, d: int) -> list[DimLike]:
    """The forms of the residues ``r`` with this table (values in ``0 .. d - 1``, 0 at 0),
    and of the size congruent to them whose steps are all ``>= 0`` and least:
    ``3*min(2, k)`` for the residues ``0, 3, 0, 0, ...`` modulo 6 (not one that falls:
    ``min(-k, 1 - 2*k)`` for ``2*k + min(1, k)`` modulo 4 would hide from
    :mod:`.narrow` that ``(2*k + 2*m + min(1, k) + 2)//4`` is ``(k + m + 1)//2``)."""
    threshold, period, _, increments = found
    out = []
    for lift in (False, True):
        steps = tuple(v % d for v in increments) if lift else increments
        values = np.concatenate(([0], np.cumsum([*steps, *steps[threshold:]])))
        form = table_form(least_table(values, threshold, period), s)
        if form is not None:
            out.append(form)
    return out


def _same(a: DimLike, b: DimLike) -> bool:
    if isinstance(a, int) or isinstance(b, int):
        return a == b
    return a._terms == b._terms
