"""Resize's and Upsample's scales and sizes inputs judged by onnxruntime: infinite scales,
scales and sizes of other shapes than a vector, and scales not known beside a sizes
input, over one-node models run at every point of a small box of their sizes.

Found by these brute forces (2026-12-01): a constant or computed infinite scale of
Resize-11 on was left untyped, where onnxruntime refuses it at every size ("Scale value
must be finite"); scales not known of another shape than a vector were refused, where
onnxruntime reads any shape with one element per resized axis (the spec counts
elements), and at opsets 11 and 12 scales not known beside a sizes input were left
untyped, where onnxruntime runs them empty; a computed sizes of another rank than 1
was typed, where onnxruntime refuses it ("shape input must be 1D tensor")."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
import shapejudge as sj


def _model(op: str, opset: int, rank: int, scales=None, sizes=None) -> object:
    """``op`` of ``x`` (named sizes ``d0, d1, ...``) by a scales and/or a sizes input, each
    ``(how, value or shape)``: "const" an initializer, "computed" an Identity of one,
    "input" a graph input of that shape (named or known sizes)."""
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [f"d{i}" for i in range(rank)])]
    inits, nodes, names = [], [], ["x"]
    if op == "Resize" and opset >= 11:
        if opset < 13:
            inits.append(numpy_helper.from_array(np.zeros(0, np.float32), "roi"))
            names.append("roi")
        else:
            names.append("")
    for name, given, dtype in (("sc", scales, np.float32), ("sz", sizes, np.int64)):
        if given is None:
            if name == "sc" and sizes is not None:
                if opset < 13:
                    inits.append(numpy_helper.from_array(np.zeros(0, np.float32), "sc"))
                    names.append("sc")
                else:
                    names.append("")
            continue
        how, what = given
        if how == "input":
            kind = TensorProto.FLOAT if dtype == np.float32 else TensorProto.INT64
            ins.append(helper.make_tensor_value_info(name, kind, list(what)))
        else:
            source = name if how == "const" else name + "0"
            inits.append(numpy_helper.from_array(np.array(what, dtype), source))
            if how == "computed":
                nodes.append(helper.make_node("Identity", [source], [name]))
        names.append(name)
    nodes.append(helper.make_node(op, names, ["y"], mode="nearest"))
    graph = helper.make_graph(nodes, "g", ins,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _contract(model):
    """The model's contract and its typed output dims, or the error refusing it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            contract = ko.contract(model)
        except (TypeError, ValueError) as exc:  # (refused: kantensor's errors are both)
            return exc, None
        return contract, sj.typed_shapes(ko.infer_shapes(model))["y"]


def _judge(model, contract, typed, feeds: dict, sizes: dict, case) -> str:
    """onnxruntime's run at one point against the contract (an error: refused) and the
    typed sizes: never valid where it refuses, never invalid where it runs, every typed
    size its own. Returns the verdict's name."""
    got = ortrun.run(model, feeds)
    verdict = False if isinstance(contract, Exception) else contract.holds(**sizes).value
    if isinstance(got, ortrun.Refusal):
        assert not got.crashed and verdict is not True, (case, sizes, got.why)
        return "refused"
    assert verdict is not False, (case, sizes, got, contract)
    if verdict is True:
        for d, e in zip(typed, got[0], strict=True):
            value = d if isinstance(d, int) else (
                sj.kantensor_size(d, sizes) if isinstance(d, str) else None)
            assert value is None or value == e, (case, sizes, typed, got)
        return "valid"
    return "undecided"


@pytest.mark.parametrize("opset", [11, 13, 18, 19])
def test_an_infinite_scale_is_refused(opset):
    """An infinite scale, constant or computed: onnxruntime refuses Resize at every size
    (constant: when it loads it; computed: "Scale value must be finite"), and so does
    kantensor, saying why (it was left untyped, the contract undecided)."""
    for rank, how in itertools.product((1, 2), ("const", "computed")):
        scales = [1.0] * (rank - 1) + [float("inf")]
        model = _model("Resize", opset, rank, scales=(how, scales))
        contract, _ = _contract(model)
        assert isinstance(contract, Exception), (rank, how, contract)
        assert "finite" in str(contract), contract
        for point in itertools.product((0, 1, 3), repeat=rank):
            sizes = {f"d{i}": n for i, n in enumerate(point)}
            assert _judge(model, contract, None, {"x": np.ones(point, np.float32)}, sizes,
                          (rank, how)) == "refused"


