"""The dtypes an answer leaves open, and what the relation lets each be.

Labeling enumerates every dtype a constraint can enumerate (a where-clause's category or
set, a promotion, an overload's choice); a dtype that only the default range holds stays
a logic variable: an input's dtype where its annotation names no category is any dtype
but string (:class:`~kantensor.logic.dtypes.InDefaultRange`). An answer names such a
dtype (the user's name for it, else ``T``, ``T1``, ...) wherever it appears, so two
places of one dtype are seen to be one (``X = T[], Y = T[2*n,3]``), and states the set
it ranges over as the constraint's own ``members`` gives it (``T != string``), never
assumed. A dtype that another constraint still waits on
(a wrapped Python int's fit, which adds size conditions per dtype) is not left open: its
state is split into one per dtype (:func:`settled_states`), so each answer's conditions
are its own.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kanren.constraints import ConstrainedState

from ..logic.dtypes import InDefaultRange
from ..logic.store import TypeStore, copy_state, labelo, propagate, unify_oc
from ..logic.terms import TensorTerm, isvar, term_vars, walk
from ..types.dtypes import DTYPES

__all__ = ["OpenDType", "dtype_vars", "settled_states"]

#: The constraints that say of one dtype only whether it is in a set and that labeling
#: does not enumerate: an open dtype that only these hold ranges over the dtypes their
#: ``members`` accept, whatever else the state holds. (A where-clause's
#: :class:`~kantensor.logic.dtypes.InCategory` is a membership too, but labeling
#: enumerates its dtypes: no dtype it holds is left open.)
_MEMBERSHIP = (InDefaultRange,)
_EVERY = frozenset(DTYPES)
_TABLE_ORDER = {d: i for i, d in enumerate(DTYPES)}


@dataclass(frozen=True)
class OpenDType:
    """A dtype an answer leaves open: its name in the answer and the dtypes it ranges
    over (what the relation's constraints accept). ``str`` is its name."""

    name: str
    dtypes: frozenset[str]

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"OpenDType({self.name!r}, {ordered(self.dtypes)!r})"

    def clause(self) -> str | None:
        """The set as a clause of the answer's ``where`` (None where it is every dtype):
        the dtypes it leaves out, ``T != string`` (the default range, the one set a
        query leaves open), or ``T not in (a, b, ...)``."""
        left = _EVERY - self.dtypes
        if not left:
            return None
        if len(left) == 1:
            return f"{self.name} != {next(iter(left))}"
        return f"{self.name} not in ({', '.join(ordered(left))})"


def ordered(dtypes: frozenset[str]) -> tuple[str, ...]:
    """``dtypes`` in the table's order (bool, the ints by width, ...)."""
    return tuple(sorted(dtypes, key=lambda d: (_TABLE_ORDER.get(d, len(DTYPES)), d)))


def dtype_vars(terms: Sequence[Any], s: dict) -> list[Any]:
    """The unbound dtype variables of ``terms`` under ``s``: the dtype of every tensor
    term they are or hold in a list (walked; a shape holds sizes, no dtype), each once,
    in order of appearance."""
    out: list[Any] = []
    stack = list(reversed(terms))
    while stack:
        t = walk(stack.pop(), s)
        if isinstance(t, TensorTerm):
            d = walk(t.dtype, s)
            if isvar(d) and not any(d is v for v in out):
                out.append(d)
        elif isinstance(t, list):
            stack.extend(reversed(t))
    return out


def _holding(v: Any, S: ConstrainedState) -> list:
    """The pending constraints that mention the variable ``v``."""
    s = S.data
    return [c for c in S.constraints[TypeStore].pending
            if any(w is v for w in term_vars(c.terms(), s))]


def _meet(held: list) -> frozenset[str]:
    """The dtypes membership constraints ``held`` all accept: the meet of their
    ``members`` (every dtype where none holds the dtype)."""
    found = _EVERY
    for c in held:
        found = found & c.members
    return found


def settled_states(S: ConstrainedState, terms: Sequence[Any]
                   ) -> Iterator[tuple[ConstrainedState, dict[Any, frozenset[str]]]]:
    """``S`` and its open dtypes of ``terms`` (:func:`dtype_vars`), each with the dtypes
    it ranges over, if each is held by membership constraints only and accepts some
    dtype; else, for the first open dtype another constraint holds, the states of each
    dtype it can be (bound, propagated, labeled, and settled in turn); nothing where an
    open dtype accepts none (no instance of the answer exists)."""
    ranges = {}
    for v in dtype_vars(terms, S.data):
        held = _holding(v, S)
        if all(isinstance(c, _MEMBERSHIP) for c in held):
            ranges[v] = _meet(held)
            continue
        for d in DTYPES:
            new = copy_state(S)
            bound = unify_oc(v, d, new.data)
            if bound is False:
                continue
            new.data = bound
            if propagate(new, changed=True):
                for T in labelo()(new):
                    yield from settled_states(T, terms)
        return
    if all(ranges.values()):
        yield S, ranges
