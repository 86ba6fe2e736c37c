"""A model a node refuses under a builder's choice, read again where the choice fails.

A Slice bound's sign is a choice (``-(D//3)`` read as counting from the end, where
``D >= 3``): the types after it are its reading's, the choice a condition of the model
(where it fails, those sizes are not covered), never a fact. A later node may fail at
every size on those types (``Gather`` at index ``-(D//3) - 1`` of an axis of
``min(D//3, N)``), which shows only that the model is invalid *where the choice holds*:
where it fails (``D < 3``: the bound is 0, the axis whole) onnxruntime runs it. So a
model refused while exactly one choice is among its conditions is read again with that
choice's negation given: a fact every node is built under (the Slice takes its other
reading) and a condition of the model (where the choice holds, it is invalid). A
refusal in that reading is the model's (it fails either way).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from ..syntax.errors import TypeInferenceError
from ..types.conditions import Clause, Condition, Source, has_choice
from .contradiction import settled

__all__ = ["MAX_REREADS", "other_reading", "read_refuting"]

#: The most readings of a model after its first (one choice negated per reading)
MAX_REREADS = 3

R = TypeVar("R")


def other_reading(conditions: Sequence[Clause]) -> Condition | None:
    """The negation of the one builder's choice among ``conditions`` (a plain condition:
    where the choice holds the model was refused), or None where there is none, several
    (their negations are a disjunction, which no fact states; equal ones are one), or
    one over sizes other than the graph's named ones."""
    chosen = list(dict.fromkeys(c for c in conditions if has_choice(c)))  # one choice
    # made by two nodes (two Slices by ``-(D//3)``) is one: equal conditions say the same
    if len(chosen) != 1 or not isinstance(chosen[0], Condition) or \
            not all(type(s) is str for s in chosen[0].symbols()):
        return None
    choice = chosen[0]
    source = choice.source or Source()
    return choice.negated().with_source(replace(
        source, otherwise="", detail=f"where {choice} holds (the build's choice), a later "
                                     "node fails at every size"))


def read_refuting(make: Callable[[tuple[Condition, ...]], Any],
                  run: Callable[[Any], R]) -> R:
    """``run(make(()))``: a reader made and read (refused where the facts of the whole
    graph refute a node's disjunction: :func:`.contradiction.settled`); where reading
    raises TypeInferenceError
    while the reader's conditions hold exactly one choice, a new reader made with its
    negation given (:func:`other_reading`) is read instead, up to :data:`MAX_REREADS`
    times."""
    given: tuple[Condition, ...] = ()
    while True:
        reader = make(given)
        try:
            result = run(reader)
            settled(reader.conditions, reader.facts)  # (no subgraph's reader is made here)
            return result
        except TypeInferenceError:
            negated = other_reading(reader.conditions) if len(given) < MAX_REREADS \
                else None
            if negated is None:
                raise
            given = (*given, negated)
