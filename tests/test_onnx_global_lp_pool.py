"""GlobalLpPool (it was untyped) judged by onnxruntime: the contract and the output's
sizes at every size from 0 to 2 of ranks 2 to 4 (opsets 2 to 21; onnxruntime has no
kernel at 22, where the spec's relation is the same), and kantensor's kernel against
onnxruntime's values for p = 1, 2, 3, 0 and -1 (at p = 0 the norm
is the count to the power inf). As for GlobalAveragePool and GlobalMaxPool, an empty
spatial axis is refused even where the batch is empty and onnxruntime runs it."""

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


def _model(opset: int, dims: list, p: int):
    graph = helper.make_graph(
        [helper.make_node("GlobalLpPool", ["x"], ["y"], p=p)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    return model


@pytest.mark.parametrize("opset", [2, 11, 18])
def test_global_lp_pool_is_typed_where_onnxruntime_runs_it(opset):
    seen = {"ran": 0, "refused": 0, "empty batch": 0}
    for rank in (2, 3, 4):
        names = [f"d{i}" for i in range(rank)]
        model = _model(opset, names, 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                contract = ko.contract(model)
                typed = sj.typed_shapes(ko.infer_shapes(model))["y"]
            except (TypeError, ValueError):  # (kantensor's refusals are both)
                contract = typed = None
        for point in itertools.product(range(3), repeat=rank):
            sizes = dict(zip(names, point, strict=True))
            got = ortrun.run(model, {"x": np.ones(point, np.float32)})
            holds = False if contract is None else contract.holds(**sizes).value
            if isinstance(got, ortrun.Refusal):
                assert holds is False, (point, got.why)
                seen["refused"] += 1
                continue
            if holds is False and point[0] == 0 and 0 in point[2:]:
                seen["empty batch"] += 1  # (refused over an empty spatial axis, as the
                continue  # other global pools are: docs/onnx.rst, incomplete, not wrong)
            assert holds is True, (point, got)
            stated = tuple(d if isinstance(d, int) else sj.kantensor_size(d, sizes)
                           for d in typed)
            assert stated == got[0], (point, typed, got)
            seen["ran"] += 1
    assert seen["ran"] >= 40 and seen["refused"] >= 50, seen


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 1, 1)])
@pytest.mark.parametrize("p", [1, 2, 3, 0, -1])
def test_global_lp_pool_values_are_onnxruntime_s(p, shape):
    x = np.random.default_rng(p + 1).standard_normal(shape).astype(np.float32)
    model = _model(11, list(x.shape), p)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    (want,) = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"]).run(None, {"x": x})
    got = kt.function(*ko.from_onnx(model))(x)
    np.testing.assert_allclose(got[0] if isinstance(got, list) else got, want, rtol=1e-5)
