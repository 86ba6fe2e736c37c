"""Resize's contract and types judged by onnxruntime over drawn variants: opsets 11 to
19, scales (0 and less, NaN, and float32 values whose product onnxruntime rounds) or
sizes (constants of either sign, or the input's own sizes from its Shape), nearest,
linear and cubic modes, ``axes`` and ``keep_aspect_ratio_policy``,
``tf_crop_and_resize`` with an roi of 0, 1 or 2 entries per resized axis, over inputs
of named sizes run at sizes with 0s and 1s, and at known sizes. Where onnxruntime
refuses, the contract does not say valid (it says invalid, or undecided); where it
runs, the contract does not say invalid and every size kantensor types is
onnxruntime's.

Found by brute force over these variants (review of 2026-12-01): a constant scale of 0
or less (onnxruntime refuses the model when it loads), sizes with an axis of size 0
resized to more or an axis resized to 0 or less (its scale must be greater than 0),
linear and cubic interpolation by scales from sizes not known (its kernel's rank and
scale rules, now conditions), ``int(float32(n) * scale)`` (0.7 of 10 is 7, the exact
floor 6), an roi of another length than 2 entries per axis (onnxruntime reads it only
for an output that is not empty) or, with ``axes``, per resized axis, and an
aspect-ratio policy over a negative axis (onnxruntime keeps every size) or over sizes
0 or less."""

from __future__ import annotations

import itertools
import random
import warnings

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
import shapejudge as sj

SCALES = [0.0, -1.0, float("nan"), 0.5, 0.7, 2.0]
SIZES = [0, 1, 3, -1]


def _model(opset, dims, kind, values, mode, ctm, axes, policy, roi):
    """One Resize of ``x`` (``dims``) by ``scales`` (``kind`` "scales"), ``sizes``
    ("sizes"), or sizes that are the input's but the last, from its Shape ("shape"),
    with ``roi`` (None: omitted, or empty where it is required)."""
    rank = len(dims)
    inits, nodes, names = [], [], ["x"]

    def const(name, value, dtype):
        inits.append(numpy_helper.from_array(np.array(value, dtype), name))
        names.append(name)

    if opset < 13 or roi is not None:
        const("roi", roi or [], np.float32)
    else:
        names.append("")
    if kind == "scales":
        const("sc", values, np.float32)
    else:
        if opset < 13:
            const("sc", [], np.float32)
        else:
            names.append("")
        if kind == "sizes":
            const("sz", values, np.int64)
        else:
            nodes.append(helper.make_node("Shape", ["x"], ["head"], end=rank - 1))
            inits.append(numpy_helper.from_array(np.array(values, np.int64), "last"))
            nodes.append(helper.make_node("Concat", ["head", "last"], ["sz"], axis=0))
            names.append("sz")
    attrs = {"mode": mode, "coordinate_transformation_mode": ctm}
    if axes is not None:
        attrs["axes"] = axes
    if policy is not None:
        attrs["keep_aspect_ratio_policy"] = policy
    nodes.append(helper.make_node("Resize", names, ["y"], **attrs))
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 18 else 9
    return model


def _variants():
    """Every combination of the choices above, drawn down to 160 (seeded)."""
    out = []
    for opset, rank, mode in itertools.product([11, 13, 18, 19], [2, 4],
                                               ["nearest", "linear", "cubic"]):
        axes_ = [None] + ([[rank - 1], [-1]] if opset >= 18 else [])
        policies = [None] + (["not_larger", "not_smaller"] if opset >= 18 else [])
        for axes, policy, roi in itertools.product(axes_, policies, [None, 0, 1, 2]):
            picked = 1 if axes else rank
            if roi is not None:  # (an roi of no entries, 1, 2 per resized axis)
                roi = [0.25] * roi * picked
            for kind in ["scales", "sizes"] + (["shape"] if opset >= 15 and not axes else []):
                pool = SCALES if kind == "scales" else SIZES
                for v in pool:
                    if kind == "shape":
                        values = [v]
                    elif kind == "scales":
                        values = [1.0] * (picked - 1) + [v]
                    else:
                        values = [3] * (picked - 1) + [v]
                    if kind == "scales" and policy is not None:
                        continue
                    out.append((opset, rank, kind, values, mode, axes, policy, roi))
    return random.Random(20261201).sample(out, 200)


