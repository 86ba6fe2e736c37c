"""MeanVarianceNormalization's ``axes`` must each name an axis of X: its body's
ReduceMean (onnx.reference's run) refuses another, and a point is valid only where the
spec and onnxruntime both run it (docs/contracts.rst). onnxruntime's kernel runs some
out-of-range axes (``[0, 2, 5]`` of a matrix) and refuses others (``[-5]``); kantensor
typed every one as X's shape. Judged here by both runs at each axes and rank."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from kantensor.onnx import infer_shapes, modelmemo

ort = pytest.importorskip("onnxruntime")


def _model(shape: tuple, axes: list | None, opset: int):
    attrs = {} if axes is None else {"axes": axes}
    m = helper.make_model(helper.make_graph(
        [helper.make_node("MeanVarianceNormalization", ["x"], ["y"], **attrs)], "mvn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_empty_tensor_value_info("y")]),
        opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _both_run(m, shape: tuple) -> list | None:
    """The output's shape where onnxruntime and onnx.reference both run the model."""
    x = np.ones(shape, np.float32)
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        (got,) = ort.InferenceSession(m.SerializeToString(), options,
                                      providers=["CPUExecutionProvider"]).run(None, {"x": x})
        (ref,) = ReferenceEvaluator(m).run(None, {"x": x})
    except Exception:  # noqa: BLE001 - either run refuses: no common error class
        return None
    assert got.shape == ref.shape
    return list(got.shape)


@pytest.mark.parametrize("opset", [9, 13])
@pytest.mark.parametrize("axes", [None, [0, 2, 3], [0, 2, 5], [-5], [-1], [0, 1]])
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (2, 3, 4, 5)])
def test_mvn_is_typed_where_both_runs_give_a_shape(shape: tuple, axes, opset: int) -> None:
    m = _model(shape, axes, opset)
    want = _both_run(m, shape)
    modelmemo.MODELS.clear()
    try:
        out = infer_shapes(m).graph.output[0].type.tensor_type
    except ValueError as exc:  # refused at every size (an AxisError: the axis named)
        assert "out of bounds" in str(exc)
        typed = None
    else:
        typed = [d.dim_value for d in out.shape.dim] if out.HasField("shape") else None
    assert typed == want, (shape, axes, opset)
