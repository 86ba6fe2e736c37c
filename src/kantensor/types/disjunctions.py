"""Disjunctions of size conditions reduced (for :meth:`kantensor.types.facts.Facts.reduce`):
the cases no other case covers, whether some case always holds, the tightest of lower
bounds on one form, and the plain cases of NumPy broadcasting's condition decided
without the prover. ``facts`` is the :class:`~kantensor.types.facts.Facts` that asks
(this module is below it)."""

from __future__ import annotations

from typing import Any

from .conditions import AnyOf, Clause, Condition
from .dim import DimLike
from .factsatoms import by_size, size_divisors, still_needs
from .poly import Opaque
from .stated import GENERAL as _GENERAL
from .stated import split_constant

__all__ = ["absorbed", "exhaustive", "plain_cases", "tightest"]


def plain_cases(c: AnyOf) -> list[tuple[Condition, ...]] | None | object:
    """What ``factsreduce._cases`` finds under no facts, without the prover, where every
    case is one equality between ints ``>= 0`` and plain sizes (named sizes, unknowns:
    NumPy broadcasting's ``a == b or a == 1 or b == 1``): such an equality is decided
    only between two ints (or a size and itself); two different ones never imply each
    other, and no disjunction of undecided ones always holds (all sizes distinct and
    large break every one), so the cases left are the undecided ones, each once.
    _GENERAL where ``c`` is not of that form."""
    kept: list[tuple[Condition, ...]] = []
    seen: set = set()  # the kept conditions' keys (conditions equal by their keys)
    for case in c.cases:
        if len(case) != 1 or case[0].op != "==":
            return _GENERAL
        x = case[0]
        if not (_plain(x.left) and _plain(x.right)):  # (n//k == n//k: its key 0, not
            return _GENERAL                           # defined at k == 0)
        d = x.key[0]
        if type(d) is int:
            if d == 0:
                return None  # it holds
            continue  # two different ints
        if d not in seen:
            seen.add(d)
            kept.append(case)
    return kept


def _plain(x: DimLike) -> bool:
    """An int ``>= 0``, or one named size or unknown (not an expression)."""
    if type(x) is int:
        return x >= 0
    terms = x._terms
    if len(terms) != 1:
        return False
    mono, coeff = terms[0]
    return coeff == 1 and len(mono) == 1 and mono[0][1] == 1 and \
        not isinstance(mono[0][0], Opaque)


def tightest(clauses: list[Clause]) -> list[Clause]:
    """``clauses`` with, of the lower bounds on one linear form (``m + n > 0``, ``m + n >
    96``) that divide by the same sizes, only the tightest: the others follow from it
    (``c + n//k >= n//k + 1`` does not follow from ``c >= 2``: at ``k == 0`` it has no
    value)."""
    shapes: dict[Any, list[tuple[int, Condition]]] = {}
    for c in clauses:
        if isinstance(c, Condition) and c.op in (">=", ">"):
            d = c.key[0]  # (its terms but the constant: the form, by structure)
            shape, const = ((), d) if isinstance(d, int) else split_constant(d)
            floor = const - (c.op == ">")  # d > 0 is d - 1 >= 0 (integers)
            shapes.setdefault(shape, []).append((floor, c))
    if all(len(bounds) == 1 for bounds in shapes.values()):
        return clauses
    kept = set()
    for bounds in shapes.values():
        best: dict[frozenset, tuple[int, Condition]] = {}
        for floor, c in bounds:  # (their divisors asked only of bounds on one form)
            divides = frozenset(size_divisors(c.left) + size_divisors(c.right))
            if divides not in best or floor < best[divides][0]:
                best[divides] = (floor, c)
        kept.update(id(c) for _, c in best.values())
    return [c for c in clauses if not (isinstance(c, Condition) and c.op in (">=", ">"))
            or id(c) in kept]


def absorbed(cases: list[tuple[Condition, ...]], facts: Any) -> list[tuple[Condition, ...]]:
    """The cases no other case covers: a case that implies a weaker one is dropped, and of
    cases that imply each other (``z + 1 == 1`` and ``2*z + 1 == 1``) the first is kept."""
    def implies(i: int, j: int) -> bool:
        if set(cases[j]) <= set(cases[i]):
            return True
        within = facts.with_(*cases[i])  # (where each of case j's is defined: N % K == 0
        return all(within.decide(x) is True and still_needs(x, within) == []  # at N == 0
                   for x in cases[j])  # has no value at K == 0: N == 0 is not absorbed)

    return [case for i, case in enumerate(cases)
            if not any(j != i and implies(i, j) and (j < i or not implies(j, i))
                       for j in range(len(cases)))]


def exhaustive(cases: list[tuple[Condition, ...]], facts: Any) -> bool:
    """Whether some case always holds: every case failing at once is impossible (each
    case taken as failing by one condition's negation, where it has one condition, and
    no size divisor: the negation of ``k % K == 0`` is not what holds at ``K == 0``)."""
    if any(len(case) != 1 or by_size(case[0].left) or by_size(case[0].right)
           for case in cases):
        return False  # (a case that divides by a size: not shown)
    negated = [case[0].negated() for case in cases]
    if any(n.op == "!=" for n in negated):
        # a != among the failures: refute each way an equality fails (<, >)
        ways: list[list[Condition]] = [[]]
        for n in negated:
            alts = [Condition(n.left, "<", n.right), Condition(n.left, ">", n.right)] \
                if n.op == "!=" else [n]
            ways = [w + [a] for w in ways for a in alts]
            if len(ways) > 16:
                return False
    else:
        ways = [negated]
    return not any(facts.allows(way) for way in ways)
