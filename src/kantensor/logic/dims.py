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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..syntax.ast import evaluate
from ..types.dim import DIM_CALLS, Dim, DimLike, dim_max, dim_min, free_symbols, substitute, unknown
from ..types.dimfacts import NO_SOLUTION, solve_for
from ..types.poly import Opaque, lone_atom
from .store import Constraint, Progress, Reason, bind_choices, unify_oc
from .terms import isvar, term_vars, walk
from .wording import broadcast_text, readable

__all__ = ["COMPARE", "Broadcast", "Compare", "Equation", "Expr", "size_value"]

#: The where-clause comparisons of the DSL, as Python operators.
COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
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
        return evaluate(self.node, lambda name: size_value(env[name], s), calls=DIM_CALLS)

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
    inner = _unwrap(diff, v)
    if isinstance(inner, range):
        return None  # several values: see _candidates
    if inner is not None:
        return inner if inner is NO_SOLUTION or isinstance(inner, int) else solve_one(inner, v)
    cases = _min_max_cases(diff, v)
    if cases is not None:
        return _by_cases(cases, v)
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


def _min_max_cases(x: Dim, v: Any) -> list[tuple[DimLike, Dim, DimLike]] | None:
    """Case analysis of the first ``min``/``max`` term of ``x`` whose arguments hold
    ``v``: one ``(x with that term replaced by argument i, the term, argument i)`` per
    argument (the term *is* argument i where argument i is the least, or greatest)."""
    for mono, _ in x._terms:  # the canonical polynomial (same package family)
        for atom, _p in mono:
            if isinstance(atom, Opaque) and atom.op in ("min", "max") and any(
                    v in free_symbols(a) for a in atom.args):
                return [(_replace(x, atom, arg), _atom_dim(atom), arg) for arg in atom.args]
    return None


def _replace(x: Dim, target: Opaque, value: DimLike) -> DimLike:
    """``x`` with the term ``target`` replaced by ``value``."""
    total: DimLike = 0
    for mono, c in x._terms:
        term: DimLike = c
        for atom, p in mono:
            term = term * (value if atom == target else _atom_dim(atom)) ** p
        total = total + term
    return total


