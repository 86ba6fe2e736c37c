"""ONNX OneHot's depth judged by onnxruntime: a depth of 0 or less is refused there
("Depth is negative"), a depth may be a scalar or a tensor of one entry (the spec), a
float depth is truncated, and a depth that is a size (``Shape(x)[0]``, a Loop's
iteration number) is that size, needed >= 1."""

from __future__ import annotations

import warnings

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.ops.params import ParamError
from shapejudge import kantensor_size, typed_shapes


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


def _indexed(opset: int, axis: int | None, depth, depth_shape: tuple | None):
    """OneHot of indices ``i`` of named sizes (a, b) by a constant depth (``depth`` of
    ``depth_shape``), a depth that is a size (``depth`` "size": Shape(x)[0] of x of a
    third named size c) or one given as an input (``depth`` "input")."""
    attrs = {} if axis is None else {"axis": axis}
    nodes, inits = [], [numpy_helper.from_array(np.array([0, 1], np.float32), "v")]
    inputs = [helper.make_tensor_value_info("i", TensorProto.INT64, ["a", "b"]),
              helper.make_tensor_value_info("x", TensorProto.FLOAT, ["c"])]
    if depth == "size":
        nodes += [helper.make_node("Shape", ["x"], ["s"]),
                  helper.make_node("Gather", ["s", "zero"], ["d"])]
        inits.append(numpy_helper.from_array(np.array(0, np.int64), "zero"))
    elif depth == "input":
        inputs.append(helper.make_tensor_value_info("d", TensorProto.INT64, []))
    else:
        inits.append(numpy_helper.from_array(np.array(depth).reshape(depth_shape), "d"))
    nodes.append(helper.make_node("OneHot", ["i", "d", "v"], ["y"], **attrs))
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(
        "y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


DEPTHS = [(np.int64(3), ()), (np.int64(3), (1,)), (np.int64(0), ()), (np.int64(-1), ()),
          (np.float32(2.5), ()), (np.int64(1), (1,)), ("size", None), ("input", None)]


@pytest.mark.parametrize("opset", [9, 10, 11])
@pytest.mark.parametrize("depth, depth_shape", DEPTHS)
def test_one_hot_is_typed_where_onnxruntime_runs_it(opset, depth, depth_shape):
    """OneHot-9 (opsets 9 and 10) was untyped. At every axis from -4 to 3 (indices of
    rank 2: -3 to 2 are valid), each model of named sizes judged at a grid with 0s and 1s
    by onnxruntime: where it refuses, kantensor refuses the model or its contract fails
    there; where it runs, the contract holds there and the shape is onnxruntime's (a
    depth given as an input, whose value is data, is left open)."""
    ran = refused = 0
    for axis in [None, -4, -3, -2, -1, 0, 1, 2, 3]:
        model = _indexed(opset, axis, depth, depth_shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                contract = ko.contract(model)
                shape = typed_shapes(ko.infer_shapes(model))["y"]
            except (TypeError, ValueError):  # (kantensor's refusals are both)
                contract = shape = None
        for a, b, c in [(2, 3, 3), (0, 2, 1), (1, 0, 2), (1, 1, 0), (3, 1, 4)]:
            feeds = {"i": np.zeros((a, b), np.int64), "x": np.zeros((c,), np.float32)}
            if depth == "input":
                feeds["d"] = np.array(3, np.int64)
            got = ortrun.run(model, feeds)
            sizes = {"a": a, "b": b, "c": c}
            holds = None if contract is None else contract.holds(**sizes).value
            if isinstance(got, ortrun.Refusal):
                assert holds is not True, (axis, sizes, got.why)
                assert holds is False or contract is None, (axis, sizes, got.why)
                refused += 1
                continue
            assert holds is True, (axis, sizes, got)
            ran += 1
            want = got[0]
            for d, e in zip(shape, want, strict=True):
                value = d if isinstance(d, int) else (
                    kantensor_size(d, sizes) if isinstance(d, str) else None)
                assert value == e or value is None and depth == "input", (axis, shape, want)
    below_one = bool(isinstance(depth, np.integer) and depth < 1)
    assert (ran == 0) is below_one and refused >= 10, (ran, refused)


@pytest.mark.parametrize("opset", [9, 10, 11])
@pytest.mark.parametrize("indices", [[0, 1], [0, -1], [5, 1], [-3, -2]])
def test_one_hot_of_constant_indices(opset, indices):
    """Before opset 11 onnx's inference (which onnxruntime runs at load) refuses a
    constant index below 0; a computed one (Neg of a constant) runs. kantensor's contract
    never holds where onnxruntime refuses, and holds or is undecided where it runs."""
    for computed in (False, True):
        nodes = [helper.make_node("Neg", ["k"], ["i"])] if computed else []
        value = [-v for v in indices] if computed else indices
        nodes.append(helper.make_node("OneHot", ["i", "d", "v"], ["y"]))
        inits = [numpy_helper.from_array(np.array(value, np.int64), "k" if computed else "i"),
                 numpy_helper.from_array(np.array(3, np.int64), "d"),
                 numpy_helper.from_array(np.array([0, 1], np.float32), "v")]
        graph = helper.make_graph(nodes, "g", [], [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, None)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        got = ortrun.run(model, {})
        try:
            holds = ko.contract(model).holds().value
        except (TypeError, ValueError):
            holds = False
        if isinstance(got, ortrun.Refusal):
            assert holds is not True, (computed, got.why)
        else:
            assert holds is not False, (computed, got)
            if opset >= 11 or min(indices) >= 0:
                assert holds is True and _shape(model) == got[0], (computed, got)


@pytest.mark.parametrize("opset", [9, 11, 22])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float32])
def test_one_hot_values_are_onnxruntime_s(opset, dtype):
    """kantensor's kernel against onnxruntime's values, indices from -5 to 5 of a depth
    of 3 (negative ones count from the end, those out of range give a row of the off
    value) and, for float indices, fractions: cast to int64 first (the spec), so -2.7 is
    -2 (the kernel added the depth first: -2.7 + 3 gave 0)."""
    indices = np.array([0, 1, 2, 3, 5, -1, -3, -4, -5], dtype)
    if dtype == np.float32:
        indices = np.concatenate([indices, np.array([-0.5, -2.7, 2.9, -3.5, 0.6], dtype)])
    # (onnxruntime's kernels: int64 indices by an int64 depth, int32 or float ones by a
    # float depth, each with float values)
    depth = np.array(3, np.int64 if dtype == np.int64 else np.float32)
    graph = helper.make_graph(
        [helper.make_node("OneHot", ["i", "d", "v"], ["y"], axis=0)], "g",
        [helper.make_tensor_value_info("i", helper.np_dtype_to_tensor_dtype(
            np.dtype(dtype)), [indices.size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(depth, "d"),
         numpy_helper.from_array(np.array([-1, 7], np.float32), "v")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    (want,) = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"]).run(None, {"i": indices})
    got = kt.function(*ko.from_onnx(model))(indices)
    np.testing.assert_array_equal(got[0] if isinstance(got, list) else got, want)
