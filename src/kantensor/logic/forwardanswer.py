"""Forward answers: the output sizes of a forward solve over named sizes, and the
conditions they hold under (:func:`forward_answer`, read by
:mod:`kantensor.signature.forward`); nothing pending is dropped: what the facts do not
decide is a condition of the answer.
"""

from __future__ import annotations

from typing import Any

from ..types.conditions import Clause, Condition, InnerSize, InputAxis, Source
from ..types.dim import Dim, DimLike, unknown
from ..types.dimfacts import NO_SOLUTION, solve_for
from ..types.divisors import size_divisors
from ..types.factsatoms import nonzero
from ..types.symbols import free_symbols, substitute
from .answers import apart, over_known, said_of
from .broadcast import Broadcast
from .broadcastsizes import broadcast_onto, broadcast_size, broadcastable
from .dims import Compare, Divisor, Equation, size_value
from .store import facts_of
from .terms import ASSUMED, Symbol, isvar, prefix_of, walk

__all__ = ["forward_answer"]


def forward_answer(sizes: list, s: dict, pending: tuple, inputs: dict[Any, Dim]
                   ) -> tuple[dict[Any, DimLike], list[Clause]] | None:
    """The values of the size variables ``sizes`` of a forward solve over named sizes,
    and the conditions the answer holds under; None if the facts refute one of them.

    Pending equations define what they can (``v == N - 1``); a broadcast the named sizes
    leave open gives what NumPy's rule gives (:func:`~.broadcastsizes.broadcast_size`)
    with the condition that the sizes broadcast; every other pending size constraint,
    and every equality the solve needed between named sizes (:data:`~.terms.ASSUMED`),
    is a condition in the named sizes (an input's unknown size as ``inputs[v]``; a size
    of the signature's own that nothing defines as an
    :class:`~kantensor.types.facts.InnerSize`). Each is decided by the facts where they
    can, and kept otherwise: nothing is dropped."""
    facts = facts_of(s)
    known: dict[Any, DimLike] = dict(inputs)  # a variable -> its value over names

    def value(term: Any) -> DimLike:
        return over_known(size_value(term, s), known)

    def sides(c: Any) -> DimLike:
        return over_known(c.left.value(s), known) - over_known(c.right.value(s), known)

    rest = list(pending)
    broadcasts: list[Broadcast] = []
    sizes_defined: list[tuple[DimLike, Any]] = []  # a size an equation defined: >= 0
    changed = True
    while changed:
        changed = False
        for c in list(rest):
            if isinstance(c, Equation):
                try:
                    diff = sides(c)
                except ZeroDivisionError:
                    continue
                free = _inner(diff)
                if len(free) == 1 and (v := _defined(diff, free[0])) is not None:
                    known[free[0]] = facts.simplify(v)
                    sizes_defined.append((known[free[0]], c))
                    rest.remove(c)
                    changed = True
            elif isinstance(c, Broadcast):
                out = walk(c.out, s)
                if isvar(out) and type(out) is not Symbol and out not in known:
                    values = [value(v) for v in c.sizes]
                    if not any(_inner(v) for v in values):
                        known[out] = broadcast_size(values, facts)
                        broadcasts.append(c)
                        rest.remove(c)
                        changed = True
    inner: dict[Any, Dim] = {}

    def named(x: DimLike) -> DimLike:
        """``x`` with the sizes of the signature's own nothing defines named."""
        free = _inner(x)
        for u in free:
            if u not in inner:
                inner[u] = unknown(InnerSize(prefix_of(u) or "size", len(inner)))
        return substitute(x, {u: inner[u] for u in free}) if free else x

    clauses: list[Clause] = [Condition(a, "==", b, Source(detail=detail))
                             for a, b, detail in s.get(ASSUMED, ())]
    try:
        for c in (*broadcasts, *rest):
            source = Source(detail=said_of(c), otherwise=getattr(c, "otherwise", ""))
            if isinstance(c, Broadcast):  # the sizes broadcast (its output is known)
                values = [named(value(x)) for x in c.sizes]
                onto = value(c.out)
                clauses += broadcastable(values, source) if c in broadcasts or _inner(onto) \
                    else broadcast_onto(values, onto, source)
            elif type(c) is Divisor:  # (stated as every divisor is: nonzero's rule)
                clauses.append(nonzero(named(over_known(c.left.value(s), known)), source))
            elif isinstance(c, Equation | Compare):
                op = "==" if isinstance(c, Equation) else c.op
                clauses.append(Condition(named(over_known(c.left.value(s), known)), op,
                                         named(over_known(c.right.value(s), known)), source))
        for c in pending:  # each pending comparison's divisors, defining or not (an
            if isinstance(c, Equation | Compare):  # equation ``v == (n//m) % 1``)
                source = Source(detail=said_of(c))
                clauses += [nonzero(named(over_known(d.value(s), known)), source)
                            for d in c.left.divisors() + c.right.divisors()]
    except ZeroDivisionError:
        return None
    kept = facts.reduce(clauses)
    if kept is None or apart(kept, facts):
        return None
    # a size is >= 0: one an equation defines (``n + 1 == N``: ``n == N - 1``) is a size
    # only where its value is >= 0 (N >= 1), unless the other conditions say so
    for x, c in sizes_defined:
        if isinstance(x, int):
            if x < 0:
                return None
            continue
        nonnegative = facts.with_(*kept).reduce([Condition(x, ">=", 0,
                                                           Source(detail=said_of(c)))])
        if nonnegative is None:
            return None
        kept = [*kept, *nonnegative]
    defined = [x for x, _ in sizes_defined] + [c.key[0] for c in kept
                                                if isinstance(c, Condition)]
    divisors = [nonzero(d) for x in defined for d in size_divisors(x)]
    if divisors:  # (Python's // raises at 0: make_node at ints refuses there)
        said = facts.with_(*kept).reduce(list(dict.fromkeys(divisors)))
        if said is None:
            return None
        kept = [*kept, *said]
    out = {}  # (a value over an input's unknown is unknown, unless the conditions kept
    for v in sizes:  # fold it away: i + 0//u is i where they show u >= 1)
        x = known.get(v)
        if type(x) is Dim and any(not isinstance(u, str) for u in free_symbols(x)):
            x = facts.with_(*kept).simplify(x)
        if x is not None and not any(not isinstance(u, str) for u in free_symbols(x)):
            out[v] = x
    return out, kept


def _inner(x: DimLike) -> list:
    """The unknowns of ``x`` that are sizes of the signature's own (not named sizes, not
    an input's axes)."""
    if isinstance(x, int):
        return []
    return [u for u in free_symbols(x) if not isinstance(u, str | InputAxis)]




def _defined(diff: Dim, v: Any) -> DimLike | None:
    """The value of ``v`` making ``diff == 0`` when that is one expression over the
    named sizes (``v - N + 1``: ``N - 1``), else None."""
    value = solve_for(diff, v, 0)
    return None if value is None or value is NO_SOLUTION else value
