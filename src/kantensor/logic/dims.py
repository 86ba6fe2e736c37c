"""Size constraints: equations, comparisons and broadcasting.

A size in the solver is an int or a logic variable (a named Dim of a given type is a
logic variable too, see :class:`~kantensor.logic.store.TypeStore`). Arithmetic is done
in the Dim algebra of :mod:`kantensor.types.dim`, where an unbound variable is an
*unknown* keyed by the variable object itself: ``n + 1 == 5`` is solved for ``n``, and an
equation with two unknowns waits until one of them is bound.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any

from ..signature.ast import evaluate
from ..types.dim import NO_SOLUTION, Dim, DimLike, free_symbols, solve_for, substitute, unknown
from .store import Constraint, Progress, bind_choices, unify_oc
from .terms import isvar, walk

__all__ = ["Broadcast", "Compare", "Equation", "Expr", "size_value", "symbolic_values"]

_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


def size_value(term: Any, s: dict) -> DimLike:
    """A size term's value: an int, or a Dim over the unknowns (unbound variables)."""
    t = walk(term, s)
    return unknown(t) if isvar(t) else t


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
        return evaluate(self.node, lambda name: size_value(env[name], s))

    def terms(self) -> tuple:
        return (self.node,) if self.env is None else tuple(self.env.values())

    def __str__(self) -> str:
        return "?" if self.env is None and isvar(self.node) else str(self.node)


