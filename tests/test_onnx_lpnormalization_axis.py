"""LpNormalization's ``axis`` must name an axis of its input, as onnxruntime's run says
(``IsAxisInRange(axis, tensor_rank)``): a node whose axis is out of range (any axis of a
0-d input, axis 1 or -2 of a vector) is refused at every size, so the importer must not
type it (shows defect: it typed the output as the input's shape)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from kantensor.onnx import infer_shapes, modelmemo

ort = pytest.importorskip("onnxruntime")


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4)])
@pytest.mark.parametrize("axis", [-3, -2, -1, 0, 1, 2])
def test_lpnormalization_is_typed_where_onnxruntime_runs_it(axis: int, shape: tuple) -> None:
    m = helper.make_model(helper.make_graph(
        [helper.make_node("LpNormalization", ["x"], ["y"], axis=axis)], "lp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_empty_tensor_value_info("y")]),
        opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        (got,) = ort.InferenceSession(m.SerializeToString(), options,
                                      providers=["CPUExecutionProvider"]).run(
            None, {"x": np.ones(shape, np.float32)})
        want = list(got.shape)
    except Exception:  # noqa: BLE001 - onnxruntime's own errors have no common class
        want = None
    modelmemo.MODELS.clear()
    try:
        out = infer_shapes(m).graph.output[0].type.tensor_type
    except (ValueError, TypeError, IndexError):
        typed = None
    else:
        typed = [d.dim_value for d in out.shape.dim] if out.HasField("shape") else None
    assert typed == want, (axis, shape)
