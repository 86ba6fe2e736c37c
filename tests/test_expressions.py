"""A direct build's dim expressions (kantensor.signature.expressions): compiled once per
node, they compute what the one evaluator computes (kantensor.syntax.ast.evaluate), the
same canonical size or the same error, checked on random expressions over ints and
named sizes; and their values are kept across builds by node and sizes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.signature import expressions as E
from kantensor.syntax import ast as A
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import DIM_CALLS

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
a, b = A.DimVar("a"), A.DimVar("b")


def _expr(depth: int = 4) -> st.SearchStrategy:
    leaf = st.one_of(st.just(a), st.just(b), st.integers(0, 5).map(A.FixedDim))
    if depth == 0:
        return leaf
    sub = _expr(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(["+", "-", "*", "//", "%"]), sub, sub).map(
            lambda t: A.BinOp(*t)),
        st.tuples(sub, st.integers(0, 2)).map(lambda t: A.BinOp("**", t[0], t[1])),
        st.tuples(st.sampled_from(["min", "max"]), st.lists(sub, min_size=1, max_size=3)
                  ).map(lambda t: A.Call(t[0], tuple(t[1]))),
    )


_SIZES = st.one_of(st.integers(0, 4), st.sampled_from([Dim("n"), Dim("n") + 1, Dim("m") // 2]))


def _outcome(run):
    try:
        return "value", run()
    except (ZeroDivisionError, ValueError, OverflowError) as exc:
        return "error", type(exc)


@settings(max_examples=N_EXAMPLES * 2, deadline=None)
@given(node=_expr(), x=_SIZES, y=_SIZES)
def test_compiled_expressions_compute_what_evaluate_does(node, x, y) -> None:
    sizes = {"a": x, "b": y}
    want = _outcome(lambda: A.evaluate(node, sizes.__getitem__, calls=DIM_CALLS))
    got = _outcome(lambda: E._compiled(node)(sizes))
    assert got == want, (str(node), sizes)
    if want[0] == "value" and isinstance(want[1], Dim):
        assert got[1]._terms == want[1]._terms  # the same canonical terms


def test_sums_of_multiples_are_one_linear_form() -> None:
    """A template's ``(a2+2-((w2-1)*1+1))//1+1`` is ``a2 - w2 + 2`` floored by 1, plus 1:
    one linear form (a floor by 1 is its argument), so a 3x3 window padded by 1 gives
    its input's size itself, no new size made."""
    node = (A.DimVar("a2") + 2 - ((A.DimVar("w2") - 1) * 1 + 1)) // 1 + 1
    h = Dim("h")
    size = h // 4 - 2
    assert E._compiled(node)({"a2": size, "w2": 3}) is size
    assert E._compiled(node)({"a2": size, "w2": 1}) == h // 4
    assert E._compiled(A.DimVar("a2") // 1)({"a2": size}) is size
    assert E._compile(A.FixedDim(3) * 2 - 1, 0) == 5
    with pytest.raises(ZeroDivisionError):  # raised where it is evaluated, not compiled
        E._compile(A.BinOp("//", 3, 0), 0)({})


def test_an_expression_s_value_is_kept_across_builds_by_its_sizes() -> None:
    node = (a + 1 - 3) // 2 + 1
    h = Dim("h")
    first = E.evaluated(node, {"a": (h + 3) // 4 - 2}, {})
    assert first == (h + 3) // 8 - 1
    assert E.evaluated(node, {"a": (h + 3) // 4 - 2}, {}) is first  # kept
    assert E.evaluated(node, {"a": 7}, {}) == 3
