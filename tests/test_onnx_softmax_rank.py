"""Softmax, LogSoftmax and Hardmax at opsets 11 and 13 over ranks 0 to 2 and every
attribute axis in and out of range: kantensor refuses exactly the nodes onnxruntime
refuses (a rank-0 input among them, "Input rank must be >= 1"), and types the others
with onnxruntime's shape."""

from __future__ import annotations

import warnings

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import kantensor.onnx as ko

SHAPES = [[], [3], [2, 0], [2, 3]]


def _model(op: str, opset: int, shape: list[int], axis: int | None):
    attrs = {} if axis is None else {"axis": axis}
    graph = helper.make_graph(
        [helper.make_node(op, ["x"], ["y"], **attrs)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    return model


def _onnxruntime(model, shape):
    try:
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        return session.run(None, {"x": np.ones(shape, np.float32)})[0].shape
    except Exception:  # noqa: BLE001 (any refusal, at load or at run)
        return None


@pytest.mark.parametrize("opset", [11, 13])
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
@pytest.mark.parametrize("shape", SHAPES)
def test_refused_exactly_where_onnxruntime_refuses(op, opset, shape):
    for axis in [None, *range(-len(shape) - 1, len(shape) + 1)]:
        model = _model(op, opset, shape, axis)
        expected = _onnxruntime(model, shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                contract = ko.contract(model)
            except Exception:  # noqa: BLE001 (refused while typing)
                contract = None
        if expected is None:
            assert contract is None or not contract.holds(), (op, opset, shape, axis)
            continue
        assert contract is not None and contract.holds(), (op, opset, shape, axis)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
        assert tuple(d.dim_value for d in dims) == expected
