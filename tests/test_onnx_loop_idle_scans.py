"""A Loop's scan output whose shape its body does not declare, after no iteration,
judged by onnxruntime: it gives such an output the shape its own inference of the body
finds (rank 1, ``(0,)``, where it finds none), not the iteration axis beside the rank of
an iteration's value. kantensor said ``float32[0,0,0]`` for a trip count of 0 (a wrong
rank where onnxruntime gives ``(0,)``) and refused a body that fails at every iteration
(onnxruntime runs it: no iteration runs). Now a known count of 0 leaves the node untyped
with the reason, and a trip count that may be 0 types the outputs under the choice
``iters >= 1`` (not covered at 0, never invalid); a declared shape (``[None, None]``, or
of ``dim_param`` s) is onnxruntime's shape at 0 and stays typed."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import kantensor as kt
import kantensor.onnx as ko
from kantensor.onnx.shared import NotKnown

ort = pytest.importorskip("onnxruntime")


def _model(body, declare, trips=None):
    """A Loop carrying ``x`` (3x4) unchanged, its scan output ``s`` made by ``body``
    (``"square"``: x * x, ``"unsqueeze"``: rank 3, ``"matmul"``: x @ x, which fails at
    every iteration), ``s`` declared as ``declare`` ("none": no shape); ``trips`` a
    constant trip count, or None: the input ``M``."""
    nodes = [h.make_node("Identity", ["cond_in"], ["cond_out"]),
             h.make_node("Identity", ["v_in"], ["v_out"])]
    inits = []
    if body == "square":
        nodes.append(h.make_node("Mul", ["v_in", "v_in"], ["s"]))
    elif body == "matmul":
        nodes.append(h.make_node("MatMul", ["v_in", "v_in"], ["s"]))
    else:
        nodes.append(h.make_node("Unsqueeze", ["v_in", "axes"], ["s"]))
        inits.append(h.make_tensor("axes", T.INT64, [1], [0]))
    if declare == "none":
        kind = onnx.TypeProto()
        kind.tensor_type.elem_type = T.FLOAT
        s_info = h.make_value_info("s", kind)
    else:
        s_info = h.make_tensor_value_info("s", T.FLOAT, declare)
    graph = h.make_graph(nodes, "body", [
        h.make_tensor_value_info("i", T.INT64, []),
        h.make_tensor_value_info("cond_in", T.BOOL, []),
        h.make_tensor_value_info("v_in", T.FLOAT, None)], [
        h.make_tensor_value_info("cond_out", T.BOOL, []),
        h.make_tensor_value_info("v_out", T.FLOAT, None), s_info], initializer=inits)
    loop = h.make_node("Loop", ["M", "C", "x"], ["vf", "scan"], body=graph)
    inputs = [h.make_tensor_value_info("x", T.FLOAT, [3, 4])]
    constants = [h.make_tensor("C", T.BOOL, [], [True])]
    if trips is None:
        inputs.append(h.make_tensor_value_info("M", T.INT64, []))
    else:
        constants.append(h.make_tensor("M", T.INT64, [], [trips]))
    g = h.make_graph([loop], "g", inputs, [h.make_tensor_value_info("vf", T.FLOAT, None),
                                           h.make_tensor_value_info("scan", T.FLOAT, None)],
                     initializer=constants)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)])


def _ort(model, trips=None):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    feeds = {"x": np.ones((3, 4), np.float32)}
    if trips is not None:
        feeds["M"] = np.array(trips, np.int64)
    return session.run(None, feeds)[1].shape


BODIES = ["square", "unsqueeze", "matmul"]
DECLARED = ["none", [None, None], ["a", "b"]]


@pytest.mark.parametrize("declare", DECLARED, ids=["undeclared", "rank 2", "named"])
@pytest.mark.parametrize("body", BODIES)
def test_no_iteration_is_typed_as_onnxruntime_runs_it_or_left_untyped(body, declare):
    model = _model(body, declare, trips=0)
    want = _ort(model)
    try:
        inputs, outputs = ko.from_onnx(model)
    except NotKnown:  # an untyped node, with its reason: never a wrong rank
        assert declare == "none" or body == "unsqueeze"  # (declared rank 2, value rank 3)
        return
    assert outputs[1].type.shape == want  # (main: (0, 0, 0) where onnxruntime gives (0,))
    got = kt.function(inputs, outputs)(np.ones((3, 4), np.float32))[1]
    assert got.shape == want


@pytest.mark.parametrize("body", ["square", "unsqueeze"])
def test_a_trip_count_that_may_be_0_types_the_outputs_under_a_choice(body):
    model = _model(body, "none")
    (_, outputs) = ko.from_onnx(model)
    scan = outputs[1].type
    rank = 3 if body == "square" else 4
    assert scan.ndim == rank == len(_ort(model, 2))
    text = str(ko.contract(model))  # (the count is the data's: a check made at run time)
    iters = str(scan.shape[0])
    assert f"{iters} < 1 (checked when the model runs)  (not covered)" in text
    assert "another rank" in text
    assert len(_ort(model, 0)) == 1  # (onnxruntime's rank 1 there, not the type's)
