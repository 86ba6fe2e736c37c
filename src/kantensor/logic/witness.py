"""kanren's ``run`` and the size equations still pending in its answers.

``run`` reifies each state its goals yield and shows no conditions: an answer whose
state still holds an equation over one size (a named size, or an unknown) claims that
some value of that size meets it. Propagation decides most such equations (they fail,
or bind the unknown); one none of its methods decides (``(b*b) % 257 == 3``: int
divisors whose classes are too many to read) would make the answer a guess. So before
a :class:`~.store.TypeState` is reified, each size's pending equations (with the
where-clauses over that size alone) are judged by a witness: a value at which all of
them hold, looked for among the few values the methods of :mod:`.oneunknown` and
:mod:`.quotients` leave, else among the sizes up to :data:`MAX_WITNESS`. Where none is
found the answer is not given: :class:`UndecidedAnswer` names the condition, which
``kt.query`` states in its answer's ``where``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kanren.constraints import _reify_ConstrainedState
from unification import Var
from unification.core import _reify

from ..types.dim import Dim, DimLike, unknown
from ..types.dimfacts import NO_SOLUTION
from ..types.prove import bounds
from ..types.symbols import free_symbols, substitute
from .dims import COMPARE, Compare, Equation
from .oneunknown import candidates
from .quotients import may_hold, named_values, tail_values
from .rigid import facts_of
from .store import TypeState, TypeStore
from .wording import readable

__all__ = ["MAX_WITNESS", "UndecidedAnswer", "judge"]

#: The sizes ``0 .. MAX_WITNESS - 1`` a witness is looked for among, where no method
#: leaves a few values (bounded work per answer: one evaluation per size and equation).
MAX_WITNESS = 4096

#: The sizes tried first, before any method is asked (most witnesses are small).
SMALL = 64

#: The most values a method's set of values is tried at.
MAX_VALUES = 1 << 16


class UndecidedAnswer(ValueError):
    """A ``run`` answer whose state holds a size equation that nothing decides and no
    size up to :data:`MAX_WITNESS` meets: the answer would be a guess. ``condition`` is
    the equation's text, ``size`` the size it is over."""

    def __init__(self, condition: str, size: str):
        self.condition, self.size = condition, size
        super().__init__(
            f"run cannot give this answer as true: it holds only where {condition}, an "
            f"equation over the size {size} that the solver cannot decide and for which "
            f"no value of {size} tried (its bounds', else 0 to {MAX_WITNESS - 1}) is found. "
            f"kt.query states such a "
            f"condition in its answer's where; or bind {size} (eq, membero)")


def judge(S: TypeState) -> None:
    """Raise :class:`UndecidedAnswer` unless every size's pending equations in ``S``
    have a witness (judged once per state)."""
    if S.__dict__.get("_judged"):
        return
    store = S.constraints.get(TypeStore)
    if store is not None and store.pending:
        _judge(store.pending, S.data)
    S.__dict__["_judged"] = True


def _judge(pending: tuple, s: dict) -> None:
    equations: dict[Any, list[tuple[DimLike, DimLike]]] = {}
    compares: dict[Any, list[tuple[str, DimLike]]] = {}
    for c in pending:
        if not isinstance(c, Equation | Compare):
            continue
        try:
            left, right = c.left.value(s), c.right.value(s)
        except ZeroDivisionError:
            continue
        diff = left - right
        symbols = free_symbols(diff) if isinstance(diff, Dim) else set()
        if len(symbols) != 1:
            continue  # over two sizes it waits (``nowhere`` refutes what it can)
        (v,) = symbols
        if isinstance(c, Equation):
            equations.setdefault(v, []).append((left, right))
        else:
            compares.setdefault(v, []).append((c.op, diff))
    for v, sides in equations.items():
        diffs = [left - right for left, right in sides]
        if _witness(v, diffs, compares.get(v, ()), s, pending) is None:
            left, right = sides[0]
            raise UndecidedAnswer(f"{readable(left)} == {readable(right)}",
                                  v if isinstance(v, str) else readable(unknown(v)))


def _witness(v: Any, diffs: list, compares: Iterable, s: dict, pending: tuple
             ) -> int | None:
    """A size at which every equation ``diff == 0`` of ``diffs`` and every comparison
    ``diff op 0`` of ``compares`` holds (and, for a named size, that the facts allow),
    or None where none is found among the :data:`SMALL` sizes and :func:`_tried`."""
    facts = facts_of(s)
    found = _first(v, range(SMALL), diffs, compares, facts)
    if found is not None:
        return found
    tried = _tried(v, diffs, s, pending)
    return None if tried is None else _first(v, tried, diffs, compares, facts)


def _first(v: Any, tried: Iterable[int], diffs: list, compares: Iterable, facts: Any
           ) -> int | None:
    compares = tuple(compares)
    for k in tried:
        at = {v: k}
        if all(may_hold(d, at) for d in diffs) and all(_compares(op, d, at)
                                                       for op, d in compares) \
                and (not isinstance(v, str)
                     or facts.decide((Dim(v) - k, "==", 0)) is not False):
            return k
    return None


def _tried(v: Any, diffs: list, s: dict, pending: tuple) -> Any:
    """The sizes a witness is looked for among: the few values a method leaves one of
    the equations (None if a method shows it holds nowhere), else the values its bounds
    allow (``n//1000 == 5``: 5000 to 5999), else :data:`MAX_WITNESS` sizes from its
    least."""
    least = 0
    for diff in diffs:
        few = named_values(diff, s, pending) if isinstance(v, str) else \
            candidates(diff, v)
        if few is None and not isinstance(v, str):
            few = tail_values(diff, v)
        if few is NO_SOLUTION:
            return None
        if isinstance(few, int):
            return (few,)
        if isinstance(few, range | tuple | list) and len(few[:MAX_VALUES + 1]) <= MAX_VALUES:
            return few
    for diff in diffs:
        lo, hi = bounds(((diff, "==", 0),), Dim(v) if isinstance(v, str) else unknown(v))
        lo = max(lo or 0, 0)
        if hi is not None and hi - lo < MAX_VALUES:
            return range(lo, hi + 1)
        least = max(least, lo)
    return range(least, least + MAX_WITNESS)


def _compares(op: str, diff: DimLike, at: dict) -> bool:
    try:
        value = substitute(diff, at)
    except ZeroDivisionError:
        return False
    return not isinstance(value, int) or COMPARE[op](value, 0)


def _reify_judged(u: Var, S: TypeState) -> Any:
    judge(S)
    return _reify_ConstrainedState(u, S)


_reify.add((Var, TypeState), _reify_judged)
