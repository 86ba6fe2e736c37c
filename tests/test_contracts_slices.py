"""Indices and slice bounds that are sizes (``x[:len(x) - 1]``, ``x[len(x) - 2]``) in
NumPy code run on symbols, judged by NumPy at every size from 0 to 6.

A slice bound's sign is the build's choice (a bound ``>= 0`` counts from the start):
where it fails NumPy counts it from the end and the slice has another length (at
``len(x) == 0``, ``x[:len(x) - 1]`` is empty, not of length -1), so the contract calls
those sizes *not covered* (``holds`` undecided), never invalid. An index of either sign
drops its axis alike, so its contract is exact: valid where NumPy's index is in bounds.
"""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

CASES = {
    "x[:len(x) - 1]": lambda x: x[:len(x) - 1],
    "x[:len(x) - 3]": lambda x: x[:len(x) - 3],
    "x[len(x) - 2:]": lambda x: x[len(x) - 2:],
    "x[1:len(x) - 1]": lambda x: x[1:len(x) - 1],
    "x[len(x) - 1]": lambda x: x[len(x) - 1],
    "x[len(x) - 3]": lambda x: x[len(x) - 3],
    "x[: x.shape[0] - 2] + 1": lambda x: x[: x.shape[0] - 2] + 1,
}


def _numpy(f, c: int):
    try:
        return np.shape(f(np.zeros(c, np.float32)))
    except IndexError:
        return None


@pytest.mark.parametrize("case", CASES)
def test_a_size_as_an_index_or_bound_is_judged_as_numpy_runs_it(case):
    f = CASES[case]
    result = kt.eval_shape(f, "float32[C]")
    contract = result.contract
    shape = result.type.shape
    seen = set()
    for c in range(7):
        verdict = contract.holds(C=c).value
        got = _numpy(f, c)
        seen.add(verdict)
        if verdict is True:  # valid: NumPy runs and gives the type's shape
            assert got == tuple(substitute(d, {"C": c}) for d in shape), (case, c, got)
        elif verdict is False:  # invalid: NumPy refuses
            assert got is None, (case, c, got)
        # not covered (None): no claim (NumPy counts the bound from the other end)
    assert True in seen


def test_a_slice_to_one_short_of_the_end_is_not_covered_at_zero_only():
    contract = kt.eval_shape(CASES["x[:len(x) - 1]"], "float32[C]").contract
    verdict = contract.holds(C=0)
    assert not verdict.decided and "counts from the other end" in str(verdict)
    assert all(contract.holds(C=c) for c in range(1, 5))
    assert not contract.exact and "C == 0  (not covered)" in str(contract)


def test_an_index_counted_from_either_end_is_exact():
    contract = kt.eval_shape(CASES["x[len(x) - 3]"], "float32[C]").contract
    assert contract.exact and contract.dsl() == "where C >= 2"


def test_the_graph_api_agrees():
    (c,) = kt.dims("C")
    x = kt.tensor("x", "float32", (c,))
    y = x[:c - 1]
    assert y.type == kt.TensorType("float32", (c - 1,))
    assert kt.contract(y).holds(C=0).value is None
    assert kt.contract(x[c - 1]).holds(C=0).value is False
