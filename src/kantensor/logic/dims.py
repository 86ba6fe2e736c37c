"""Size constraints: equations, comparisons and broadcasting.

A size in the solver is an int or a logic variable (a named Dim of a given type is a
logic variable too, see :class:`~kantensor.logic.store.TypeStore`). Arithmetic is done
in the Dim algebra of :mod:`kantensor.types.dim`, where an unbound variable is an
*unknown* keyed by the variable object itself: ``n + 1 == 5`` is solved for ``n``
(:mod:`.oneunknown`), and an equation with two unknowns waits until one of them is bound.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..syntax import ast as A
from ..syntax.ast import evaluate
from ..types.conditions import Condition
from ..types.dim import Dim, DimLike, unknown
from ..types.dimfacts import NO_SOLUTION
from ..types.dimminmax import DIM_CALLS
from ..types.divisors import size_divisors
from ..types.facts import Facts
from ..types.symbols import free_symbols, substitute
from .oneunknown import candidates, solve_one
from .quotients import named_values, no_divisor
from .standins import standing_in
from .store import Constraint, Progress, Reason, bind_choices, facts_of, said, unify_oc
from .terms import Symbol, isvar, term_vars, walk
from .wording import readable

__all__ = ["COMPARE", "Compare", "Equation", "Expr", "definitions", "open_unknowns",
           "size_value"]

#: The where-clause comparisons of the DSL, as Python operators.
COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


def size_value(term: Any, s: dict) -> DimLike:
    """A size term's value: an int, a named size's Dim, or a Dim over the unknowns
    (unbound variables)."""
    t = walk(term, s)
    if type(t) is Symbol:
        return t.dim
    return unknown(t) if isvar(t) else t


def open_unknowns(x: DimLike) -> list:
    """The unknowns (unbound variables' keys) of a size value, not its named sizes."""
    return [u for u in free_symbols(x) if not isinstance(u, str)]


@dataclass(frozen=True)
class Expr:
    """A size expression: a DSL expression over the logic variables ``env[name]``, a Dim
    over them (a symbolic size of a given type), or a single size term (env None)."""

    node: Any
    env: Any = None

    def value(self, s: dict) -> DimLike:
        if self.env is None:
            return size_value(self.node, s)
        if isinstance(self.node, Dim):
            return substitute(self.node, {n: size_value(v, s) for n, v in self.env.items()})
        env = self.env
        return evaluate(self.node, lambda name: size_value(env[name], s), calls=DIM_CALLS)

    def terms(self) -> tuple:
        return (self.node,) if self.env is None else tuple(self.env.values())

    def divisors(self) -> tuple[Expr, ...]:
        """Its divisors that are no ints (:func:`~kantensor.syntax.ast.divisors`), over
        the same variables: where one is 0 it is undefined, whatever its value says."""
        if self.env is None:
            return ()
        node = self.node
        found = size_divisors(node) if isinstance(node, Dim) else A.divisors(node)
        return tuple([Expr(d, self.env) for d in found]) if found else ()

    def __str__(self) -> str:
        return "?" if self.env is None and isvar(self.node) else str(self.node)


def definitions(pending: Iterable, s: dict) -> dict[Any, DimLike]:
    """Unknowns that pending equations define as ``v == expression`` (for comparisons
    and broadcasts);
    computed once per pass of propagation and substitution (``pending.memo``), so that n
    where-clauses cost linear time, not quadratic."""
    memo = getattr(pending, "memo", None)
    if memo is not None:
        seen = memo.get("definitions")
        if seen is not None and seen[0] is s:
            return seen[1]
        found = _find_definitions(pending, s)
        memo["definitions"] = (s, found)
        return found
    return _find_definitions(pending, s)


def _find_definitions(pending: Iterable, s: dict) -> dict[Any, DimLike]:
    out: dict[Any, DimLike] = {}
    for c in pending:
        if isinstance(c, Equation) and c.left.env is None:
            v = walk(c.left.node, s)
            if isvar(v):
                try:
                    value = c.right.value(s)
                except ZeroDivisionError:
                    continue
                if v not in free_symbols(value):
                    out[v] = value
    return out


@dataclass(frozen=True, eq=False)
class Equation(Constraint):
    """``left == right`` between sizes; solved once one unknown is left."""

    left: Expr
    right: Expr
    text: str = ""
    where: str = ""
    #: the operand axis the equation sizes, ``(Place, axis)`` (for messages), or None
    place: Any = None

    def check(self, s: dict, pending: tuple) -> Progress:
        try:
            left, right = self.left.value(s), self.right.value(s)
        except ZeroDivisionError:
            return None
        clause = self.where == "where-clause"  # a where-clause's sides may be negative
        if not clause and (isinstance(left, int) and left < 0
                           or isinstance(right, int) and right < 0):
            return None
        diff = left - right
        if isinstance(diff, int):
            return _done(self, s) if diff == 0 else None
        unknowns = open_unknowns(diff)
        if not unknowns:  # over named sizes only: decided by the facts, else a condition
            decided = facts_of(s).decide((diff, "==", 0))
            if decided is None and (named_values(diff, s, pending) is NO_SOLUTION
                                    or nowhere(diff, s, pending)):
                return None  # 2 == 3//b: no size b (:mod:`.quotients`)
            return (s, False) if decided is None else _done(self, s) if decided else None
        if len(unknowns) != 1 or len(unknowns) != len(free_symbols(diff)):
            return None if nowhere(diff, s, pending) else (s, False)
        (v,) = unknowns
        solution = solve_one(diff, v)
        if solution is NO_SOLUTION:
            return None
        if solution is None:
            solution = self._only_candidate(diff, v, s, pending)
            if solution is None:
                return None if nowhere(diff, s, pending) else (s, False)
            if solution is NO_SOLUTION:
                return None
        out = unify_oc(v, solution, s)
        return _done(self, out) if out is not False else None

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        """When one unknown is left and a floor division or a bound leaves it a few
        values (``n//2 == 3``: 6 or 7), labeling tries each."""
        try:
            diff = self.left.value(s) - self.right.value(s)
        except ZeroDivisionError:
            return None
        if isinstance(diff, int):
            return None
        unknowns = [u for u in free_symbols(diff) if not isinstance(u, str)]
        if len(unknowns) != 1 or unknowns[0] in rigid:
            return None
        values = candidates(diff, unknowns[0])
        return None if values is None else bind_choices(unknowns[0], values)

    def _only_candidate(self, diff: Dim, v: Any, s: dict, pending: tuple) -> Any:
        """When ``diff == 0`` leaves ``v`` a few values, the one value the other pending
        constraints on ``v`` allow (``a0//2 == 3`` and ``a0 % 2 == 0`` give 6);
        NO_SOLUTION if they allow none, None if several."""
        values = candidates(diff, v)
        if values is None:
            return None
        others = [c for c in pending if any(t is v for t in term_vars(c.terms(), s))]
        fits = []
        for n in values:
            s2 = unify_oc(v, n, s)
            if s2 is not False and all(c.check(s2, ()) is not None for c in others):
                fits.append(n)
                if len(fits) > 1:
                    return None
        return fits[0] if fits else NO_SOLUTION

    def terms(self) -> tuple:
        return self.left.terms() + self.right.terms()

    def explain(self, s: dict) -> str:
        try:
            left, right = self.left.value(s), self.right.value(s)
        except ZeroDivisionError:
            return self._said("", " divides by zero")
        shown = readable(right)
        if self.where == "where-clause":
            said = f"{readable(left)} == {shown} is false"
            return Reason(f"where-clause {self.text} fails: {said}", "clause",
                          clause=self.text, values=_values(s, self.left, self.right),
                          said=said, tree=_tree(self.left, "==", self.right))
        for side in (left, right):
            if isinstance(side, int) and side < 0:
                return self._said("", f" = {side} is negative")
        if self.left.env is None:
            return self._said(f"size {readable(left)} does not equal ",
                              f" = {shown}" if isinstance(right, int) else "")
        return self._said("", f" fails ({readable(left)} != {shown})")

    def _said(self, before: str, after: str) -> Reason:
        """``{where}: {before}{text}{after}``, with what an explanation needs to write it
        over the operands (facts ``where``, ``place``, ``before``, ``after`` and
        ``tree``, the equation as the DSL's tree or None)."""
        tree = _tree(self.left, "==", self.right) if self.where == "where-clause" else \
            None if self.right.env is None or isinstance(self.right.node, Dim) else \
            self.right.node
        where = (self.where,) if self.place is None else \
            (self.place[0], f" axis {self.place[1]}")  # the operand's place, an object
        return said(*where, ": ", before, self.text, after, kind="size", where=self.where,
                    place=self.place, before=before, after=after, tree=tree)


@dataclass(frozen=True, eq=False)
class Compare(Constraint):
    """A where-clause ``left op right`` between sizes, decided once the difference is
    known (unknowns that pending equations define are replaced by their definitions).
    ``otherwise``: a builder's choice's (see :func:`kantensor.syntax.ast.chosen`)."""

    op: str
    left: Expr
    right: Expr
    text: str = ""
    otherwise: str = ""

    def check(self, s: dict, pending: tuple) -> Progress:
        try:
            diff = self.left.value(s) - self.right.value(s)
            if not isinstance(diff, int):
                diff = substitute(diff, definitions(pending, s))
        except ZeroDivisionError:
            return None
        if not isinstance(diff, int):
            if open_unknowns(diff):
                return s, False
            decided = facts_of(s).decide((diff, self.op, 0))  # over named sizes only
            return (s, False) if decided is None else _done(self, s) if decided else None
        return _done(self, s) if COMPARE[self.op](diff, 0) else None

    def terms(self) -> tuple:
        return self.left.terms() + self.right.terms()

    def explain(self, s: dict) -> str:
        try:
            left, right = self.left.value(s), self.right.value(s)
        except ZeroDivisionError:
            return Reason(f"where-clause {self.text} fails: it divides by zero", "clause",
                          clause=self.text, values=_values(s, self.left, self.right),
                          said="it divides by zero",
                          tree=_tree(self.left, self.op, self.right))
        said = f"{readable(left)} {self.op} {readable(right)} is false"
        return Reason(f"where-clause {self.text} fails: {said}", "clause", clause=self.text,
                      values=_values(s, self.left, self.right), said=said,
                      tree=_tree(self.left, self.op, self.right))


def _tree(left: Expr, op: str, right: Expr) -> A.Compare | None:
    """A where-clause as the DSL's tree (for messages written over the user's names),
    or None when a side is no tree of the DSL."""
    if any(e.env is None or isinstance(e.node, Dim) for e in (left, right)):
        return None
    return A.Compare(op, left.node, right.node)


def _values(s: dict, *exprs: Expr) -> dict:
    """The value of each size name of ``exprs`` in ``s`` (for messages)."""
    return {name: size_value(v, s) for e in exprs if e.env is not None
            and not isinstance(e.node, Dim) for name, v in e.env.items()}


@dataclass(frozen=True, eq=False)
class Divisor(Compare):
    """``left != 0`` for a divisor ``left`` of a size expression's ``//`` or ``%``: what
    an equation or where-clause that holds still needs (``out == (n//m) % 1`` holds at
    ``out == 0`` only where ``m != 0``); a forward answer states it as
    :func:`~kantensor.types.factsatoms.nonzero` does."""

    def explain(self, s: dict) -> str:
        return Reason(f"{self.text} divides by zero", "")


def nowhere(diff: Dim, s: dict, pending: Iterable = ()) -> bool:
    """Whether ``diff == 0`` holds at no value of its sizes and unknowns (each a size, >=
    0) where the facts and the pending where-clauses and equations over named sizes
    alone hold (the answer holds only there): an equation left waiting (over two
    unknowns, one it cannot solve, or names the facts leave open) that holds nowhere
    fails now, not as a pending condition a goal beside it (``run``'s ``membero``) never
    sees (``0 == max(m, 2) + n``, ``2 == 4 % max(m - n, 1)``, ``5 == a + b`` beside
    ``3 > max(a, b)``)."""
    if no_divisor(diff):
        return True
    facts = facts_of(s)
    stated = _stated(pending, s)
    if stated:
        facts = facts.with_(*stated)
    return _refuted(standing_in(diff, facts), facts)


@lru_cache(maxsize=4096)
def _refuted(diff: Dim, facts: Facts) -> bool:
    """:func:`nowhere` of ``diff`` under ``facts`` (those of the store and of the pending
    constraints), remembered: a traced loop's builds ask it again and again, their fresh
    unknowns renamed alike (:mod:`.standins`)."""
    if any(facts.decide((d, "==", 0)) is True for d in size_divisors(diff)):
        return True  # (no value: ``o == b//(a - b)`` beside ``a == b``)
    return facts.decide((diff, "==", 0)) is False or \
        facts.decide((diff, ">=", 0)) is False or facts.decide((-diff, ">=", 0)) is False


def _stated(pending: Iterable, s: dict) -> list[Condition]:
    """The pending equations and where-clauses over named sizes alone, as conditions."""
    out = []
    for c in pending:
        if isinstance(c, Equation | Compare) and type(c) is not Divisor:
            try:
                left, right = c.left.value(s), c.right.value(s)
            except ZeroDivisionError:
                continue
            if not any(type(x) is Dim and open_unknowns(x) for x in (left, right)):
                out.append(Condition(left, "==" if isinstance(c, Equation) else c.op, right))
    return out


def _done(c: Equation | Compare, s: dict) -> Progress:
    """``c`` holds at ``s``: done, with a :class:`Divisor` for each of its sides'
    divisors that ``s`` does not show nonzero (None where one is 0)."""
    out = []
    for d in () if type(c) is Divisor else c.left.divisors() + c.right.divisors():
        divisor = Divisor("!=", d, Expr(0), c.text)
        progress = divisor.check(s, ())
        if progress is None:
            return None
        if not progress[1]:
            out.append(divisor)
    return (s, True, tuple(out)) if out else (s, True)
