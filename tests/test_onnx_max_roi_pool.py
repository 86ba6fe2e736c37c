"""MaxRoiPool (it was untyped) judged by onnxruntime: the contract and the output's
sizes at every batch, channel, height, width and region count from 0 to 2 (regions of
batch index 0: onnxruntime refuses any region of an empty batch), and kantensor's
kernel against onnxruntime's values over drawn regions (corners outside X, scaled,
rounded half away from zero)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
import shapejudge as sj


def _model(opset: int, dims: list, rois: list, pooled: tuple, scale: float = 1.0):
    graph = helper.make_graph(
        [helper.make_node("MaxRoiPool", ["x", "r"], ["y"], pooled_shape=list(pooled),
                          spatial_scale=scale)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, rois)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    return model


@pytest.mark.parametrize("opset", [7, 13])
def test_max_roi_pool_is_typed_where_onnxruntime_runs_it(opset):
    model = _model(opset, ["N", "C", "H", "W"], ["R", 5], (2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contract = ko.contract(model)
        typed = sj.typed_shapes(ko.infer_shapes(model))["y"]
    assert contract.exact, str(contract)  # (N >= 1 or R == 0: two boxes)
    seen = {"ran": 0, "refused": 0}
    for n, c, h, w, r in itertools.product(range(3), repeat=5):
        rois = np.zeros((r, 5), np.float32)
        rois[:, 3:] = 1
        got = ortrun.run(model, {"x": np.ones((n, c, h, w), np.float32), "r": rois})
        sizes = {"N": n, "C": c, "H": h, "W": w, "R": r}
        holds = contract.holds(**sizes).value
        if isinstance(got, ortrun.Refusal):
            assert holds is False, (sizes, got.why)
            seen["refused"] += 1
            continue
        assert holds is True, (sizes, got)
        stated = tuple(d if isinstance(d, int) else sj.kantensor_size(d, sizes)
                       for d in typed)
        assert stated == got[0], (sizes, typed, got)
        seen["ran"] += 1
    assert seen["ran"] and seen["refused"], seen  # (both kinds of point occur)


@pytest.mark.parametrize(("pooled", "scale"), [((2, 3), 1.0), ((3, 2), 0.5), ((1, 1), 0.25),
                                               ((4, 4), 1.5)])
def test_max_roi_pool_values_are_onnxruntime_s(pooled, scale):
    rng = np.random.default_rng(len(pooled) * 10 + int(scale * 4))
    x = rng.standard_normal((3, 2, 7, 9)).astype(np.float32)
    rois = np.concatenate([rng.integers(0, 3, (12, 1)),
                           rng.uniform(-3, 12, (12, 4))], axis=1).astype(np.float32)
    rois[:3, 1:] = [[0.5, 1.5, 2.5, 3.5], [-1.5, -2.5, 1.0, 1.0], [5.0, 6.0, 4.0, 2.0]]
    model = _model(13, list(x.shape), list(rois.shape), pooled, scale)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    (want,) = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"]).run(
        None, {"x": x, "r": rois})
    got = kt.function(*ko.from_onnx(model))(x, rois)
    np.testing.assert_array_equal(got[0] if isinstance(got, list) else got, want)
