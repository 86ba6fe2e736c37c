"""RoiAlign's contract judged by onnxruntime at every batch, channel, height, width and
region count from 0 to 2: batch indices that are data name an image, so there are no
regions where the batch is empty (onnxruntime: "batch_indices value 0 at index 0 is out
of range [0, 0)"; main claimed every size valid), and constant ones each fit the batch."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
import shapejudge as sj
from differential import count


def _model(opset: int, constant: list | None = None):
    """RoiAlign of ``x: [N, C, H, W]`` over ``r: [R, 4]`` regions whose batch indices are
    an input ``b: [R]`` or (``constant``) an initializer."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "C", "H", "W"]),
              helper.make_tensor_value_info("r", TensorProto.FLOAT,
                                            ["R" if constant is None else len(constant), 4])]
    inits = []
    if constant is None:
        inputs.append(helper.make_tensor_value_info("b", TensorProto.INT64, ["R"]))
    else:
        inits.append(numpy_helper.from_array(np.array(constant, np.int64), "b"))
    graph = helper.make_graph(
        [helper.make_node("RoiAlign", ["x", "r", "b"], ["y"], output_height=2,
                          output_width=3)], "g", inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _judged(model, constant: list | None) -> dict[str, int]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contract = ko.contract(model)
        typed = sj.typed_shapes(ko.infer_shapes(model))["y"]
    assert contract.exact and not contract.notes, str(contract)
    seen = {"ran": 0, "refused": 0}
    for n, c, h, w, r in itertools.product(range(3), repeat=5):
        if constant is not None and r != len(constant):
            continue
        rois = np.zeros((r, 4), np.float32)
        rois[:, 2:] = 1
        feeds = {"x": np.ones((n, c, h, w), np.float32), "r": rois}
        if constant is None:
            feeds["b"] = np.zeros(r, np.int64)  # (image 0: the first an index may name)
        got = ortrun.run(model, feeds)
        count("roi align: onnxruntime runs judged")
        sizes = {"N": n, "C": c, "H": h, "W": w} | ({"R": r} if constant is None else {})
        verdict = contract.holds(**sizes)
        if isinstance(got, ortrun.Refusal):
            assert verdict.value is False, (sizes, got.why)
            assert "RoiAlign" in str(verdict)
            seen["refused"] += 1
            continue
        assert verdict.value is True, (sizes, got)
        stated = tuple(d if isinstance(d, int) else sj.kantensor_size(d, {**sizes, "R": r})
                       for d in typed)
        assert stated == got[0], (sizes, typed, got)
        seen["ran"] += 1
    return seen


@pytest.mark.parametrize("opset", [10, 16])  # (onnxruntime has no RoiAlign-22)
def test_regions_of_data_batch_indices_need_an_image(opset):
    """``N >= 1 or R == 0``, exactly where onnxruntime runs (both kinds of point met)."""
    model = _model(opset)
    seen = _judged(model, None)
    assert seen["ran"] and seen["refused"], seen
    assert [str(a.clause) for a in ko.contract(model).atoms] == ["N >= 1 or R == 0"]


@pytest.mark.parametrize("constant", [[1, 0], [0], []])
def test_constant_batch_indices_fit_the_batch(constant):
    """Constant indices each name an image: ``N >= 2`` for ``[1, 0]``, ``N >= 1`` for
    ``[0]``, nothing for no region."""
    seen = _judged(_model(16, constant), constant)
    assert seen["ran"], seen
    assert bool(seen["refused"]) is bool(constant), seen
