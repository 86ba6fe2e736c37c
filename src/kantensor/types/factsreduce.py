"""How :class:`~kantensor.types.facts.Facts` makes clauses as few and as plain as its
facts allow (:meth:`Facts.reduce <kantensor.types.facts.Facts.reduce>`): each condition
decided or simplified under them, each disjunction's cases judged. The facts are asked
through their own methods (``decide``, ``simplify``, ``with_``), so this module needs
none of their internals."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .conditions import AnyOf, Clause, Condition, expand
from .disjunctions import absorbed, exhaustive, plain_cases, tightest
from .factsatoms import by_size, still_needs
from .stated import GENERAL as _GENERAL

__all__ = ["reduced"]


def reduced(facts: Any, clauses: Iterable[Clause], asked: Iterable[Condition] = ()
            ) -> list[Clause] | None:
    """``clauses`` as few and as plain as the facts allow: a condition they imply is
    dropped, one over a min/max is said of its arguments (``seq == max(m, seq)`` is
    ``seq >= m``), a disjunction loses its impossible cases and the cases another one
    covers, and is dropped if the facts imply one of its cases or that some case
    holds (``n >= k or n < k``); None if the facts refute a clause. ``asked``: the
    conditions of ``clauses`` (by identity) whose ``decide`` under these facts the
    caller found open already (a direct build's where-clauses: not asked again)."""
    out: list[Clause] = []
    open_ = {id(c) for c in asked}
    for c in clauses:
        if isinstance(c, Condition):
            for e in expand(c):  # (implied where defined, or simplified: what it
                x, decided = _judged(facts, e, id(e) in open_)  # still needs of c's)
                needs = None if decided is False else [x] if x is e and decided is None \
                    else still_needs(c, facts, x if decided is None else None)
                if needs is None:
                    return None
                out.extend(n for n in ([x] if x is not e and decided is None else [])
                           + needs if n not in out)
            continue
        cases = plain_cases(c) if not facts.atoms else _GENERAL
        if cases is _GENERAL:
            cases = _cases(facts, c)
        if cases is None:
            continue  # it holds
        if not cases:
            return None
        if len(cases) == 1:
            out.extend(x for x in cases[0] if x not in out)
        else:
            clause = AnyOf(tuple(cases), c.source)
            if clause not in out:
                out.append(clause)
    out = tightest(out)
    return _by_the_others(facts, out) if len(out) > 1 and any(
        isinstance(c, Condition) and (by_size(c.left) or by_size(c.right))
        for c in out) else out


def _by_the_others(facts: Any, out: list[Clause]) -> list[Clause]:
    """``out`` without each condition over a quotient by a size that the facts and
    the other conditions imply: the Dim algebra keeps ``(k*m*n) % (k*m)`` (Python
    raises at ``k*m == 0``), which is 0 beside a reshape's ``m >= 1`` and ``k >= 1``."""
    kept = list(out)
    for c in out:
        if isinstance(c, Condition) and (by_size(c.left) or by_size(c.right)):
            others = [x for x in kept if x is not c]
            by = facts.with_(*others)
            if by.decide(c) is True and still_needs(c, by) == []:
                kept.remove(c)  # (and its divisors nonzero: N//M >= 0 is M >= 1)
    return kept


def _judged(facts: Any, c: Condition, open_: bool = False) -> tuple[Condition, bool | None]:
    """``c`` decided (``open_``: found open already), else with its sides simplified
    under the facts (the same wherever they hold: ``n*min(1, seq) == n`` where ``seq
    >= 1``) and decided again."""
    decided = None if open_ else facts.decide(c)
    if decided is not None or not facts.atoms:
        return c, decided
    left, right = facts.simplify(c.left), facts.simplify(c.right)
    if left is c.left and right is c.right:
        return c, None  # (its sides as they are: the same condition)
    plain = Condition(left, c.op, right, c.source)
    return (c, None) if plain == c else (plain, facts.decide(plain))


def _cases(facts: Any, c: AnyOf) -> list[tuple[Condition, ...]] | None:
    """The cases of ``c`` the facts leave, none covering another; None if the facts
    imply that one of them holds, [] if they refute every one."""
    cases: list[tuple[Condition, ...]] = []
    for case in c.cases:
        judged = [(x, d, still_needs(atom, facts, None if d else x) if d or x is not e
                   else []) for atom in case for e in expand(atom)
                  for x, d in (_judged(facts, e),)]
        if any(d is False or needs is None for _, d, needs in judged):
            continue
        left = tuple(dict.fromkeys([x for x, d, _ in judged if d is None] +
                                   [n for _, _, needs in judged for n in needs]))
        if not left:
            return None  # this case holds: so does the disjunction
        cases.append(left)
    if not cases:
        return cases
    cases = absorbed(cases, facts)
    return None if exhaustive(cases, facts) else cases
