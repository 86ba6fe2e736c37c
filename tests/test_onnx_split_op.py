"""Split before opset 13 without a ``split`` attribute (equal parts): kantensor's
kernel runs and its folded values size later nodes, each judged by onnxruntime."""

from __future__ import annotations

import warnings

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
from kantensor.onnx import from_onnx, infer_shapes


def _model(opset: int, values: list[int], outputs: int, axis: int):
    """Split of a constant vector into ``outputs`` parts, the first part a Reshape's
    target: a value that must fold for the output's sizes to be known."""
    c = numpy_helper.from_array(np.array(values, np.int64), "c")
    parts = [f"p{i}" for i in range(outputs)]
    nodes = [helper.make_node("Split", ["c"], parts, axis=axis),
             helper.make_node("Reshape", ["x", "p0"], ["y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         *[helper.make_tensor_value_info(p, TensorProto.INT64, None) for p in parts]],
        initializer=[c])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 6
    return model


CASES = [([4, 9, 6, 6], 2, 0), ([36, 3, 12], 3, -1), ([2, 18, 1, 4, 9, 0], 3, 0),
         ([9, 4, 1, 1, 1, 1], 3, 0)]


@pytest.mark.parametrize("opset", [11, 12])
@pytest.mark.parametrize("values, outputs, axis", CASES)
def test_split_without_sizes_runs_and_folds_as_onnxruntime(opset, values, outputs, axis):
    model = _model(opset, values, outputs, axis)
    x = np.arange(36, dtype=np.float32).reshape(6, 6)
    expected = ort.InferenceSession(model.SerializeToString(),
                                    providers=["CPUExecutionProvider"]).run(None, {"x": x})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inputs, outs = from_onnx(model)
        got = kt.function(inputs, outs)(x)
        typed = infer_shapes(model)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(g), e)
    shape = [d.dim_value if d.HasField("dim_value") else None
             for d in typed.graph.output[0].type.tensor_type.shape.dim]
    assert shape == list(expected[0].shape)  # the folded sizes, not unknown
