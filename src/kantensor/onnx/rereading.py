"""A model a node refuses under builders' choices, read again where the choices fail.

A Slice bound's sign is a choice (``-(D//3)`` read as counting from the end, where
``D >= 3``): the types after it are its reading's, the choice a condition of the model
(where it fails, those sizes are not covered), never a fact. A later node may fail at
every size on those types (``Gather`` at index ``-(D//3) - 1`` of an axis of
``min(D//3, N)``), which shows only that the model is invalid *where the choices hold*:
where one fails (``D < 3``: the bound is 0, the axis whole) onnxruntime may run it.

So a model refused while one to :data:`MAX_CHOICES` different choices ``c1 .. ck`` are
among its conditions is read again under other assignments of them: each reading
negates some of the choices (one at a time first), given as facts every node is built
under (the Slices take their other readings). What the refusal showed is a condition of
the model: ``not (c1 and ... and ck)`` (one choice: its negation, a fact too). A
negation the refusal does not imply (several choices: it shows only that not all of them
hold) is an *assumption* of the reading, a choice itself (where it fails, the sizes are
not covered, never invalid: another reading may type them). A refusal in a reading with
assumptions shows the model invalid where those assumptions and its choices hold. The
first reading that succeeds is the model's; where every reading is refused, so is the
model, with the first reading's error (the builders' own choices). An assumption of
that reading (``not c``) becomes a plain condition where the model read at every other
assignment with ``c`` holding is refused too (``c`` then holds nowhere the model is
valid). At most :data:`MAX_READINGS` readings in all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import combinations, product
from typing import Any, TypeVar

from ..syntax.errors import RenderingLimit, TypeInferenceError
from ..types.conditions import AnyOf, Clause, Condition, Source, has_choice, is_choice
from .contradiction import settled

__all__ = ["MAX_CHOICES", "MAX_READINGS", "other_readings", "read_refuting"]

#: The most different choices of a refused reading whose assignments are read again
MAX_CHOICES = 3

#: The most readings of a model, its first included (one per assignment of 3 choices)
MAX_READINGS = 8

#: What a reading's assumption says applies where it fails
ASSUMED = "another reading of the model (its builders' choices read again)"

R = TypeVar("R")


def other_readings(conditions: Sequence[Clause], given: tuple[Condition | AnyOf, ...]
                   ) -> list[tuple[Condition | AnyOf, ...]]:
    """The givens of the readings after one refused under ``given`` with
    ``conditions``: for each nonempty set of its choices (one at a time first), ``given``,
    the condition the refusal shows (its assumptions and its choices do not all hold),
    and those choices negated. None (an empty list) where its choices (beside ``given``'s
    assumptions) are none, more than :data:`MAX_CHOICES`, not plain conditions or over
    sizes other than the graph's named ones. Equal choices (two Slices by ``-(D//3)``)
    are one."""
    assumed = [c for c in given if is_choice(c)]
    chosen = list(dict.fromkeys(c for c in conditions if has_choice(c) and c not in given))
    if not chosen or len(chosen) > MAX_CHOICES or not all(
            isinstance(c, Condition) and all(type(s) is str for s in c.symbols())
            for c in chosen):
        return []
    refuted = [*assumed, *chosen]  # hold together at no sizes where the model is valid
    if len(refuted) == 1:  # its negation is a fact
        return [(*given, _plain(chosen[0].negated(), chosen))]
    shown = AnyOf(tuple((_plain(c.negated(), refuted),) for c in refuted),
                  _plain_source(chosen[0], refuted))
    return [(*given, shown, *(_assumed(c) for c in negated))
            for k in range(1, len(chosen) + 1) for negated in combinations(chosen, k)]


def _plain_source(choice: Condition, refuted: Sequence[Condition]) -> Source:
    """The source of what a refusal under ``refuted`` shows (``choice``'s, no choice)."""
    listed = " and ".join(map(str, refuted))
    return replace(choice.source or Source(), otherwise="", detail=(
        f"where {listed} holds (the build's choice), a later node fails at every size"
        if len(refuted) == 1 else f"where {listed} hold (the builds' choices), a later "
        "node fails at every size"))


def _plain(c: Condition, refuted: Sequence[Condition]) -> Condition:
    return c.with_source(_plain_source(refuted[-1], refuted))


def _assumed(choice: Condition) -> Condition:
    """``choice``'s negation as a reading's assumption: a choice itself."""
    return choice.negated().with_source(replace(choice.source or Source(), otherwise=ASSUMED))


def read_refuting(make: Callable[[tuple[Condition | AnyOf, ...]], Any],
                  run: Callable[[Any], R]) -> R:
    """``run(make(()))``: a reader made and read (refused where the facts of the whole
    graph refute a node's disjunction: :func:`.contradiction.settled`); where reading
    raises TypeInferenceError while the reader's conditions hold choices, new readers
    made with :func:`other_readings`' givens are read instead (breadth first), the first
    that succeeds the answer, up to :data:`MAX_READINGS` readings in all; where none
    does, the first reading's error is raised."""
    waiting: list[tuple[Condition | AnyOf, ...]] = [()]
    first: TypeInferenceError | None = None
    read = 0
    while waiting and read < MAX_READINGS:
        given = waiting.pop(0)
        reader = make(given)
        read += 1
        try:
            result = run(reader)
            settled(reader.conditions, reader.facts)  # (no subgraph's reader is made here)
        except TypeInferenceError as exc:
            first = first or exc
            waiting.extend(other_readings(reader.conditions, given))
            continue
        _confirm(make, run, reader, given, MAX_READINGS - read)
        return result
    assert first is not None
    raise first


def _confirm(make: Callable[[tuple[Condition | AnyOf, ...]], Any], run: Callable[[Any], Any],
             reader: Any, given: tuple[Condition | AnyOf, ...], left: int) -> None:
    """Where the reading ``reader`` (under ``given``) assumes a first refusal's choice
    ``c`` fails, read the model at each other assignment of that refusal's choices where
    ``c`` holds (at most ``left`` readings): where every one is refused (with no choice of
    its own), ``c`` holds nowhere the model is valid, and the assumption is a plain
    condition of the model (invalid, not uncovered, where it fails)."""
    shown = [c for c in given if type(c) is AnyOf]
    if len(shown) != 1:  # (none, or assumptions of readings within readings: kept)
        return
    choices = [case[0].negated() for case in shown[0].cases]  # the refusal's
    plain = tuple(c for c in given if type(c) is Condition and not is_choice(c))
    for a in [c for c in given if is_choice(c)]:
        held = a.negated()
        others = [c for c in choices if c != held]
        trials = [(*plain, _fact(held), *(_fact(c if keep else c.negated())
                                          for c, keep in zip(others, signs, strict=True)))
                  for signs in product((True, False), repeat=len(others)) if not all(signs)]
        if len(others) != len(choices) - 1 or len(trials) > left:
            return
        left -= len(trials)
        if all(_refused_alone(make, run, trial) for trial in trials):
            k = next(i for i, c in enumerate(reader.conditions) if c is a)
            reader.conditions[k] = _fact(a)


def _fact(c: Condition) -> Condition:
    """``c`` as a plain condition (no choice)."""
    return c.with_source(replace(c.source or Source(), otherwise=""))


def _refused_alone(make: Callable[[tuple[Condition | AnyOf, ...]], Any],
                   run: Callable[[Any], Any], given: tuple[Condition | AnyOf, ...]) -> bool:
    """Whether the model read under ``given`` (plain facts) is refused while no choice of
    a builder is among its conditions: invalid wherever ``given`` holds."""
    reader = make(given)
    try:
        run(reader)
        settled(reader.conditions, reader.facts)
    except RenderingLimit:
        return False  # (a limit of a builder's: no proof the model is invalid)
    except TypeInferenceError:
        return not any(has_choice(c) for c in reader.conditions)
    return False
