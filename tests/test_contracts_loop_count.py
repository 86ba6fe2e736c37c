"""A Loop's iteration count (a size the data decide, ``Loop_y_iters``) is at most its
trip count ``max(0, M)``: a fact for the nodes after the Loop, as NonZero's count is at
most its input's elements. A trip count ``min(2**40, N)`` (an exporter's ``Min`` of a
size and a large cap) gives two facts, ``iters <= 2**40`` and ``iters <= N``; the cap
stays (sizes reach ``2**63 - 1``, so ``min(2**40, N)`` is not ``N``). So ``x[:len(y)]``
of the Loop's scan output ``y`` is ``float32[Loop_y_iters]`` (main:
``min(Loop_y_iters, N)``, the facts unknown to the Slice), for a trip count ``N - 5``
too. Judged by onnxruntime: at every ``N`` in 0..9 and every early exit, the Slice's
length is the count's."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from differential import count
from kantensor.onnx import size_conditions
from onnxparts import early_exit_body, i64

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL



def _model(trips: str):
    """``y = Loop(M, true)`` over ``x: float[N]`` (``M``: ``min(N, 2**40)`` or ``N -
    5``), its body ending the loop where ``i >= kk``, one float a run its scan output;
    ``z = x[:len(y)]``."""
    body = early_exit_body()
    op = ("Min", ["n", "cap"]) if trips == "min" else ("Sub", ["n", "five"])
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0),
             helper.make_node(op[0], op[1], ["m"]),
             helper.make_node("Loop", ["m", "true"], ["y"], body=body),
             helper.make_node("Shape", ["y"], ["ys"]),
             helper.make_node("Slice", ["x", "zero1", "ys"], ["z"])]
    inits = [i64("zero", 0), i64("zero1", [0]), i64("cap", 2**40), i64("five", 5),
             numpy_helper.from_array(np.array(True), "true")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", F, ["N"]),
                     helper.make_tensor_value_info("kk", I64, [])],
        [helper.make_tensor_value_info("y", F, None),
         helper.make_tensor_value_info("z", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(("trips", "bounds"), [
    ("min", ["0 <= Loop_y_iters", "Loop_y_iters <= 1099511627776", "Loop_y_iters <= N"]),
    ("less", ["0 <= Loop_y_iters", "Loop_y_iters <= max(0, N - 5)"])])
def test_a_slice_by_a_loops_count_has_the_counts_length(trips, bounds):
    model = _model(trips)
    _, (y, z) = ko.from_onnx(model)
    assert [str(y.type), str(z.type)] == ["float32[Loop_y_iters]"] * 2
    assert [str(c) for c in size_conditions([y, z])] == bounds
    assert ko.contract(model).holds(N=3)
    for n in range(10):
        for kk in (0, 1, 3, 100):
            shapes = ortrun.run(model, {"x": np.zeros(n, np.float32),
                                        "kk": np.array(kk, np.int64)})
            assert not isinstance(shapes, ortrun.Refusal), (n, kk, shapes)
            (iters,), (length,) = shapes
            assert length == iters <= n, (n, kk, shapes)
            count("loop count facts: onnxruntime runs judged")
