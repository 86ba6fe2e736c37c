"""An initializer that is also a graph input (kantensor.onnx.loading.overridable): from
IR version 4 on it is a default the caller may override (onnxruntime uses the value fed),
so its value is not known when the model is read and nothing is folded from it; below IR 4
every initializer is listed as an input, onnxruntime refuses a value fed for it, and it
is a constant. Judged by onnxruntime (tests/ortrun.py) with the default and with other
values, and by the graph from_onnx builds, run with ``check=True``."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import ortrun
from kantensor.onnx import from_onnx, infer_shapes
from kantensor.onnx.contract import data_inputs
from kantensor.onnx.importer import read_types

X = np.arange(12, dtype=np.float32).reshape(2, 6)
DEFAULT = np.array([3, 4], np.int64)


def _reshape(ir: int, declared: list | None = (2,), listed: bool = True) -> onnx.ModelProto:
    """Reshape of a (2, 6) ``x`` to the shape ``s``: an initializer [3, 4], listed as a
    graph input declared with the dims ``declared`` when ``listed``."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])
    s = helper.make_tensor_value_info("s", TensorProto.INT64, declared)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Reshape", ["x", "s"], ["y"])], "g",
                              [x, s] if listed else [x], [y],
                              [numpy_helper.from_array(DEFAULT, "s")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = ir
    return model


@pytest.mark.parametrize("ir", [4, 8, 10])
def test_from_ir_4_onnxruntime_uses_the_value_fed_for_an_initializer_input(ir):
    model = _reshape(ir)
    assert ortrun.run(model, {"x": X}) == [(3, 4)]
    assert ortrun.run(model, {"x": X, "s": np.array([6, 2], np.int64)}) == [(6, 2)]


def test_below_ir_4_onnxruntime_refuses_a_value_fed_for_an_initializer_input():
    model = _reshape(3)
    assert ortrun.run(model, {"x": X}) == [(3, 4)]
    refused = ortrun.run(model, {"x": X, "s": np.array([6, 2], np.int64)})
    assert isinstance(refused, ortrun.Refusal) and "Invalid input name: s" in refused.why


def test_onnx_shape_inference_folds_the_default_even_where_it_may_be_overridden():
    """(The fact docs/onnx.rst cites: onnx's data propagation is no oracle here.)"""
    typed = onnx.shape_inference.infer_shapes(_reshape(8), data_prop=True)
    dims = typed.graph.output[0].type.tensor_type.shape.dim
    assert [d.dim_value for d in dims] == [3, 4]


@pytest.mark.parametrize("ir", [4, 8])
def test_an_overridable_initializer_is_an_input_whose_value_is_not_known(ir):
    model = _reshape(ir)
    inputs, (y,) = from_onnx(model)
    assert [(v.name, str(v.type)) for v in inputs] == [
        ("x", str(kt.TensorType("float32", (2, 6)))), ("s", str(kt.TensorType("int64", (2,))))]
    assert y.type.ndim == 2 and not any(isinstance(d, int) for d in y.type.shape)
    assert data_inputs(model) == ["x", "s"]
    f = kt.function(inputs, [y], check=True)  # each run checked against y's type
    for shape in ([3, 4], [6, 2], [1, 12], [-1, 3]):
        s = np.array(shape, np.int64)
        (got,) = f(x=X, s=s)
        assert [got.shape] == ortrun.run(model, {"x": X, "s": s})
        np.testing.assert_array_equal(got, X.reshape(shape))


def test_a_declared_size_of_an_overridable_initializer_is_a_size_of_the_input():
    """Declared ``['k']``: onnxruntime takes a shape of any length, so y's rank is not
    known (onnxruntime gives rank 3 for a fed [2, 3, 2])."""
    model = _reshape(8, ["k"])
    assert ortrun.run(model, {"x": X, "s": np.array([2, 3, 2], np.int64)}) == [(2, 3, 2)]
    reader = read_types(model)
    assert str(reader.types["s"]) == str(kt.TensorType("int64", (kt.Dim("k"),)))
    out = infer_shapes(model).graph.output[0].type.tensor_type
    assert not out.HasField("shape")


def test_an_overridable_initializer_declared_without_a_rank_is_refused_as_any_input():
    with pytest.raises(kt.onnx.OnnxImportError, match="'s': its rank is not given"):
        infer_shapes(_reshape(8, None))


@pytest.mark.parametrize("model", [_reshape(3), _reshape(8, listed=False)],
                         ids=["ir3-listed", "ir8-constant"])
def test_a_constant_initializer_is_still_folded(model):
    inputs, (y,) = from_onnx(model)
    assert [v.name for v in inputs] == ["x"]
    assert tuple(y.type.shape) == (3, 4)
    assert data_inputs(model) == ["x"]
    assert ortrun.run(model, {"x": X}) == [(3, 4)]


def _sliced(ir: int) -> onnx.ModelProto:
    """Reshape of ``x`` to the first two entries of ``table``, an initializer of 100
    entries (more than the model memo keeps in its key) listed as a graph input."""
    table = np.zeros(100, np.int64)
    table[:2] = DEFAULT
    inits = [numpy_helper.from_array(table, "table"),
             numpy_helper.from_array(np.array([0], np.int64), "start"),
             numpy_helper.from_array(np.array([2], np.int64), "end")]
    graph = helper.make_graph(
        [helper.make_node("Slice", ["table", "start", "end"], ["s"]),
         helper.make_node("Reshape", ["x", "s"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
         helper.make_tensor_value_info("table", TensorProto.INT64, [100])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = ir
    return model


def test_the_model_memo_keeps_a_constant_and_an_overridable_initializer_apart():
    """The same model at IR 3 (table a constant, folded) and at IR 8 (table overridable):
    the typing remembered for the first is not the second's."""
    def dims(model):
        out = infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
        return [d.dim_value or d.dim_param or None for d in out]
    assert dims(_sliced(3)) == [3, 4]
    assert None in dims(_sliced(8))
    fed = np.zeros(100, np.int64)
    fed[:2] = [6, 2]
    assert ortrun.run(_sliced(8), {"x": X, "table": fed}) == [(6, 2)]
    assert dims(_sliced(3)) == [3, 4]


@pytest.mark.parametrize("elem, declared", [(TensorProto.INT32, [2]), (TensorProto.INT64, [3]),
                                            (TensorProto.INT64, [2, 1]),
                                            (TensorProto.INT64, ["k", "j"])])
def test_a_default_its_declaration_does_not_fit_is_refused_as_onnxruntime_does(elem, declared):
    model = _reshape(8, declared)
    model.graph.input[1].type.tensor_type.elem_type = elem
    refused = ortrun.run(model, {"x": X})
    assert isinstance(refused, ortrun.Refusal) and "initializer" in refused.why
    with pytest.raises(kt.onnx.OnnxImportError,
                       match="initializer 's' .* is the default of a graph input declared"):
        infer_shapes(model)
