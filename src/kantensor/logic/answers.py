"""Answers in terms of named sizes: what the unknown sizes of a solved state are, and
what they must still meet; a size that a where-clause says some k divides (``r % k == 0``)
is an exact quotient there (``2*(h//2)`` is ``h``, :mod:`kantensor.types.dimfacts`).

After a solve, a size may be bound, defined by pending equations (``n == m + 1``), or
free. :func:`symbolic_values` writes each as an expression of named Dims (naming the
free ones), and collects the constraints the values leave (:class:`Condition`), so
that a query answer (:mod:`kantensor.query`) or a refined type says exactly what holds.
A forward solve's answer is :mod:`kantensor.logic.forwardanswer`'s.
"""

from __future__ import annotations

import math
from typing import Any

from ..types.conditions import AnyOf, Clause, Condition, Source
from ..types.dim import Dim, DimLike, as_dim
from ..types.dimfacts import NO_SOLUTION, assume_divisible, remainder_fact, solve_for
from ..types.divisors import by_size, size_divisors
from ..types.facts import Facts
from ..types.factsatoms import nonzero
from ..types.symbols import free_symbols, substitute
from .broadcast import Broadcast
from .broadcastsizes import broadcast_onto, broadcast_size, broadcastable
from .dims import COMPARE, Compare, Divisor, Equation, size_value
from .store import facts_of
from .terms import ASSUMED, Symbol, isvar, walk

__all__ = ["REFUTED", "apart", "over_known", "said_of", "symbolic_values", "where_text"]


def symbolic_values(vars_: list, s: dict, pending: tuple, named: dict[Any, Dim],
                    fresh: Any = None, residual: list[Clause] | None = None
                    ) -> dict[Any, DimLike]:
    """Values of the unbound size variables ``vars_`` in terms of named Dims.

    ``named`` maps variables to the Dims they stand for. Pending equations are solved
    symbolically until nothing changes; then, if ``fresh`` (a callable giving a new Dim
    for a variable) is given, the first still unknown variable of ``vars_`` is named and
    solving resumes, so every variable ends as an expression of named Dims. Without
    ``fresh``, variables that stay unknown are absent from the result.

    With ``fresh`` and a ``residual`` list, the constraints the values do not settle
    (``max(n - 3, 0) == 4`` left unsolved, a where-clause ``n > 2``) are appended to
    it (:class:`Condition` over the named Dims), so that an answer never claims
    more than holds.
    """
    if fresh is None and not named and not any(isinstance(c, Equation) for c in pending):
        return {}  # nothing to solve from and nothing to name: no variable gets a value
    fixed = _assumed_ints(s) if residual is not None else {}
    known: dict[Any, DimLike] = dict(fixed)  # (a name's int: its key is the name)
    for v, dim in named.items():
        w = walk(v, s)
        if isvar(w):
            known.setdefault(w, over_known(dim, fixed))
    defined: list[Any] = []  # the variables an equation defines, in order
    equations = [c for c in pending if isinstance(c, Equation)]
    pending_equations = list(equations)
    broadcasts = [c for c in pending if isinstance(c, Broadcast)] if fresh is not None else []
    order = [walk(v, s) for v in vars_]
    while True:
        changed = True
        while changed:
            changed = False
            for c in list(broadcasts):  # an unknown broadcast of named sizes: NumPy's rule
                value = _broadcast_value(c, s, known)
                if value is not None:
                    known[walk(c.out, s)] = value
                    broadcasts.remove(c)
                    changed = True
            for c in list(equations):
                try:
                    diff = c.left.value(s) - c.right.value(s)
                except ZeroDivisionError:
                    equations.remove(c)
                    continue
                try:
                    diff = substitute(diff, known) if not isinstance(diff, int) else diff
                except ZeroDivisionError:  # (a divisor the answer's ints make 0: the
                    if residual is not None:  # relation holds nowhere there: NumPy's
                        residual.append(REFUTED)  # reshape(0, -1) is refused)
                    equations.remove(c)
                    continue
                if by_size(diff):  # exact where the where-clauses say the divisor is >= 1
                    diff = _stated(pending, s, known).simplify(diff)  # (a -1's quotient)
                free = [u for u in free_symbols(diff) if not isinstance(u, str)] \
                    if isinstance(diff, Dim) else []
                if len(free) != 1:
                    if not free:
                        equations.remove(c)
                    continue
                value = solve_for(diff, free[0], 0)
                if value is None:  # (a quotient exact where the remainders are 0)
                    value = _exact(diff, free[0], equations, s, known)
                if value is None or value is NO_SOLUTION:
                    continue
                known[free[0]] = value
                defined.append(free[0])
                equations.remove(c)
                changed = True
        missing = [v for v in order if isvar(v) and v not in known]
        if fresh is None or not missing:
            break
        outs = {walk(c.out, s) for c in broadcasts}  # named last: a broadcast may define it
        first = next((v for v in missing if v not in outs), missing[0])
        known[first] = fresh(first)
    if fresh is not None and residual is not None:
        residual.extend(_residual(pending, s, known, fresh, defined))
    zeros = _zeros(pending_equations, s, known)
    return {v: assume_divisible(known[v], zeros) for v in order if isvar(v) and v in known}


