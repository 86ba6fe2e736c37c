"""Sizes and conditions judged case by case, under conditions that are disjunctions.

A result that holds only where its assumptions do (eval_shape's) may state its sizes in
the plainest form those assumptions allow. Facts hold conjunctions only, so a
disjunction such as ``B == T or B == 1 or T == 1`` (a broadcast) is used here by cases:
each of its cases, split again on whether each size is 0 or at least 1 (the line where
broadcasting's ``min(1, ...)`` changes), is a conjunction the facts can hold. A claim is
made only when it is proven in every case that can occur; otherwise nothing is claimed.
So under that broadcast, ``max(T, max(B, T)*min(1, B, T))*min(1, B, T)`` is
``max(B, T)*min(1, B, T)`` (both are ``T`` where ``B == T`` or ``B == 1``, and ``B``
where ``T == 1``), and a later ``(B >= 1 and T >= B) or T == 0 or T == 1`` is implied.

The work is bounded: at most :data:`MAX_CASES` cases and :data:`MAX_SPLIT` sizes split
on zero; beyond them nothing is simplified or dropped.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from itertools import product

from .canon import canonical_form
from .conditions import AnyOf, Clause, Condition
from .dim import Dim, DimLike, atom_dim, from_poly
from .facts import Facts
from .poly import Opaque
from .symbols import free_symbols
from .tidysize import tidy_size

__all__ = ["implied", "plainest_under"]

#: The most cases a disjunction expands to before case analysis gives up.
MAX_CASES = 32

#: The most sizes split into ``== 0`` and ``>= 1`` in each case.
MAX_SPLIT = 4

#: The most candidate forms tried for one size.
MAX_CANDIDATES = 24


def plainest_under(x: DimLike, clauses: Sequence[Clause], facts: Facts) -> DimLike:
    """``x``, or the shortest of its parts (or its sizes) that equals it in every case
    of ``clauses`` that ``facts`` allow; ``x`` itself where no such part is proven."""
    if isinstance(x, int) or not any(isinstance(c, AnyOf) for c in clauses):
        return x
    cases = _cases(clauses, facts, free_symbols(x))
    if not cases:
        return x
    text = len(str(x))
    for candidate in sorted(_parts(x), key=lambda p: (len(str(p)), str(p))):
        if len(str(candidate)) >= text:
            break
        if all(_equal(x, candidate, f) for f in cases):
            return candidate
    return x


def implied(clause: Clause, others: Sequence[Clause], facts: Facts) -> bool:
    """Whether ``others`` (with ``facts``) imply ``clause``: it holds in each of their
    cases (False where that is not proven)."""
    symbols = frozenset(clause.symbols())
    cases = _cases(others, facts, symbols)
    if not cases:
        return False
    alternatives = clause.cases if isinstance(clause, AnyOf) else ((clause,),)
    return all(any(all(_holds(c, f) for c in alt) for alt in alternatives) for f in cases)


def _cases(clauses: Sequence[Clause], facts: Facts, symbols: Iterable[Hashable]
           ) -> list[Facts]:
    """The consistent conjunctions ``clauses`` and ``facts`` expand to, each split on
    whether each of ``symbols`` (and the clauses' sizes) is 0; empty when too many."""
    expanded: list[tuple[Condition, ...]] = [()]
    for c in clauses:
        alts = c.cases if isinstance(c, AnyOf) else ((c,),)
        expanded = [case + alt for case in expanded for alt in alts]
        if len(expanded) > MAX_CASES:
            return []
    names = set(symbols)
    for c in clauses:
        names |= c.symbols()
    split = sorted(names, key=str)
    if len(split) > MAX_SPLIT:
        return []
    found = []
    for case in expanded:
        base = facts.with_(*case)
        if not base.consistent():
            continue
        for zeros in product((True, False), repeat=len(split)):
            f = base.with_(*(Condition(atom_dim(s), "==" if z else ">=", 0 if z else 1)
                             for s, z in zip(split, zeros, strict=True)))
            if f.consistent():
                found.append(f)
    return found


def _form(x: DimLike, f: Facts) -> DimLike:
    """``x`` under ``f`` in its canonical, plainest form."""
    return tidy_size(canonical_form(f.simplify(x)))


def _equal(a: DimLike, b: DimLike, f: Facts) -> bool:
    return a == b or _form(a, f) == _form(b, f) or \
        f.decide(Condition(a, "==", b)) is True


def _holds(c: Condition, f: Facts) -> bool:
    if f.decide(c) is True:
        return True
    if c.op == "==":
        return _equal(c.left, c.right, f)
    return f.decide(Condition(_form(c.left, f), c.op, _form(c.right, f))) is True


def _parts(x: DimLike) -> list[DimLike]:
    """The sizes ``x`` is made of: its sizes, each term and each argument of a min, max
    or floor inside it (at most :data:`MAX_CANDIDATES`)."""
    found: dict[DimLike, None] = {}
    stack: list[DimLike] = [x]
    while stack and len(found) < MAX_CANDIDATES:
        y = stack.pop()
        if isinstance(y, int) or y in found:
            continue
        if y is not x:
            found[y] = None
        terms = y._terms
        if len(terms) > 1:
            stack.extend(from_poly({mono: coeff}) for mono, coeff in terms)
        for mono, _ in terms:
            for atom, _ in mono:
                if isinstance(atom, Opaque):
                    stack.extend(a for a in atom.args if isinstance(a, Dim))
    for s in free_symbols(x):
        found.setdefault(atom_dim(s), None)
    return list(found)
