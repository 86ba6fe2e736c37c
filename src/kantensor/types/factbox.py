"""The prover's box of a set of facts, kept with the set and narrowed as it grows: what
:func:`kantensor.types.prove.proves` finds over the box
(:func:`kantensor.types.monotone.box_of`) without making the box, the sorted triples
and the size count again for every question.

A stack of strided windows keeps one ``out >= 1`` per window and axis, and every later
window asks whether its own ``out >= 0`` follows (a :class:`~.facts.Facts` of rising
facts: ``Facts.decide`` asks the prover). Each new set of facts is its parent and one
or two facts, so its box is the parent's narrowed by those (the box is the intersection
of the facts' intervals, whatever their order), and the count of the terms the prover
caps at :data:`~.prove.MAX_QUESTION_TERMS` is the parent's plus theirs.
:func:`proven` answers as :func:`~.prove.proves` answers through its box, in its order
(over one size first, then over the box); where that path does not answer (a fact not
monotone in one symbol, no sizes meeting the facts, an unbounded side the question
needs, past the cap), None: the caller asks :func:`~.prove.proves` itself. A state
holds at most the cap's number of facts (past it, every set grown from it is the prover's
at once), so the states of a long line of growing facts stay small.
tests/test_size_factbox.py compares both, and brute force.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from . import monotone
from .monotone import NO_SIZES
from .onesize import over_one_size
from .pointvalue import terms, value
from .poly import window_form
from .prove import MAX_QUESTION_TERMS
from .symbols import free_symbols

__all__ = ["Pending", "State", "grown", "made", "proven"]

#: ``(box, terms of the facts' sides, the facts' triples)``: the box None where its
#: path does not apply (see :func:`proven`), the triples None where they are not linear
#: in one size (:func:`~.onesize.over_one_size` answers no question of them).
State = tuple
_START: Final = ({}, 0, ())
_UNBOXED: Final = (None, 0, None)  # (facts the box path does not take)
_TRUE: Final = (0, ">=", 0)  # (a goal over no size: over_one_size answers if it applies)


def _terms(x: object) -> int:
    return 0 if isinstance(x, int) else len(x._terms)


def made(triples: Iterable[tuple]) -> State:
    """The state of facts of these triples (``!=`` ones left out, as the prover does)."""
    return _made(grown(_START, triples))


def grown(state: State | Pending, triples: Iterable[tuple]) -> State | Pending:
    """``state``'s facts and ``triples`` (a ``!=`` triple is left out), made when first
    asked (:func:`proven`: most sets of facts a model makes are never asked)."""
    if state is _UNBOXED:
        return state  # (and every set grown from it: the prover's)
    added = tuple([t for t in triples if t[1] != "!="])
    return Pending(state, added) if added else state


class Pending:
    """A state not made yet: a parent's and the triples added to it (``state``: made,
    once asked of it or of a set grown from it)."""

    __slots__ = ("parent", "added", "state")

    def __init__(self, parent: State | Pending, added: tuple) -> None:
        self.parent, self.added, self.state = parent, added, None


def _made(state: State | Pending) -> State:
    chain = []  # (a long line of sets grown one by one: no recursion)
    while type(state) is Pending:
        if state.state is not None:
            state = state.state
            break
        chain.append(state)
        state = state.parent
    for pending in reversed(chain):
        state = pending.state = _narrowed(state, pending.added)
    return state


def _narrowed(state: State, added: tuple) -> State:
    box, size, held = state
    if box is None:
        return _UNBOXED
    box = monotone.narrowed(box, added)
    if box is None or box is NO_SIZES:
        return _UNBOXED  # (a fact not monotone in one symbol; or no sizes meet them)
    size += sum(_terms(left) + _terms(right) for left, _, right in added)
    if size > MAX_QUESTION_TERMS:
        return _UNBOXED  # (past the prover's cap with any goal: it answers, at once)
    if held is not None:
        held += added
        if over_one_size(held, _TRUE) is None:
            held = None  # (not linear in one size: nor with any goal, nor grown further)
    return box, size, held


def proven(state: State | Pending, goal: tuple, rising: bool = False
           ) -> tuple[State, bool | None]:
    """``state`` made, and :func:`~.prove.proves` of ``goal`` (a triple) under its facts
    where the box path answers, else None (not known here: ask it). ``rising``: the
    goal is ``d >= 0`` or ``d > 0`` of a :func:`~.stated.rising` ``d``, nondecreasing in
    each of its symbols, so its least over the box is its value at the box's least corner
    (what :func:`~.monotone.decided` finds after it has found each symbol's direction)."""
    state = _made(state)
    box, size, held = state
    left, op, right = goal
    if box is None or size + _terms(left) + _terms(right) > MAX_QUESTION_TERMS:
        return state, None
    found = None if held is None else over_one_size(held, goal)
    if found is not None:
        return state, found
    if rising and type(right) is int and right == 0:
        form = window_form(terms(left))  # (a window's size: its value there
        if form is not None:  # read off its form, no walk for its symbols)
            s, k, d, t, c = form
            least = k * ((box.get(s, _ANY)[0] + t) // d) + c
        else:
            least = value(left, {s: box.get(s, _ANY)[0] for s in free_symbols(left)})
        if least is not None:
            return state, least >= (op == ">")
    return state, monotone.decided(box, goal)


_ANY: Final = (0, None)  # (a symbol no fact bounds: every size)