def _stated(pending: tuple, s: dict, known: dict[Any, DimLike]) -> Facts:
    """The order where-clauses among ``pending`` over ``known``'s values, as facts: the
    answer holds only where they do (they are its conditions)."""
    out = []
    for c in pending:
        if isinstance(c, Compare):
            try:
                out.append(Condition(over_known(c.left.value(s), known), c.op,
                                     over_known(c.right.value(s), known)))
            except ZeroDivisionError:
                continue
    return facts_of(s).with_(*out)


def _zeros(equations: list[Equation], s: dict, known: dict[Any, DimLike]) -> list[DimLike]:
    """The pending equations as ``left - right`` (which is 0) over the named Dims: a
    where-clause ``(a0*a1) % 4 == 0`` says that 4 divides the size (see
    :func:`~kantensor.types.dimfacts.assume_divisible`)."""
    out = []
    for c in equations:
        try:
            diff = c.left.value(s) - c.right.value(s)
        except ZeroDivisionError:
            continue
        if isinstance(diff, Dim):
            try:
                out.append(substitute(diff, known))
            except ZeroDivisionError:  # (refuted where the answer is read: no fact)
                continue
    return out


def _broadcast_value(c: Broadcast, s: dict, known: dict[Any, DimLike]) -> DimLike | None:
    """What the unknown size a pending :class:`Broadcast` gives is, where every size it
    broadcasts has a value over the named Dims (NumPy's rule,
    :func:`~.broadcastsizes.broadcast_size`, as a forward build gives it); None where its
    result is known or named already, or a size it broadcasts has no value yet."""
    out = walk(c.out, s)
    if not isvar(out) or type(out) is Symbol or out in known:
        return None
    values = [over_known(size_value(v, s), known) for v in c.sizes]
    if any(_open(v) for v in values):
        return None
    return broadcast_size(values, facts_of(s))


def _open(x: DimLike) -> bool:
    """Whether ``x`` has an unknown that is no named size."""
    return not isinstance(x, int) and any(not isinstance(u, str) for u in free_symbols(x))


def _assumed_ints(s: dict) -> dict[str, int]:
    """The named sizes that the equalities a solve needed (:data:`~.terms.ASSUMED`, kept
    as conditions of its answer) make ints: ``m == 4``, or ``2*m == 8``, gives
    ``{"m": 4}``; the answer holds only there, so its values may say 4 for m."""
    fixed: dict[str, int] = {}
    pairs = [(a, b) for a, b, _ in s.get(ASSUMED, ())]
    changed = True
    while changed:
        changed = False
        for a, b in pairs:
            try:
                diff = over_known(as_dim(a) - as_dim(b), fixed)
            except ZeroDivisionError:
                continue
            names = free_symbols(diff) if not isinstance(diff, int) else set()
            if len(names) != 1 or not all(isinstance(u, str) for u in names):
                continue
            (name,) = names
            value = solve_for(diff, name, 0)
            if isinstance(value, int) and value >= 0:
                fixed[name] = value
                changed = True
    return fixed


def _exact(diff: DimLike, v: Any, equations: list, s: dict, known: dict[Any, DimLike]
           ) -> DimLike | None:
    """The value of ``v`` making ``diff == 0`` where the pending equations that say a
    remainder ``r % k`` is 0 hold (as the answer's where-clauses do): ``k*(r//k)`` is
    ``r`` there, so ``6 == n//4`` with ``n % 4 == 0`` is ``24 == n``; None where no such
    remainder makes ``diff`` linear in ``v``."""
    zeros = _zeros(equations, s, known)
    divisors = {k for r, k in filter(None, map(remainder_fact, zeros)) if k > 0}
    if not divisors:
        return None
    value = solve_for(assume_divisible(math.lcm(*divisors) * diff, zeros), v, 0)
    return None if value is NO_SOLUTION else value