SHAPES = [(1, "r"), ("r", 1), ("r",), (1, 1, "r"), (), ("k", "j")]


@pytest.mark.parametrize("op, opset", [("Upsample", 9), ("Resize", 10), ("Resize", 11),
                                       ("Resize", 13), ("Resize", 18)])
def test_scales_of_any_shape(op, opset):
    """Scales of any shape with one element per axis: onnxruntime reads them (the spec
    counts their elements), constant, computed or not known; not known (a graph input of
    shape ``(k, j)`` or one of the shapes above) the contract is exact: valid where their
    elements are the axes' number, invalid elsewhere (they were refused but for a vector,
    and Upsample and Resize-10 refused constant ones too)."""
    seen = {"refused": 0, "valid": 0, "undecided": 0}
    for rank, shape, how in itertools.product((1, 2), SHAPES, ("const", "computed", "input")):
        shape = tuple(rank if s == "r" else s for s in shape)
        if how != "input" and (shape == ("k", "j") or np.prod(shape, dtype=int) != rank):
            continue
        given = (how, shape if how == "input" else np.full(shape, 2.0))
        model = _model(op, opset, rank, scales=given)
        contract, typed = _contract(model)
        boxes = (itertools.product(range(4), range(4)) if shape == ("k", "j") else [shape])
        for lengths in boxes:
            feeds = {"x": np.ones([3] * rank, np.float32)}
            sizes = {f"d{i}": 3 for i in range(rank)}
            if how == "input":
                feeds["sc"] = np.full(lengths, 2.0, np.float32)
                if shape == ("k", "j"):
                    sizes |= dict(zip("kj", lengths, strict=True))
            verdict = _judge(model, contract, typed, feeds, sizes, (rank, shape, how, lengths))
            seen[verdict] += 1
            assert verdict != "undecided", (rank, shape, how, lengths, contract)
            if how != "input":
                assert typed == [6] * rank or typed == ["2*d0", "2*d1"][:rank], typed
    assert seen["valid"] >= 20 and seen["refused"] >= 20, seen


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_sizes_of_another_rank(opset):
    """Sizes of rank 0 or 2 with one element per axis: onnxruntime runs a constant one and
    refuses a computed one or a graph input ("shape input must be 1D tensor"): kantensor
    never says valid where it refuses (a computed one was typed), and refuses the graph
    input."""
    for rank, shape, how in itertools.product((1, 2), [(), (1, "r"), ("r", 1)],
                                              ("const", "computed", "input")):
        shape = tuple(rank if s == "r" else s for s in shape)
        if np.prod(shape, dtype=int) != rank:
            continue
        given = (how, shape if how == "input" else np.full(shape, 4))
        model = _model("Resize", opset, rank, sizes=given)
        contract, typed = _contract(model)
        feeds = {"x": np.ones([3] * rank, np.float32)}
        if how == "input":
            feeds["sz"] = np.full(shape, 4, np.int64)
            assert isinstance(contract, Exception) and "1D" in str(contract), contract
        sizes = {f"d{i}": 3 for i in range(rank)}
        verdict = _judge(model, contract, typed, feeds, sizes, (rank, shape, how))
        assert verdict == ("undecided" if how == "const" else "refused"), (rank, shape, how)


