"""Python branches on sizes during eval_shape: decided where what is known decides them,
split into cases otherwise, each case with its conditions (and NumPy's types at sizes
that satisfy them), refused cases kept with their error."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kantensor as kt
from kantensor.evalshape.branches import MAX_CASES, BranchError, Condition, branch_source


def trim(x):
    if x.shape[0] > 1:
        return x[1:]
    return x


def test_a_branch_on_a_size_splits_into_cases_that_numpy_agrees_with():
    result = kt.eval_shape(trim, "float32[L,D]")
    assert [str(c) for case in result.cases for c in case.conditions] == ["L > 1", "L <= 1"]
    assert str(result.type) == "float32[?,D]"  # the cases differ on axis 0
    for case in result.cases:
        (cond,) = case.conditions
        for L in range(5):  # wherever the condition holds, NumPy's shape is the case's
            if cond.holds({"L": L}):
                want = trim(np.zeros((L, 3), np.float32)).shape
                got = kt.types.symbols.substitute(case.type.shape[0], {"L": L})
                assert (got, 3) == (want[0], want[1])
    source = result.cases[0].conditions[0].source
    assert (source.op, source.code) == ("branch", "if x.shape[0] > 1:")
    line = trim.__code__.co_firstlineno + 1
    assert source.location.endswith(f"test_eval_shape_branches.py:{line}")
    assert "a Python branch on sizes" in result.why(0)
    assert "L > 1" in repr(result) and "L <= 1" in repr(result)
    assert "L &gt; 1" in result._repr_html_() and "cases of a Python branch" in \
        result._repr_html_()
    f = kt.function(list(result.cases[1].inputs), result.cases[1].outputs[0])
    assert f(np.zeros((1, 3), np.float32)).shape == (1, 3)


def test_what_is_known_decides_without_a_split():
    def f(x):
        n = x.shape[0]
        a = x if n >= 0 else None  # sizes are never negative
        b = a if n + 1 > n else None
        if n > 2:
            c = b[2:] if n > 1 else None  # n > 2 was taken: n > 1 holds
        else:
            c = b if n <= 2 else None
        return c

    result = kt.eval_shape(f, "float32[n]")
    assert [[str(c) for c in case.conditions] for case in result.cases] == [["n > 2"],
                                                                            ["n <= 2"]]


def test_equality_and_truth_of_sizes_split_too():
    def repeat(x, n_rep):
        if n_rep == 1:
            return x
        return np.repeat(x, n_rep, axis=0)

    result = kt.eval_shape(lambda x: repeat(x, x.shape[1]), "float32[n,k]")
    assert [str(case.conditions[0]) for case in result.cases] == ["k == 1", "k != 1"]
    assert [str(case.type) for case in result.cases] == ["float32[n,1]", "float32[k*n,k]"]

    def empty(x):
        return x.sum() if x.shape[0] else x[0]

    result = kt.eval_shape(empty, "float32[m]")
    assert [str(case.conditions[0]) for case in result.cases] == ["m != 0"]
    assert [str(case.type) for case in result.cases] == ["float32[]"]
    # the case m == 0 is built under its answer: x[0] of an empty x raises, as in NumPy
    # (it was typed float32[] assuming m >= 1, which the case refutes)
    (refused,) = result.refused
    assert [str(c) for c in refused.conditions] == ["m == 0"]
    assert "m >= 1" in str(refused.error)
    with pytest.raises(IndexError):
        empty(np.zeros(0))


def test_a_refused_case_is_what_the_program_assumes():
    def checked(x, w):
        if x.shape[1] != w.shape[0]:
            raise ValueError("sizes differ")
        return x @ w

    result = kt.eval_shape(checked, "float32[n,d]", "float32[k,m]")
    assert [str(c) for c in result.cases[0].conditions] == ["d == k"]
    (refusal,) = result.refused
    assert re.match(r"d != k: ValueError: eval_shape\(.*checked\) failed at .*, line \d+, "
                    r"in checked: raise ValueError", str(refusal))
    assert "sizes differ" in str(refusal.error)


def test_every_case_refused_raises_the_first_with_its_case():
    def bad(x):
        if x.shape[0] > 3:
            return x @ x
        return x @ x

    with pytest.raises(kt.TypeInferenceError,
                       match=r"in the case n > 3 \(branch at .*:\d+: if x\.shape"):
        kt.eval_shape(bad, "float32[n,4,5]")


def test_a_loop_over_a_symbolic_size_is_refused_clearly():
    def count(x):
        n = x.shape[0]
        while n > 0:
            n = n - 1
        return x

    with pytest.raises(BranchError, match="comparisons of symbolic sizes in one run"):
        kt.eval_shape(count, "float32[n]")

    def many(x):
        for k in range(8):
            if x.shape[0] == k:
                return x[:1]
        return x

    with pytest.raises(BranchError, match=f"more than {MAX_CASES} cases"):
        kt.eval_shape(lambda x, y: many(x)[:0] + many(y)[:0], "float32[n]", "float32[m]")


def test_conditions_hold_at_sizes():
    """A branch's condition is the core's Condition (one kind of condition), its source
    the user's line."""
    n = kt.Dim("n")
    cond = Condition(2 * n, ">", 5, branch_source(None))
    assert isinstance(cond, kt.Condition) and cond.source.op == "branch"
    assert cond.holds({"n": 3}) and not cond.holds({"n": 2})
    assert str(cond.negated()) == "2*n <= 5"
    with pytest.raises(ValueError, match="needs a value for n"):
        cond.holds({"m": 1})


