"""``holds`` over sizes the data decide (a Loop's iteration count, an If's branch): each
atom is judged at every value the count's node allows, and atoms that each fail at some
values are judged together. Judged by onnxruntime with the data's every choice: ``holds``
is True only where every run succeeds, False only where every run fails, and never
raises.

* A Slice bound ``iters - 5`` (the length of a Loop's scan output) is read as counting
  from the start, a choice (``iters - 5 >= 0``); where the count is at most 4 (``N <
  10``) the choice fails at every count, so the sizes are not covered (undecided,
  naming the choice): ``holds`` raised KeyError there, reading the count among the
  inputs' values.
* An If whose two branches both need ``D == N`` fails at ``D != N`` whichever it takes:
  ``holds`` said undecided (each branch's condition alone fails at one value of
  ``if_then``), and the contract was approximate; it is False there, and exact.
"""

from __future__ import annotations

import itertools

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from differential import count
from onnxparts import early_exit_body, i64

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL



def _early_loop():
    """``y = Loop(N - 5, true)`` over ``x: float[N]``, its body ending the loop where
    ``i >= kk`` (an input), one float a run as its scan output; ``z = x[0 : len(y) -
    5]``."""
    body = early_exit_body()
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0),
             helper.make_node("Sub", ["n", "five"], ["m"]),
             helper.make_node("Loop", ["m", "true"], ["y"], body=body, name="Loop_1"),
             helper.make_node("Shape", ["y"], ["ys"]),
             helper.make_node("Sub", ["ys", "five1"], ["end"]),
             helper.make_node("Slice", ["x", "zero1", "end"], ["z"])]
    inits = [i64("zero", 0), i64("five", 5), i64("five1", [5]), i64("zero1", [0]),
             numpy_helper.from_array(np.array(True), "true")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", F, ["N"]),
                     helper.make_tensor_value_info("kk", I64, [])],
        [helper.make_tensor_value_info("y", F, None),
         helper.make_tensor_value_info("z", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _if_model(then_nodes, else_nodes):
    """``y = If(c, then: then_nodes -> t, else: else_nodes -> e)`` over ``x: float[N,
    D]`` and a bool input ``c``."""
    def branch(nodes, out, name):
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, F, None)])
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], name="if",
                          then_branch=branch(then_nodes, "t", "then"),
                          else_branch=branch(else_nodes, "e", "else"))],
        "g", [helper.make_tensor_value_info("x", F, ["N", "D"]),
              helper.make_tensor_value_info("c", B, [])],
        [helper.make_tensor_value_info("y", F, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _judge(verdict, runs: list[bool], where) -> None:
    """``verdict`` (a Verdict) against onnxruntime's ``runs`` of every value the data
    may give: True only where all run, False only where none does."""
    if verdict.value is True:
        assert all(runs), (where, runs, verdict)
    elif verdict.value is False:
        assert not any(runs), (where, runs, verdict)
    count("hidden holds: onnxruntime runs judged", len(runs))


def test_a_choice_over_a_loops_count_is_undecided_where_it_fails_never_a_key_error():
    model = _early_loop()
    contract = ko.contract(model)
    graph = kt.contract(*reversed(ko.from_onnx(model)))
    for n in range(13):
        for verdict in (contract.holds(N=n), graph.holds(N=n)):
            runs = [not isinstance(ortrun.run(model, {
                "x": np.zeros(n, np.float32), "kk": np.array(kk, np.int64)}), ortrun.Refusal)
                for kk in (0, 2, 5, 100)]
            _judge(verdict, runs, n)
            assert verdict.value is None  # (every run succeeds: not covered, or the
            # data decide whether the Slice's bound is read from the start)
            text = str(verdict)
            if n < 10:  # at most 4 iterations: the choice fails at every count
                assert text.startswith(f"undecided at N={n}: Loop_1_iters - 5 >= 0 fails "
                                       "there, so Slice")
                assert "gives another length" in text
            else:
                assert "is checked when the model runs (it depends on Loop_1_iters" in text


MATMUL = [helper.make_node("MatMul", ["x", "x"], ["t"], name="sq1")]


def _if_judged(model) -> dict[tuple[int, int], object]:
    """The verdicts of the model's contract (and of kt.contract of from_onnx's graph) at
    every point of 0..3, each judged by onnxruntime with both values of ``c``: exactly
    True where both run, False where neither, undecided where one."""
    contract = ko.contract(model)
    graph = kt.contract(*reversed(ko.from_onnx(model)))
    out = {}
    for n, d in itertools.product(range(4), repeat=2):
        runs = [not isinstance(ortrun.run(model, {"x": np.ones((n, d), np.float32),
                                                  "c": np.array(c)}), ortrun.Refusal)
                for c in (True, False)]
        expected = True if all(runs) else False if not any(runs) else None
        for verdict in (contract.holds(N=n, D=d), graph.holds(N=n, D=d)):
            _judge(verdict, runs, (n, d))
            assert verdict.value is expected, ((n, d), runs, verdict)
        out[n, d] = contract.holds(N=n, D=d)
    return out


def test_an_if_whose_branches_both_need_a_condition_fails_where_it_fails():
    other = [helper.make_node("MatMul", ["x", "x"], ["s"], name="sq2"),
             helper.make_node("Relu", ["s"], ["e"])]
    model = _if_model(MATMUL, other)
    contract = ko.contract(model)
    assert contract.exact and "solved: 1 box\n  D == N\n" in str(contract)
    assert "yet the boxes are exact" in str(contract)
    verdicts = _if_judged(model)
    assert str(verdicts[2, 3]) == (
        "False at N=2, D=3: whichever if_then the data give, a condition fails: "
        "if_then == 0 or D == N  (MatMul sq1 in if: then_branch) at if_then=1; "
        "if_then == 1 or D == N  (MatMul sq2 in if: else_branch) at if_then=0")
    assert verdicts[3, 3].value is True


def test_an_if_whose_branches_need_different_conditions_fails_where_both_fail():
    """Then ``MatMul(x, x)`` (``D == N``), else ``x + w`` for ``w: float[3]`` (``D ==
    3 or D == 1``): False where both fail, undecided where one does."""
    w = numpy_helper.from_array(np.ones(3, np.float32), "w")
    other = [helper.make_node("Constant", [], ["w"], value=w),
             helper.make_node("Add", ["x", "w"], ["e"], name="plus")]
    verdicts = _if_judged(_if_model(MATMUL, other))
    assert verdicts[3, 2].value is False and verdicts[2, 3].value is None
    assert verdicts[1, 1].value is True
