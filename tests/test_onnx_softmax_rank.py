"""Softmax, LogSoftmax and Hardmax at opsets 7 and 10 (their first schema), 11 and 13
over ranks 0 to 2 and every attribute axis in and out of range: kantensor refuses
exactly the nodes onnxruntime refuses (a rank-0 input among them, "Input rank must be
>= 1"; but an axis out of range of an empty input, which onnxruntime's kernel runs
before 11 without reading the axis), each for the same reason
and with kantensor's own error (a ParamError naming the node and what it expected: a
crash is no refusal), and types the others with onnxruntime's shape."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor.onnx as ko
import ortrun
from kantensor.ops.params import AxisError, ParamError

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


def _refusal(op: str, opset: int, shape: list[int], axis: int | None):
    """What kantensor's refusal must be (its class and words) and onnxruntime's words,
    for a node the two refuse: a rank-0 input, or an axis out of range (the default
    axis is 1 before opset 13)."""
    node = f"node '{op} -> y' ({op})"
    axis = (1 if opset < 13 else -1) if axis is None else axis
    old = f"axis {axis} is not in valid"  # (onnxruntime's kernel's words before 11)
    if not shape:
        return ParamError, [node, "the input has rank 0: it must have at least one axis"], \
            old if opset < 11 else "Input rank must be >= 1"
    r = len(shape)
    if opset < 11:
        return AxisError, [node, f"axis {axis} is out of bounds for a tensor of dimension {r}"], old
    return AxisError, [node, f"axis {axis} is out of bounds for a tensor of dimension {r}"], \
        f"'axis' must be in [{-r} , {r - 1}]. Its actual value is: {axis}"


@pytest.mark.parametrize("opset", [7, 10, 11, 13])
@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
@pytest.mark.parametrize("shape", SHAPES)
def test_refused_exactly_where_onnxruntime_refuses(op, opset, shape):
    for axis in [None, *range(-len(shape) - 1, len(shape) + 1)]:
        case = (op, opset, shape, axis)
        model = _model(op, opset, shape, axis)
        got = ortrun.run(model, {"x": np.ones(shape, np.float32)})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if isinstance(got, ortrun.Refusal):
                kind, words, says = _refusal(op, opset, shape, axis)
                assert not got.crashed and says in got.why, (case, got)
                with pytest.raises(ParamError) as refused:
                    ko.contract(model)
                assert type(refused.value) is kind, (case, refused.value)
                assert all(w in str(refused.value) for w in words), (case, refused.value)
                continue
            if opset < 11 and 0 in shape and not -len(shape) <= (1 if axis is None else axis) \
                    < len(shape):  # (run before 11 without reading the axis; refused by
                continue  # the schema and kantensor)
            assert ko.contract(model).holds() == True, case  # noqa: E712 (a Verdict)
            dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
        assert tuple(d.dim_value for d in dims) == got[0], case
