"""Affine forms over sizes and atoms, and whether strict inequalities over them hold a
point (Fourier–Motzkin elimination over the rationals, exact): the cells of
:mod:`kantensor.types.lattice` are found with it, and :mod:`.congruent` stops where it
is past its budget (:class:`TooLarge`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable
from typing import Final

from .poly import atom_key

__all__ = ["MAX_CONSTRAINTS", "Affine", "TooLarge", "affine", "feasible", "minus"]

MAX_CONSTRAINTS: Final = 300
"""Most inequalities one elimination step may hold (past it: not shown empty)."""

Affine = tuple[tuple[tuple[Hashable, int], ...], int]  # ((variable, coeff != 0), ...), const


def affine(d: dict, const: int) -> Affine:
    return tuple(sorted(((v, c) for v, c in d.items() if c),
                        key=lambda t: atom_key(t[0]))), const


def minus(a: Affine, b: Affine, sign: int) -> Affine:
    """``sign*(a - b)``."""
    d = dict(a[0])
    for v, k in b[0]:
        d[v] = d.get(v, 0) - k
    return affine({v: sign * k for v, k in d.items()}, sign * (a[1] - b[1]))


class TooLarge(Exception):
    """An elimination past :data:`MAX_CONSTRAINTS`: the lattice part is left as written
    (an unknown answer taken either way could make a form that is not the size)."""


def feasible(strict: list[Affine]) -> bool:
    """Whether some real point meets every ``form > 0`` (Fourier–Motzkin elimination,
    the variable of fewest new rows first, each form kept at its tightest constant);
    :class:`TooLarge` past the limits."""
    rows = _tightest({}, ((dict(terms), c) for terms, c in strict))
    while True:
        if any(not terms and c <= 0 for terms, c in rows):
            return False
        rows = [r for r in rows if r[0]]
        if not rows:
            return True
        names = {w for terms, _ in rows for w in terms}
        v = min(names, key=lambda w: (sum(r[0].get(w, 0) > 0 for r in rows)
                                      * sum(r[0].get(w, 0) < 0 for r in rows), atom_key(w)))
        up = [r for r in rows if r[0].get(v, 0) > 0]
        down = [r for r in rows if r[0].get(v, 0) < 0]
        if len(up) * len(down) + len(rows) > MAX_CONSTRAINTS:
            raise TooLarge
        keep: dict = {}
        _tightest(keep, (r for r in rows if not r[0].get(v, 0)))
        for (a, ca), (b, cb) in itertools.product(up, down):
            ka, kb = -b[v], a[v]  # ka*a + kb*b has no v
            d = {w: ka * a.get(w, 0) + kb * b.get(w, 0) for w in a.keys() | b.keys() if w != v}
            d = {w: k for w, k in d.items() if k}
            c = ka * ca + kb * cb
            g = math.gcd(c, *d.values())
            _tightest(keep, [({w: k // g for w, k in d.items()}, c // g) if g > 1 else (d, c)])
        rows = list(keep.values())


def _tightest(keep: dict, rows) -> list:
    """``keep`` (form -> row) with ``rows`` added, of each form the least constant (``d.x
    + c > 0`` for the least ``c`` implies the others); its rows."""
    for d, c in rows:
        key = frozenset(d.items())
        if key not in keep or c < keep[key][1]:
            keep[key] = (d, c)
    return list(keep.values())


