"""Resize with ``coordinate_transformation_mode = tf_half_pixel_for_nn`` at every opset
from 11 on, judged by onnxruntime. The mode left ONNX's schema at opset 13, but
onnxruntime's Resize kernel (one for every opset) still runs it, with the sizes of any
other mode; kantensor refused it from opset 13 (its call's choices were the schema's).

Each one-node model (nearest, linear and cubic; by scales or by sizes) has named sizes and
is judged at points with 0s and 1s: the contract holds where onnxruntime runs it and
fails where it refuses, and where it holds every size kantensor types is onnxruntime's.
(Linear and cubic interpolation by sizes of named axes is left undecided, whatever the
mode: whether onnxruntime's kernel interpolates at those scales is not known before the
sizes are; never wrong, and counted.)
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun

#: Points of (a, b, h, w): 0s and 1s among them, and sizes where every mode runs.
POINTS = [(1, 1, 4, 4), (1, 2, 3, 5), (2, 1, 1, 2), (1, 1, 0, 3), (0, 1, 2, 2), (1, 3, 2, 0),
          (2, 2, 1, 1)]


def _model(opset: int, mode: str, how: str, scales: list | None, sizes: list | None,
           dims: list):
    inits, names = [], ["x"]
    if opset < 13:  # (roi and scales are required inputs before 13)
        inits.append(numpy_helper.from_array(np.array([], np.float32), "roi"))
        names.append("roi")
    else:
        names.append("")
    if scales is not None or opset < 13:
        inits.append(numpy_helper.from_array(np.array(scales or [], np.float32), "sc"))
        names.append("sc")
    else:
        names.append("")
    if sizes is not None:
        inits.append(numpy_helper.from_array(np.array(sizes, np.int64), "sz"))
        names.append("sz")
    node = helper.make_node("Resize", names, ["y"], mode=mode,
                            coordinate_transformation_mode=how)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _typed(model) -> tuple:
    dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in dims)


@pytest.mark.parametrize("opset", [11, 12, 13, 15, 17, 18, 19, 21])
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_tf_half_pixel_for_nn_is_typed_where_onnxruntime_runs_it(opset, mode):
    ran = refused = undecided = 0
    for scales, sizes in [([1, 1, 2, 0.5], None), ([1, 1, 1, 3], None), ([1, 1, 0.5, 1], None),
                          (None, [1, 1, 3, 5]), (None, [2, 1, 1, 4])]:
        named = _model(opset, mode, "tf_half_pixel_for_nn", scales, sizes, ["a", "b", "h", "w"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            contract = ko.contract(named)
        for point in POINTS:
            got = ortrun.run(_model(opset, mode, "tf_half_pixel_for_nn", scales, sizes,
                                    list(point)), {"x": np.zeros(point, np.float32)})
            case = (scales, sizes, point)
            verdict = contract.holds(**dict(zip("abhw", point, strict=True)))
            open_ = verdict.value is None and mode != "nearest" and sizes is not None
            undecided += open_
            if isinstance(got, ortrun.Refusal):
                assert not got.crashed, (case, got)
                assert verdict.value is False or open_, (case, got.why, verdict)
                refused += 1
                continue
            assert verdict.value is True or open_, (case, verdict)
            ran += 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fixed = _model(opset, mode, "tf_half_pixel_for_nn", scales, sizes, list(point))
                assert _typed(fixed) == got[0], (case, got)
    assert ran >= 10 and refused >= 1 and undecided <= 14, (ran, refused, undecided)


@pytest.mark.parametrize("opset", [13, 18, 19])
def test_tf_half_pixel_for_nn_sizes_are_any_other_modes(opset):
    """Its sizes, computed by kantensor's implementation, are onnxruntime's."""
    for scales, sizes in itertools.product([[1, 1, 2, 0.5], None], [None, [1, 1, 3, 5]]):
        if (scales is None) == (sizes is None):
            continue
        model = _model(opset, "nearest", "tf_half_pixel_for_nn", scales, sizes, [1, 1, 4, 4])
        x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        got = ortrun.run(model, {"x": x})
        assert not isinstance(got, ortrun.Refusal), got
        ins, outs = ko.from_onnx(model)
        assert tuple(outs[0].type.shape) == got[0]
