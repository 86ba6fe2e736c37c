"""Sizes and conditions judged case by case under disjunctions (kantensor.types.casewise)
and what eval_shape makes of them: a size is replaced only by one equal to it at every
assignment the conditions allow, an assumption is dropped only where the earlier ones
imply it, each judged by brute force over a grid of sizes (0 to 4) and by NumPy. The
number of examples is ``KANTENSOR_FACTS_EXAMPLES`` (150 by default)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
import sizing
from kantensor.types.casewise import implied, plainest_under
from kantensor.types.conditions import AnyOf, Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
B, T = Dim("B"), Dim("T")
GRID = [dict(zip("BT", v, strict=True)) for v in itertools.product(range(5), repeat=2)]


def _at(x, sizes):
    return x if isinstance(x, int) else substitute(x, sizes)


def _broadcast(a, b) -> AnyOf:
    """What broadcasting ``a`` against ``b`` needs."""
    return AnyOf(((Condition(a, "==", b),), (Condition(a, "==", 1),),
                  (Condition(b, "==", 1),)))


def _size(t):
    if isinstance(t, str | int):
        return {"B": B, "T": T}.get(t, t)
    op, a, b = t
    a, b = _size(a), _size(b)
    return {"+": lambda: a + b, "*": lambda: a * b, "min": lambda: dim_min(a, b),
            "max": lambda: dim_max(a, b)}[op]()


def _tree(depth: int = 3) -> st.SearchStrategy:
    leaf = st.sampled_from(["B", "T", 1, 0, 2])
    return st.recursive(leaf, lambda inner: st.tuples(
        st.sampled_from(["+", "*", "min", "max"]), inner, inner), max_leaves=2 ** depth)


_CLAUSES = st.sampled_from([
    _broadcast(B, T), _broadcast(B, T + 1), _broadcast(dim_max(B, T) * dim_min(1, B, T), T),
    AnyOf(((Condition(B, "==", 0),), (Condition(T, ">=", 2),))),
    Condition(B, "<=", T), Condition(T, ">=", 1)])


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(t=_tree(), clauses=st.lists(_CLAUSES, min_size=1, max_size=2))
def test_a_plainer_size_is_equal_wherever_the_conditions_hold(t, clauses) -> None:
    x = _size(t)
    y = plainest_under(x, clauses, EMPTY)
    for sizes in GRID:
        if all(c.holds(sizes) for c in clauses):
            assert _at(x, sizes) == _at(y, sizes), (x, y, sizes)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(clause=_CLAUSES, others=st.lists(_CLAUSES, min_size=1, max_size=2))
def test_an_implied_condition_holds_wherever_the_others_do(clause, others) -> None:
    if implied(clause, others, EMPTY):
        for sizes in GRID:
            if all(c.holds(sizes) for c in others):
                assert clause.holds(sizes), (clause, others, sizes)


def test_a_broadcast_makes_the_next_one_safe_and_its_size_plain() -> None:
    first = _broadcast(B, T)
    size = dim_max(T, dim_max(B, T) * dim_min(1, B, T)) * dim_min(1, B, T)
    assert plainest_under(size, [first], EMPTY) == dim_max(B, T) * dim_min(1, B, T)
    later = AnyOf(((Condition(B, ">=", 1), Condition(T, ">=", B)), (Condition(T, "==", 0),),
                   (Condition(T, "==", 1),)))
    assert implied(later, [first], EMPTY)
    assert not implied(first, [later], EMPTY)  # B = 2, T = 3 meets the later one only
    assert not implied(_broadcast(B, T + 1), [first], EMPTY)  # B = T = 2


def test_beyond_the_budget_nothing_is_claimed() -> None:
    sizes = [Dim(f"s{i}") for i in range(6)]
    many = [_broadcast(a, b) for a, b in itertools.pairwise(sizes)]
    x = dim_max(sizes[0], sizes[1]) * dim_min(1, sizes[0], sizes[1])
    assert plainest_under(x, many, EMPTY) is x
    assert not implied(many[0], many[1:], EMPTY)


def _standardise(x, y):
    return (x * y[:, None]).sum(-1) + y


def test_eval_shape_reports_one_assumption_and_a_plain_size() -> None:
    r = kt.eval_shape(_standardise, "float64[B,T]", "float64[T]")
    assert str(r.type) == "float64[max(B,T)*min(1,B,T)]"
    assert len(r.assumptions) == 1
    assert str(r.assumptions[0]) == "B == T or B == 1 or T == 1"
    for sizes in GRID:  # NumPy runs exactly where the assumption holds, at the size said
        x, y = np.ones((sizes["B"], sizes["T"])), np.ones(sizes["T"])
        try:
            got = _standardise(x, y).shape
        except ValueError:
            got = None
        assert (got is not None) == r.holds(sizes), sizes
        if got is not None:
            assert got == (_at(r.type.shape[0], sizes),), sizes
