"""Atoms over sizes that are no inputs, judged at the inputs' values for ``holds``.

A size the data decide (a Loop's iteration count, an If's ``<if>_then``, a NonZero's
count) has no value among the inputs; an atom that names one is judged at every value
the contract's ``bounds`` leave it (at most :data:`MAX_HIDDEN` points). At each point an
atom holds, fails, or fails first by an overload's choice (:attr:`.atoms.Atom.chosen`:
the graph's types do not apply there, so the point is not covered); :func:`outcomes` is
the set of those it may have over the points. Where the points are too many (or not
bounded) the set is a superset, from the atom's conditions over input sizes alone
(``iters == 0 or D == N`` holds at ``D == N`` whatever the count). Atoms that each fail
only at some values may fail together at every one (an If whose two branches both need
``D == N``: ``then == 0 or D == N`` and ``then == 1 or D == N``): :func:`joint_failures`
judges them over their sizes together.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Final

from ..conditions import AnyOf, Clause, Condition
from ..facts import Facts
from .atoms import Atom, condition_holds
from .cells import dim_of

__all__ = ["MAX_HIDDEN", "Outcome", "joint_failures", "outcome", "outcomes"]

#: The most values of the sizes that are no inputs ``holds`` tries an atom at.
MAX_HIDDEN: Final = 4096


class Outcome(enum.Enum):
    """An atom at a point: it holds, fails, or fails first by a choice (not covered)."""

    HOLDS = "holds"
    FAILS = "fails"
    CHOSEN = "chosen"


HOLDS, FAILS, CHOSEN = Outcome.HOLDS, Outcome.FAILS, Outcome.CHOSEN


def outcome(atom: Atom, values: Mapping[Hashable, int]) -> Outcome:
    """The atom at ``values`` (every size it names given)."""
    if atom.holds(values):
        return HOLDS
    return CHOSEN if atom.chosen and atom.fails_by_choice(values) else FAILS


def outcomes(atom: Atom, hidden: frozenset, values: Mapping[Hashable, int],
             bounds: Sequence[Condition]) -> frozenset[Outcome]:
    """The outcomes ``atom`` may have at the inputs' ``values`` over the values of its
    ``hidden`` sizes that ``bounds`` allow: exact where they are at most
    :data:`MAX_HIDDEN` points, else a superset."""
    decided = _by_inputs(atom.clause, hidden, values)
    if decided is True:
        return frozenset((HOLDS,))
    may_choose = _may_choose(atom, hidden, values)
    if decided is False and not may_choose:
        return frozenset((FAILS,))
    found = hidden_points(hidden, values, bounds)
    if found:
        seen: set[Outcome] = set()
        for point in found:
            seen.add(outcome(atom, {**values, **point}))
            if len(seen) == 3 or (len(seen) == 2 and not may_choose):
                break
        return frozenset(seen)
    possible = {FAILS} if decided is False else {HOLDS, FAILS}
    return frozenset(possible | ({CHOSEN} if may_choose else set()))


def joint_failures(atoms: Sequence[Atom], hidden: frozenset,
                   values: Mapping[Hashable, int], bounds: Sequence[Condition]
                   ) -> list[tuple[Atom, dict[Hashable, int]]] | None:
    """Where ``atoms`` (each holding or failing, never by a choice, at every value of
    the sizes that are no inputs) fail together at every value of their ``hidden``
    sizes that ``bounds`` allow (at most :data:`MAX_HIDDEN` points, at least one): the
    first atom that fails at each point, with one point for each such atom; else None."""
    found = hidden_points(hidden, values, bounds)
    if not found:
        return None
    failing: dict[int, tuple[Atom, dict[Hashable, int]]] = {}
    for point in found:
        at = {**values, **point}
        i = next((i for i, a in enumerate(atoms) if not a.holds(at)), None)
        if i is None:
            return None
        failing.setdefault(i, (atoms[i], point))
    return [failing[i] for i in sorted(failing)]


def hidden_points(hidden: frozenset, values: Mapping[Hashable, int],
                  bounds: Sequence[Condition]) -> list[dict[Hashable, int]] | None:
    """The values of the ``hidden`` sizes that ``bounds`` allow at the inputs'
    ``values``; None where one is not bounded or they are more than :data:`MAX_HIDDEN`."""
    known = [c.substitute(values) if values.keys() & c.symbols() else c for c in bounds]
    known = [c for c in known if c.symbols() & hidden and c.symbols() <= hidden]
    ranges = []
    total = 1
    for h in sorted(hidden, key=str):
        lo, hi = Facts([c for c in known if c.symbols() == {h}]).bounds(dim_of(h))
        if hi is None or hi - (lo or 0) > MAX_HIDDEN:
            return None
        r = range(max(lo or 0, 0), hi + 1)
        total *= len(r)
        if total > MAX_HIDDEN:
            return None
        ranges.append((h, r))
    return list(_allowed(ranges, known))


def _allowed(ranges: list, known: list[Condition]) -> Iterator[dict[Hashable, int]]:
    for combo in itertools.product(*(r for _, r in ranges)):
        point = {h: v for (h, _), v in zip(ranges, combo, strict=True)}
        if all(condition_holds(c, point) for c in known):
            yield point


def _by_inputs(clause: Clause, hidden: frozenset, values: Mapping[Hashable, int]
               ) -> bool | None:
    """A disjunction's truth at ``values`` from its conditions over no ``hidden`` size
    alone, where they decide it: True where a case of them holds, False where every
    case has one that fails; else None."""
    if not isinstance(clause, AnyOf):
        return None
    failed = 0
    for case in clause.cases:
        free = [c for c in case if not c.symbols() & hidden]
        if not all(condition_holds(c, values) for c in free):
            failed += 1
        elif len(free) == len(case):
            return True
    return False if failed == len(clause.cases) else None


def _may_choose(atom: Atom, hidden: frozenset, values: Mapping[Hashable, int]) -> bool:
    """Whether ``atom`` may fail first by a choice at some values of its ``hidden``
    sizes, as its conditions over input sizes alone show (a choice over them that holds
    cannot fail, nor one after a condition over them that fails)."""
    if not atom.chosen:
        return False

    def decided(c: Condition) -> bool | None:
        return None if c.symbols() & hidden else condition_holds(c, values)
    return any(decided(c) is not True and all(decided(e) is not False for e in earlier)
               for earlier, c in atom.choices())
