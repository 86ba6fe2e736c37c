"""Canonical forms of size expressions on the decidable fragment.

:func:`canonical_form` rewrites a size into one form per function of the sizes, where it
can decide that function: a size is split into a constant, one part per symbol that
mentions that symbol alone, and the rest (products, parts over several symbols). Each
one-symbol part built from ``+``, int multiples, floor division and remainder by ints,
min and max is a quasi-affine function of its symbol (:mod:`kantensor.types.quasi`);
where it is one from ``n = 0`` on, it is written from its table alone, as the shortest
text among the sparsest sums ``a*n + c1*((n + s1)//d1) + c2*((n + s2)//d2)`` that have
that table, a floor with coefficient ``-k*e`` beside ``e*n`` read as ``e*((n + s) % k)``
(ties by text). So

* ``n % 3`` and ``n - 3*(n//3)`` are ``n % 3``; ``n//2 + (n + 1)//2`` (Hermite's
  identity) is ``n``; ``-(-n//3)`` (a ceil) is ``(n + 2)//3``;
* a min or max of one symbol that equals one quasi-affine function from 0 on
  (``min((h + 1)//2, h//2)``, ``max(n//2, n//3)``) is that function's form.

Left as built (sound, not canonical): a part equal to a quasi-affine function only
past some threshold (``max(n, 5)``, ``min(64, n)``: a min or max stays, with canonical
arguments), a part whose period or threshold is past the limits of
:mod:`~kantensor.types.quasi`, products, and atoms over several symbols (``(a + b)//2``,
``min(a, b)``), whose arguments are made canonical but which are not compared with
other ways of writing them. The value never changes: the form chosen is checked
against the table it was made from.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache

import numpy as np

from .dim import Dim, DimLike, _floordiv, _mod, _rebuild, _symbol
from .poly import Opaque
from .quasi import fits, in_fragment, table, values
from .symbols import APPLY, free_symbols

__all__ = ["canonical_form"]


def canonical_form(x: DimLike) -> DimLike:
    """``x`` in the one form of its function of the sizes, where the fragment decides
    it (module docstring); else ``x`` with the parts that are decided made canonical."""
    if isinstance(x, int) or not _has_opaque(x):
        return x  # a polynomial over symbols is already canonical (types.poly)
    return _canonical(x)


@lru_cache(maxsize=1 << 14)
def _canonical(x: Dim) -> DimLike:
    parts: dict[Hashable, dict] = {}
    rest: dict = {}
    constant = 0
    for mono, c in x._terms:
        if not mono:
            constant += c
            continue
        atom = mono[0][0]
        symbols = _atom_symbols(atom)
        if len(mono) == 1 and mono[0][1] == 1 and len(symbols) == 1:
            parts.setdefault(next(iter(symbols)), {})[mono] = c
        else:
            rest[mono] = c
    total: DimLike = constant
    for s, part in parts.items():
        p = _rebuild_terms(part)
        if not isinstance(p, int) and _has_opaque(p) and in_fragment(p, s):
            form = _one_symbol(p, s)
            if form is not None:
                total = total + form[0] + form[1]
                continue
        total = total + _inner(p)
    if rest:
        total = total + _inner(_rebuild_terms(rest))
    return total


def _has_opaque(x: Dim) -> bool:
    return any(isinstance(atom, Opaque) for mono, _ in x._terms for atom, _ in mono)


def _atom_symbols(atom: Hashable) -> frozenset:
    if isinstance(atom, Opaque):
        return frozenset().union(*(free_symbols(g) for g in atom.args))
    return frozenset((atom,))


def _rebuild_terms(poly: dict) -> DimLike:
    """The size of ``{monomial: coefficient}`` (canonical terms in, canonical out)."""
    total: DimLike = 0
    for mono, c in poly.items():
        term: DimLike = c
        for atom, p in mono:
            term = term * _symbol(atom) ** p
        total = total + term
    return total


def _inner(x: DimLike) -> DimLike:
    """``x`` with the arguments of its opaque atoms made canonical."""
    if isinstance(x, int) or not _has_opaque(x):
        return x
    return _rebuild(x, lambda a: APPLY[a.op](*(canonical_form(g) for g in a.args))
                    if isinstance(a, Opaque) else None)


def _one_symbol(p: Dim, s: Hashable) -> tuple[DimLike, int] | None:
    """``(form, constant)`` with ``p == form + constant`` and ``form`` 0 at ``s = 0``, the
    form chosen from ``p``'s table alone; None where the table does not settle from 0 (or
    is past the limits)."""
    found = table(p)
    if found is None or found[0] > 0:
        return None
    _, period, start, increments = found
    n = _symbol(s)
    best: tuple[int, str, DimLike] | None = None
    for slope, combs in fits(increments):
        for form in _renderings(n, slope, combs):
            key = (len(str(form)), str(form), form)
            if best is None or key[:2] < best[:2]:
                best = key
    if best is None:
        return None
    form = best[2]
    points = np.arange(2 * period + 1)
    if not (values(form, points) == values(p, points) - start).all():
        return None  # never happens by construction; never change a value if it does
    return form, start


def _renderings(n: Dim, slope: int, combs: tuple) -> list[DimLike]:
    """``slope*n + sum(c*((n + d - 1 - r)//d))``, and each floor whose coefficient is a
    multiple of ``-d`` also as a remainder: ``-e*d*((n + s)//d) == e*((n + s) % d) -
    e*n - e*s``."""
    out: list[DimLike] = []
    for mask in range(1 << len(combs)):
        total: DimLike = 0
        a = slope
        for i, (c, d, r) in enumerate(combs):
            shift = d - 1 - r
            if mask >> i & 1:
                if c % d:
                    break
                e = -c // d
                total = total + e * _mod(n + shift, d) - e * shift
                a -= e
            else:
                total = total + c * _floordiv(n + shift, d)
        else:
            out.append(total + a * n)
    return out
