"""ONNX OneHot's depth judged by onnxruntime: a depth of 0 or less is refused there
("Depth is negative"), a depth may be a scalar or a tensor of one entry (the spec), a
float depth is truncated, and a depth that is a size (``Shape(x)[0]``, a Loop's
iteration number) is that size, needed >= 1."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from kantensor.ops.params import ParamError


def _model(depth_nodes, inits, extra_opset=18):
    nodes = [helper.make_node("Cast", ["x"], ["xi"], to=TensorProto.INT64), *depth_nodes,
             helper.make_node("OneHot", ["xi", "d", "ov"], ["y"])]
    inits = [numpy_helper.from_array(np.array([0, 1], np.float32), "ov"), *inits]
    graph = helper.make_graph(nodes, "onehot", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, ["N"])], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", extra_opset)])


def _constant(value):
    return _model([], [numpy_helper.from_array(np.array(value), "d")])


def _runs(model, n):
    return not isinstance(ortrun.run(model, {"x": np.zeros((n,), np.float32)}),
                          ortrun.Refusal)


def _shape(model):
    dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    return tuple(d.dim_param or d.dim_value for d in dims)


@pytest.mark.parametrize("value", [np.int64(0), np.int64(-2), np.float32(0.5)])
def test_a_depth_below_one_is_refused_by_name(value):
    model = _constant(value)
    assert not any(_runs(model, n) for n in range(3))
    with pytest.raises(ParamError, match=r"node .OneHot -> y.*depth .* below 1"):
        ko.contract(model)


@pytest.mark.parametrize(("value", "depth"), [(np.int64(3), 3), (np.array([3]), 3),
                                              (np.float32(2.7), 2)])
def test_a_constant_depth_is_the_new_axis(value, depth):
    model = _constant(value)
    assert ortrun.run(model, {"x": np.zeros((2,), np.float32)}) == [(2, depth)]
    assert _shape(model) == ("N", depth)
    assert ko.contract(model).holds(N=0).value is True


def test_a_depth_that_is_a_size_is_needed_at_least_one():
    """``OneHot(x, depth=N)`` for x of N entries: N by N, where N >= 1."""
    model = _model([helper.make_node("Shape", ["x"], ["s"]),
                    helper.make_node("Gather", ["s", "zero"], ["d"])],
                   [numpy_helper.from_array(np.array(0, np.int64), "zero")])
    assert _shape(model) == ("N", "N")
    contract = ko.contract(model)
    for n in range(4):
        assert contract.holds(N=n).value is _runs(model, n), n
