"""Forward builds: a signature's relation run with the input types known, as
``make_node`` runs it (memoized), giving the output types *and* the conditions on the
input sizes they hold under (:class:`Build`). Nothing the relation cannot decide is
dropped: it is a condition of the build. Overloads whose conditions the sizes leave open
are a case split (:func:`_case_split`), never the first alternative.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any, NamedTuple

from kanren.constraints import ConstrainedState

from ..logic.forwardanswer import forward_answer
from ..logic.kept import folded
from ..logic.store import TypeStore, facts_of, fresh_state
from ..logic.terms import ASSUMED, FACTS, Symbol, isvar, walk
from ..syntax.alternative import Overloads
from ..syntax.errors import TypeInferenceError
from ..types.conditions import AnyOf, Clause, Condition, InputAxis, Source, is_choice
from ..types.dim import Dim, unknown
from ..types.facts import EMPTY, Facts
from ..types.numpyrules import rules_key
from ..types.type import TensorType
from .arity import check_arity
from .direct import direct_build
from .messages import failure_message, label
from .solve import failures, input_terms, solutions

__all__ = ["MAX_CASES", "Build", "build", "forward_types", "infer", "relational"]


class _Undetermined(Exception):
    """An output dtype the inputs do not fix."""


class Build(NamedTuple):
    """What a forward build gives: the output types, and the conditions on the input
    sizes they hold under (each a :class:`~kantensor.types.facts.Condition` or
    :class:`~kantensor.types.facts.AnyOf`, in the inputs' named sizes; an input's unknown
    size is the unknown of its :class:`~kantensor.types.facts.InputAxis`). Nothing the
    relation could not decide is dropped: it is a condition here."""

    types: tuple[TensorType, ...]
    conditions: tuple[Clause, ...] = ()


def forward_types(outs: list, S: ConstrainedState, in_terms: list
                  ) -> tuple[tuple[TensorType, ...], tuple[Clause, ...]] | None:
    """The output TensorTypes of a forward solution (sizes are ints, Dim expressions of
    the given types' Dims, or None: unknown) and the conditions they hold under; None
    if the facts refute a condition."""
    s = S.data
    pending = S.constraints[TypeStore].pending
    terms = [walk(o, s) for o in outs]
    shapes = [[walk(x, s) for x in walk(t.shape, s)] for t in terms]
    open_sizes = [x for shape in shapes for x in shape
                  if type(x) is not int and type(x) is not Symbol]
    inputs, met = _input_unknowns(in_terms, s)
    if not open_sizes and not pending and not met and ASSUMED not in s and FACTS not in s:
        values, clauses, facts = {}, [], None  # all known: nothing to solve, decide or keep
    else:
        answer = forward_answer(open_sizes, s, pending, inputs)
        if answer is None:
            return None
        values, clauses = answer
        clauses = [*met, *clauses]
        facts = facts_of(s).with_(*clauses) if clauses else facts_of(s)
    result = []
    for t, shape in zip(terms, shapes, strict=True):
        dtype = walk(t.dtype, s)
        if isvar(dtype):
            raise _Undetermined
        sizes = [x if type(x) is int else x.dim if type(x) is Symbol else values.get(x)
                 for x in shape]
        try:
            result.append(TensorType(dtype, sizes if facts is None else [
                facts.simplify(x) if isinstance(x, Dim) else x for x in sizes]))
        except ValueError as exc:  # a size past the limits (types.limits): no such type
            raise _OutOfRange(f"output {len(result)}: {exc}") from None
    return tuple(result), tuple(clauses)


def _input_unknowns(in_terms: list, s: dict) -> tuple[dict[Any, Dim], list[Condition]]:
    """The inputs' unknown sizes the solve left open, each named by the unknown of its
    first :class:`InputAxis`; and what the solve needed of the others, as conditions: an
    unknown size met by a dim is equal to what it met (an int, a named size, another
    input's unknown), which holds of the inputs only where that equality does
    (``(5, ?) @ (3, 4)`` needs ``input0.shape[1] == 3``), so it is kept, as broadcasting
    keeps its condition."""
    inputs: dict[Any, Dim] = {}
    met: list[Condition] = []
    for i, t in enumerate(in_terms):
        for axis, x in enumerate(t.shape):
            if type(x) is int or type(x) is Symbol:
                continue
            here = unknown(InputAxis(i, axis))
            w = walk(x, s)
            if type(w) is int or type(w) is Symbol:
                value = w if type(w) is int else w.dim
            elif not isvar(w):
                continue  # pragma: no cover - a size is an int, a named size or a variable
            elif w in inputs:
                value = inputs[w]  # two inputs' unknowns met
            else:
                inputs[w] = here
                continue
            met.append(Condition(here, "==", value, Source(
                detail=f"axis {axis} of input {i} is an unknown size the relation "
                       f"needs equal to {value}")))
    return inputs, met


class _OutOfRange(Exception):
    """An output size beyond what a type may state (2**63 - 1, or too many terms)."""


@lru_cache(maxsize=65536)
def _infer_cached(sig: Overloads, types: tuple, wrapped: tuple, default_dtype: str,
                  facts: Facts = EMPTY) -> Build | str | list:
    """Memoized on the default float dtype too: float(T) and wrapped floats use it.
    A failure is a message, or the failing alternatives with their reasons. What is
    decided without search is answered directly (:mod:`.direct`: the same answer,
    faster), the rest by the relation (:func:`relational`)."""
    found = direct_build(sig, types, wrapped, facts)
    found = Build(*found) if found is not None else relational(sig, types, wrapped, facts)
    if isinstance(found, Build) and found.conditions and \
            (kept := folded(found.conditions, facts)) is not found.conditions:
        return Build(found.types, kept)  # (kept divisors folded: as query folds them)
    return found


def relational(sig: Overloads, types: tuple, wrapped: tuple, facts: Facts = EMPTY
               ) -> Build | str | list:
    """The forward build by the relation's kanren solve (the reference :mod:`.direct`
    agrees with; not memoized). A failure is a message, or the failing alternatives
    with their reasons.

    Alternatives are tried in order. One that holds only under conditions the facts do
    not decide does not end the search: a later one applies where they fail, so the
    answer is a case split (:func:`_case_split`), never the first alternative; unless
    they include a builder's choice (:func:`~kantensor.types.conditions.is_choice`):
    the build takes it, choice marked (its sizes are not covered where it fails), and a
    later alternative (the other reading) applies only where the facts refute it."""
    S = fresh_state({FACTS: facts} if facts else {})
    try:
        in_terms = input_terms(S, types, wrapped)
    except TypeInferenceError as exc:
        return str(exc)
    cases: list[tuple[tuple[TensorType, ...], tuple[Clause, ...]]] = []
    for S1, outs in solutions(sig, S, in_terms, None, ordered=True, spend=True):
        try:
            found = forward_types(outs, S1, in_terms)
        except _Undetermined:
            return "the output dtype is not determined by the inputs"
        except _OutOfRange as exc:
            return str(exc)
        if found is None:
            continue
        cases.append(found)
        if not found[1] or any(map(is_choice, found[1])):
            break  # it holds unconditionally: no later alternative ever applies; or
            # under a builder's choice, taken: later alternatives apply where it fails
    if not cases:
        return failures(sig, types, wrapped)
    if len(cases) == 1:
        return Build(*cases[0])
    return _case_split(cases, facts)


#: The most cases a disjunction of an overload's conditions expands to.
MAX_CASES = 64


def _case_split(cases: list, facts: Facts) -> Build | str:
    """The answer of alternatives that each hold under their own conditions (the first
    where its own hold, the next where those fail and its own hold, ...): a size on
    which they agree stays, one they differ on is unknown; the condition is that one
    of them holds (none, if the last holds unconditionally)."""
    first = cases[0][0]
    if any(a.dtype != b.dtype or a.ndim != b.ndim
           for types, _ in cases[1:] for a, b in zip(first, types, strict=True)):
        # no one type says both: the types are the first case's, under its conditions,
        # each marked as the build's choice (``squeeze`` keeps an unknown axis under
        # ``!= 1``): where they fail a later case applies, with other types
        return Build(first, _chosen(cases[0][1], _later(cases[1:])))
    merged = tuple(TensorType(t.dtype, [_agreed([c[0][i].shape[k] for c in cases], cases,
                                                facts) for k in range(t.ndim)])
                   for i, t in enumerate(first))
    if not cases[-1][1]:
        return Build(merged, ())
    expanded: list[tuple[Condition, ...]] = []
    for _, clauses in cases:
        expanded.extend(_dnf(clauses))
        if len(expanded) > MAX_CASES:
            return "the alternatives' conditions are too many to state"
    kept = facts.reduce([AnyOf(tuple(expanded))])
    return Build(merged, tuple(kept or ()))


def _later(cases: list) -> str:
    """The types the later cases give (``float32[3]``; ``float32[3,?] or float32[3]``)."""
    shown = list(dict.fromkeys(", ".join(map(str, types)) for types, _ in cases))
    return " or ".join(shown) if len(shown) < 3 else \
        ", ".join(shown[:-1]) + " or " + shown[-1]


def _chosen(clauses: tuple[Clause, ...], otherwise: str) -> tuple[Clause, ...]:
    """``clauses``, each (and each condition of a disjunction) with a source saying
    that it is the build's choice of the first case, and what applies ``otherwise``."""
    def mark(source: Source | None) -> Source:
        return replace(source or Source(), otherwise=otherwise)

    return tuple(c.with_source(mark(c.source)) if isinstance(c, Condition) else AnyOf(
        tuple(tuple(x.with_source(mark(x.source)) for x in case) for case in c.cases),
        mark(c.source)) for c in clauses)


def _agreed(sizes: list, cases: list, facts: Facts) -> Any:
    """The size every alternative gives, each under its own conditions (``seq`` where one
    alternative says ``0`` under ``seq == 0``), or None (unknown) where they differ."""
    for x in dict.fromkeys(reversed(sizes)):  # the general case's size is tried first
        if x is not None and all(
                y is not None and (y == x or _equal(x, y, clauses, facts))
                for y, (_, clauses) in zip(sizes, cases, strict=True)):
            return x
    return None


def _equal(x: Any, y: Any, clauses: tuple[Clause, ...], facts: Facts) -> bool:
    """Whether ``x == y`` where ``clauses`` hold: by them alone first (what they imply
    holds under more facts; the prover, given every fact, may give up past its terms: a
    Gather's ``i == 0`` case after a fact over twenty ``min(300, u)``), then with the
    facts."""
    question = Condition(x, "==", y)
    return EMPTY.with_(*clauses).decide(question) is True or \
        facts.with_(*clauses).decide(question) is True


def _dnf(clauses: tuple[Clause, ...]) -> list[tuple[Condition, ...]]:
    """A conjunction of conditions and disjunctions as a disjunction of conjunctions."""
    out: list[tuple[Condition, ...]] = [()]
    for c in clauses:
        if isinstance(c, Condition):
            out = [case + (c,) for case in out]
        else:
            out = [case + alt for case in out for alt in c.cases][:MAX_CASES + 1]
    return out


def build(sig: Overloads, input_types: Sequence[TensorType],
          wrapped: Sequence[bool] | None = None, name: object = None,
          facts: Facts = EMPTY) -> Build:
    """Output types of ``sig`` applied to ``input_types`` and the conditions on their sizes
    they hold under (:class:`Build`); TypeInferenceError if none.

    ``wrapped`` flags the inputs that are wrapped Python numbers; ``facts`` is what is
    known of the inputs' named sizes. ``name`` (an Op, or its name) prefixes error
    messages; it is only formatted then."""
    types = tuple(input_types)
    for i, t in enumerate(types):
        if type(t) is not TensorType and not isinstance(t, TensorType):
            raise TypeError(f"input {i} must be a TensorType, got {t!r}")
    flags = (False,) * len(types) if wrapped is None else tuple([bool(w) for w in wrapped])
    if len(flags) != len(types):
        raise ValueError(f"{label(sig, name)}: wrapped has {len(flags)} entries for "
                         f"{len(types)} inputs")
    check_arity(lambda: label(sig, name), sig.arities, len(types), signature=sig)
    out = _infer_cached(sig, types, flags, rules_key(), facts)
    if isinstance(out, str):
        raise TypeInferenceError(f"{label(sig, name)}: {out}", signature=sig)
    if isinstance(out, list):
        raise TypeInferenceError(failure_message(sig, name, types, out, label(sig, name)),
                                 signature=sig)
    return out


def infer(sig: Overloads, input_types: Sequence[TensorType], wrapped: Sequence[bool] | None = None,
          name: object = None, facts: Facts = EMPTY) -> tuple[TensorType, ...]:
    """The output types of :func:`build` (its conditions are not asked for: the callers
    are the run-time checks, with every size known, and the one-off type questions)."""
    return build(sig, input_types, wrapped, name, facts).types