def test_libraries_keep_their_comparisons():
    """kantensor's own code compares sizes structurally during a trace; a branch on a
    size in NumPy's code is not the user's branch."""
    result = kt.eval_shape(lambda x: np.concatenate([x, x]) + 0, "float32[n]")
    assert str(result.type) == "float32[2*n]" and not result.cases
    assert (kt.Dim("n") == 1) is False


def test_a_size_against_a_float_splits_as_against_the_int_that_says_the_same():
    def gate(x):
        return x[1:] if x.shape[0] > 2.5 else x

    result = kt.eval_shape(gate, "float32[N]")
    assert [str(c) for case in result.cases for c in case.conditions] == ["N > 2", "N <= 2"]
    for n in range(6):  # NumPy's shape where each case's condition holds
        (case,) = [c for c in result.cases if c.conditions[0].holds({"N": n})]
        want = gate(np.zeros(n, np.float32)).shape[0]
        assert kt.types.symbols.substitute(case.type.shape[0], {"N": n}) == want
    with pytest.raises(TypeError, match="not ordered"):
        _ = kt.Dim("N") > 2.5  # outside a trace nothing decides it


def test_a_size_parameter_is_built_under_the_given_facts_and_the_cases_answers():
    """``np.zeros(n - 2)`` needs ``n >= 2`` (NumPy refuses a negative dimension): given
    ``n <= 1`` the code fails at every size, and is refused naming both, as ``x[5]`` is;
    in a case ``n < 2`` of a branch the case is refused, as NumPy refuses every size of
    it. The size's input (made of nothing) did not carry those facts: the first was
    typed ``float64[n-2]`` assuming ``n >= 2``, the case kept with that type and an
    assumption its own answer refutes. Judged by NumPy at n = 0 .. 5."""
    with pytest.raises(kt.TypeInferenceError, match=r"(?s)no sizes meet all of\n  n <= 1 "
                       r"\(given\)\n  and n >= 2 \(zeros at .*\)\nso it failed at"):
        kt.eval_shape(lambda x: np.zeros(x.shape[0] - 2), "float32[n]", where="n <= 1")
    for n in range(2):
        with pytest.raises(ValueError, match="negative dimensions"):
            np.zeros(n - 2)

    def small(x):
        if x.shape[0] < 2:
            return np.zeros(x.shape[0] - 2)
        return np.ones((x.shape[0] - 2, 3))

    result = kt.eval_shape(small, "float32[n]")
    assert [[str(c) for c in case.conditions] for case in result.cases] == [["n >= 2"]]
    (refused,) = result.refused
    assert [str(c) for c in refused.conditions] == ["n < 2"]
    for n in range(6):
        try:
            want = small(np.zeros(n, np.float32)).shape
        except ValueError:
            assert not result.holds({"n": n}), n
            continue
        assert result.holds({"n": n}), n
        assert kt.types.symbols.substitute(result.type.shape[0], {"n": n}) == want[0]
