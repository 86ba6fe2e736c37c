"""A Loop whose body, read as it runs (its carried values at their own sizes), holds at no
size around it: ``GatherElements(acc, [0])`` of a carried ``acc`` of no entries (``x[0:0]``,
or ``Range(1, a)`` where a TopK before the Loop needs ``a == 0``). Typed with symbols for
the carried sizes the body held; read to run, its relations contradicted the facts and
the model was refused (found by tests/onnx_control_flow.py at seed 27737), where
onnxruntime and onnx.reference run it with a trip count of 0. The Loop now needs to run
no iteration (``loop_iters == 0``, a size the data decide: undecided where the rest
holds) and fails at run time where it runs one. Judged by onnxruntime at every size
``a`` and trip count 0..2."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from onnxparts import i64

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _model(carried: str):
    """``y = Loop(M, true, v)`` over ``x: float[a]``, its body ``GatherElements(acc,
    [0])`` and ``acc`` carried unchanged; ``v`` is ``x[0:0]`` ("empty") or
    ``float(Range(1, a))`` beside a ``TopK(v, a)`` that needs ``a == 0`` ("topk")."""
    body = helper.make_graph(
        [helper.make_node("GatherElements", ["acc", "z"], ["g"], axis=0),
         helper.make_node("Identity", ["cin"], ["cout"]),
         helper.make_node("Identity", ["acc"], ["acc_out"])],
        "body", [helper.make_tensor_value_info("i", I64, []),
                 helper.make_tensor_value_info("cin", B, []),
                 helper.make_tensor_value_info("acc", F, None)],
        [helper.make_tensor_value_info("cout", B, []),
         helper.make_tensor_value_info("acc_out", F, None)], [i64("z", [0])])
    inits = [helper.make_tensor("t", B, [], [True]), i64("zero", [0]), i64("one", 1),
             i64("first", 0)]
    outs = ["y"]
    if carried == "empty":
        nodes = [helper.make_node("Slice", ["x", "zero", "zero"], ["v"])]
    else:
        nodes = [helper.make_node("Shape", ["x"], ["sh"]),
                 helper.make_node("Gather", ["sh", "first"], ["a"], axis=0),
                 helper.make_node("Range", ["one", "a", "one"], ["r"]),
                 helper.make_node("Cast", ["r"], ["v"], to=F),
                 helper.make_node("Unsqueeze", ["a", "zero"], ["k"]),
                 helper.make_node("TopK", ["v", "k"], ["top", "at"])]
        outs.append("top")
    nodes.append(helper.make_node("Loop", ["M", "t", "v"], ["y"], body=body, name="loop"))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, ["a"]),
                                       helper.make_tensor_value_info("M", I64, [])],
                          [helper.make_tensor_value_info(o, F, None) for o in outs], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


@pytest.mark.parametrize("carried", ["empty", "topk"])
def test_a_loop_whose_body_holds_nowhere_runs_no_iteration(carried):
    model = _model(carried)
    contract = ko.contract(model)
    inputs, outputs = ko.from_onnx(model)
    run = kt.function(inputs, outputs)
    for a in range(4):
        runs = []
        for m in range(3):
            x, trips = np.ones(a, np.float32), np.array(m, np.int64)
            ran = ortrun.run(model, {"x": x, "M": trips})
            runs.append(not isinstance(ran, ortrun.Refusal))
            if runs[-1]:  # (kantensor's kernel runs it to onnxruntime's shapes)
                assert [np.shape(o) for o in run(x, trips)] == ran, (a, m)
            else:
                with pytest.raises((ValueError, IndexError)):  # (TopK: IndexError)
                    run(x, trips)
        holds = contract.holds(a=a).value
        assert runs[0] == (carried == "empty" or a == 0), (a, runs)
        assert not any(runs[1:]), (a, runs)
        assert holds is (False if not runs[0] else None), (a, holds, runs)
