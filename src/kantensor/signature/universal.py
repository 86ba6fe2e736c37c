"""``holds_for_all``: a goal that holds for every value of what some terms leave open
(a guard for rewrites, where a relation alone holds for some value)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from kanren.constraints import ConstrainedState

from ..logic.store import TypeStore, fresh_state
from ..logic.terms import isvar, term_vars, walk
from .solve import as_term

__all__ = ["holds_for_all"]


def holds_for_all(goal: Callable[[Any], Iterator[ConstrainedState]], over: Sequence[Any]
                  ) -> Callable[[Any], Iterator[ConstrainedState]]:
    """The goal that succeeds (once) where ``goal`` holds for *every* value of what the
    terms ``over`` leave open: their unknown sizes, symbolic sizes and unknown dtypes.

    ``goal`` alone succeeds where *some* values fit (``relation(add)(v, zeros3, v)`` holds
    for ``v: float32[?]``, with the size 3); a rewrite needs every value. The open parts
    are held rigid: a solution of ``goal`` that binds none of them, ties none to another
    and leaves no constraint pending on them holds whatever they are. Terms are graph
    Variables (one term per Variable, as in :func:`relation`), types or logic terms."""
    over = list(over)

    def universal_goal(S: Any) -> Iterator[ConstrainedState]:
        S = fresh_state(S)
        terms = [as_term(walk(x, S.data), S, f"term {i}") for i, x in enumerate(over)]
        rigid = list(dict.fromkeys(v for v in term_vars(terms, S.data)))
        for S1 in goal(S):
            if _untouched(rigid, S1):
                yield S1
                return

    return universal_goal


def _untouched(rigid: list, S: ConstrainedState) -> bool:
    """Are the ``rigid`` variables still free and distinct in ``S``, with no kantensor or
    kanren constraint waiting on them?"""
    s = S.data
    roots = [walk(v, s) for v in rigid]
    if not all(isvar(r) for r in roots) or len(set(map(id, roots))) != len(roots):
        return False
    ids = {id(r) for r in roots}
    store = S.constraints.get(TypeStore)
    for c in store.pending if store is not None else ():
        if any(id(v) in ids for v in term_vars(c.terms(), s)):
            return False
    for other in S.constraints.values():
        lvars = getattr(other, "lvar_constraints", None)
        if other is not store and lvars and any(
                id(walk(v, s)) in ids or any(id(x) in ids for x in term_vars(list(cs), s))
                for v, cs in lvars.items()):
            return False
    return True
