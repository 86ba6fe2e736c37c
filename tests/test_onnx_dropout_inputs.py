"""Dropout's optional inputs read by their places and of their schema's shapes, judged by
onnxruntime: a training mode without a ratio (``x, "", t``) is the training mode (it was
read as the ratio: a bool one refused, a float32 one taken, which onnxruntime refuses);
the ratio and the training mode are scalars (onnx's inference: "Ratio of Dropout must be
a scalar"; any shape was taken). In training, kt.function drops elements as ONNX says
(each kept one scaled by 1 / (1 - ratio)); it gave X back."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import ortrun
from kantensor.onnx import from_onnx
from onnxsweep import kantensor_says, model_of, truth

_E = {"x": TensorProto.FLOAT, "r": TensorProto.FLOAT, "t": TensorProto.BOOL,
      "f": TensorProto.FLOAT}


def _dropout(names: list[str], shapes: dict, opset: int = 13):
    node = helper.make_node("Dropout", names, ["y", "mask"])
    sh = {"x": [2, 3], "r": [], "t": [], "f": []} | shapes
    ins = [helper.make_tensor_value_info(n, _E[n], sh[n]) for n in names if n]
    return model_of([node], ins, opset, outputs=("y", "mask")), sh


@pytest.mark.parametrize(("names", "shapes"), [
    (["x", "r", "t"], {}), (["x", "", "t"], {}), (["x", "", "f"], {}),
    (["x", "r"], {"r": [2]}), (["x", "r"], {"r": [1]}), (["x", "r", "t"], {"t": [1]}),
    (["x", "r", "t"], {"t": [2]}), (["x"], {})])
@pytest.mark.parametrize("opset", [12, 13, 22])
def test_dropout_reads_its_optional_inputs_by_their_places(names, shapes, opset):
    model, sh = _dropout(names, shapes, opset)
    valid, who = truth(model, "Dropout")
    assert (kantensor_says(model) == "accepts") == valid, who
    if not valid:
        return
    feeds = {n: np.full(sh[n], 0.5, np.float32) if _E[n] != TensorProto.BOOL else
             np.zeros(sh[n], bool) for n in names if n}
    ran = ortrun.run(model, feeds)
    ins, outs = from_onnx(model)
    assert [o.type.shape for o in outs] == ran


@pytest.mark.parametrize("ratio", [0.0, 0.25, 0.75])
def test_dropout_in_training_drops_and_scales(ratio):
    model, _ = _dropout(["x", "r", "t"], {"x": [40, 50]})
    ins, outs = from_onnx(model)
    x = np.arange(1, 2001, dtype=np.float32).reshape(40, 50)
    y, mask = kt.function(ins, outs)(x, np.float32(ratio), np.bool_(True))
    assert y.dtype == np.float32 and mask.dtype == np.bool_
    np.testing.assert_allclose(y[mask], x[mask] / (1 - ratio), rtol=1e-6)
    assert not y[~mask].any()
    assert abs((~mask).mean() - ratio) < 0.05  # (2,000 draws)
    y, mask = kt.function(ins, outs)(x, np.float32(ratio), np.bool_(False))
    np.testing.assert_array_equal(y, x)
    assert mask.all()
