"""The broadcast axes of a direct build (:mod:`.direct`): NumPy's rule on one axis as the
relation's :class:`~kantensor.logic.broadcast.Broadcast` constraint decides it on ground
sizes, and, where the sizes leave it open (an unknown size against another size, two
named sizes the facts do not equate), the condition the forward answer keeps for it
(:func:`~kantensor.logic.forwardanswer.forward_answer`): the same clauses, from the same
functions, in the same order, with the same sources.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..logic.broadcast import broadcast_top
from ..logic.broadcastsizes import broadcast_size, broadcastable
from ..types.conditions import Clause, InputAxis, Source
from ..types.dim import unknown
from ..types.facts import Facts
from ..types.symbols import free_symbols

__all__ = ["Broadcasts", "Fails"]


class Fails(Exception):
    """The alternative does not apply: the relation fails on it too."""


def _values(sizes: list, origins: list[tuple[int, int, int]], a: int) -> list:
    """The sizes of axis ``a`` as the forward answer names them: an unknown as its input
    axis."""
    places = [(i, start + a - lacks) for i, start, lacks in origins if a >= lacks]
    return [unknown(InputAxis(*places[j])) if v is None else v for j, v in enumerate(sizes)]


@lru_cache(maxsize=1024)
def _source(group: Any, axis: int) -> Source:
    """The source of a broadcast's condition, as the relation's constraint says it (made
    once per group and axis: a Source is immutable, and making one costs a microsecond)."""
    return Source(detail=f"{group}, axis {axis} (from the right)")


class Broadcasts:
    """The broadcast axes of one alternative's direct build under ``facts``, and the
    conditions they hold under.

    The relation leaves a broadcast open in two ways: its output is known (one size
    ``k != 1`` among them, or the size the others equal) while an unknown or named size
    may be ``k`` or 1: it stays pending; or no size is the result: the forward answer
    gives NumPy's size (:func:`~kantensor.logic.broadcastsizes.broadcast_size`) first. The
    answer's clauses say the latter first, then the pending ones, each in the order the
    axes were posted (groups in layout order, axes left to right)."""

    __slots__ = ("facts", "answered", "pending")

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.answered: list[list[Clause]] = []
        self.pending: list[list[Clause]] = []

    def axis(self, sizes: list, origins: list[tuple[int, int, int]], a: int, width: int,
             group: Any, source: Source | None = None) -> Any:
        """The broadcast of axis ``a`` of ``group``'s ``width`` axes: of its ``sizes``
        (ints, named sizes, None: unknown), one per input of ``origins`` (``(input,
        its first axis of the group, how many of the axes it lacks)``) that has it;
        Fails where NumPy refuses them. ``source``: its conditions' source, if not the
        group's axis (a where-clause's broadcast, whose sizes are never unknown)."""
        facts = self.facts
        known = {v for v in sizes if type(v) is int and v != 1}
        if len(known) > 1:
            raise Fails
        if known:
            (k,) = known
            settled = True
            for v in sizes:
                if v is None or (type(v) is not int and not facts and v.name is not None):
                    settled = False  # a size that may be k, 1 or neither (k >= 0)
                elif type(v) is not int:
                    same, one = facts.decide((v, "==", k)), facts.decide((v, "==", 1))
                    if same is False and one is False:
                        raise Fails
                    if same is not True and one is not True:
                        settled = False
            if not settled:
                self.pending.append(broadcastable(_values(sizes, origins, a), _source(
                    group, a - width) if source is None else source))
            return k
        rest: dict[Any, None] = {}  # the distinct sizes other than 1 (each unknown its own)
        for j, v in enumerate(sizes):
            if v is None:
                rest[j,] = None
            elif type(v) is not int:
                rest[v] = None
        if not rest:
            return 1
        if len(rest) == 1:
            (v,) = rest
            return None if type(v) is tuple else v
        values = _values(sizes, origins, a)
        if source is None:  # (made where a condition needs it)
            source = _source(group, a - width)
        if None not in sizes:  # named sizes only: the one the others equal, if any
            found = broadcast_top([v for v in values if type(v) is not int], facts)
            if found is not None:
                top = [v for v in sizes if type(v) is not int][found[0]]
                if not found[1]:
                    self.pending.append(broadcastable(values, source))
                return top
        self.answered.append(broadcastable(values, source))
        size = broadcast_size(values, facts)
        return None if any(not isinstance(u, str) for u in free_symbols(size)) else size

    def conditions(self) -> list[Clause] | None:
        """The clauses of the open axes, reduced under the facts (as the forward answer
        reduces them); None if the facts refute one."""
        clauses = [c for axis in (*self.answered, *self.pending) for c in axis]
        return self.facts.reduce(clauses)

    def opened(self) -> bool:
        """Whether an axis keeps a condition."""
        return bool(self.answered or self.pending)
