"""Contracts of random small ONNX graphs around an If, a Loop or a Scan
(tests/onnx_control_flow.py), judged by onnxruntime at random points of sizes 0..7 (0
and 1 among them), each run at every value of the data inputs: an If's condition both
ways, trip counts and early exits 0 to 3.

``KANTENSOR_CONTROL_FLOW_GRAPHS`` sets the number of graphs (quick 20, long 600;
``python tests/onnx_control_flow.py 600`` prints the counts). The seeds below are the
graphs it found wrong, each now judged right (docs/contracts.rst).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import kantensor.onnx as ko
import sizing
from differential import count
from onnx_control_flow import judge, random_model

GRAPHS = sizing.size("CONTROL_FLOW_GRAPHS", 20, 600)
SEED = int(os.environ.get("KANTENSOR_CONTROL_FLOW_SEED", "0"))


def _judged(seed: int) -> Counter:
    counts: Counter = Counter()
    assert judge(random_model(seed), 10, seed, counts) == []
    count("random control flow: onnxruntime runs judged", counts["runs"])
    return counts


@pytest.mark.parametrize("seed", [149, 166, 216])
def test_a_branch_that_fails_by_a_value_fails_only_where_it_is_taken(seed):
    """An If on data one of whose branches reads a value no node takes (a ConstantOfShape
    of ``[-a, -1]``, a Split of ``-1`` rows): the model was refused (the branch's
    ParamError raised), though onnxruntime runs it where the other branch is taken. As a
    branch whose relations hold at no size, it fails where it is taken (``If_then ==
    1``, or 0): undecided where the other branch holds, False where it fails too."""
    contract = ko.contract(random_model(seed))
    assert "_branch fails at every size" in str(contract)
    counts = _judged(seed)
    assert counts["undecided"] >= 1


@pytest.mark.parametrize("seed", [228, 269, 274])
def test_a_loop_whose_body_fails_everywhere_runs_where_it_runs_no_iteration(seed):
    """A Loop whose body fails at every iteration (a Split of ``-2`` rows, a TopK of
    ``-1``: a value; a SpaceToDepth of an odd axis under a data condition and no trip
    count): the model was refused, though onnxruntime runs it where the loop runs no
    iteration (``M == 0``, the condition false). Its body fails where it runs: the
    Loop needs its count 0."""
    contract = ko.contract(random_model(seed))
    assert any(str(a.clause).endswith("_iters == 0") for a in contract.atoms)
    _judged(seed)


def test_a_dead_branchs_pool_padded_past_its_kernel_is_refused_at_load():
    """A MaxPool with pads ``[1, 0]`` and kernel 1 in the branch an If on a constant
    never takes: onnxruntime makes its kernel when it loads the model, and refuses it
    ("Pad should be smaller than kernel") whichever branch runs. The contract said
    every size valid; it is empty, as a main graph's pool so padded is refused."""
    contract = ko.contract(random_model(75))
    assert contract.empty and "MaxPool13 in If17" in str(contract)
    assert _judged(75)["invalid"] >= 5


def test_a_choice_is_no_fact_and_a_need_apart_from_it_decides():
    """A Loop whose scan output's shape its body does not declare is typed under the
    choice ``iters >= 1``; its body (``Range(i, i, i)``, a step 0 at ``i == 0``) needs
    ``iters == 0``. The choice was made a fact for the nodes after it, so the two
    contradicted and the model was refused (a ZeroDivisionError before that, typing the
    scan output at ``i == 0``); now undecided where the data decide, and False where a
    Squeeze no choice reaches fails (``a != 1``), as onnxruntime refuses it there."""
    contract = ko.contract(random_model(483))
    assert str(contract.holds(a=2, c=3)) == "False: a == 1 fails at a=2, c=3 (Squeeze18)"
    assert contract.holds(a=1, c=3).value is None
    _judged(483)


@settings(max_examples=GRAPHS, deadline=None, database=None, derandomize=True)
@given(st.integers(SEED, SEED + 10**6))
@example(SEED)
def test_random_control_flow(seed):
    """Every disagreement of a random graph's contract or typed shapes with onnxruntime
    (tests/onnx_control_flow.py)."""
    _judged(seed)
