"""Named sizes are rigid: what unification may do with the logic variable of a named
size (:class:`~.terms.Symbol`), and the facts a solve runs under.

A named size is never merged with another or bound by a relation: where one is met with
another named size or an int, the two are equal where the facts say so, differ where
they say so, and otherwise the equality is recorded (:data:`~.terms.ASSUMED`) as a
condition of the answer, decided under those recorded before it (so ``b == 1`` and
``b == 2`` are never both conditions of one answer). kanren's own goals (``eq``,
``membero``) may bind one: :func:`kept_rigid` checks such a binding the same way.
"""

from __future__ import annotations

from typing import Any

from kanren.constraints import ConstrainedState

from ..types.conditions import Condition
from ..types.facts import EMPTY, Facts
from .terms import ASSUMED, FACTS, GROUND, VARS, Symbol, TensorTerm, isvar, walk

__all__ = ["assumed_of", "decide_equal", "facts_of", "kept_rigid", "unify_rigid"]


def unify_rigid(u: Any, v: Any, s: dict) -> dict | bool:
    """Unify where ``u`` or ``v`` (walked, distinct) is a named size (see
    :func:`~.store.unify_oc`)."""
    if type(u) is not Symbol:
        u, v = v, u
    kind = type(v)
    if kind in VARS and kind is not Symbol:  # an unknown size: it is this named size
        out = s.copy()
        out[v] = u
        return out
    if kind is not Symbol and kind is not int:
        return False  # a size is never a shape, a dtype or a tensor
    b = v.dim if kind is Symbol else v
    assumed = s.get(ASSUMED, ())
    if any((x == u.dim and y == b) or (x == b and y == u.dim) for x, y, _ in assumed):
        return s  # recorded already: nothing new (propagation must reach a fixpoint)
    decided = decide_equal(s, u.dim, b)
    if decided is not None:
        return s if decided else False
    out = s.copy()
    out[ASSUMED] = (*assumed, (u.dim, b, ""))
    return out


def decide_equal(s: dict, a: Any, b: Any) -> bool | None:
    """Whether the named size ``a`` equals ``b`` (a named size or an int) under the facts
    and the equalities recorded so far: ``b == 1`` recorded, ``b == 2`` is False (never
    two contradictory conditions of one answer); None where they leave it open."""
    facts = facts_of(s)
    assumed = assumed_of(s)
    if assumed:
        facts = facts.with_(*(Condition(x, "==", y) for x, y in assumed))
    return facts.decide((a, "==", b))


def assumed_of(s: dict) -> tuple[tuple[Any, Any], ...]:
    """The equalities a solve recorded as conditions of its answer
    (:data:`~.terms.ASSUMED`): a named size's Dim and another's, or an int."""
    return tuple((x, y) for x, y, _ in s.get(ASSUMED, ()))


def facts_of(s: dict) -> Facts:
    """The facts a solve runs under (see :data:`~.terms.FACTS`)."""
    return s.get(FACTS, EMPTY)


def kept_rigid(S: ConstrainedState, u: Any, v: Any) -> bool:
    """Check what kanren's own unification (``eq``, ``membero``) bound of a named size in
    unifying ``u`` with ``v``: bound to an int or another named size, the binding stays
    (the answer shows it) where the facts and the equalities recorded so far
    (:data:`~.terms.ASSUMED`) allow it, and is recorded with them (so ``b == 1`` needed
    by a relation and ``eq(b, 2)`` are no answer); bound to an unknown, the unknown is
    bound to it instead (a named size stays the representative)."""
    s = S.data
    if u is None and v is None:
        return True
    stack, seen, found = [u, v], set(), []
    while stack:
        t = stack.pop()
        kind = type(t)
        if kind in GROUND:
            continue
        if kind is TensorTerm:
            stack.extend((t.dtype, t.shape, t.wrapped))
        elif kind is tuple or kind is list:
            stack.extend(t)
        elif isvar(t) and id(t) not in seen:
            seen.add(id(t))
            if kind is Symbol and t in s:
                found.append(t)
            if t in s:
                stack.append(s[t])
    if not found:
        return True
    s = s.copy()
    for sym in found:
        value = s.pop(sym)
        w = walk(value, s)
        if w is sym:
            continue
        kind = type(w)
        if kind in VARS and kind is not Symbol:
            s[w] = sym
            continue
        if kind is not Symbol and kind is not int:
            return False  # a size is never a shape, a dtype or a tensor
        b = w.dim if kind is Symbol else w
        decided = decide_equal(s, sym.dim, b)
        if decided is False:
            return False
        s[sym] = w
        if decided is None:
            s[ASSUMED] = (*s.get(ASSUMED, ()), (sym.dim, b, ""))
    S.data = s
    return True
