"""The shortest form of a refused case's assumptions (``evalshape/shortest.py``) keeps
the contract's verdict, not only the truth, at every size: where the original
disjunction is *not covered* (a choice fails first in a conjunction), so is the
shortest form. Before, a conjunction left alone was split into atoms, and the contract
dropped the choice (``n - 2 >= 0``) that a need (``n > 5``) implies: False where NumPy
runs; and a conjunction the size facts decide false was dropped even where a choice
fails first in it. Hypothesis draws the disjunctions (plain conditions carry a branch's
Source, as in real runs), the contracts are built in ``result.contract``'s order."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor.evalshape.shortest import shortest
from kantensor.ops.contracts import contract_of
from kantensor.types.conditions import AnyOf, Condition, Source, has_choice

N, M = kt.Dim("n"), kt.Dim("m")
CHOICE = Source(op="loop", otherwise="more turns")
BRANCH = Source(op="branch", location="f.py:3")
X = kt.tensor("x", "float32", (N, M))
GRID = [{"n": n, "m": m} for n, m in itertools.product(range(41), (0, 1, 2, 7))]


@st.composite
def conditions(draw) -> Condition:
    a, b = draw(st.integers(-2, 2)), draw(st.integers(-1, 1))
    left = a * N + b * M + draw(st.integers(-20, 20))
    if draw(st.integers(0, 6)) == 0:
        left = N // 2 + draw(st.integers(-3, 3))
    op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
    source = CHOICE if draw(st.integers(0, 3)) == 0 else BRANCH
    return Condition(left, op, draw(st.integers(-3, 3)), source)


@st.composite
def refusals(draw) -> AnyOf:
    """A disjunction as ``result.merged`` makes one: any conjunctions, or a refusal's
    (the choices made before the raise, then one negated branch condition)."""
    cases = draw(st.lists(st.lists(conditions(), min_size=1, max_size=4), min_size=1,
                          max_size=5))
    if draw(st.booleans()):
        chosen = draw(st.lists(st.builds(
            lambda k: Condition(N + k, "<=", 0, CHOICE), st.integers(-20, 0)),
            min_size=1, max_size=2))
        cases = [[*chosen, case[-1]] for case in cases]
    return AnyOf(tuple(map(tuple, cases)))


def _verdicts(clauses: list) -> list[bool | None]:
    ordered = [c for c in clauses if has_choice(c)] + [c for c in clauses if not has_choice(c)]
    contract = contract_of(ordered, [X])
    return [contract.holds(s).value for s in GRID]


@settings(max_examples=400, deadline=None)
@given(refusals())
def test_the_shortest_form_keeps_the_contracts_verdict_at_every_size(original) -> None:
    simple = shortest(original)
    want, got = _verdicts([original]), _verdicts(simple)
    assert got == want, ([str(c) for c in simple], [
        (s, a, b) for s, a, b in zip(GRID, want, got, strict=True) if a != b][:3])


def test_a_conjunction_the_facts_decide_false_stays_where_a_choice_fails_first() -> None:
    """``n <= 19`` (a loop's limit) first: past it the sizes are not covered, though
    ``n//2 <= -2`` never holds."""
    original = AnyOf(((Condition(N - 19, "<=", 0, CHOICE), Condition(N // 2, "<=", -2, BRANCH)),))
    assert [c.value for c in map(contract_of(shortest(original), [X]).holds,
                                 ({"n": 20, "m": 0}, {"n": 3, "m": 0}))] == [None, False]


def _program(x):
    y = x[: x.shape[0] - 2]
    if y.shape[0] == x.shape[0] - 2 and x.shape[0] <= 5:
        raise ValueError("short")
    return y


def test_a_choice_beside_the_branch_that_implies_it_stays_not_covered() -> None:
    """``x[:n - 2]`` chose ``n - 2 >= 0`` (another length below); the program raises at
    ``2 <= n <= 5``. NumPy runs at n = 0 and 1 (``x[:-2]`` of a short array is empty):
    undecided there, never False; False where NumPy raises, True where it runs past 5."""
    result = kt.eval_shape(_program, "float32[n]")
    assert str(result.type) == "float32[n-2]"
    contract = result.contract
    for n in range(41):
        verdict = contract.holds(n=n)
        try:
            _program(np.zeros(n, np.float32))
        except ValueError as exc:
            assert "short" in str(exc)
            assert verdict.value is False, n
        else:
            assert verdict.value is (True if n >= 2 else None), (n, repr(verdict))
            if n >= 2:
                assert _program(np.zeros(n)).shape == (n - 2,)
