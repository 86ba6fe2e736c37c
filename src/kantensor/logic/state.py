"""A kanren state with a constraint store, propagation, labeling and failure reasons.

Goals here are ordinary kanren goals (``state -> stream of states``). The
state is a substitution dict that also carries a tuple of pending
constraints. A constraint is re-checked whenever :func:`propagate` runs:
it may bind variables (e.g. solve ``n + 1 == 5``), succeed for good, fail,
or wait until more is known. Pending constraints that can enumerate their
possibilities (``choices``) are expanded by :func:`label` for queries that
want concrete answers.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Iterator
from typing import Any

from unification import unify, var
from unification.utils import transitive_get as walk

__all__ = ["Constraint", "KState", "explaining", "fail_because", "label", "post",
           "propagate", "unify_oc", "var", "walk"]


class KState(dict):
    """Substitution plus a tuple of pending constraints (immutable, so branches never
    share mutable state: the neq/isinstanceo pitfall of kanren does not arise)."""

    __slots__ = ("store",)

    def __init__(self, *args: Any, store: tuple = ()):
        super().__init__(*args)
        self.store = store

    def copy(self) -> KState:
        return KState(self, store=self.store)

    def with_store(self, store: tuple) -> KState:
        return KState(self, store=store)


class Constraint:
    """Base class: ``check`` returns None (fails), or ``(state, done)``."""

    def check(self, s: KState) -> tuple[KState, bool] | None:
        raise NotImplementedError

    def choices(self, s: KState) -> list[Callable[[KState], KState | None]] | None:
        """Ways to make progress by guessing (for labeling), or None."""
        return None

    def explain(self, s: KState) -> str:
        return f"constraint {self} does not hold"


# -- failure reasons ------------------------------------------------------------
_REASONS: contextvars.ContextVar[list | None] = contextvars.ContextVar("reasons", default=None)


class explaining:
    """Context manager collecting failure reasons (only then are messages built)."""

    def __enter__(self) -> list[str]:
        self.reasons: list[str] = []
        self.token = _REASONS.set(self.reasons)
        return self.reasons

    def __exit__(self, *exc: object) -> None:
        _REASONS.reset(self.token)


def fail_because(reason: Callable[[], str]) -> None:
    """Record why a branch fails, if someone is collecting reasons."""
    reasons = _REASONS.get()
    if reasons is not None:
        reasons.append(reason())


# -- unification with an occurs check ---------------------------------------------
def _occurs(v: Any, term: Any, s: dict) -> bool:
    """Does variable ``v`` occur in ``term`` (following the bindings in ``s``)?"""
    stack, seen = [term], set()
    while stack:
        t = stack.pop()
        if t is v:
            return True
        if id(t) in seen:
            continue
        seen.add(id(t))
        t = walk(t, s)
        if t is v:
            return True
        if isinstance(t, tuple | list):
            stack.extend(t)
        elif hasattr(t, "__kt_children__"):
            stack.extend(t.__kt_children__())
    return False


def unify_oc(u: Any, v: Any, s: KState) -> KState | bool:
    """``unify`` that refuses to bind a variable to a term containing it."""
    out = unify(u, v, s)
    if out is False:
        return False
    for key in out.keys() - s.keys():
        if _occurs(key, out[key], out):
            return False
    return out


# -- propagation and labeling ------------------------------------------------------
def post(s: KState, *constraints: Constraint) -> KState | None:
    """Add constraints to ``s`` and propagate; None if that fails."""
    return propagate(s.with_store(s.store + constraints))


def propagate(s: KState) -> KState | None:
    """Re-check every pending constraint until nothing changes."""
    while True:
        changed = False
        pending = []
        for c in s.store:
            out = c.check(s)
            if out is None:
                fail_because(lambda c=c, s=s: c.explain(s))
                return None
            new, done = out
            if new is not s:
                changed = True
                s = new
            if not done:
                pending.append(c)
        s = s.with_store(tuple(pending))
        if not changed:
            return s


def label(s: KState, max_depth: int = 64) -> Iterator[KState]:
    """Enumerate states in which no pending constraint can guess any further."""
    stack = [(s, 0)]
    while stack:
        s, depth = stack.pop()
        for c in s.store:
            options = c.choices(s)
            if options:
                break
        else:
            yield s
            continue
        if depth >= max_depth:
            continue
        branches = []
        for option in options:
            new = option(s)
            if new is not None and new is not False:
                new = propagate(new)
                if new is not None:
                    branches.append((new, depth + 1))
        stack.extend(reversed(branches))