def _residual(pending: tuple, s: dict, known: dict[Any, DimLike], fresh: Any,
              defined: list[Any] = ()) -> list[Clause]:
    """The pending equations, where-clauses and broadcasts that do not hold whatever the
    named Dims are, over those Dims (an unknown no answer shows is named by ``fresh``
    too): a broadcast's condition is NumPy's (:func:`~.broadcastsizes.broadcastable`
    where its result is its rule's value, :func:`~.broadcastsizes.broadcast_onto` where
    the result is a size of its own); and a size an equation ``defined``
    (``v + 1 == n``: ``v = n - 1``) is >= 0 (so n >= 1), as make_node's answer says.
    Each size an equation or where-clause divides by is nonzero
    (:func:`~kantensor.types.factsatoms.nonzero`), said first: where it is 0 the clause
    has no value (``i - j != 0`` before ``i//(i - j) >= 0``)."""
    needs: list[Clause] = []
    out: list[Clause] = [Condition(known[v], ">=", 0) for v in defined
                         if not (isinstance(known[v], int) and known[v] >= 0)]
    for c in pending:
        if isinstance(c, Broadcast):
            sizes = [*c.sizes, c.out]
            for u in sorted({u for x in sizes for u in free_symbols(size_value(x, s))
                             if not isinstance(u, str)} - known.keys(), key=str):
                known[u] = fresh(u)
            values = [over_known(size_value(x, s), known) for x in c.sizes]
            result = over_known(size_value(c.out, s), known)
            source = Source(detail=said_of(c))
            defined = result == broadcast_size(values, facts_of(s))
            found = broadcastable(values, source) if defined else \
                broadcast_onto(values, result, source)
            out += [x for x in found if x not in out]
            continue
        if not isinstance(c, Equation | Compare):
            continue
        try:
            sides = [c.left.value(s), c.right.value(s)]
        except ZeroDivisionError:
            continue
        for u in sorted({u for x in sides for u in free_symbols(x) if not isinstance(u, str)}
                        - known.keys(), key=str):
            known[u] = fresh(u)
        try:
            left, right = (substitute(x, known) for x in sides)
        except ZeroDivisionError:  # (a divisor the answer's values make 0: nowhere)
            return [REFUTED]
        op = "==" if isinstance(c, Equation) else c.op
        try:  # its divisors, the clause's and its values' (kept as 0//(i - j) too):
            divisors = [substitute(d.value(s), known)  # stated by nonzero's rule, so the
                        for d in c.left.divisors() + c.right.divisors()]  # facts fold them
        except ZeroDivisionError:
            return [REFUTED]
        for d in [*divisors, *size_divisors(left), *size_divisors(right)]:
            if isinstance(d, int):
                if d == 0:
                    return [REFUTED]
            elif (divisor := nonzero(d)) not in needs:
                needs.append(divisor)
        if left == right and op in ("==", ">=", "<=") or \
                isinstance(left - right, int) and COMPARE[op](left - right, 0):
            continue  # settled by the values (where they have one: their divisors)
        constraint = nonzero(left) if type(c) is Divisor else Condition(left, op, right)
        if constraint not in out:
            out.append(constraint)
    if needs:  # (each clause written where its divisors are nonzero, as they are stated:
        under = facts_of(s).with_(*needs)  # i + 0//(i - j) >= 0 is i >= 0 there)
        out = [Condition(under.simplify(c.left), c.op, under.simplify(c.right), c.source)
               if type(c) is Condition and (by_size(c.left) or by_size(c.right)) else c
               for c in out]
    kept = facts_of(s).reduce(needs + out)  # ints decided (``3 == 1``), implied cases
    return [REFUTED] if kept is None or apart(kept, facts_of(s)) else kept  # dropped


def apart(kept: list[Clause], facts: Facts) -> bool:
    """Whether a ``!=`` condition of ``kept`` is refuted by the others (``a - b != 0``
    beside ``2*b == a + b``): each is reduced by the facts alone, and the prover's
    triples leave ``!=`` out, so the two were kept, a condition that holds nowhere."""
    return any(type(c) is Condition and c.op == "!=" and
               facts.with_(*(x for x in kept if x is not c)).decide(c) is False for c in kept)


#: The residual of a state whose constraints no named sizes meet (a case that holds
#: nowhere): an answer with it is no answer.
REFUTED = AnyOf(())


def where_text(where: Any) -> str:
    """An answer's constraints as one line: ``m > 2 and n == m//2``; a disjunction
    beside others in parentheses (``(a == 3 or a == 1) and b == 3``)."""
    return " and ".join(f"({c})" if isinstance(c, AnyOf) and len(c.cases) > 1
                        and len(where) > 1 else str(c) for c in where)


def over_known(x: DimLike, known: dict) -> DimLike:
    """``x`` with the unknowns ``known`` defines replaced by their values (here and in a
    forward answer: :mod:`kantensor.logic.forwardanswer`)."""
    if isinstance(x, int):
        return x
    keys = [u for u in free_symbols(x) if u in known]
    return substitute(x, {u: known[u] for u in keys}) if keys else x


def said_of(c: Any) -> str:
    """What a pending constraint is about, for a condition's source."""
    where = str(getattr(c, "where", "") or "")  # a text, or a place that says itself
    text = getattr(c, "text", "")
    return f"{where}: {text}" if where and text else where or text