@pytest.mark.parametrize("opset", [11, 12, 13, 18, 19])
def test_scales_not_known_beside_sizes(opset):
    """Scales not known (a graph input of ``k`` elements, a vector or ``(1, k)``) beside
    sizes (constant or a graph input): at opsets 11 and 12 onnxruntime reads the sizes
    where the scales are empty and refuses other scales ("Only one of scales or sizes"),
    the contract exactly ``k == 0`` with the sizes typed (they were untyped); from 13 it
    refuses the model at every ``k`` ("not both"), and so does kantensor."""
    seen = {"refused": 0, "valid": 0, "undecided": 0}
    for rank, shape, sizes_how in itertools.product((1, 2), [("k",), (1, "k")],
                                                    ("const", "input")):
        sizes = (sizes_how, (rank,) if sizes_how == "input" else [4] * rank)
        model = _model("Resize", opset, rank, scales=("input", shape), sizes=sizes)
        contract, typed = _contract(model)
        if opset >= 13:
            assert isinstance(contract, Exception) and "not both" in str(contract), contract
        else:
            assert not isinstance(contract, Exception), contract
            assert typed == ([4] * rank if sizes_how == "const" else [None] * rank), typed
        for k in range(4):
            feeds = {"x": np.ones([3] * rank, np.float32),
                     "sc": np.ones([1, k][2 - len(shape):], np.float32)}
            if sizes_how == "input":
                feeds["sz"] = np.full(rank, 4, np.int64)
            point = {f"d{i}": 3 for i in range(rank)} | {"k": k}
            verdict = _judge(model, contract, typed, feeds, point, (rank, shape, sizes_how, k))
            assert verdict != "undecided", (rank, shape, sizes_how, k)
            seen[verdict] += 1
    assert seen["refused"] and (seen["valid"] or opset >= 13), seen


def _roi_model(opset: int, rank: int, axes: list | None, scale: float) -> object:
    """A tf_crop_and_resize Resize of ``x`` (named sizes) by constant scales ``scale``
    on the resized axes, its roi a graph input of named length ``o``."""
    picked = len(axes) if axes else rank
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [f"d{i}" for i in range(rank)]),
           helper.make_tensor_value_info("roi", TensorProto.FLOAT, ["o"])]
    scales = numpy_helper.from_array(np.full(picked, scale, np.float32), "sc")
    attrs = {"mode": "nearest", "coordinate_transformation_mode": "tf_crop_and_resize"}
    if axes:
        attrs["axes"] = axes
    node = helper.make_node("Resize", ["x", "roi", "sc"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", ins,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [scales])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8 if opset <= 18 else 9
    return model


@pytest.mark.parametrize("opset, axes", [(11, None), (13, None), (18, None), (18, [-1]),
                                         (19, [0])])
def test_a_roi_of_a_named_length(opset, axes):
    """tf_crop_and_resize with a roi whose length ``o`` is named: onnxruntime needs 2
    entries per axis (with ``axes`` 2 per resized axis too) where the output is not
    empty, and with ``axes`` always ("size of roi array should be 2 * N"); the contract
    said every length valid. Judged at every point of ``o`` in 0..6 and the sizes in 0..2."""
    seen = {"refused": 0, "valid": 0, "undecided": 0}
    for rank, scale in itertools.product((1, 2), (2.0, 0.5)):
        if axes and rank < 2 and axes != [-1]:
            continue
        model = _roi_model(opset, rank, axes, scale)
        contract, typed = _contract(model)
        for point in itertools.product(range(3), repeat=rank):
            for o in range(7):
                sizes = {f"d{i}": n for i, n in enumerate(point)} | {"o": o}
                feeds = {"x": np.ones(point, np.float32),
                         "roi": np.tile(np.float32([0.0, 1.0]), o)[:o]}
                seen[_judge(model, contract, typed, feeds, sizes,
                            (rank, scale, point, o))] += 1
    assert seen["refused"] >= 20 and seen["valid"] >= 10, seen


@pytest.mark.parametrize("opset", [11, 12, 13, 18])
def test_scales_not_known_beside_empty_sizes(opset):
    """Scales not known (a graph input of ``k`` elements) beside a constant empty sizes:
    onnxruntime refuses at every ``k`` ("Only one of scales or sizes must be provided",
    or neither); the contract said valid at ``k`` = the rank. kantensor refuses it."""
    inits = [numpy_helper.from_array(np.zeros(0, np.int64), "sz")]
    names = ["x", "", "sc", "sz"]
    if opset < 13:
        inits.append(numpy_helper.from_array(np.zeros(0, np.float32), "roi"))
        names[1] = "roi"
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["d0", "d1"]),
           helper.make_tensor_value_info("sc", TensorProto.FLOAT, ["k"])]
    graph = helper.make_graph([helper.make_node("Resize", names, ["y"])], "g", ins,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    contract, typed = _contract(model)
    assert isinstance(contract, Exception) and "scales not known beside" in str(contract)
    for d0, d1, k in itertools.product(range(3), range(3), range(4)):
        feeds = {"x": np.ones((d0, d1), np.float32), "sc": np.full(k, 2.0, np.float32)}
        assert _judge(model, contract, typed, feeds, {"d0": d0, "d1": d1, "k": k},
                      (d0, d1, k)) == "refused"


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_a_roi_of_another_rank(opset):
    """tf_crop_and_resize with a roi of rank 0 or 2 (a graph input): onnxruntime reads it
    flattened ("size of roi array should be 2 * N"); the contract took it as no roi and
    said valid at every size. Judged at every point of the roi's axes in 0..4 and X's
    sizes in 0..2: never valid where onnxruntime refuses, never invalid where it runs."""
    seen = {"refused": 0, "valid": 0, "undecided": 0}
    for roi_shape in (["o", "p"], []):
        ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["d0", "d1"]),
               helper.make_tensor_value_info("roi", TensorProto.FLOAT, roi_shape)]
        scales = numpy_helper.from_array(np.full(2, 2.0, np.float32), "sc")
        node = helper.make_node("Resize", ["x", "roi", "sc"], ["y"], mode="nearest",
                                coordinate_transformation_mode="tf_crop_and_resize")
        graph = helper.make_graph([node], "g", ins, [helper.make_tensor_value_info(
            "y", TensorProto.FLOAT, None)], [scales])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        contract, typed = _contract(model)
        lengths = itertools.product(range(5), repeat=len(roi_shape))
        for roi, d0, d1 in itertools.product(list(lengths), range(3), range(3)):
            sizes = {"d0": d0, "d1": d1} | dict(zip("op", roi, strict=False))
            count = int(np.prod(roi, dtype=int))
            feeds = {"x": np.ones((d0, d1), np.float32),
                     "roi": np.tile(np.float32([0.0, 1.0]), count)[:count].reshape(roi)}
            seen[_judge(model, contract, typed, feeds, sizes, (roi_shape, roi, d0, d1))] += 1
    assert seen["refused"] >= 50 and seen["valid"] >= 50, seen


