"""Min/max atoms ordered by the box of the facts over one symbol (kantensor.types.boxorder)
and questions proven over that box beside facts over two sizes (kantensor.types.prove):
checked by brute force over every pair of sizes of a range where the facts hold, and on
the truncated length chain an exporter's ``Div(size - k, s)`` folds to."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types import monotone
from kantensor.types.boxorder import ordered
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import Facts
from kantensor.types.prove import proves
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
h, w = Dim("h"), Dim("w")
POINTS = [(a, b) for a in range(0, 90) for b in range(0, 5)]


def _truncated(a, s: int):
    """``a / s`` truncated toward zero, as onnx/math/elementwise.py folds it."""
    return dim_max(a, 0) // s - dim_max(-a, 0) // s


def _size(depth: int = 3) -> st.SearchStrategy:
    """Sizes over ``h`` and ``w`` with floors, truncated quotients, min and max."""
    if depth == 0:
        return st.one_of(st.just(h), st.just(w), st.integers(0, 6))
    sub = _size(depth - 1)
    return st.one_of(
        sub,
        st.tuples(sub, st.integers(-4, 4)).map(lambda t: t[0] + t[1]),
        st.tuples(sub, st.integers(1, 3)).map(lambda t: t[0] // t[1]),
        st.tuples(sub, st.integers(0, 4), st.integers(1, 3)).map(
            lambda t: _truncated(t[0] - t[1], t[2])),
        st.tuples(sub, sub).map(lambda t: t[0] - t[1]),
        st.tuples(sub, sub).map(lambda t: dim_min(t[0], t[1])),
        st.tuples(sub, sub).map(lambda t: dim_max(t[0], t[1])),
    )


def _fact() -> st.SearchStrategy:
    """A fact over ``h`` alone (a window's ``out >= k``) or over both sizes."""
    window = st.tuples(st.integers(1, 8), st.integers(0, 12)).map(
        lambda t: Condition(h // t[0], ">=", t[1]))
    both = st.tuples(_size(1), st.sampled_from([">=", "<=", "=="]), _size(1)).map(
        lambda t: Condition(*t))
    return st.one_of(window, both)


def _at(x, a: int, b: int) -> int | None:
    try:
        return substitute(x, {"h": a, "w": b})
    except ZeroDivisionError:
        return None


def _allowed(facts) -> list[tuple[int, int]]:
    out = []
    for a, b in POINTS:
        try:
            if all(f.holds({"h": a, "w": b}) for f in facts):
                out.append((a, b))
        except ZeroDivisionError:
            continue
    return out


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(_fact(), max_size=3), x=_size())
def test_an_ordered_size_is_the_size_wherever_the_facts_hold(facts, x) -> None:
    """``ordered`` changes a size only where the facts over one symbol show which
    argument wins: at every pair of sizes the facts allow, both take one value."""
    store = Facts(facts)
    y = ordered(store.triples, x)
    for a, b in _allowed(facts):
        assert _at(y, a, b) == _at(x, a, b), (facts, x, y, a, b)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(_fact(), max_size=3), goal=_size(2),
       op=st.sampled_from([">=", ">", "<=", "<", "=="]), k=st.integers(-2, 6))
def test_what_the_partial_box_proves_holds_wherever_the_facts_do(facts, goal, op, k) -> None:
    store = Facts(facts)
    if not monotone.proves(store.triples, (goal, op, k), partial=True):
        return
    condition = Condition(goal, op, k)
    for a, b in _allowed(facts):
        try:
            assert condition.holds({"h": a, "w": b}), (facts, goal, op, k, a, b)
        except ZeroDivisionError:
            continue


def test_the_truncated_length_chain_is_its_floor_chain_past_the_windows() -> None:
    """wav2vec2's feature-extractor length, ``Div(size - k, s)`` nested and folded
    truncated toward zero, beside a window's fact over ``h`` and a reshape's over both
    sizes: the box of the first orders every max, and the chain is the floor chain."""
    n = h // 80
    chain = _truncated(_truncated(n - 3, 2) - 1, 2)
    facts = Facts([Condition((h + 240) // 320 - 1, ">=", 1),
                   Condition(w * ((h + 240) // 320), ">=", w)])
    assert monotone.proves(facts.triples, (chain, ">=", 0)) is None  # no whole box
    assert proves(facts.triples, (chain, ">=", 0))
    assert ordered(facts.triples, chain) == ((n - 3) // 2 - 1) // 2
    assert "max" in str(chain) and facts.decide(Condition(chain + 1, "==", 0)) is False
    assert ordered(Facts([Condition(w, ">=", 1)]).triples, chain) == chain
