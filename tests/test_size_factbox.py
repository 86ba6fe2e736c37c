"""The box a Facts keeps and narrows as it grows (kantensor.types.factbox): where it
answers a question, the answer is the prover's (kantensor.types.prove.proves on the
facts made whole, sorted and boxed again), and it is sound by brute force over a grid of
sizes; Facts.decide answers as it did without it, whatever order the facts came in."""

from __future__ import annotations

from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types import factbox
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.prove import proves

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
h, w = Dim("h"), Dim("w")
GRID = range(0, 24)


def _window(x, k: int, s: int, p: int, ceil: bool):
    """The output size of a window of ``k`` by stride ``s`` over ``x`` padded by ``p``."""
    return (x + 2 * p - k + (s - 1 if ceil else 0)) // s + 1


def _rising(x, depth: int = 3) -> st.SearchStrategy:
    """Sizes of ``x`` as a stack of windows makes them (rising in it)."""
    if depth == 0:
        return st.just(x)
    sub = _rising(x, depth - 1)
    return st.one_of(sub, st.tuples(sub, st.integers(1, 4), st.integers(1, 3),
                                    st.integers(0, 2), st.booleans()
                                    ).map(lambda t: _window(*t)))


def _size() -> st.SearchStrategy:
    """A rising size of ``h`` or ``w``, sometimes their sum, or a size of another kind
    (a min, a difference of the two: facts the box does not take)."""
    one = st.one_of(_rising(h), _rising(w))
    return st.one_of(
        one, one,
        st.tuples(_rising(h, 2), _rising(w, 2)).map(lambda t: t[0] + t[1]),
        st.tuples(_rising(h, 1), _rising(w, 1)).map(lambda t: dim_min(t[0], t[1])),
        st.tuples(_rising(h, 1), _rising(w, 1)).map(lambda t: t[0] - t[1]),
        st.tuples(_rising(h, 1), st.integers(0, 3)).map(lambda t: dim_max(t[0], t[1])),
    )


def _condition() -> st.SearchStrategy:
    return st.tuples(_size(), st.sampled_from([">=", ">", ">=", "==", "<="]),
                     st.integers(-1, 6)).map(lambda t: Condition(*t))


def _holds(c: Condition, sizes: dict) -> bool:
    try:
        return c.holds(sizes)
    except ZeroDivisionError:
        return False


def _sound(atoms, goal: tuple) -> bool:
    """Whether ``goal`` holds at every point of the grid where every atom holds."""
    condition = Condition(*goal)
    for a in GRID:
        for b in GRID:
            sizes = {"h": a, "w": b}
            if all(_holds(c, sizes) for c in atoms) and not _holds(condition, sizes):
                return False
    return True


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(_condition(), min_size=1, max_size=5),
       asked=st.lists(st.tuples(st.integers(0, 5), _rising(h, 3), st.integers(-1, 3),
                                st.sampled_from([">=", ">"])), max_size=4),
       whole=st.booleans())
def test_the_kept_box_answers_as_the_prover_and_soundly(facts, asked, whole) -> None:
    """Facts grown one condition at a time (from EMPTY, or from a first set made whole),
    with questions asked between: each answer of the kept box is the prover's on the
    same facts, and where it proves a goal the goal holds on the grid."""
    store = Facts(facts[:1]) if whole else EMPTY.with_(facts[0])
    states = [store]
    for c in facts[1:]:
        store = store.with_(c)
        states.append(store)
    for at, size, k, op in asked:
        store = states[min(at, len(states) - 1)]
        goal = (size - k, op, 0)
        if store._box is None:
            store._box = factbox.made(c.triple() for c in store.atoms)
        store._box, found = factbox.proven(store._box, goal)
        _, cornered = factbox.proven(store._box, goal, rising=True)  # (size - k rises)
        assert cornered is found, (store, goal)
        if found is None:
            continue
        assert found is proves(Facts(store.atoms).triples, goal), (store, goal)
        if found:
            assert _sound(store.atoms, goal), (store, goal)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(_condition(), min_size=1, max_size=5),
       goals=st.lists(st.tuples(st.one_of(_rising(h, 3), _rising(w, 3)), st.integers(-1, 4),
                                st.sampled_from([">=", ">"])), min_size=1, max_size=4))
def test_decide_answers_as_without_the_kept_box(facts, goals) -> None:
    """Facts.decide of a grown Facts (its box kept) against a Facts of the same atoms
    made whole with the box path off (the prover asked on the sorted triples)."""
    store = EMPTY
    for c in facts:
        store = store.with_(c)
        for size, k, op in goals:
            with_box = store.decide((size - k, op, 0))
            with mock.patch.object(factbox, "proven", lambda state, goal, *_: (state, None)):
                plain = Facts(store.atoms).decide((size - k, op, 0))
            assert with_box is plain, (store, size - k, op)


def test_a_stack_of_ceil_mode_pools_is_answered_from_its_kept_box() -> None:
    """SqueezeNet's questions: each pool's window fits given the pools before it (open),
    the first given the last (implied); the later sets' boxes are their parents'
    narrowed, not made again."""
    x, store = h, EMPTY
    store.decide((x - 1, ">=", 0))  # (makes EMPTY's state: every set grown keeps one)
    for _ in range(7):
        x = _window(x, 3, 2, 0, True)
        assert store.decide(Condition(x, ">=", 1)) in (None, True)
        store = store.with_(Condition(x, ">=", 1))
        assert isinstance(store._box, factbox.Pending | tuple)
    first = _window(h, 3, 2, 0, True)
    assert store.decide(Condition(first, ">=", 1)) is True
    assert store.decide(Condition(_window(x, 3, 2, 0, True), ">=", 1)) is None
    with mock.patch.object(factbox, "proven", lambda state, goal, *_: (state, None)):
        assert Facts(store.atoms).decide(Condition(first, ">=", 1)) is True
