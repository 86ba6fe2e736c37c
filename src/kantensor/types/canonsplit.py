"""Atoms over several sizes that are sums of functions of one size each (a step of
:mod:`.canon`).

A floor or remainder by an int, or a min or max, over several sizes whose arguments are
each a constant plus, per size, a *bounded* part of that size alone (``8*(k % 3) + m % 3
+ 4``, ``min(3, k % 4) + (m % 2)``) is a function of finitely many values: each part is
periodic past its threshold (:func:`.quasi.table`), and parts of different sizes take
their values independently. Where that function is a sum of one function per size,
``F(k, m) == F(k, 0) + F(0, m) - F(0, 0)`` at every point of the grid of each size's
threshold and period (so at every size), the atom is written as that sum: each term is
a size of one size, which :mod:`.canon` then writes in its one form. So ``(8*(k % 3) +
m % 3 + 4)//12``, which never depends on ``m``, and ``(2*(k % 3) + 1)//3`` are one
form (``(k + 2)//3 - k//3``), where they were two floors of different arguments.

An identity at every size, checked exhaustively on the grid; the work is bounded by
:data:`MAX_POINTS` (the grid's points) and :data:`MAX_SIZES`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from functools import lru_cache
from typing import Final

import numpy as np

from .dim import DimLike, atom_dim
from .poly import Opaque
from .quasi import in_fragment, table, values
from .readback import atom_symbols, of_terms
from .symbols import substitute

__all__ = ["MAX_POINTS", "MAX_SIZES", "separated"]

MAX_POINTS: Final = 4096
"""Most points of the grid a separation is checked on (the product of each size's
threshold plus period)."""
MAX_SIZES: Final = 3
"""Most sizes an atom separated may be over."""


def separated(x: DimLike) -> DimLike:
    """``x`` with each atom over several sizes that is a sum of functions of one size
    each (module docstring) written as that sum; ``x`` itself where none is."""
    if isinstance(x, int):
        return x
    out = x
    for mono, k in x._terms:
        atom = mono[0][0] if len(mono) == 1 and mono[0][1] == 1 else None
        if not (isinstance(atom, Opaque) and atom.op in ("//", "%", "min", "max")):
            continue
        found = _split(atom)
        if found is not None:
            out = out - k * atom_dim(atom) + k * found
    return out


@lru_cache(maxsize=1 << 12)
def _split(atom: Opaque) -> DimLike | None:
    """The sum of one-size sizes ``atom`` is, or None where it is none (or the grid is
    past the limits)."""
    sizes = sorted(atom_symbols(atom), key=str)
    if not 1 < len(sizes) <= MAX_SIZES:
        return None
    args = atom.args[:1] if atom.op in ("//", "%") else atom.args
    if atom.op in ("//", "%") and not (type(atom.args[1]) is int and atom.args[1] > 0):
        return None
    parts = [_parts(g, sizes) for g in args]
    if None in parts:
        return None
    lengths = []
    for s in sizes:
        threshold, period = 0, 1
        for _, by_size in parts:
            found = by_size.get(s)
            if found is not None:
                threshold, period = max(threshold, found[0]), math.lcm(period, found[1])
        lengths.append(threshold + period)
    if math.prod(lengths) > MAX_POINTS:
        return None
    grid = _values(atom, parts, sizes, lengths)
    zero = grid[(0,) * len(sizes)]
    whole = sum(grid[tuple(slice(None) if j == i else slice(0, 1) for j in range(len(sizes)))]
                for i in range(len(sizes))) - (len(sizes) - 1) * zero
    if not np.array_equal(np.broadcast_to(whole, grid.shape), grid):
        return None
    here = atom_dim(atom)
    total: DimLike = -(len(sizes) - 1) * int(zero)
    for s in sizes:
        total = total + substitute(here, {t: 0 for t in sizes if t != s})
    return total


def _parts(g: DimLike, sizes: list) -> tuple[int, dict] | None:
    """``(constant, {size: (threshold, period, part)})`` of an argument that is a
    constant plus a bounded part of each size alone; None where it is not."""
    if isinstance(g, int):
        return g, {}
    constant = 0
    terms: dict[Hashable, list] = {}
    for mono, c in g._terms:
        if not mono:
            constant = c
            continue
        if len(mono) != 1:
            return None
        symbols = atom_symbols(mono[0][0])
        if len(symbols) != 1:
            return None
        terms.setdefault(next(iter(symbols)), []).append((mono, c))
    out = {}
    for s, found in terms.items():
        part = of_terms(found)
        if isinstance(part, int) or not in_fragment(part, s):
            return None
        shape = table(part)
        if shape is None:
            return None
        threshold, period, _, increments = shape
        if sum(increments[threshold:threshold + period]):
            return None  # (not bounded: the atom depends on the size past any grid)
        out[s] = threshold, period, part
    return constant, out


def _values(atom: Opaque, parts: list, sizes: list, lengths: list) -> np.ndarray:
    """The atom's values at every point of the grid (axis ``i`` the ``i``-th size, its
    points ``0 .. lengths[i] - 1``)."""
    shape = [1] * len(sizes)
    found = []
    for constant, by_size in parts:
        total = np.array(constant, dtype=object)
        for i, s in enumerate(sizes):
            if s in by_size:
                v = values(by_size[s][2], np.arange(lengths[i])).astype(object)
                axis = list(shape)
                axis[i] = lengths[i]
                total = total + v.reshape(axis)
        found.append(total)
    found = [np.broadcast_to(v, lengths) for v in found]
    if atom.op == "//":
        return found[0] // atom.args[1]
    if atom.op == "%":
        return found[0] % atom.args[1]
    out = found[0]
    for v in found[1:]:
        out = np.minimum(out, v) if atom.op == "min" else np.maximum(out, v)
    return out

