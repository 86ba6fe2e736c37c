"""Optional inputs of their schemas' shapes, judged by onnxruntime.

Dropout's optional inputs read by their places and of their schema's shapes, judged by
onnxruntime: a training mode without a ratio (``x, "", t``) is the training mode (it was
read as the ratio: a bool one refused, a float32 one taken, which onnxruntime refuses);
the ratio and the training mode are scalars (onnx's inference: "Ratio of Dropout must be
a scalar"; any shape was taken). In training, kt.function drops elements as ONNX says
(each kept one scaled by 1 / (1 - ratio)); it gave X back.

Trilu's k is a scalar or a vector of one entry, its input of rank 2 or more (any shape
of k, and a vector input, were taken; onnxruntime refuses them at every value).

DeformConv's B is (M,) and its mask (N, offset_group * kH * kW, oH, oW), read by their
places (any shape of either was taken)."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
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


@pytest.mark.parametrize(("x", "k"), [([3, 3], []), ([3, 3], [1]), ([3, 3], [2]),
                                      ([3, 3], [1, 1]), ([3, 3], [0]), ([3], None),
                                      ([2, 3, 3], [1]), ([4], [])])
def test_trilu_takes_k_of_one_entry_and_a_batch_of_matrices(x, k):
    names = ["x"] + (["k"] if k is not None else [])
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x)] + (
        [helper.make_tensor_value_info("k", TensorProto.INT64, k)] if k is not None else [])
    model = model_of([helper.make_node("Trilu", names, ["y"])], ins, 14)
    feeds = {"x": np.ones(x, np.float32)} | ({"k": np.zeros(k, np.int64)} if k is not None
                                            else {})
    ran = ortrun.run(model, feeds)
    refused = isinstance(ran, ortrun.Refusal)
    assert (kantensor_says(model) == "refuses") is refused, ran
    if not refused:
        assert [o.type.shape for o in from_onnx(model)[1]] == ran


def test_trilu_k_of_a_symbolic_length_holds_where_it_has_one_entry():
    """k of length N: the contract holds exactly where onnxruntime runs (N == 1)."""
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3]),
           helper.make_tensor_value_info("k", TensorProto.INT64, ["N"])]
    model = model_of([helper.make_node("Trilu", ["x", "k"], ["y"])], ins, 14)
    contract = ko.contract(model)
    for n in range(4):
        ran = ortrun.run(model, {"x": np.ones((3, 3), np.float32),
                                 "k": np.zeros(n, np.int64)})
        assert contract.holds(N=n).value is not isinstance(ran, ortrun.Refusal), (n, ran)


_DEFORM = {"x": [1, 2, 3, 3], "w": [2, 2, 2, 2], "o": [1, 8, 2, 2]}


@pytest.mark.parametrize(("extra", "group"), [
    ({"b": [2]}, 1), ({"b": [3]}, 1), ({"b": [1, 2]}, 1), ({"m": [1, 4, 2, 2]}, 1),
    ({"m": [1, 4, 2, 3]}, 1), ({"m": [1, 2, 2, 2]}, 1), ({"m": [4, 2, 2]}, 1),
    ({"b": [2], "m": [1, 4, 2, 2]}, 1), ({"o": [1, 16, 2, 2], "m": [1, 8, 2, 2]}, 2),
    ({"o": [1, 16, 2, 2], "m": [1, 4, 2, 2]}, 2)])
def test_deform_conv_bias_and_mask_of_their_schemas_shapes(extra, group):
    """B is (M,), mask (N, offset_group * kH * kW, oH, oW), read by their places (a mask
    without B is the mask): onnxruntime runs exactly those (any shape was taken)."""
    shapes = {**_DEFORM, **extra}
    names = ["x", "w", "o", "b" if "b" in extra else "", "m" if "m" in extra else ""]
    while not names[-1]:
        names.pop()
    node = helper.make_node("DeformConv", names, ["y"], offset_group=group)
    model = model_of([node], [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n])
                              for n in names if n], 22)
    rng = np.random.default_rng(0)
    ran = ortrun.run(model, {n: rng.uniform(0, 1, shapes[n]).astype(np.float32)
                             for n in names if n})
    refused = isinstance(ran, ortrun.Refusal)
    assert (kantensor_says(model) == "refuses") is refused, ran
    if not refused:
        assert [o.type.shape for o in from_onnx(model)[1]] == ran
