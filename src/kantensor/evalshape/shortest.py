"""The shortest equivalent of a disjunction of conjunctions of size conditions, as
``eval_shape`` reports what its refused cases assume (:func:`.result.merged`).

The refused cases of a loop over ``range(n)`` say ``(n <= 16 and n <= 0) or (n <= 16
and n <= 1) or ... or (n <= 16 and n <= 16)`` (``n <= 16`` the loop limit's choice):
``n <= 16``. Every step keeps the contract's verdict at every size (sizes are never
negative, which is all the facts used here know): a disjunction holds where a
conjunction holds; else it is undecided (*not covered*, never invalid) where, in one
conjunction, the first condition that fails is a choice (``Source.otherwise``,
:func:`kantensor.types.conditions.is_choice`); else it fails. So:

* in a conjunction, a repeated condition is said once, where it first is; a condition
  that an earlier one implies (a bound implied by a tighter one on the same sizes:
  ``W - S1 + 4 >= 0`` after ``W - S1 + 3 >= 0``), or a later one with only conditions
  of its own kind (choice or not) between, is dropped; a condition the size facts alone
  decide true (``n + 3 >= 0``) is dropped (a choice kept); one they decide false ends
  the conjunction, which is none unless a choice is among what is left (where that
  fails first, the sizes stay not covered);
* a conjunction that implies another (each of the other's conditions is one of its own
  or a looser bound of one) is dropped where the other holds or fails first by a choice
  wherever it fails first by one;
* what is left is one condition, or one conjunction without a choice (its conditions,
  each its own assumption), or a disjunction: a conjunction with a choice stays one
  case, since a contract's atoms are checked in their order and a choice implied by a
  need is pruned beside it.
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
    """``case`` without what the rest of it (or the size facts alone) makes needless
    (module docstring); None where it never holds and never fails first by a choice."""
    once: list[Condition] = []
    for c in case:
        if c in once:
            continue  # (the first of equal conditions fails first: its source decides)
        known = EMPTY.decide(c)
        if known is False:  # never holds; it fails first by a choice where one before
            once.append(c)  # it (or it) fails first: those stay, what follows is moot
            return tuple(once) if any(map(is_choice, once)) else None
        if known is not True or is_choice(c):
            once.append(c)
    kept = [(c, _bound(c)) for c in once]
    i = 0
    while i < len(kept):
        if any(j != i and _drops(kept, j, i) for j in range(len(kept))):
            del kept[i]
        else:
            i += 1
    return tuple(c for c, _ in kept)


def _drops(kept: list[tuple[Condition, Any]], j: int, i: int) -> bool:
    """Whether condition ``j`` of a conjunction makes its condition ``i`` needless at
    every size: it implies it, and either comes first (``i`` then never fails first) or
    every condition from ``i`` to ``j`` is a choice alike (where ``i`` failed first, the
    one that now fails first is of its kind)."""
    (c, e), (d, f) = kept[i], kept[j]
    if not _implies(d, f, c, e):
        return False
    return j < i or all(is_choice(x) == is_choice(c) for x, _ in kept[i:j + 1])


def _covers(a: tuple[Condition, ...], b: tuple[Condition, ...]) -> bool:
    """Whether conjunction ``b`` makes conjunction ``a`` needless in the disjunction at
    every size: ``a`` implies ``b`` (each of ``b``'s conditions is one of ``a``'s or a
    looser bound of one), and where ``a`` fails first by a choice, ``b`` holds or fails
    first by a choice too: each of ``b``'s conditions that no condition of ``a`` before
    its first choice implies is a choice."""
    bounds = [(x, _bound(x)) for x in a]
    first = next((k for k, x in enumerate(a) if is_choice(x)), len(a))
    for y in b:
        ey = _bound(y)
        at = next((k for k, (x, ex) in enumerate(bounds) if _implies(x, ex, y, ey)), None)
        if at is None or (at >= first and not is_choice(y)):
            return False
    return True


def shortest(clause: AnyOf) -> list[Clause]:
    """``clause`` as its shortest equivalent found (module docstring): the conditions of
    a single conjunction left that has no choice (or one condition), else a disjunction
    of fewer, shorter conjunctions."""
    if sum(map(len, clause.cases)) > MAX_CONDITIONS:
        return [clause]
    cases = [c for c in (_conjunction(case) for case in clause.cases) if c is not None]
    if any(not case for case in cases):  # (one holds at every size: so does the clause)
        return []
    left = list(cases)
    for i in reversed(range(len(left))):  # (one at a time, the later of two alike
        if any(j != i and _covers(left[i], b) for j, b in enumerate(left)):  # first)
            del left[i]
    if len(left) == 1 and (len(left[0]) == 1 or not any(map(is_choice, left[0]))):
        return list(left[0])
    return [AnyOf(tuple(left), clause.source)]
