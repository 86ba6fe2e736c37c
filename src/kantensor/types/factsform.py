"""Sizes simplified under size facts (the work of :func:`kantensor.types.facts.simplify`):
each atom under the facts, then the canonical form, in rounds until it settles; the
facts are a :class:`~kantensor.types.facts.Facts` (this module is below it)."""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any, Final

from .boxorder import has_extremes, ordered
from .canon import canonical_form, formed_as_is
from .dim import Dim, DimLike
from .dimfacts import assume_divisible
from .factsatoms import atom_under, between, by_size, kept_divisors, pruned
from .poly import Opaque, window_form
from .readback import has_opaque
from .restricted import constants, equated, on_multiples, past_lower_bounds
from .settle import settle
from .stated import same_term, settled
from .symbols import rebuild

__all__ = ["MAX_NESTING", "MAX_ROUNDS", "under_facts"]

_NESTING: Final = threading.local()  # .depth: _simplify calls open (per thread)
#: The most :func:`_simplify` calls open at once (an atom's arguments within an
#: atom's ...); past it a size is left as it is.
MAX_NESTING: Final = 16


def under_facts(x: DimLike, facts: Any) -> DimLike:
    """:func:`kantensor.types.facts.simplify`'s answer: ``x`` in its simplest form under
    ``facts`` (equal to ``x`` wherever they hold)."""
    if isinstance(x, int):
        return x
    given = x
    if not facts.atoms:
        if not has_opaque(x):
            return x
    elif facts.rising() and _as_is(x):
        return x  # what _simplify gives: _formed's first case, x its own form
    elif has_extremes(x):  # (a min/max the facts over one symbol order: its
        x = ordered(facts.triples, x)  # winning argument, found without the prover)
    out = x if isinstance(x, int) else _simplify(x, facts)
    return out if out is given or not by_size(given) or kept_divisors(given, out, facts) \
        else given  # (a form with no value where x has none: x's divisors kept)


@lru_cache(maxsize=1 << 14)
def _simplify(x: Dim, facts: Any) -> DimLike:
    # a form can show what the facts simplify again (min(k, m, n) from (min(m, n) +
    # 1)//2 + min(m, n)//2 beside k <= m), or arguments not in their forms
    depth = getattr(_NESTING, "depth", 0)
    if depth >= MAX_NESTING:
        return x  # (an atom's argument simplified within an atom's, ... this deep: left
        # as it is, which is always equal; Facts(n % 3 == 0, n <= 12) on 2*n + n//4 went
        # on through forms of forms until Python's recursion limit)
    _NESTING.depth = depth + 1
    try:
        return settle(lambda y: _formed(y, facts), x, MAX_ROUNDS)
    finally:
        _NESTING.depth = depth


#: Most rounds of simplifying under the facts and forming (:func:`_simplify`).
MAX_ROUNDS: Final = 3


#: Whether a size is :func:`_as_is`, by its terms (not by the Dim: a Dim's ``==`` may
#: consult a traced program's answers, types.dimorder). Emptied when full.
_AS_IS: dict[tuple, bool] = {}
MAX_AS_IS: Final = 1 << 14


def _as_is(x: Dim) -> bool:
    """Whether ``x`` is settled (:func:`.stated.settled`) and its canonical form as it is
    (:func:`.canon.formed_as_is`): under facts that are all rising (``Facts.rising``),
    :func:`_formed` gives it back, so :func:`simplify` does (a window's size, passed on
    by every later node)."""
    terms = x._terms
    found = _AS_IS.get(terms)
    if found is None:
        if len(_AS_IS) >= MAX_AS_IS:
            _AS_IS.clear()
        form = window_form(terms)  # (k*((s + t)//d) + c with k > 0, a window's size:
        # rising, one floor over a sum, its own form; read without the walks)
        found = _AS_IS[terms] = form is not None and form[1] > 0 or (
            settled(x) and formed_as_is(x))
    return found


def _formed(x: Dim, facts: Any) -> DimLike:
    if facts.unbounded(x) and settled(x):  # each atom as it is (see settled): its form
        return canonical_form(x)
    x = equated(x, facts.atoms, lambda: facts.triples)  # (m <= n and n <= m: m is n)
    whole = x if isinstance(x, int) else canonical_form(x)
    if isinstance(whole, int) or same_term(whole, x):
        return whole if isinstance(whole, int) else _under(x, facts)
    if _flat(x):  # (no atom inside another's arguments: nothing to form first there)
        return _under(whole, facts)
    # formed as a whole first (a sum of parts of one size each, seen before max(0, t -
    # u) and min(t, u) write t two ways), or its atoms' arguments first: the shorter
    found = [_under(whole, facts), _under(x, facts)]
    if _floor_of_extreme(x) and not same_term(lean := pruned(x, facts), x):
        found.append(canonical_form(lean))  # (what the facts drop, then formed as a whole:
        # a floor's argument formed first may open a min of one size it sees whole)
    return min(found, key=lambda z: (0, z) if isinstance(z, int) else (1, len(str(z)), str(z)))


def _floor_of_extreme(x: Dim) -> bool:
    """Whether a floor or remainder of ``x`` has a min or max in its argument."""
    return any(isinstance(a, Opaque) and a.op in ("//", "%") and has_extremes(a.args[0])
               for mono, _ in x._terms for a, _ in mono)


def _flat(x: Dim) -> bool:
    """Whether no atom of ``x`` has an atom in its arguments: then forming its atoms'
    arguments first has nothing to form before the whole (its arguments are polynomials
    over sizes, their own forms), and :func:`_formed` forms it as a whole only (on
    6,000 random sizes over random facts, the arguments-first order won only where
    an atom was inside another: tests/test_size_canon_multi.py)."""
    return not any(isinstance(a, Opaque) and any(
        not isinstance(g, int) and has_opaque(g) for g in a.args)
        for mono, _ in x._terms for a, _ in mono)


def _under(x: Dim, facts: Any) -> DimLike:
    """``x`` with its atoms simplified under the facts, then formed."""
    known = constants(facts.atoms)
    out = rebuild(x, lambda a: atom_under(a, facts, known) if isinstance(a, Opaque)
                   else known.get(a))
    out = past_lower_bounds(out, facts.atoms)  # (formed: min(2, k//2 + 1) is min(2, k)
    zeros = [c.key[0] for c in facts.atoms if c.op == "=="]  # under k >= 1)
    if zeros and not isinstance(out, int):
        out = on_multiples(canonical_form(assume_divisible(out, zeros)), zeros)
    else:
        out = canonical_form(out)
    return between(out, facts)

