"""The assumptions of a program's refused cases, printed as their shortest equivalent
(``evalshape/shortest.py``). Before, a loop over ``range(n)`` printed ``(n <= 16 and n <=
0) or (n <= 16 and n <= 1) or ... or (n <= 16 and n <= 16)``, one disjunct per turn;
now ``n <= 16``. Sound: the simplified clauses and the original disjunction agree at
every size in 0..40 (hypothesis draws the disjunctions; and at the refusals of real
programs), and a choice stays a choice (the sizes past it are not covered)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor.evalshape.loops import MAX_TURNS
from kantensor.evalshape.shortest import shortest
from kantensor.types.conditions import AnyOf, Condition, Source, is_choice, negate

N, M = kt.Dim("n"), kt.Dim("m")
CHOICE = Source(op="loop", otherwise="more turns")
GRID = [{"n": n, "m": m} for n, m in itertools.product(range(41), (0, 1, 2, 7))]


@st.composite
def conditions(draw) -> Condition:
    a, b = draw(st.integers(-2, 2)), draw(st.integers(-1, 1))
    left = a * N + b * M + draw(st.integers(-20, 20))
    op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
    source = CHOICE if draw(st.integers(0, 4)) == 0 else None
    return Condition(left, op, draw(st.integers(-3, 3)), source)


def _agree(original: AnyOf, simple: list) -> None:
    for sizes in GRID:
        want = original.holds(sizes)
        got = all(c.holds(sizes) for c in simple)
        assert got == want, (sizes, str(original), [str(c) for c in simple])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(conditions(), min_size=1, max_size=5), min_size=1, max_size=6))
def test_the_shortest_form_agrees_with_the_disjunction_at_every_size(cases) -> None:
    original = AnyOf(tuple(map(tuple, cases)))
    simple = shortest(original)
    _agree(original, simple)
    assert sum(sum(map(len, c.cases)) if isinstance(c, AnyOf) else 1 for c in simple) <= \
        sum(map(len, original.cases))


def test_a_loops_refused_turns_read_as_one_bound() -> None:
    """The turns past the limit: ``n <= 16``, a choice (not covered past it), and ``n >
    0`` where ``np.stack`` of no rows raises; both true where NumPy runs."""
    result = kt.eval_shape(lambda x: np.stack([x[k] for k in range(x.shape[0])]),
                           "float32[n,3]")
    assert [str(c) for c in result.assumptions] == [f"n <= {MAX_TURNS}", "n > 0"]
    assert is_choice(result.assumptions[0])
    for refusal in result.refused:
        original = AnyOf(tuple((*refusal.chosen, c.negated()) for c in refusal.conditions)) \
            if refusal.chosen else negate(refusal.conditions)
        _agree(original, shortest(original))
    for n in range(MAX_TURNS + 3):
        try:
            np.stack([r for r in np.ones((n, 3), np.float32)])
        except ValueError:
            assert not result.holds({"n": n})
        else:
            assert result.holds({"n": n}) == (n <= MAX_TURNS)


def test_the_printed_result_has_no_disjunct_per_turn() -> None:
    def f(x, w):
        acc = x[:, :0]
        for j in range(w.shape[1]):
            acc = np.concatenate([acc, x[:, j:j + 1]], axis=1)
        return acc

    result = kt.eval_shape(f, "float32[a,b]", "float32[3,c]")
    text = repr(result).split(" cases:")[0]
    assert " or " not in text, text
    assert f"c <= {MAX_TURNS}" in text