@pytest.mark.parametrize("opset", [18, 19])
def test_scales_under_an_aspect_ratio_policy(opset):
    """Resize-18 with scales (constant, computed or a graph input) and a
    keep_aspect_ratio_policy other than stretch: ONNX's inference in onnxruntime refuses
    it at every size ("Providing `scales` is incompatible with a
    `keep_aspect_ratio_policy` other than stretch"); it was typed. kantensor refuses it;
    an empty constant scales beside sizes still runs under the policy."""
    for policy, how in itertools.product(("not_larger", "not_smaller"),
                                         ("const", "computed", "input")):
        model = _model("Resize", opset, 2, scales=(how, (2,) if how == "input" else [2.0, 2.0]))
        model.graph.node[-1].attribute.append(
            helper.make_attribute("keep_aspect_ratio_policy", policy))
        contract, typed = _contract(model)
        assert isinstance(contract, Exception) and "keep_aspect_ratio_policy" in str(contract)
        for point in itertools.product(range(3), repeat=2):
            feeds = {"x": np.ones(point, np.float32)}
            if how == "input":
                feeds["sc"] = np.full(2, 2.0, np.float32)
            sizes = {"d0": point[0], "d1": point[1]}
            assert _judge(model, contract, typed, feeds, sizes, (policy, how)) == "refused"
        model = _model("Resize", opset, 2, scales=("const", np.zeros(0)), sizes=("const", [3, 4]))
        model.graph.node[-1].attribute.append(
            helper.make_attribute("keep_aspect_ratio_policy", policy))
        contract, typed = _contract(model)
        feeds = {"x": np.ones((2, 2), np.float32)}
        assert _judge(model, contract, typed, feeds, {"d0": 2, "d1": 2}, policy) == "valid"