def _points(rank: int, rng: random.Random) -> list[tuple[int, ...]]:
    grid = list(itertools.product([0, 1, 3, 10], repeat=rank))
    rng.shuffle(grid)
    return [p for p in grid if 0 in p][:3] + [p for p in grid if 0 not in p][:5]


def _judge(model, contract_of, typed_of, point, sizes, case):
    """One point: onnxruntime's run against the contract's verdict and the type."""
    got = ortrun.run(model, {"x": np.ones(point, np.float32)})
    verdict = contract_of(sizes)
    if isinstance(got, ortrun.Refusal):
        assert not got.crashed, (case, point, got)
        assert verdict is not True, (case, point, got.why)
        return "refused"
    assert verdict is not False, (case, point, got)
    if verdict is True:
        for d, e in zip(typed_of(), got[0], strict=True):
            value = d if isinstance(d, int) else (
                sj.kantensor_size(d, sizes) if isinstance(d, str) else None)
            assert value is None or value == e, (case, point, typed_of(), got)
        return "valid"
    return "undecided"


def _contract(model):
    """The model's contract (None: refused) and its typed output dims."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            contract = ko.contract(model)
        except (TypeError, ValueError):  # (refused: kantensor's errors are both)
            return None, None
        return contract, sj.typed_shapes(ko.infer_shapes(model))["y"]


@pytest.mark.parametrize("known", [False, True], ids=["named", "known"])
def test_resize_contract_never_valid_where_onnxruntime_refuses(known):
    rng = random.Random(known)
    seen = {"refused": 0, "valid": 0, "undecided": 0}
    for case in _variants():
        opset, rank, kind, values, mode, axes, policy, roi = case
        ctm = "tf_crop_and_resize" if roi is not None else "half_pixel"
        names = [f"d{i}" for i in range(rank)]
        points = _points(rank, rng)
        if known:
            points = points[:2]
        else:
            model = _model(opset, names, kind, values, mode, ctm, axes, policy, roi)
            contract, typed = _contract(model)
        for point in points:
            if known:
                model = _model(opset, list(point), kind, values, mode, ctm, axes, policy, roi)
                contract, typed = _contract(model)
            sizes = {} if known else dict(zip(names, point, strict=True))
            seen[_judge(model, lambda s, c=contract: False if c is None else c.holds(**s).value,
                        lambda t=typed: t, point, sizes, case)] += 1
    print(seen)
    assert seen["valid"] >= (40 if known else 100) and seen["refused"] >= 100, seen


def _upsample(opset: int, dims: list, scales: list[float], mode: str, op: str = "Upsample"):
    """Upsample (or Resize-10) of ``x`` by ``scales``: an attribute at opset 7, an input
    at opset 9 on."""
    inits, names, attrs = [], ["x"], {"mode": mode}
    if opset < 9:
        attrs["scales"] = scales
    else:
        inits.append(numpy_helper.from_array(np.array(scales, np.float32), "sc"))
        names.append("sc")
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"], **attrs)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
    return model


@pytest.mark.parametrize("opset", [7, 9])
def test_upsample_contract_never_valid_where_onnxruntime_refuses(opset):
    """Upsample (opsets 7 to 9): onnxruntime refuses a scale below 1 and interpolates
    linearly by Resize's rules."""
    rng = random.Random(opset)
    seen = {"refused": 0, "valid": 0, "undecided": 0}
    for rank, mode, last, first in itertools.product([2, 3, 4], ["nearest", "linear"],
                                                     [0.0, 0.5, 1.0, 1.5, 2.0, 0.7],
                                                     [1.0, 2.0]):
        scales = [first] + [1.0] * (rank - 2) + [last]
        names = [f"d{i}" for i in range(rank)]
        model = _upsample(opset, names, scales, mode)
        contract, typed = _contract(model)
        for point in _points(rank, rng):
            sizes = dict(zip(names, point, strict=True))
            seen[_judge(model, lambda s, c=contract: False if c is None else c.holds(**s).value,
                        lambda t=typed: t, point, sizes, (rank, mode, scales))] += 1
    assert seen["valid"] >= 100 and seen["refused"] >= 100, seen