def solve_one(diff: Dim, v: Any) -> int | None | Any:
    """The one non-negative integer value of unknown ``v`` making ``diff == 0``:
    NO_SOLUTION if there is none, None if undecidable or not unique. Linear equations
    are solved exactly; a polynomial in ``v`` alone by trying the divisors of its
    lowest coefficient (integer roots divide it)."""
    linear = solve_for(diff, v, 0)
    if linear is NO_SOLUTION:
        return NO_SOLUTION
    if isinstance(linear, int):
        return linear if linear >= 0 else NO_SOLUTION
    if linear is not None:
        return None
    coeffs: dict[int, int] = {}
    for mono, c in diff._terms:  # the canonical polynomial (same package family)
        if len(mono) > 1 or (mono and mono[0][0] is not v):
            return None  # other unknowns, or v inside //, %, min, max
        coeffs[mono[0][1] if mono else 0] = c
    low = min(coeffs)
    lowest = abs(coeffs[low])
    if lowest > 10**12:
        return None
    candidates = {0} if low > 0 else set()
    for d in range(1, math.isqrt(lowest) + 1):
        if lowest % d == 0:
            candidates |= {d, lowest // d}
    roots = [r for r in sorted(candidates) if sum(c * r**k for k, c in coeffs.items()) == 0]
    if not roots:
        return NO_SOLUTION
    return roots[0] if len(roots) == 1 else None


def _definitions(pending: tuple, s: dict) -> dict[Any, DimLike]:
    """Unknowns that pending equations define as ``v == expression`` (for comparisons)."""
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
            return (s, True) if diff == 0 else None
        unknowns = free_symbols(diff)
        if len(unknowns) != 1:
            return s, False
        (v,) = unknowns
        solution = solve_one(diff, v)
        if solution is NO_SOLUTION:
            return None
        if solution is None:
            return s, False
        out = unify_oc(v, solution, s)
        return (out, True) if out is not False else None

    def terms(self) -> tuple:
        return self.left.terms() + self.right.terms()

    def explain(self, s: dict) -> str:
        try:
            left, right = self.left.value(s), self.right.value(s)
        except ZeroDivisionError:
            return f"{self.where}: {self.text} divides by zero"
        shown = _readable(right)
        if self.where == "where-clause":
            return f"where-clause {self.text} fails: {_readable(left)} == {shown} is false"
        for side in (left, right):
            if isinstance(side, int) and side < 0:
                return f"{self.where}: {self.text} = {side} is negative"
        if self.left.env is None:
            return f"{self.where}: size {_readable(left)} does not equal {self.text}" + (
                f" = {shown}" if isinstance(right, int) else "")
        return f"{self.where}: {self.text} fails ({_readable(left)} != {shown})"


@dataclass(frozen=True, eq=False)
class Compare(Constraint):
    """A where-clause ``left op right`` between sizes, decided once the difference is
    known (unknowns that pending equations define are replaced by their definitions)."""

    op: str
    left: Expr
    right: Expr
    text: str = ""

    def check(self, s: dict, pending: tuple) -> Progress:
        try:
            diff = self.left.value(s) - self.right.value(s)
            if not isinstance(diff, int):
                diff = substitute(diff, _definitions(pending, s))
        except ZeroDivisionError:
            return None
        if not isinstance(diff, int):
            return s, False
        return (s, True) if _COMPARE[self.op](diff, 0) else None

    def terms(self) -> tuple:
        return self.left.terms() + self.right.terms()

    def explain(self, s: dict) -> str:
        left, right = self.left.value(s), self.right.value(s)
        return f"where-clause {self.text} fails: {_readable(left)} {self.op} " \
               f"{_readable(right)} is false"


@dataclass(frozen=True, eq=False)
class Broadcast(Constraint):
    """NumPy broadcasting of one axis: ``out`` is the broadcast of ``sizes``.

    Static rules: 1s drop out; one known size k != 1 gives k (unknown sizes must then
    be 1 or k: labeling says which); two different known sizes fail; a single distinct
    unknown gives itself; several different unknowns leave ``out`` unknown.
    """

    sizes: tuple
    out: Any
    where: str = ""

    def check(self, s: dict, pending: tuple) -> Progress:
        values = [walk(v, s) for v in self.sizes]
        known = {v for v in values if not isvar(v) and v != 1}
        if len(known) > 1:
            return None
        if known:
            (k,) = known
            new = unify_oc(self.out, k, s)
            if new is False:
                return None
            return new, not any(isvar(v) for v in values)
        rest = {v for v in values if isvar(v)}
        if not rest:  # every input is 1
            new = unify_oc(self.out, 1, s)
            return (new, True) if new is not False else None
        if len(rest) == 1:  # the others are 1: out is that size
            new = unify_oc(self.out, next(iter(rest)), s)
            return (new, True) if new is not False else None
        out = walk(self.out, s)
        if not isvar(out) and out == 1:  # every input must be 1
            new = s
            for v in rest:
                new = unify_oc(v, 1, new)
                if new is False:
                    return None
            return new, True
        return s, False

    def choices(self, s: dict, rigid: frozenset = frozenset()) -> list | None:
        out = walk(self.out, s)
        unknown_sizes = [v for v in (walk(x, s) for x in self.sizes)
                         if isvar(v) and v not in rigid and v is not out]
        if not unknown_sizes:
            return None
        v = unknown_sizes[0]
        if isvar(out):  # this one is 1, or it is the result
            return bind_choices(v, (1,)) + [lambda st, v=v: unify_oc(v, self.out, st) or None]
        return bind_choices(v, (1,) if out == 1 else (out, 1))

    def terms(self) -> tuple:
        return (*self.sizes, self.out)

    def explain(self, s: dict) -> str:
        shown = ", ".join(_readable(size_value(v, s)) for v in self.sizes)
        return f"{self.where}: cannot broadcast sizes {shown}"


def _readable(value: DimLike) -> str:
    """A value for messages: an unknown reads as the name its variable was made for
    (a signature's dim, a type's Dim) or ``?``; messages only, never identity."""
    if isinstance(value, int):
        return str(value)
    names = {}
    for u in free_symbols(value):
        if not isinstance(u, str):
            hint = str(getattr(u, "token", "")).rsplit("_", 1)[0]
            names[u] = Dim(hint) if hint.isidentifier() else Dim("unknown")
    if len(names) == 1 and value == unknown(next(iter(names))) and \
            names[next(iter(names))] == Dim("unknown"):
        return "?"
    return str(substitute(value, names))


def symbolic_values(vars_: list, s: dict, pending: tuple, named: dict[Any, Dim],
                    fresh: Any = None) -> dict[Any, DimLike]:
    """Values of the unbound size variables ``vars_`` in terms of named Dims.

    ``named`` maps variables to the Dims they stand for. Pending equations are solved
    symbolically until nothing changes; then, if ``fresh`` (a callable giving a new Dim
    for a variable) is given, the first still unknown variable of ``vars_`` is named and
    solving resumes, so every variable ends as an expression of named Dims. Without
    ``fresh``, variables that stay unknown are absent from the result.
    """
    known: dict[Any, DimLike] = {}
    for v, dim in named.items():
        w = walk(v, s)
        if isvar(w):
            known.setdefault(w, dim)
    equations = [c for c in pending if isinstance(c, Equation)]
    order = [walk(v, s) for v in vars_]
    while True:
        changed = True
        while changed:
            changed = False
            for c in list(equations):
                try:
                    diff = c.left.value(s) - c.right.value(s)
                except ZeroDivisionError:
                    equations.remove(c)
                    continue
                diff = substitute(diff, known) if not isinstance(diff, int) else diff
                free = [u for u in free_symbols(diff) if not isinstance(u, str)] \
                    if isinstance(diff, Dim) else []
                if len(free) != 1:
                    if not free:
                        equations.remove(c)
                    continue
                value = solve_for(diff, free[0], 0)
                if value is None or value is NO_SOLUTION:
                    continue
                known[free[0]] = value
                equations.remove(c)
                changed = True
        missing = [v for v in order if isvar(v) and v not in known]
        if fresh is None or not missing:
            break
        known[missing[0]] = fresh(missing[0])
    return {v: known[v] for v in order if isvar(v) and v in known}
