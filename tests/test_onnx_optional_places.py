"""Optional inputs read by their places and typed by their schemas, run against oracles
nobody here wrote (onnxruntime, onnx's reference implementation and strict inference).

A node may skip an optional input and give a later one (ConvInteger's w_zero_point
without x_zero_point): the kernel must read each by its place (``given``), not by its
rank among those given, and the builder must type each by its own type parameter.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, shape_inference
from onnx.reference import ReferenceEvaluator

import kantensor as kt
from kantensor.onnx import from_onnx

U8, I8, F, F16 = TensorProto.UINT8, TensorProto.INT8, TensorProto.FLOAT, TensorProto.FLOAT16


def _model(node, inputs, opset, outputs=("y",)):
    graph = helper.make_graph([node], "g", inputs,
                              [onnx.ValueInfoProto(name=o) for o in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def _conv_integer(w_zero: int):
    node = helper.make_node("ConvInteger", ["x", "w", "", "wz"], ["y"])
    return _model(node, [helper.make_tensor_value_info("x", U8, [1, 1, 3, 3]),
                         helper.make_tensor_value_info("w", I8, [1, 1, 2, 2]),
                         helper.make_tensor_value_info("wz", w_zero, [])], 10)


def test_conv_integer_reads_a_w_zero_point_given_alone_by_its_place():
    ort = pytest.importorskip("onnxruntime")
    model = _conv_integer(I8)
    x = np.arange(9, dtype=np.uint8).reshape(1, 1, 3, 3) * 7
    w = np.array([-3, 5, 2, -1], dtype=np.int8).reshape(1, 1, 2, 2)
    wz = np.array(2, dtype=np.int8)
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"x": x, "w": w, "wz": wz})
    ins, outs = from_onnx(model)
    assert str(outs[0].type) == "int32[1,1,2,2]"
    (got,) = kt.function(ins, outs)(x, w, wz)
    np.testing.assert_array_equal(got, want)


def test_conv_integer_w_zero_point_of_x_dtype_is_refused_as_onnx_refuses():
    model = _conv_integer(U8)  # (x uint8, w int8: w's zero point must be int8)
    with pytest.raises(Exception):  # noqa: B017  (onnx's own errors)
        shape_inference.infer_shapes(model, strict_mode=True, check_type=True)
    with pytest.raises(TypeError):
        from_onnx(model)


def _linear(names, elems, shapes, rule):
    node = helper.make_node("LinearAttention", names, ["y", "state"], q_num_heads=4,
                            kv_num_heads=2, update_rule=rule)
    given = [n for n in names if n]
    return _model(node, [helper.make_tensor_value_info(n, elems.get(n, F), shapes[n])
                         for n in given], 27, outputs=("y", "state"))


SHAPES = {"q": [2, 5, 24], "k": [2, 5, 12], "v": [2, 5, 10], "s": [2, 2, 6, 5],
          "d": [2, 5, 12], "b": [2, 5, 2]}


def _inferred(model):
    typed = shape_inference.infer_shapes(model, strict_mode=True, check_type=True)
    return [helper.tensor_dtype_to_np_dtype(o.type.tensor_type.elem_type).name
            for o in typed.graph.output]


@pytest.mark.parametrize("past", [F16, F])
def test_linear_attention_state_has_the_past_states_dtype(past):
    model = _linear(["q", "k", "v", "s"], {"s": past}, SHAPES, "linear")
    want = _inferred(model)
    ins, outs = from_onnx(model)
    assert [o.type.dtype for o in outs] == want
    rng = np.random.default_rng(3)
    values = [rng.standard_normal(SHAPES[n]).astype(i.type.dtype)
              for n, i in zip("qkvs", ins, strict=True)]
    run = kt.function(ins, outs)(*values)
    ref = ReferenceEvaluator(model).run(None, dict(zip("qkvs", values, strict=True)))
    assert [r.dtype for r in run] == [r.dtype for r in ref]


@pytest.mark.parametrize(("names", "rule"), [
    (["q", "k", "v"], "gated"), (["q", "k", "v", "", "d"], "delta"),
    (["q", "k", "v", "", "", "b"], "gated_delta")])
def test_linear_attention_without_its_update_rules_inputs_is_refused_as_onnx_refuses(
        names, rule):
    model = _linear(names, {}, SHAPES, rule)
    with pytest.raises(Exception):  # noqa: B017  (onnx's own errors)
        _inferred(model)
    with pytest.raises((TypeError, ValueError)):
        from_onnx(model)


def test_linear_attention_decay_of_another_dtype_is_refused_as_onnx_refuses():
    model = _linear(["q", "k", "v", "", "d"], {"d": F16}, SHAPES, "gated")
    with pytest.raises(Exception):  # noqa: B017  (onnx's own errors)
        _inferred(model)
    with pytest.raises(TypeError):
        from_onnx(model)