def _atom_dim(atom: Any) -> Dim:
    """The Dim of one atom of a canonical polynomial: a name, an unknown's key, or a
    ``min``/``max``/``//``/``%`` term (rebuilt, so canonical again)."""
    if isinstance(atom, str):
        return Dim(atom)
    if not isinstance(atom, Opaque):
        return unknown(atom)
    a = atom.args
    return {"min": lambda: dim_min(*a), "max": lambda: dim_max(*a),
            "//": lambda: a[0] // a[1], "%": lambda: a[0] % a[1]}[atom.op]()


def _by_cases(cases: list[tuple[DimLike, Dim, DimLike]], v: Any) -> int | None | Any:
    """:func:`solve_one` over the cases of a ``min``/``max`` term (``v - min(3, v) == 4``:
    the term is 3, giving 7, or v, giving none): the one value some case gives and
    for which that case holds; NO_SOLUTION if none, None if undecidable or several."""
    found: set[int] = set()
    for diff, term, arg in cases:
        value = solve_one(diff, v) if isinstance(diff, Dim) else (
            NO_SOLUTION if diff else None)
        if value is None:
            return None
        if value is not NO_SOLUTION and \
                substitute(term, {v: value}) == substitute(arg, {v: value}):
            found.add(value)
    if not found:
        return NO_SOLUTION
    return found.pop() if len(found) == 1 else None


def _unwrap(diff: Dim, v: Any) -> DimLike | range | None:
    """``diff == 0`` where ``diff`` is ``±atom + k`` with ``atom`` a min/max against ints
    or a floor division by an int: what ``v`` must then meet. ``max(e, c) == k`` with
    ``k > c`` means ``e == k`` (returned as the new difference ``e - k``); a floor
    division ``e // c == k`` with ``e`` linear in ``v`` gives the values of ``v`` in
    range (an int if one, a ``range`` if several). NO_SOLUTION when none can hold; None
    when it does not apply or stays open."""
    atoms = [(mono, c) for mono, c in diff._terms if mono]
    if len(atoms) != 1 or len(atoms[0][0]) != 1 or atoms[0][0][0][1] != 1 \
            or abs(atoms[0][1]) != 1:
        return None
    (((atom, _),), sign) = atoms[0]
    k = -sign * sum(c for mono, c in diff._terms if not mono)  # atom == k
    op, args = getattr(atom, "op", None), getattr(atom, "args", ())
    inner = [a for a in args if not isinstance(a, int)]
    ints = [a for a in args if isinstance(a, int)]
    if op in ("min", "max") and len(inner) == 1 and ints:
        bound = max(ints) if op == "max" else min(ints)
        if k == bound and op == "max":  # e <= bound: a few values if e grows with v
            return _at_most(inner[0], v, bound)
        if k == bound:
            return None  # e >= bound: unbounded
        if (k < bound) == (op == "max"):
            return NO_SOLUTION
        return inner[0] - k
    if op == "//" and len(inner) == 1 and isinstance(args[1], int) and args[1] > 0:
        e, c = args[0], args[1]
        line = _linear(e, v)
        if line is None or line[0] <= 0:
            return None
        a, b = line
        low, high = -((b - c * k) // a), (c * k + c - 1 - b) // a  # ceil, floor
        low = max(low, 0)
        if low > high:
            return NO_SOLUTION
        return low if low == high else range(low, high + 1)
    return None


def _linear(e: DimLike, v: Any) -> tuple[int, int] | None:
    """``(a, b)`` with ``e == a*v + b``, or None when ``e`` is not that."""
    if free_symbols(e) != {v}:
        return None
    b = substitute(e, {v: 0})
    a = substitute(e, {v: 1}) - b
    if not isinstance(a, int) or not isinstance(b, int) or e != a * unknown(v) + b:
        return None
    return a, b


def _at_most(e: DimLike, v: Any, bound: int) -> range | int | None:
    """The sizes ``v`` with ``e <= bound`` for ``e`` growing with ``v``."""
    line = _linear(e, v)
    if line is None or line[0] <= 0:
        return None
    a, b = line
    high = (bound - b) // a
    if high < 0:
        return NO_SOLUTION
    return 0 if high == 0 else range(0, high + 1)


#: Most candidate values an equation tries against the other constraints (see below).
MAX_CANDIDATES = 64


def _candidates(diff: Dim, v: Any) -> range | None:
    """The few values ``v`` can take to meet ``diff == 0`` when they are not one (a
    floor division: ``a0//2 == 3`` holds for 6 and 7), or None."""
    for _ in range(8):  # min/max/floor division nest a few levels at most
        inner = _unwrap(diff, v)
        if isinstance(inner, range):  # not len(): a range past 2**63 has none
            return inner if inner.stop - inner.start <= MAX_CANDIDATES else None
        if not isinstance(inner, Dim):
            return None
        diff = inner
    return None


def _definitions(pending: Iterable, s: dict) -> dict[Any, DimLike]:
    """Unknowns that pending equations define as ``v == expression`` (for comparisons);
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
            solution = self._only_candidate(diff, v, s, pending)
            if solution is None:
                return s, False
            if solution is NO_SOLUTION:
                return None
        out = unify_oc(v, solution, s)
        return (out, True) if out is not False else None

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
        values = _candidates(diff, unknowns[0])
        return None if values is None else bind_choices(unknowns[0], values)

    def _only_candidate(self, diff: Dim, v: Any, s: dict, pending: tuple) -> Any:
        """When ``diff == 0`` leaves ``v`` a few values, the one value the other pending
        constraints on ``v`` allow (``a0//2 == 3`` and ``a0 % 2 == 0`` give 6);
        NO_SOLUTION if they allow none, None if several."""
        values = _candidates(diff, v)
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
            return f"{self.where}: {self.text} divides by zero"
        shown = readable(right)
        if self.where == "where-clause":
            return Reason(f"where-clause {self.text} fails: {readable(left)} == {shown} "
                          "is false", "clause", clause=self.text,
                          values=_values(s, self.left, self.right))
        for side in (left, right):
            if isinstance(side, int) and side < 0:
                return f"{self.where}: {self.text} = {side} is negative"
        if self.left.env is None:
            return f"{self.where}: size {readable(left)} does not equal {self.text}" + (
                f" = {shown}" if isinstance(right, int) else "")
        return f"{self.where}: {self.text} fails ({readable(left)} != {shown})"


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
        return (s, True) if COMPARE[self.op](diff, 0) else None

    def terms(self) -> tuple:
        return self.left.terms() + self.right.terms()

    def explain(self, s: dict) -> str:
        left, right = self.left.value(s), self.right.value(s)
        return Reason(f"where-clause {self.text} fails: {readable(left)} {self.op} "
                      f"{readable(right)} is false", "clause", clause=self.text,
                      values=_values(s, self.left, self.right))


def _values(s: dict, *exprs: Expr) -> dict:
    """The value of each size name of ``exprs`` in ``s`` (for messages)."""
    return {name: size_value(v, s) for e in exprs if e.env is not None
            and not isinstance(e.node, Dim) for name, v in e.env.items()}


def _broadcast_size(sizes: list, s: dict, pending: tuple) -> tuple[Any, bool] | None:
    """``(the one of several unknown sizes they broadcast to, whether all are equal)``: the
    others equal to it by pending equations (``h//2``, exact ``h/2``) or ``min(it, c)``
    with ints ``c >= 1`` (``b``, ``min(4, b)``: b, 1 or NumPy refuses)."""
    defined = _definitions(pending, s)
    values = [defined.get(v, unknown(v)) for v in sizes]
    for top_size, top in zip(sizes, values, strict=True):
        diffs = [top - other for other in values]
        if all(d == 0 or _min_of(other, top) for d, other in zip(diffs, values, strict=True)):
            return top_size, all(d == 0 for d in diffs)
    return None


def _min_of(x: DimLike, top: DimLike) -> bool:
    atom = lone_atom(x._terms) if isinstance(x, Dim) else None  # min(top, c, ...), c >= 1
    return isinstance(atom, Opaque) and atom.op == "min" and top in atom.args and all(
        a == top or (isinstance(a, int) and a >= 1) for a in atom.args)


@dataclass(frozen=True, eq=False)
class Broadcast(Constraint):
    """NumPy broadcasting of one axis: ``out`` is the broadcast of ``sizes``.

    Static rules: 1s drop out; one known size k != 1 gives k (unknown sizes must then
    be 1 or k: labeling says which); two different known sizes fail; a single distinct
    unknown gives itself; several different unknowns give the one that pending
    equations make the others equal to or the ``min`` of with ints (``b`` beside
    ``min(4, b)``), else leave ``out`` unknown.
    """

    sizes: tuple
    out: Any
    where: str = ""
    #: per size, ``(input, axis)``: the operand it is an axis of, in that operand's own
    #: numbering (axis None: not known when the constraint was made); for messages, so
    #: it may be a function giving that tuple (made only when a message is)
    operands: tuple | Callable[[], tuple] = ()

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
        found = _broadcast_size([v for v in values if isvar(v)], s, pending)
        if found is not None:
            new = unify_oc(self.out, found[0], s)
            return (new, found[1]) if new is not False else None
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
        values = [size_value(v, s) for v in self.sizes]
        out = walk(self.out, s)
        out = None if isvar(out) else out
        operands = self.operands() if callable(self.operands) else self.operands
        axes = tuple((i, axis, v) for (i, axis), v in zip(operands, values, strict=True)) \
            if operands else ()  # a where-clause's broadcast: no operand axes known
        if axes:
            text = "could not be broadcast: " + broadcast_text(axes)
            said = "could not be broadcast: " + broadcast_text(axes, inputs=False)
        else:
            text = said = f"{self.where}: cannot broadcast sizes " + \
                ", ".join(readable(v) for v in values)
        known = {v for v in values if isinstance(v, int) and v != 1}
        if out is not None and len(known) < 2:
            text += f", and the output needs {readable(out)}"
            said += f", and the output needs {readable(out)}"
        if not axes:  # a where-clause's broadcast: its text says it all
            return Reason(text)
        return Reason(text, "broadcast", axes=axes, out=out, said=said)
