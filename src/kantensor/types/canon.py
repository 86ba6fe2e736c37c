"""Canonical forms of size expressions on the decidable fragment.

:func:`canonical_form` rewrites a size into one form per function of the sizes, where it
can decide that function: a size is split into a constant, one part per symbol that
mentions that symbol alone, and the rest (products, parts over several symbols). Each
one-symbol part built from ``+``, int multiples, floor division and remainder by ints,
min and max is a quasi-affine function of its symbol (:mod:`kantensor.types.quasi`);
where it is one from ``n = 0`` on, it is written from its table alone: among the
sparsest sums ``a*n + c1*((n + s1)//d1) + c2*((n + s2)//d2)`` that have that table (a
floor with coefficient ``-k*e`` beside ``e*n`` also read as ``e*((n + s) % k)``), the
one of fewest terms, then of shortest text (ties by text). So

* ``n % 3`` and ``n - 3*(n//3)`` are ``n % 3``; ``n//2 + (n + 1)//2`` (Hermite's
  identity) is ``n``; ``-(-n//3)`` (a ceil) is ``(n + 2)//3``;
* a min or max of one symbol that equals one quasi-affine function from 0 on
  (``min((h + 1)//2, h//2)``, ``max(n//2, n//3)``) is that function's form;
* a part quasi-affine only past a threshold is the min or max of two such forms, the
  one it is past the threshold and the one its values before it follow (``max(0, n -
  5) + 5`` is ``max(5, n)``), with the constant inside when it is the only such part.

Left as built (sound, not canonical): a part with a threshold that no such min or max
is (``max(7, n) % 3``), a part whose period or threshold is past the limits of
:mod:`~kantensor.types.quasi`, products, and atoms over several symbols (``(a + b)//2``,
``min(a, b)``), whose arguments are made canonical but which are not compared with
other ways of writing them. A part that needs three floors or more gets one form, not
always the shortest. The value never changes: the form chosen is checked against the
table it was made from.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Final

import numpy as np

from .dim import Dim, DimLike, _floordiv, _mod, _rebuild, _symbol, dim_max, dim_min
from .poly import Opaque, lone_atom
from .quasi import fits, in_fragment, table, values
from .symbols import APPLY, free_symbols

__all__ = ["canonical_form"]

MAX_PIECE_PERIOD: Final = 64
"""Longest period of a size with a threshold that is written as a min or max."""
MAX_PIECE_THRESHOLD: Final = 256
"""Latest threshold of a size written as a min or max of two quasi-affine sizes."""


def canonical_form(x: DimLike) -> DimLike:
    """``x`` in the one form of its function of the sizes, where the fragment decides
    it (module docstring); else ``x`` with the parts that are decided made canonical."""
    if isinstance(x, int) or not _has_opaque(x):
        return x  # a polynomial over symbols is already canonical (types.poly)
    return _canonical(x._terms)


@lru_cache(maxsize=1 << 14)
def _canonical(terms: tuple) -> DimLike:
    """Kept per terms, not per Dim: a Dim's ``==`` may consult a traced program's
    answers (types.dimorder), which must not make two sizes share a form."""
    parts: dict[Hashable, dict] = {}
    rest: dict = {}
    constant = 0
    for mono, c in terms:
        if not mono:
            constant += c
            continue
        atom = mono[0][0]
        symbols = _atom_symbols(atom)
        if len(mono) == 1 and mono[0][1] == 1 and len(symbols) == 1:
            parts.setdefault(next(iter(symbols)), {})[mono] = c
        else:
            rest[mono] = c
    total: DimLike = 0
    pieces = []  # the parts written as a min or max
    for s, part in parts.items():
        p = _rebuild_terms(part)
        if not isinstance(p, int) and _has_opaque(p) and in_fragment(p, s):
            form = _one_symbol(p, s)
            if form is not None:
                constant += form[1]
                if _lone_minmax(form[0]) is None:
                    total = total + form[0]
                else:
                    pieces.append(form[0])
                continue
        total = total + _inner(p)
    if len(pieces) == 1 and constant:  # the constant goes inside: max(5, n), not
        atom = _lone_minmax(pieces[0])  # max(0, n - 5) + 5
        pieces, constant = [APPLY[atom.op](*(g + constant for g in atom.args))], 0
    for piece in pieces:
        total = total + piece
    if rest:
        total = total + _inner(_rebuild_terms(rest))
    return total + constant


def _lone_minmax(x: DimLike) -> Opaque | None:
    atom = None if isinstance(x, int) else lone_atom(x._terms)
    return atom if isinstance(atom, Opaque) and atom.op in ("min", "max") else None


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
    return _rebuild(x, lambda a: _inner_atom(a) if isinstance(a, Opaque) else None)


def _inner_atom(a: Opaque) -> DimLike | None:
    """The atom over canonical arguments; None (kept) where they are its own."""
    args = tuple(canonical_form(g) for g in a.args)
    if all(g is f or _terms_of(g) == _terms_of(f) for g, f in zip(args, a.args, strict=True)):
        return None
    return APPLY[a.op](*args)


def _terms_of(x: DimLike) -> tuple | int:
    return x if isinstance(x, int) else x._terms


def _one_symbol(p: Dim, s: Hashable) -> tuple[DimLike, int] | None:
    """``(form, constant)`` with ``p == form + constant`` and ``form`` 0 at ``s = 0``, the
    form chosen from ``p``'s table alone; None where no form is found (past the limits,
    or a threshold no min or max of two quasi-affine pieces explains)."""
    found = table(p)
    if found is None:
        return None
    threshold, period, start, increments = found
    n = _symbol(s)
    if not threshold:
        form = _render(n, increments)
    else:
        form = _piecewise(n, threshold, period, increments)
    if form is None:
        return None
    points = np.arange(threshold + 2 * period + 1)
    if not (values(form, points) == values(p, points) - start).all():
        return None  # never happens by construction; never change a value if it does
    return form, start


def _render(n: Dim, increments: tuple[int, ...]) -> DimLike | None:
    """The form, 0 at 0, of the quasi-affine size with these periodic increments (one
    least period): the shortest text among the renderings of its sparsest fits."""
    best: tuple[int, int, str, DimLike] | None = None
    for slope, combs in fits(increments):
        for form in _renderings(n, slope, combs):
            terms = 0 if isinstance(form, int) else len(form._terms)
            key = (terms, len(str(form)), str(form), form)
            if best is None or key[:3] < best[:3]:
                best = key
    return None if best is None else best[3]


def _piecewise(n: Dim, threshold: int, period: int, increments: tuple[int, ...]
               ) -> DimLike | None:
    """A size 0 at 0, quasi-affine from ``threshold`` on, as the min or max of two
    quasi-affine sizes: the one it is from the threshold on, and the one its values
    before the threshold follow (``max(n, 5)``, ``min(64, n)``, ``max(0, n - 5)``);
    None if neither the min nor the max of those two is it."""
    if period > MAX_PIECE_PERIOD or threshold > MAX_PIECE_THRESHOLD:
        return None
    late = [increments[threshold + (m - threshold) % period] for m in range(period)]
    values_ = [0]
    for v in increments:
        values_.append(values_[-1] + v)
    blocks = -(-threshold // period)  # the late piece at 0: back from a whole period
    at = blocks * period
    late_start = values_[threshold] + sum(
        late[m % period] for m in range(threshold, at)) - blocks * sum(late)
    early_inc = increments[:threshold]
    for p in range(1, threshold + 1):  # the least period of the early steps
        if all(early_inc[m] == early_inc[m + p] for m in range(threshold - p)):
            break
    late_form, early_form = _render(n, tuple(late)), _render(n, tuple(early_inc[:p]))
    if late_form is None or early_form is None:
        return None
    want = (threshold, period, 0, increments)
    for pick in (dim_min, dim_max):
        form = pick(late_form + late_start, early_form)
        if not isinstance(form, int) and table(form) == want:
            return form
    return None


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
