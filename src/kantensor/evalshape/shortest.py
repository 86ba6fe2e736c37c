"""The shortest equivalent of a disjunction of conjunctions of size conditions, as
``eval_shape`` reports what its refused cases assume (:func:`.result.merged`).

The refused cases of a loop over ``range(n)`` say ``(n <= 16 and n <= 0) or (n <= 16
and n <= 1) or ... or (n <= 16 and n <= 16)``: ``n <= 16``. Every step keeps the
meaning at every size (sizes are never negative, which is all the facts used here
know):

* in a conjunction, a repeated condition is said once (the choice's, ``Source.otherwise``,
  where one of the repeats is a choice); a bound implied by a tighter one on the same
  sizes (``W - S1 + 4 >= 0`` beside ``W - S1 + 3 >= 0``) is dropped unless it is a choice
  the tighter one is not; a condition the size facts alone decide true (``n + 3 >= 0``)
  is dropped (a choice kept); a conjunction holding one they decide false is none;
* a conjunction that implies another (each of the other's conditions is one of its own
  or a looser bound of one) is dropped, unless it has a choice the other lacks.

A choice is kept wherever it could be dropped so that the sizes past it stay *not
covered*, never invalid (:func:`kantensor.types.conditions.is_choice`).
"""

from __future__ import annotations

from typing import Any

from ..types.conditions import AnyOf, Clause, Condition, is_choice
from ..types.dim import as_dim
from ..types.facts import EMPTY

#: Most conditions over all conjunctions simplified (past it the disjunction is kept as
#: it is: pairwise comparison grows with the square). A refused case has at most
#: ``branches.MAX_DEPTH`` conditions, each a conjunction with the choices before it.
MAX_CONDITIONS = 1200


def _bound(c: Condition) -> Any:
    """``c`` as ``e >= 0`` (``e`` a size expression), or None for ``==`` and ``!=``."""
    if c.op in (">", ">="):
        e = as_dim(c.left) - c.right
    elif c.op in ("<", "<="):
        e = as_dim(c.right) - c.left
    else:
        return None
    return e - 1 if c.op in (">", "<") else e


def _looser(a: Any, b: Any) -> bool:
    """Whether bound ``b >= 0`` follows from bound ``a >= 0`` (``b - a`` an int >= 0)."""
    gap = b - a
    return isinstance(gap, int) and gap >= 0


def _implies(a: Condition, ea: Any, b: Condition, eb: Any) -> bool:
    return a == b or (ea is not None and eb is not None and _looser(ea, eb))


def _conjunction(case: tuple[Condition, ...]) -> tuple[Condition, ...] | None:
    """``case`` without what the rest of it (or the size facts alone) implies; None where
    the size facts decide one of its conditions false."""
    once: dict[Condition, Condition] = {}  # (equal conditions: one, a choice if one is)
    for c in case:
        if c not in once or (is_choice(c) and not is_choice(once[c])):
            once[c] = c
    kept: list[tuple[Condition, Any]] = []
    for c in once.values():
        known = EMPTY.decide(c)
        if known is False:
            return None
        if known is True and not is_choice(c):
            continue
        kept.append((c, _bound(c)))
    out = []
    for i, (c, e) in enumerate(kept):
        if not any(j != i and _drops(d, f, j, c, e, i) for j, (d, f) in enumerate(kept)):
            out.append(c)
    return tuple(out)


def _drops(d: Condition, f: Any, j: int, c: Condition, e: Any, i: int) -> bool:
    """Whether ``d`` (at ``j``) makes ``c`` (at ``i``) needless in one conjunction: it
    implies ``c`` and is a choice where ``c`` is; of two that imply each other, the one
    kept is the choice, else the earlier."""
    if not _implies(d, f, c, e) or (is_choice(c) and not is_choice(d)):
        return False
    if not _implies(c, e, d, f) or is_choice(c) != is_choice(d):
        return True
    return j < i


def _covers(a: tuple[Condition, ...], b: tuple[Condition, ...]) -> bool:
    """Whether conjunction ``a`` implies conjunction ``b`` (each of ``b``'s conditions is
    one of ``a``'s or a looser bound of one) and has no choice ``b`` lacks."""
    bounds = [(x, _bound(x)) for x in a]
    if not all(any(_implies(x, ex, y, ey) for x, ex in bounds)
               for y, ey in ((y, _bound(y)) for y in b)):
        return False
    return {x for x in a if is_choice(x)} <= {y for y in b if is_choice(y)}


def shortest(clause: AnyOf) -> list[Clause]:
    """``clause`` as its shortest equivalent found (module docstring): the conditions of
    a single conjunction left, else a disjunction of fewer, shorter conjunctions."""
    if sum(map(len, clause.cases)) > MAX_CONDITIONS:
        return [clause]
    cases = [c for c in (_conjunction(case) for case in clause.cases) if c is not None]
    if any(not case for case in cases):  # (one holds at every size: so does the clause)
        return []
    unique: list[tuple[Condition, ...]] = []
    for case in cases:
        if not any(set(case) == set(u) for u in unique):
            unique.append(case)
    left = [a for i, a in enumerate(unique)
            if not any(j != i and _covers(a, b) and not (_covers(b, a) and j > i)
                       for j, b in enumerate(unique))]
    if len(left) == 1:
        return list(left[0])
    return [AnyOf(tuple(left), clause.source)]
