"""What eval_shape is given of the sizes, and what it does with what the code assumes.

Named sizes are distinct. A relation that needs more of them than their types say
(``D == K`` for ``x @ w``) records a condition on its node (:mod:`kantensor.types.
conditions`); eval_shape reports those the given facts do not imply as the result's
``assumptions``, each at the user's line (:mod:`.located`). ``where`` gives the facts
(:func:`facts_of`); ``assume="error"`` raises :class:`AssumptionError` at the first
assumption, ``assume="allow"`` reports none (:func:`without_assumptions`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from ..ops.located import NodeSize
from ..syntax.errors import TypeInferenceError
from ..types.casewise import implied
from ..types.conditions import (
    AnyOf,
    Clause,
    Condition,
    InnerSize,
    Source,
    has_choice,
    is_choice,
)
from ..types.facts import EMPTY, Facts
from ..types.factsatoms import by_size
from ..types.names import parse_conditions
from ..types.poly import Opaque
from ..types.symbols import free_symbols
from ..types.tidy import tidy
from .counts import lone
from .located import described


def facts_of(where: str | Clause | Iterable[Clause] | Facts | None) -> Facts:
    """The facts ``where`` states: text (``"D == 2*N and T <= 1024"``), a condition or
    several, or Facts."""
    if where is None:
        return EMPTY
    if isinstance(where, Facts):
        return where
    if isinstance(where, Condition | AnyOf):
        where = [where]
    given = Source(op="given")
    try:
        conditions = parse_conditions(where, given) if isinstance(where, str) else \
            list(where)
    except TypeError:
        conditions = [where]
    wrong = [c for c in conditions if not isinstance(c, Condition | AnyOf)]
    if wrong:
        got = where if not isinstance(where, list | tuple) else wrong[0]
        raise TypeError(f"eval_shape: where= says what is known of the sizes (text such as "
                        f"'D == 2*N', conditions, or Facts), got {type(got).__name__}")
    facts = EMPTY.with_(*conditions)
    if not facts.consistent():
        raise ValueError(f"eval_shape: the sizes cannot meet where={where!r}")
    return facts


def assumed(found: Iterable[Clause], given: Facts, stated: Facts | None = None
            ) -> tuple[Clause, ...]:
    """What the code assumes of the sizes: the conditions ``found`` on its nodes that
    :func:`needed` keeps, each in its plainest form (:func:`~kantensor.types.tidy.tidy`:
    ``N == 0 or D % 3 == 0``, not ``D*N == 3*N*(D//3)``), less those ``given`` implies
    (a case's answers, the facts given to eval_shape); as they are where the facts
    refute one (that case's code needs what its answers exclude: they are all broken
    there). An overload's choice (``Source.otherwise``) is dropped only where
    ``stated`` (the facts given to eval_shape, when ``given`` holds a case's answers
    too) implies it, and comes first: a case's answers may be of the sizes the choice
    made (``if np.squeeze(x).shape[0] >= 3``), so they do not show that it holds."""
    found = list(dict.fromkeys(x for c in found if needed(c) for x in tidy(c)))
    if stated is not None and stated is not given and any(map(is_choice, found)):
        choices = [c for c in found if is_choice(c)]
        needs = [c for c in found if not is_choice(c)]
        return assumed(choices, stated) + assumed(needs, given)
    kept = given.reduce(found) if given else found
    return tuple(found if kept is None else kept)




def unimplied(found: tuple[Clause, ...], given: Facts, known: Iterable[Clause] = ()
              ) -> tuple[Clause, ...]:
    """``found`` less each assumption that holds at every size with ``given``, or that
    the earlier ones imply with it, case by case (:func:`~kantensor.types.casewise.
    implied`): ``N//2 + 1 <= N or N == 0`` (a partition at ``len(x)//2``) asks nothing,
    and a broadcast that the code's first broadcast already makes safe is not a second
    assumption. The first line that needs something is the one kept (its message names
    the operands' lines). An assumption that divides by a size implies nothing here and
    is always kept: ``N % K == 0`` is not defined at ``K == 0``, so it does not make its
    divisor's ``K >= 1`` needless (:func:`_implied`). ``known``: clauses that hold, in
    forms the facts cannot hold (the cases of a count's bound ``m >= min(1, A*B)``: ``m >=
    1 or A == 0 or B == 0``), implying with them."""
    kept: list[Clause] = []
    known = list(known)
    for c in found:
        if not _implied(c, [*known, *kept], given):
            kept.append(c)
    return tuple(kept)


def _implied(c: Clause, others: Iterable[Clause], given: Facts) -> bool:
    """Whether ``others`` that divide by no size imply ``c`` with ``given``, case by case
    (False where a case divides by zero: not proven); never of a ``c`` that divides
    (:func:`_divides`: where its divisor is 0, or its quotient not exact, ``holds`` says
    False, which the cases do not see)."""
    if _divides(c):
        return False
    try:  # (a need is not made needless by a build's choice: where the choice fails, the
        # sizes would be called not covered, where NumPy raises)
        return implied(c, [d for d in others if not _divides(d) and (
            is_choice(c) or not has_choice(d))], given)
    except ZeroDivisionError:
        return False


def _divides(c: Clause) -> bool:
    """Whether a condition (or a case of a disjunction) divides by a size, or holds an
    exact quotient (``D/3``, printed ``D//3``, made where 3 divides ``D``: the facts
    read that in, ``holds`` a floor, so ``(D/3) % 4 == 0`` does not make ``D % 3 == 0``
    needless)."""
    if isinstance(c, AnyOf):
        return any(_divides(x) for case in c.cases for x in case)
    return isinstance(c, Condition) and any(by_size(x) or _exact(x) for x in (c.left, c.right))


def _exact(x: Any) -> bool:
    """Whether a size has an exact quotient ``r/k`` at any depth."""
    return not isinstance(x, int) and any(
        isinstance(a, Opaque) and (a.op == "/" or any(map(_exact, a.args)))
        for mono, _ in x._terms for a, _ in mono)


def needed(clause: Clause) -> bool:
    """Whether ``clause`` asks something of the sizes: not one that only bounds a size
    an Op introduces (the count of a boolean mask's true elements ``m <= N*D``), which
    holds for some value of that size whatever the others are (it is shown to hold at
    0, the least size), nor one bounding such a size alone from below by the others
    (``m >= min(1, N)``, the first occurrences ``np.unique`` keeps), which a large
    enough value meets (the relation stating both keeps them compatible)."""
    inner = {s: 0 for s in clause.symbols() if isinstance(s, InnerSize | NodeSize)}
    if not inner:
        return True
    if isinstance(clause, Condition) and len(inner) == 1:
        (u,) = inner
        low, high = (clause.right, clause.left) if clause.op in (">=", ">") else \
            (clause.left, clause.right) if clause.op in ("<=", "<") else (None, None)
        if low is not None and lone(high, u) and \
                not any(isinstance(s, InnerSize | NodeSize) for s in free_symbols(low)):
            return False
    cases = clause.cases if isinstance(clause, AnyOf) else ((clause,),)
    return not any(all(EMPTY.decide(c.substitute(inner)) for c in case) for case in cases)


def without_assumptions(result: Any) -> Any:
    """``result`` (and its cases) reporting no assumption."""
    return dataclasses.replace(result, assumptions=(),
                               cases=tuple(map(without_assumptions, result.cases)))


class AssumptionError(TypeInferenceError):
    """``eval_shape(..., assume="error")``: the code needs of the sizes what nothing
    given implies. ``assumption`` is the first such condition, at the user's line."""

    def __init__(self, fn: Callable[..., Any] | str, assumption: Clause):
        name = fn if isinstance(fn, str) else getattr(fn, "__qualname__", repr(fn))
        super().__init__(f"eval_shape({name}) assumes {described(assumption)}\n"
                         "(assume=\"error\": give what holds with where=..., or tie the "
                         "sizes with kt.dims(..., where=...))")
        self.assumption = assumption