def test_resize_10_contract_and_types_are_onnxruntime_s():
    """Resize-10 (scales an input, nearest or linear; it was untyped): at ranks 1 to 4,
    scales of 0 and less, NaN, below 1, rounded in float32 (0.7) and above 1, over named
    sizes run at points with 0s and 1s, the contract never says valid where onnxruntime
    refuses nor invalid where it runs, and where valid every size is onnxruntime's."""
    rng = random.Random(10)
    seen = {"refused": 0, "valid": 0, "undecided": 0}
    for rank, mode, last, first in itertools.product(
            [1, 2, 3, 4], ["nearest", "linear"],
            [0.0, -1.0, float("nan"), 0.5, 0.7, 1.0, 1.5, 3.0], [1.0, 0.5, 2.0]):
        scales = ([first] + [1.0] * (rank - 2) + [last])[-rank:]
        names = [f"d{i}" for i in range(rank)]
        model = _upsample(10, names, scales, mode, op="Resize")
        contract, typed = _contract(model)
        for point in _points(rank, rng):
            sizes = dict(zip(names, point, strict=True))
            seen[_judge(model, lambda s, c=contract: False if c is None else c.holds(**s).value,
                        lambda t=typed: t, point, sizes, (rank, mode, scales))] += 1
    assert seen["valid"] >= 600 and seen["refused"] >= 600, seen


def test_resize_10_runs_as_onnxruntime_computes_it():
    """Resize-10's kernel (Upsample's: asymmetric coordinates, the nearest pixel the
    floor of the position, its ceiling where an axis shrinks) against onnxruntime's
    values, down and up, nearest and linear."""
    x = np.arange(2 * 3 * 5 * 7, dtype=np.float32).reshape(2, 3, 5, 7)
    for mode, scales in itertools.product(["nearest", "linear"],
                                          [[1.0, 1.0, 0.5, 2.0], [1.0, 1.0, 2.5, 0.7],
                                           [1.0, 1.0, 0.4, 1.0], [1.0, 1.0, 3.0, 1.5]]):
        model = _upsample(10, list(x.shape), scales, mode, op="Resize")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        (want,) = ort.InferenceSession(model.SerializeToString(), options,
                                       providers=["CPUExecutionProvider"]).run(None, {"x": x})
        ins, outs = ko.from_onnx(model)
        got = kt.function(ins, outs)(x)
        got = got[0] if isinstance(got, list) else got
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=f"{mode} {scales}")


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_scales_and_sizes_of_another_length_than_the_axes(opset):
    """Scales or sizes of a length other than the resized axes' number (X's rank, or the
    axes'): onnxruntime refuses the model (a rank-0 X too), and so does kantensor."""
    for rank, kind, axes in itertools.product([0, 1, 2, 3], ["scales", "sizes"],
                                              [None, [-1]] if opset >= 18 else [None]):
        if rank == 0 and axes:
            continue
        for length in range(1, rank + 2):
            values = [2.0 if kind == "scales" else 3] * length
            dims = [2] * rank
            model = _model(opset, dims, kind, values, "nearest", "half_pixel", axes, None,
                           None)
            got = ortrun.run(model, {"x": np.ones(dims, np.float32)})
            contract, typed = _contract(model)
            case = (rank, kind, axes, length)
            if isinstance(got, ortrun.Refusal):
                assert not got.crashed and contract is None, (case, got)
            else:
                assert contract is not None and contract.holds() == True, case  # noqa: E712
                assert tuple(typed) == got[0], (case, typed, got)
