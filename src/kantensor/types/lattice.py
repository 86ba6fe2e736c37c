"""One form for sums of min and max over several sizes (the lattice part of a size).

A size ``f = L + c1*M1 + ...``, ``Mi`` min and max atoms (one over several sizes at
least, and those of one size beside it) whose arguments (and ``L``) are linear in
*variables* — named sizes, and other atoms (``n//2``, ``m % 3``) taken as free, within
what is true of them (``>= 0`` by their structure, ``0 <= m % 3 <= 2``, ``2*(n//2) <=
n <= 2*(n//2) + 1``) — is piecewise affine: each choice of one
argument per min and max (a *selection*) makes it one affine form on the open cell
where the chosen arguments are strictly least (greatest); the cells that hold a point
are found by Fourier–Motzkin elimination over the rationals (exact, :func:`.fourier.feasible`),
choice by choice. The distinct forms of those cells are ``f``'s *pieces*, a function of
``f`` alone. Then ``f`` is written:

* as its one piece where it has one (``min(m, n) + max(m, n)`` is ``m + n``;
  ``max(0, m//3 - n) + min(m//3, n)`` is ``m//3``);
* as a sum of parts of one size each where it is one (``f(m, n) == f(m, 0) + f(0, n) -
  f(0, 0)``, shown by the cells of the difference, or of its form below by
  :mod:`.prove`), each part then formed on its own;
* as ``h + min(p1 - h, p2 - h, ...)`` where every piece is at least ``f`` on every cell
  (``f`` is concave, the min of its pieces), ``h + max(...)`` where every piece is at
  most ``f`` (convex); ``h`` is the part the pieces share, each variable's least
  coefficient and the least constant among them (``min(m + n + 1, 2*n + 1)`` is ``n +
  1 + min(m, n)``), and a common factor out (``min(4*m, 4*n)`` is ``4*min(m, n)``),
  without the pieces alone the least (greatest) at no integer point
  (:func:`.latticecells.needed`: ``min((m % 4)//2, n - m, n//2)``);
* else as the shorter of its max-of-mins and min-of-maxes forms (Ovchinnikov's): the
  max over the least sets ``{p : p(x) >= f(x)}`` (over the points ``x``) of the min of
  each (and dually), sets that are a function of ``f`` (``max(min(k, m), min(m, n))``
  is ``min(m, max(k, n))``).

Equal at every point of the variables' domain, two such sums have the same pieces, so
the same form. A size beside its floors and remainders by one divisor is written over
its digits (:mod:`kantensor.types.digits`: ``n//2 + (n + 1)//2`` is ``n``); other atoms
are free beyond the bounds above, so sizes equal only because of how such an atom
depends on a size (``(n + 2)//3 - n//3`` beside ``(n + 1)//3``), or only at integers
(``min(1, m + n)`` and ``min(1, 2*m + n)``), may keep two forms. The work is bounded
(``MAX_EXTREMES``, ``_VARIABLES``, ``_SELECTIONS``, ``_PIECES``, ``_SUBSETS``,
:data:`.fourier.MAX_CONSTRAINTS`); past it the size is left as written.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from functools import lru_cache
from typing import Final

from .digits import digits, folds
from .dim import DimLike, atom_dim
from .dimminmax import dim_max, dim_min
from .fourier import Affine, TooLarge, affine, minus
from .intervals import nonnegative_atom
from .latticecells import MAX_SELECTIONS, MAX_SUBSETS, bounds, cells, domain, least, needed
from .poly import Opaque, atom_key
from .prove import proves
from .symbols import free_symbols, substitute

__all__ = ["MAX_EXTREMES", "MAX_PIECES", "MAX_SELECTIONS", "MAX_SUBSETS",
           "MAX_VARIABLES", "lattice_form", "lattice_kept"]

MAX_EXTREMES: Final = 16
"""Most min and max atoms a lattice part may have."""
MAX_VARIABLES: Final = 6
"""Most variables (sizes and other atoms) the pieces are over."""
MAX_PIECES: Final = 8
"""Most pieces a size written as a max of mins may have."""


def lattice_form(x: DimLike, one: bool = False) -> DimLike:
    """``x`` with its part that is a sum of min and max over several sizes (with ``one``,
    over one size too) in one form (see the module); ``x`` itself where it has none, or
    that part is not decided."""
    if isinstance(x, int) or not one and not any(map(several_extreme, dict(x._terms))):
        return x
    found = _lattice(x._terms)
    return x if found is None else found


def lattice_kept(x: DimLike) -> DimLike | None:
    """``x``'s form with each min or max ``U`` of several sizes that is beside a floor or
    remainder of itself (:func:`_floored`) taken whole, as a variable; None where it has
    none, or no such form. :mod:`.canon` forms it in place of :func:`lattice_form`'s
    and opens ``U`` after: ``U - U//2 - min(m, n)`` is ``U - U//2 + max(m, n) - m - n``,
    so that Hermite's identity over ``U`` meets it (``(U + 1)//2``), where opening ``U``
    took it into the max of the rest; opened after, ``max(m, n) + max(m, n) % 4 + min(m,
    n) - n`` is ``m + max(m, n) % 4``."""
    return None if isinstance(x, int) else _kept(x._terms)


@lru_cache(maxsize=1 << 12)
def _kept(terms: tuple) -> DimLike | None:
    if not (whole := _floored(terms)):
        return None
    try:
        return _formed(terms, whole)
    except TooLarge:
        return None


def several_extreme(mono: tuple) -> bool:
    return len(mono) == 1 and mono[0][1] == 1 and _over_several(mono[0][0])


@lru_cache(maxsize=1 << 14)
def _over_several(atom: Hashable) -> bool:
    """A min or max over several symbols."""
    return isinstance(atom, Opaque) and atom.op in ("min", "max") and \
        len(frozenset().union(*(free_symbols(g) for g in atom.args))) > 1


@lru_cache(maxsize=1 << 12)
def _lattice(terms: tuple) -> DimLike | None:
    try:
        return _formed(terms)
    except TooLarge:
        return None


def _formed(terms: tuple, whole: frozenset = frozenset()) -> DimLike | None:
    found = lattice_parts(terms, whole)
    if found is None:
        return None
    part, rest, pieces, forms, written, domain = found
    sizes = _functions(written, forms)
    if len(forms) == 1:
        return rest + _render(_folded(forms[0], sizes))
    separate = _separate(part)
    if separate is None and len(forms) <= MAX_PIECES:
        found = _written(pieces, forms, written, domain)  # (a function of the pieces: sizes equal
        separate = found and (_separate(found, True) or found)  # over the free atoms get
    return None if separate is None else rest + separate  # one answer of the prover)


def _functions(written: list, forms: list) -> list:
    """The sizes written over their digits that every piece of ``forms`` is a function of."""
    return [(n, d, q, r, s) for n, d, q, r, s in written
            if all(dict(f[0]).get(q, 0) == d * dict(f[0]).get(r, 0) for f in forms)]


def _written(pieces: list, forms: list, written: list, domain: list) -> DimLike | None:
    """The size written from its pieces and cells (the last three ways above); a min
    (max) of the pieces without those never alone the least (greatest) at integers."""
    sizes = _functions(written, forms)
    above = [frozenset(p for p in forms if p == form or bounds(p, form, cell, True))
             for form, cell in pieces]  # for each cell: the pieces at least f there
    below = None if all(len(u) == len(forms) for u in above) else [
        frozenset(p for p in forms if p == form or bounds(p, form, cell, False))
        for form, cell in pieces]
    for sides, op in ((above, "min"), (below, "max")):
        if sides is not None and all(len(u) == len(forms) for u in sides):
            kept = needed(forms, domain, op)  # concave: the min of its pieces; convex
            return _shared([kept], op, _functions(written, kept))
    found = []
    for sides, op in ((above, "min"), (below, "max")):
        sets = least(pieces, sides, forms, op == "min")
        if sets is None:
            return None
        found.append(_shared(sets, op, sizes))
    return min(found, key=lambda f: (len(str(f)), found.index(f)))


def lattice_parts(terms: tuple, whole: frozenset = frozenset()) -> tuple | None:
    """``(part, rest, pieces, forms, written)``: the lattice part of ``terms`` (a size), the
    rest, the part's cells with their forms, its distinct forms, and the sizes written
    over their digits (``(n, d, n//d, n % d)``, :mod:`kantensor.types.digits`); None past
    the limits, with its min and max of one size in the part and then, past the variables,
    beside it (``max(2*k + 1, m + n) + min(2*k + 1, m + n) - m - n`` is ``2*k + 1``
    beside a min of ``k``, ``k//2``, ``k//4``, ``k//5``, ``(k + 3)//5``: 7 variables
    with it)."""
    extremes = [mono[0][0] for mono, _ in terms
                if several_extreme(mono) and mono[0][0] not in whole]
    if whole and not extremes:
        return None  # (its one min or max of several is whole: nothing to open)
    ones = [mono[0][0] for mono, _ in terms if one_extreme(mono)]
    try:
        return _cells(terms, extremes + ones, whole)
    except _Wide:
        if not (ones and extremes):
            return None
    try:  # (only past the variables: a search past its budget is not made twice)
        return _cells(terms, extremes, whole)
    except _Wide:
        return None


class _Wide(Exception):
    """A lattice part over more than :data:`MAX_VARIABLES` variables."""


def _cells(terms: tuple, extremes: list, whole: frozenset) -> tuple | None:
    """:func:`lattice_parts` with these min and max as the lattice part's."""
    part: dict = {}  # the lattice part: its extremes, and the linear terms over their variables
    rest: DimLike = 0
    atoms = _extremes(extremes, whole)
    if atoms is None:
        return None
    variables = _variables(atoms, whole)
    if variables is None:
        return None
    written, variables = digits(variables, (mono[0][0] for mono, _ in terms if mono))
    if len(variables) > MAX_VARIABLES:
        raise _Wide
    known = {v: affine(*w) for v, w in written.items()}
    inside = set(atoms) | variables.keys() | known.keys()
    for mono, c in terms:
        if not mono or (len(mono) == 1 and mono[0][1] == 1 and mono[0][0] in inside):
            part[mono] = c
        else:
            rest = rest + _term(mono, c)
    box = domain(variables, known)
    pieces = cells(part, atoms, box, known)
    if pieces is None:
        return None
    forms = sorted({form for form, _ in pieces},
                   key=lambda f: (tuple((atom_key(v), c) for v, c in f[0]), f[1]))
    return sum((_term(mono, c) for mono, c in part.items()), start=0), rest, pieces, forms, \
        folds(written), box


def _separate(part: DimLike, proven: bool = False) -> DimLike | None:
    """``part`` as a sum of parts of one size each, where it is one: ``f(m, n) == f(m,
    0) + f(0, n) - f(0, 0)`` (shown by the cells of the difference; with ``proven``, or
    by the prover, which knows how an atom depends on its size: ``n//3`` on ``n``); so a
    sum of one-symbol min and max is written as such, whatever min and max of several
    sizes it was written with. None where it is not."""
    symbols = sorted(s for s in free_symbols(part) if isinstance(s, str))
    if len(symbols) < 2 or len(symbols) != len(free_symbols(part)):
        return None
    try:  # (an atom may divide by a size: x//h at h = 0)
        total: DimLike = -(len(symbols) - 1) * substitute(part, dict.fromkeys(symbols, 0))
        for s in symbols:
            total = total + substitute(part, {t: 0 for t in symbols if t != s})
    except ZeroDivisionError:
        return None
    gap = part - total
    if isinstance(gap, int):
        return total if gap == 0 else None
    found = lattice_parts(gap._terms)
    if found is not None and found[1] == 0 and found[3] == [((), 0)]:
        return total
    return total if proven and proves((), (gap, "==", 0)) else None


def _floored(terms: tuple) -> frozenset:
    """The min and max ``U`` of several sizes, terms of the size, that a floor or
    remainder by an int of the size is a function of alone (``U//2``, ``(3*U + 1) % 4``):
    taken whole, as a variable, so that :mod:`.canon` meets ``U`` beside its floor (``U -
    U//2`` is ``(U + 1)//2``, Hermite's identity over ``U``) however the rest is written;
    the lattice would take ``U`` into the max of the rest first (``min(k, n) - min(m, n)``
    is ``max(m + min(k, n), n + min(k, n)) - m - n``)."""
    lone = {mono[0][0] for mono, _ in terms if several_extreme(mono)}
    out = set()
    for mono, _ in terms:
        atom = mono[0][0] if len(mono) == 1 else None
        if isinstance(atom, Opaque) and atom.op in ("//", "%") and type(atom.args[1]) is int \
                and not isinstance(atom.args[0], int):
            inner = {m for m, _ in atom.args[0]._terms if m}
            if len(inner) == 1 and (m := next(iter(inner)))[0][1] == 1 and len(m) == 1 \
                    and m[0][0] in lone:
                out.add(m[0][0])
    return frozenset(out)


def one_extreme(mono: tuple) -> bool:
    """A min or max of one symbol whose arguments are linear in atoms."""
    if len(mono) != 1 or mono[0][1] != 1:
        return False
    atom = mono[0][0]
    return isinstance(atom, Opaque) and atom.op in ("min", "max") and \
        not several_extreme(mono) and _extremes([atom]) is not None


def _term(mono: tuple, c: int) -> DimLike:
    term: DimLike = c
    for atom, p in mono:
        term = term * atom_dim(atom) ** p
    return term


def _extremes(tops: list[Opaque], whole: frozenset = frozenset()) -> list[Opaque] | None:
    """Every min and max atom in ``tops`` and their arguments (inner ones first), each
    once, but those of ``whole`` (variables); None where an argument is not linear in
    atoms or past the limits."""
    seen: dict[Opaque, None] = {}

    def visit(atom: Opaque) -> bool:
        if atom in seen:
            return True
        for g in atom.args:
            if isinstance(g, int):
                continue
            for mono, _ in g._terms:
                if not mono:
                    continue
                if len(mono) != 1 or mono[0][1] != 1:
                    return False
                inner = mono[0][0]
                if isinstance(inner, Opaque) and inner.op in ("min", "max") and \
                        inner not in whole and not visit(inner):
                    return False
        seen[atom] = None
        return True

    if not all(visit(a) for a in tops):
        return None
    if len(seen) > MAX_EXTREMES:
        return None
    return list(seen)


def _variables(atoms: list[Opaque], whole: frozenset = frozenset()
               ) -> dict[Hashable, bool] | None:
    """The variables of the extremes' arguments (a min or max of ``whole`` is one) ->
    whether each is ``>= 0``."""
    out: dict[Hashable, bool] = {}
    for a in atoms:
        for g in a.args:
            if isinstance(g, int):
                continue
            for mono, _ in g._terms:
                if mono:
                    v = mono[0][0]
                    if not (isinstance(v, Opaque) and v.op in ("min", "max")) or v in whole:
                        out[v] = nonnegative_atom(v)
    return out


def _render(form: Affine) -> DimLike:
    total: DimLike = form[1]
    for v, k in form[0]:
        total = total + k * atom_dim(v)
    return total


def _folded(form: Affine, found: list) -> Affine:
    """``form`` with ``a*(d*(n//d) + n % d)`` written ``a*n`` for the sizes ``n`` of
    ``found``, written over their digits and of which every piece is a function: so the
    pieces are written as functions of the size alone, whether or not ``n`` was written
    over its digits (that depends on the atoms the size has)."""
    d, const = dict(form[0]), form[1]
    for n, _, q, r, s in found:  # (n == d*q + r - s)
        a = d.pop(r, 0)
        d.pop(q, None)
        d[n], const = d.get(n, 0) + a, const + a * s
    return affine(d, const)


def _shared(sets: list[list[Affine]], op: str, found: list) -> DimLike:
    """``h + g*max(min(...), ...)`` of the pieces' sets (``op`` "min"; else ``h +
    g*min(max(...), ...)``), each piece :func:`_folded`: ``h`` each variable's least
    coefficient and the least constant among the pieces, ``g`` their common factor."""
    mins = [[_folded(f, found) for f in u] for u in sets]
    forms = [f for u in mins for f in u]
    coeffs = [dict(f[0]) for f in forms]
    names = {v for c in coeffs for v in c}
    h = affine({v: min(c.get(v, 0) for c in coeffs) for v in names},
                min(f[1] for f in forms))
    shifted = [[minus(f, h, 1) for f in u] for u in mins]
    g = math.gcd(*(k for u in shifted for f in u for _, k in f[0]),
                 *(f[1] for u in shifted for f in u)) or 1
    inner, outer = (dim_min, dim_max) if op == "min" else (dim_max, dim_min)
    terms = [inner(*(_render((tuple((v, k // g) for v, k in f[0]), f[1] // g)) for f in u))
             for u in shifted]
    return _render(h) + g * outer(*terms)
