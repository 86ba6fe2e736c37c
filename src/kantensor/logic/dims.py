"""Dimension constraints: arithmetic equalities, comparisons and broadcasting.

Sizes in the solver are ints or logic variables. Arithmetic is done in the
symbolic algebra of :mod:`kantensor.types.dim`: unbound variables stand in
as placeholder symbols, so ``n + 1 == 5`` is solved by ``solve_for`` and a
constraint with two unknowns waits in the store until one is bound.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from unification import isvar

from ..types.dim import NO_SOLUTION, Dim, dim_max, dim_min, free_symbols, solve_for, substitute
from .state import Constraint, KState, unify_oc, walk

#: An expression tree: int | Var | (op, left, right) | ("min"/"max", args...)
#: | ("dim", Dim, {name: term}) for a Dim expression over named sizes.
Expr = Any

_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul,
    "//": operator.floordiv, "%": operator.mod,
}
_CALLS = {"min": dim_min, "max": dim_max}
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


class Placeholders:
    """Maps unbound logic variables to symbol names of the Dim algebra and back."""

    def __init__(self) -> None:
        self.by_var: dict[Any, str] = {}
        self.by_name: dict[str, Any] = {}

    def symbol(self, v: Any) -> Dim:
        name = self.by_var.get(v)
        if name is None:
            name = f"_{len(self.by_var)}"
            self.by_var[v] = name
            self.by_name[name] = v
        return Dim(name)


def evaluate(expr: Expr, s: KState, ph: Placeholders) -> int | Dim:
    """The value of ``expr`` under ``s``: an int, or a Dim over placeholder symbols."""
    if isinstance(expr, tuple):
        head = expr[0]
        if head == "dim":  # ("dim", Dim expression, {symbol name: size term})
            return substitute(expr[1], {n: evaluate(v, s, ph) for n, v in expr[2].items()})
        if head in _CALLS:
            return _CALLS[head](*(evaluate(a, s, ph) for a in expr[1:]))
        left, right = evaluate(expr[1], s, ph), evaluate(expr[2], s, ph)
        if head in ("//", "%") and isinstance(right, int) and right == 0:
            raise ZeroDivisionError
        return _BINARY[head](left, right)
    value = walk(expr, s)
    if isvar(value):
        return ph.symbol(value)
    return value


def readable(value: Any, ph: Placeholders) -> str:
    """``value`` with placeholder symbols renamed after their variables (for messages)."""
    if not isinstance(value, Dim):
        return "?" if isvar(value) else str(value)
    names = {}
    for name, v in ph.by_name.items():
        prefix = str(getattr(v, "token", "")).rsplit("_", 1)[0]
        names[name] = Dim(prefix) if prefix.isidentifier() else Dim("unknown")
    return str(substitute(value, names))


def _size(value: Any, s: KState, ph: Placeholders) -> int | Dim:
    value = walk(value, s)
    return ph.symbol(value) if isvar(value) else value


@dataclass(frozen=True, eq=False)
class ArithEq(Constraint):
    """``target == expr`` where target is a size term and expr an expression tree."""

    target: Any
    expr: Expr
    text: str = ""
    where: str = ""

    def check(self, s: KState) -> tuple[KState, bool] | None:
        ph = Placeholders()
        try:
            diff = evaluate(self.expr, s, ph) - _size(self.target, s, ph)
        except ZeroDivisionError:
            return None
        if isinstance(diff, int):  # decided, e.g. 3 == 1+2, or n+1 == n (never)
            return (s, True) if diff == 0 else None
        symbols = free_symbols(diff)
        if len(symbols) != 1:
            return s, False
        (name,) = symbols
        solution = solve_for(diff, name, 0)
        if solution is NO_SOLUTION:
            return None
        if not isinstance(solution, int):
            return s, False
        if solution < 0:
            return None
        out = unify_oc(ph.by_name[name], solution, s)
        return (out, True) if out is not False else None

    def explain(self, s: KState) -> str:
        ph = Placeholders()
        target = _size(self.target, s, ph)
        try:
            value = evaluate(self.expr, s, ph)
        except ZeroDivisionError:
            return f"{self.where}: {self.text} divides by zero"
        if isinstance(value, int) and value < 0:
            return f"{self.where}: {self.text} = {value} is negative"
        return f"{self.where}: size {readable(target, ph)} does not equal {self.text}" + (
            f" = {value}" if isinstance(value, int) else "")


def _with_definitions(value: int | Dim, s: KState, ph: Placeholders) -> int | Dim:
    """Replace placeholders by what pending ``ArithEq`` constraints define them as
    (e.g. a size known to be ``k + 1``), so comparisons can decide symbolically."""
    for _ in range(len(s.store)):
        if not isinstance(value, Dim):
            return value
        mapping = {}
        for c in s.store:
            if isinstance(c, ArithEq):
                target = walk(c.target, s)
                name = ph.by_var.get(target) if isvar(target) else None
                if name is not None and name in free_symbols(value):
                    defined = evaluate(c.expr, s, ph)
                    if name not in free_symbols(defined):
                        mapping[name] = defined
        if not mapping:
            return value
        value = substitute(value, mapping)
    return value


@dataclass(frozen=True, eq=False)
class Compare(Constraint):
    """A where-clause between sizes, decided once both sides (or their difference)
    are known."""

    op: str
    left: Expr
    right: Expr
    text: str = ""

    def check(self, s: KState) -> tuple[KState, bool] | None:
        ph = Placeholders()
        try:
            diff = evaluate(self.left, s, ph) - evaluate(self.right, s, ph)
            diff = _with_definitions(diff, s, ph)
        except ZeroDivisionError:
            return None
        if not isinstance(diff, int):
            return s, False
        return (s, True) if _COMPARE[self.op](diff, 0) else None

    def explain(self, s: KState) -> str:
        ph = Placeholders()
        left, right = evaluate(self.left, s, ph), evaluate(self.right, s, ph)
        return f"where-clause {self.text} fails: {readable(left, ph)} {self.op} " \
               f"{readable(right, ph)} is false"


@dataclass(frozen=True, eq=False)
class Broadcast(Constraint):
    """NumPy broadcasting of one axis: ``out`` is the broadcast of ``sizes``.

    Static rules: 1s drop out; one known size k != 1 gives k (unknown sizes
    must then be 1 or k); two different known sizes fail; a single distinct
    unknown gives itself; several different unknowns leave ``out`` unknown.
    """

    sizes: tuple
    out: Any
    where: str = ""

    def check(self, s: KState) -> tuple[KState, bool] | None:
        values = [walk(v, s) for v in self.sizes]
        out = walk(self.out, s)
        known = {v for v in values if not isvar(v) and v != 1}
        if len(known) > 1:
            return None
        if known:
            (k,) = known
            new = unify_oc(out, k, s)
            if new is False:
                return None
            # Unknown inputs must still be 1 or k: stay pending so labeling can say which.
            return new, not any(isvar(v) for v in values)
        rest = {v for v in values if isvar(v)}
        if not rest:  # every input is 1
            new = unify_oc(out, 1, s)
            return (new, True) if new is not False else None
        if len(rest) == 1:  # the others are 1: out is that size
            new = unify_oc(out, next(iter(rest)), s)
            return (new, True) if new is not False else None
        return s, False

    def choices(self, s: KState) -> list | None:
        out = walk(self.out, s)
        if isvar(out):
            return None
        unknown = [v for v in (walk(x, s) for x in self.sizes) if isvar(v)]
        if not unknown or len(self.sizes) == 1:
            return None
        v = unknown[0]
        options = [1] if out == 1 else [out, 1]
        return [lambda st, v=v, o=o: unify_oc(v, o, st) or None for o in options]

    def explain(self, s: KState) -> str:
        values = [walk(v, s) for v in self.sizes]
        shown = ", ".join(_show(v) for v in values)
        return f"{self.where}: cannot broadcast sizes {shown}"


def _show(value: Any) -> str:
    return "?" if isvar(value) else str(value)


def symbolic_values(terms: list, s: KState, symbols: dict[Any, str]) -> dict[Any, int | Dim]:
    """Values of unbound size variables in terms of the named Dims (``symbols``).

    Starting from the variables that stand for named Dims, pending arithmetic
    constraints are solved symbolically until nothing changes. Variables that
    stay unknown are absent from the result.
    """
    known: dict[Any, int | Dim] = {}
    for v, name in symbols.items():
        w = walk(v, s)
        if isvar(w) and w not in known:
            known[w] = Dim(name)
    arith = [c for c in s.store if isinstance(c, ArithEq)]
    changed = True
    while changed and arith:
        changed = False
        for c in list(arith):
            ph = Placeholders()
            target = _size(c.target, s, ph)
            value = evaluate(c.expr, s, ph)
            subst = {name: known[v] for name, v in ph.by_name.items() if v in known}
            target, value = substitute(target, subst), substitute(value, subst)
            unknown = {n for n in free_symbols(target) | free_symbols(value) if n in ph.by_name}
            if len(unknown) != 1:
                if not unknown:
                    arith.remove(c)
                continue
            (name,) = unknown
            v = ph.by_name[name]
            if isinstance(target, Dim) and target == Dim(name):
                known[v] = value
            else:
                solution = solve_for(value - target, name, 0)
                if solution is None or solution is NO_SOLUTION:
                    continue
                known[v] = solution
            arith.remove(c)
            changed = True
    return {v: val for v, val in known.items()
            if any(v is walk(t, s) for t in terms)}
