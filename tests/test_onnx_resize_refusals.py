"""Resize at opsets 11, 13 and 18 with scales and sizes each empty or not, and with
``tf_crop_and_resize`` over an empty, omitted or full ``roi``: kantensor's contract
claims validity exactly where onnxruntime runs the node, and types its shape there.
Where onnxruntime refuses, kantensor refuses for the same reason, with its own error (a
ParamError naming the node and what it expected), or leaves the node untyped saying
why (onnxruntime's kernel interpolates at fewer ranks and scales than the spec): a
crash is no refusal."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from kantensor.ops.params import ParamError

SCALES = [[], [1, 1, 2, 2], [1, 1, 0.75, 1.5]]
SIZES = [None, [], [1, 1, 3, 5]]
ROIS = [None, [], [0, 0, 0.1, 0.2, 1, 1, 0.9, 1.0]]
MODES = ["half_pixel", "tf_crop_and_resize"]


def _model(opset: int, scales, sizes, roi, how: str):
    inits, names = [], ["x"]
    for name, value, dtype in (("roi", roi, np.float32), ("sc", scales, np.float32),
                               ("sz", sizes, np.int64)):
        if value is None:
            names.append("")
        else:
            inits.append(numpy_helper.from_array(np.array(value, dtype), name))
            names.append(name)
    while names[-1] == "":
        names.pop()
    node = helper.make_node("Resize", names, ["y"], mode="linear",
                            coordinate_transformation_mode=how)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


#: onnxruntime's reason for refusing (words of its message) and kantensor's (its
#: ParamError's words after the node's name).
REASONS = [
    ("Only one of scales or sizes must be provided", ["a non-empty scales leaves no place"]),
    ("Either scales or sizes MUST be provided", ["Resize needs non-empty scales or sizes"]),
    ("Either `sizes` or `scales` must be provided, but", [  # (opset 18: either reason)
        "a non-empty scales leaves no place", "Resize needs non-empty scales or sizes"]),
    ("size of roi array should be 2 * N", ["tf_crop_and_resize needs a roi of 2 entries"]),
]
NODE = "node 'Resize -> y' (Resize): Resize: "


def _refused_alike(model, why: str, case) -> None:
    """kantensor refuses ``model`` with a ParamError naming the node and saying what
    onnxruntime's refusal ``why`` says."""
    words = [w for says, ours in REASONS if says in why for w in ours]
    assert words, (case, why)  # (onnxruntime refused for a reason this test knows)
    with pytest.raises(ParamError) as refused:
        ko.contract(model)
    text = str(refused.value)
    assert text.startswith(NODE) and any(w in text for w in words), (case, text)


def _untyped_as_kernel_refuses(model, mode: str, case) -> None:
    """kantensor leaves the node untyped, its contract undecided, saying that
    onnxruntime's kernel refuses this interpolation."""
    verdict = ko.contract(model).holds()
    assert verdict.value is None and verdict.note.startswith(NODE), (case, verdict)
    assert f"onnxruntime's kernel refuses a {mode} Resize" in verdict.note, (case, verdict)


@pytest.mark.parametrize("opset", [11, 13, 18])
@pytest.mark.parametrize("how", MODES)
def test_valid_exactly_where_onnxruntime_runs(opset, how):
    for scales, sizes, roi in itertools.product(SCALES, SIZES, ROIS):
        if opset == 11 and (roi is None or (scales == [] and sizes is None)):
            continue  # (roi and scales are required inputs at opset 11: not a model)
        model = _model(opset, scales, sizes, roi, how)
        got = ortrun.run(model, {"x": np.ones((1, 1, 4, 4), np.float32)})
        case = (scales, sizes, roi)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if isinstance(got, ortrun.Refusal):
                assert not got.crashed, (case, got)
                _refused_alike(model, got.why, case)
                continue
            assert ko.contract(model).holds() == True, case  # noqa: E712 (a Verdict)
            dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
        for d, e in zip(dims, got[0], strict=True):
            assert not d.HasField("dim_value") or d.dim_value == e, case


def _interpolated(shape: list[int], mode: str, antialias: int, scales, sizes, policy: str):
    inits = [numpy_helper.from_array(np.array(scales or [], np.float32), "sc")]
    names = ["x", "", "sc"]
    if sizes is not None:
        inits.append(numpy_helper.from_array(np.array(sizes, np.int64), "sz"))
        names.append("sz")
    node = helper.make_node("Resize", names, ["y"], mode=mode, antialias=antialias,
                            keep_aspect_ratio_policy=policy)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def _variants(shape: list[int]):
    """Scales of 1 and not on each axis, and the sizes they give, stretched or under an
    aspect-ratio policy."""
    for factors in itertools.product([1, 2, 0.5], repeat=len(shape)):
        if sum(f != 1 for f in factors) > 2:
            continue
        yield list(factors), None, "stretch"
        sizes = [max(1, int(n * f)) for n, f in zip(shape, factors, strict=True)]
        for policy in ("stretch", "not_larger", "not_smaller"):
            yield None, sizes, policy


@pytest.mark.parametrize("mode", ["linear", "cubic"])
@pytest.mark.parametrize("shape", [[4], [2, 4], [2, 2, 4], [1, 2, 4, 4], [1, 2, 2, 2, 4]])
def test_interpolation_valid_exactly_where_onnxruntimes_kernel_runs(mode, shape):
    """onnxruntime's kernel interpolates only some ranks and scales (linear: rank 2 or 3,
    4 or 5 with outer scales 1; cubic: rank 2 or 4): the contract claims no other."""
    for antialias, (scales, sizes, policy) in itertools.product([0, 1], _variants(shape)):
        model = _interpolated(shape, mode, antialias, scales, sizes, policy)
        got = ortrun.run(model, {"x": np.ones(shape, np.float32)})
        case = (antialias, scales, sizes, policy)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if isinstance(got, ortrun.Refusal):  # (its kernel's ScalesValidation)
                assert not got.crashed and "upsamplebase.h" in got.why, (case, got)
                _untyped_as_kernel_refuses(model, mode, case)
                continue
            assert ko.contract(model).holds() == True, case  # noqa: E712 (a Verdict)
            dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
        for d, e in zip(dims, got[0], strict=True):
            assert not d.HasField("dim_value") or d.dim_value == e, case
