"""A witness for a group of conditions over named sizes holding broadcasts, found case
by case: each broadcast's clause (a size is the result or 1, one is the result unless
it is 1) is a choice of equalities, and the facts decide which choices can hold
together (``float32[s0] + ... + float32[s7]`` onto ``2*s0 + 1``: ``s0 == 2*s0 + 1`` has
no size, so ``s0 == 1``, and then each other size is 3 or 1). The values a search over
each size's least values would have to guess (the result grows with the sizes) are read
from the case's facts: each size's least value, one at a time. Bounded in work, not only
in cases: at most :data:`MAX_CASES` cases assumed and sizes fixed, a case counted once
per fact over a product among its facts (each is put to the facts' values again in every
question: ``Facts.consistent``), and a product a case names (``s2 == s0*s1 + 1``)
written as that name in the cases after it
(:func:`~kantensor.types.factsproducts.named_product`): a broadcast of a hundred sizes
onto ``s0*s1 + 1`` keeps one fact over the product, not a hundred."""

from __future__ import annotations

from typing import Any

from ..types.conditions import Condition
from ..types.dim import Dim, DimLike
from ..types.facts import Facts
from ..types.factsproducts import named_product, nonlinear
from ..types.symbols import substitute
from .dims import COMPARE
from .eliminate import resolved, symbols_of

__all__ = ["MAX_CASES", "split_witness"]

#: The most cases :func:`split_witness` assumes (and sizes it fixes) in all.
MAX_CASES = 256


def split_witness(sizes: list, group: list, facts: Facts, defs: dict) -> bool:
    """Whether values of the named ``sizes`` meeting every check of ``group`` are found:
    a case of each broadcast's clause chosen where the facts allow it with those chosen
    before, then each size given the least value the case's facts allow, one at a time,
    and every check evaluated at those values. ``group``: the witness's checks, ``(op,
    left, right, diff, symbols, said)``, ``said`` a broadcast's case pairs ``(x, y)``
    (``x == y`` or ...); ``defs``: the unknowns they hold that equations define
    (:func:`~.eliminate.eliminated`), put in. False where none is found within
    :data:`MAX_CASES`."""
    if not sizes or not all(isinstance(v, str) for v in sizes):
        return False
    checks = [(op, resolved(diff, defs)) if isinstance(said, str) else
              tuple((resolved(x, defs), resolved(y, defs)) for x, y in said)
              for op, _, _, diff, _, said in group]
    if any(symbols_of(x) - set(sizes) for c in checks for x in (
            c[1:] if isinstance(c[0], str) else [v for pair in c for v in pair])):
        return False  # (an unknown no equation defines: not judged here)
    plain = [Condition(d, op, 0) for op, d in (c for c in checks if isinstance(c[0], str))]
    clauses = [c for c in checks if not isinstance(c[0], str)]
    start = facts.with_(*plain)
    if not start.consistent():
        return False
    budget = [MAX_CASES]

    def search(at: Facts, k: int, chosen: tuple, named: dict) -> bool:
        if k == len(clauses):
            values = _least_values(sizes, [(d, op) for d, op in (
                c.key for c in (*plain, *chosen))], budget)
            return values is not None and _holds(checks, values)
        weight = max(1, sum(nonlinear(c.key[0]) for c in at.atoms))
        for x, y in clauses[k]:
            said = Condition(x, "==", y)
            case, more = named_product(named, said)  # (x == z where a case chosen
            # says z == y: the values are read from said, x's from those before it)
            if budget[0] <= 0 or at.decide(case) is False:
                continue
            budget[0] -= weight  # (a case costs a question per product fact: see
            grown = at.with_(case)  # Facts.consistent)
            if grown.consistent() and search(grown, k + 1, (*chosen, said), more):
                return True
        return False

    return search(start, 0, (), {})


def _least_values(sizes: list, stated: list, budget: list) -> dict | None:
    """Each size, one at a time, the least value the conditions ``stated`` (``(diff,
    op)``: ``diff op 0``) allow with the values given before it put in (those over it,
    few and small once they are: the facts of a case of many sizes are too many for
    the prover at once); None where they leave one no value (as far as shown) or the
    budget is spent."""
    values: dict[str, int] = {}
    for v in sizes:
        if budget[0] <= 0:
            return None
        budget[0] -= 1
        over: list[Condition] = []
        for d, op in stated:
            if v in symbols_of(d):
                at = _at(d, values, whole=False)
                if at is None:
                    return None
                over.append(Condition(at, op, 0))
        facts = Facts(over).about({v})
        if not facts.consistent():
            return None
        low, _ = facts.bounds(Dim(v))
        values[v] = max(low or 0, 0)
    return values


def _holds(checks: list, values: dict[str, int]) -> bool:
    """Whether every check (``(op, diff)``, or a broadcast's case pairs) holds at
    ``values``."""
    for c in checks:
        if isinstance(c[0], str):
            found = _at(c[1], values)
            if found is None or not COMPARE[c[0]](found, 0):
                return False
        elif not any((p := _at(x, values)) is not None and p == _at(y, values)
                     for x, y in c):
            return False
    return True


def _at(x: DimLike, values: dict[str, int], whole: bool = True) -> Any:
    """``x`` at ``values``: an int (``whole``), or what is left of it; None where it has
    no value there (or, ``whole``, no int)."""
    try:
        found = substitute(x, values) if isinstance(x, Dim) else x
    except ZeroDivisionError:
        return None
    return found if isinstance(found, int) or not whole else None
