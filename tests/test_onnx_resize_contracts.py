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
        _judge_points(model, names, rng, seen, (rank, mode, scales))
    assert seen["valid"] >= 100 and seen["refused"] >= 100, seen


def _judge_points(model, names: list[str], rng, seen: dict, case: tuple) -> None:
    """Count into ``seen`` each of ``_points``' verdicts on ``model`` (its contract and
    types against onnxruntime's run at each point of its sizes ``names``)."""
    contract, typed = _contract(model)
    for point in _points(len(names), rng):
        sizes = dict(zip(names, point, strict=True))
        seen[_judge(model, lambda s, c=contract: False if c is None else c.holds(**s).value,
                    lambda t=typed: t, point, sizes, case)] += 1


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
        _judge_points(model, names, rng, seen, (rank, mode, scales))
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


@pytest.mark.parametrize("op, opset", [("Upsample", 7), ("Upsample", 9), ("Resize", 10),
                                       ("Resize", 11), ("Resize", 13)])
@pytest.mark.parametrize("scale", [float("inf"), 1e-30, 1e30, 3e38, 1e-38])
def test_extreme_constant_scales(op, opset, scale):
    """A constant scale of inf, tiny or huge (a float32 product onnxruntime cannot size,
    or sizes 0): the contract, named and known, never says valid where onnxruntime
    refuses, nor invalid where it runs, and kantensor never crashes."""
    for rank in (1, 2):
        scales = [1.0] * (rank - 1) + [scale]
        names = [f"d{i}" for i in range(rank)]
        make = ((lambda dims, s=scales: _upsample(opset, dims, s, "nearest", op=op))
                if opset <= 10 else
                (lambda dims, s=scales: _model(opset, dims, "scales", s, "nearest",
                                               "asymmetric", None, None, None)))
        model = make(names)
        contract, typed = _contract(model)
        for point in itertools.product([0, 1, 3], repeat=rank):
            sizes = dict(zip(names, point, strict=True))
            _judge(model, lambda s, c=contract: False if c is None else c.holds(**s).value,
                   lambda t=typed: t, point, sizes, (op, opset, scales))
            known = make(list(point))
            got_contract, got_typed = _contract(known)
            _judge(known, lambda s, c=got_contract: False if c is None else c.holds().value,
                   lambda t=got_typed: t, point, {}, (op, opset, scales, "known"))


def _inputs_model(op, opset, rank, kinds, axes=None, lengths=("k", "j")):
    """``op`` of ``x`` (rank ``rank``, named sizes) by scales and/or sizes that are graph
    inputs of ``lengths`` (named ``k`` and ``j``, or known): their values not known."""
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [f"d{i}" for i in range(rank)])]
    names = ["x"]
    if op == "Resize" and opset >= 11:
        names.append("")
    for kind, name, dtype in (("scales", lengths[0], TensorProto.FLOAT),
                              ("sizes", lengths[1], TensorProto.INT64)):
        if kind in kinds:
            ins.append(helper.make_tensor_value_info(kind, dtype, [name]))
            names.append(kind)
        elif kind == "scales" and "sizes" in kinds:
            names.append("")
    inits = []
    if opset < 13 and op == "Resize" and opset >= 11:  # (roi required: empty)
        names[1] = "roi"
        inits.append(numpy_helper.from_array(np.zeros(0, np.float32), "roi"))
    attrs = {"mode": "nearest"}
    if axes is not None:
        attrs["axes"] = axes
    graph = helper.make_graph([helper.make_node(op, names, ["y"], **attrs)], "g", ins,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 18 else 9
    return model


@pytest.mark.parametrize("op, opset, kinds, axes", [
    ("Upsample", 9, ("scales",), None), ("Resize", 10, ("scales",), None),
    ("Resize", 11, ("scales",), None), ("Resize", 11, ("scales", "sizes"), None),
    ("Resize", 13, ("scales",), None), ("Resize", 13, ("sizes",), None),
    ("Resize", 13, ("scales", "sizes"), None), ("Resize", 18, ("scales",), [-1]),
    ("Resize", 18, ("sizes",), [0]), ("Resize", 19, ("scales", "sizes"), None)])
def test_scales_and_sizes_inputs_of_any_length(op, opset, kinds, axes):
    """Scales and sizes whose values are not known (graph inputs) of lengths ``k`` and
    ``j``, named or known: onnxruntime reads one entry per resized axis ("Number of
    elements in scales should be equal to rank"), refuses sizes of a length not known
    (ONNX's inference reads them as empty) and, from opset 13, both inputs; the
    contract never says valid where it refuses, nor invalid where it runs."""
    seen = {"refused": 0, "valid": 0, "undecided": 0}
    for rank, named in itertools.product((1, 2, 3), (True, False)):
        if named:
            model = _inputs_model(op, opset, rank, kinds, axes)
            contract, _ = _contract(model)
        for k, j in itertools.product(range(4), range(4) if "sizes" in kinds else [0]):
            if not named:
                model = _inputs_model(op, opset, rank, kinds, axes, (k, j))
                contract, _ = _contract(model)
            feeds = {"x": np.ones([2] * rank, np.float32)}
            sizes = {f"d{i}": 2 for i in range(rank)}
            if "scales" in kinds:
                feeds["scales"] = np.ones(k, np.float32)
                sizes |= {"k": k} if named else {}
            if "sizes" in kinds:
                feeds["sizes"] = np.full(j, 2, np.int64)
                sizes |= {"j": j} if named else {}
            got = ortrun.run(model, feeds)
            verdict = False if contract is None else contract.holds(**sizes).value
            case = (rank, named, k, j)
            if isinstance(got, ortrun.Refusal):
                assert not got.crashed and verdict is not True, (case, got.why)
                seen["refused"] += 1
            else:
                assert verdict is not False, (case, got)
                seen["valid" if verdict is True else "undecided"] += 1
    assert seen["refused"] and (seen["valid"] or len(kinds) == 2), seen
