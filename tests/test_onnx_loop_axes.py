"""A Squeeze, or a reduction without keepdims, whose one axis is a Loop's iteration number
(``Squeeze(x, Unsqueeze(i))``): onnxruntime runs it (each iteration removes another axis,
which must be 1 for a Squeeze); kantensor refused the node ("axes must be constant
integers ..."), leaving the Loop untyped. ``infer_shapes`` types it now (and a Squeeze's
``from_onnx`` and ``contract`` too, where the body runs as a function that sees the
number unknown): one axis fewer,
each size the input's there where it and the next one are the same size (whichever axis
goes), else unknown; a Squeeze needs its axis to be 1, a condition the Loop checks at each
iteration. Judged by onnxruntime (tests/ortrun.py) at every size in 0..2.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.onnx.importer import read_types
from kantensor.types.dim import Dim
from kantensor.types.symbols import substitute
from test_onnx_shape_differential import check

F, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _loop(op: str, trips: int, names: str, **attrs):
    """``ys = Loop(trips) { y = op(x, [i]) }`` over ``x: float[names]``, ``ys`` stacking
    the ``y`` of each iteration (onnxruntime refuses where they differ in shape)."""
    body = helper.make_graph(
        [helper.make_node("Unsqueeze", ["i", "zero1"], ["ax"]),
         helper.make_node(op, ["x", "ax"], ["y"], **attrs),
         helper.make_node("Identity", ["c"], ["c_out"])], "body",
        [helper.make_tensor_value_info("i", I64, []),
         helper.make_tensor_value_info("c", BOOL, [])],
        [helper.make_tensor_value_info("c_out", BOOL, []),
         helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(np.array([0], np.int64), "zero1")])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["m", "cond"], ["ys"], body=body)], "g",
        [helper.make_tensor_value_info("x", F, list(names))],
        [helper.make_tensor_value_info("ys", F, None)],
        [numpy_helper.from_array(np.array(trips, np.int64), "m"),
         numpy_helper.from_array(np.array(True), "cond")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


CASES = [(op, attrs, trips, names)
         for op, attrs in (("Squeeze", {}), ("ReduceSum", {"keepdims": 0}),
                           ("ReduceMax", {"keepdims": 0}))
         for trips, names in ((1, "NS"), (2, "NSD"), (3, "NSD"), (3, "NNN"))]


@pytest.mark.parametrize(("op", "attrs", "trips", "names"), CASES)
def test_an_axis_that_is_the_iteration_number_types_the_loop(op, attrs, trips, names):
    model = _loop(op, trips, names, **attrs)
    reader = read_types(model)
    assert "ys" not in reader.untyped, reader.untyped.get("ys")
    shape = reader.types["ys"].shape
    assert len(shape) == len(names) and shape[0] == trips
    symbols = sorted(set(names))
    ran_somewhere = False
    for sizes in itertools.product(range(3), repeat=len(symbols)):
        at = dict(zip(symbols, sizes, strict=True))
        ran = ortrun.run(model, {"x": np.zeros([at[n] for n in names], np.float32)})
        if isinstance(ran, ortrun.Refusal):
            continue
        ran_somewhere = True
        stated = [substitute(d, at) if isinstance(d, Dim) else d for d in shape]
        assert all(s is None or s == r for s, r in zip(stated, ran[0], strict=True)), (
            at, shape, ran)
    assert ran_somewhere


def test_a_squeeze_of_an_axis_of_equal_sizes_keeps_them_and_needs_them_1():
    """Every axis of ``x[N, N, N]`` is N, so whichever the iteration removes, the others
    are N; each must be 1 where it goes, so N == 1 (onnxruntime refuses at N = 2)."""
    reader = read_types(_loop("Squeeze", 3, "NNN"))
    assert str(reader.types["ys"]) == "float32[3,1,1]"
    assert "N == 1" in " ".join(map(str, reader.conditions)) or \
        reader.facts.decide((Dim("N"), "==", 1)) is True
    assert ortrun.run(_loop("Squeeze", 3, "NNN"), {"x": np.zeros((1, 1, 1), np.float32)}) \
        == [(3, 1, 1)]
    assert isinstance(ortrun.run(_loop("Squeeze", 3, "NNN"), {
        "x": np.zeros((2, 2, 2), np.float32)}), ortrun.Refusal)
    out = ko.infer_shapes(_loop("ReduceSum", 3, "NSD", keepdims=0)).graph.output[0]
    assert len(out.type.tensor_type.shape.dim) == 3


def _computed_axis(op: str, shift: int, **attrs):
    """``op(x, [N - shift])`` over ``x: float[N, S, D]``: one axis computed from a size."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "z"], ["n"]),
             helper.make_node("Sub", ["n", "k"], ["e"]),
             helper.make_node("Unsqueeze", ["e", "z1"], ["ax"]),
             helper.make_node(op, ["x", "ax"], ["y"], **attrs)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, list("NSD"))],
                              [helper.make_tensor_value_info("y", F, None)],
                              [numpy_helper.from_array(np.array(0, np.int64), "z"),
                               numpy_helper.from_array(np.array([0], np.int64), "z1"),
                               numpy_helper.from_array(np.array(shift, np.int64), "k")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("shift", [0, 1, 3])
@pytest.mark.parametrize(("op", "attrs"), [("ReduceSum", {"keepdims": 0}), ("Squeeze", {}),
                                           ("ReduceSum", {"keepdims": 1})])
def test_one_axis_computed_from_a_size_is_typed_and_its_contract_holds(op, attrs, shift):
    """The same by one axis computed from a size in the main graph (``N - shift``): typed
    (it was refused; with keepdims the whole model was, 'takes 2 inputs, got 3': the
    axis's size input was not in the signature), and its contract agrees with
    onnxruntime at every size in 0..4 x 0..2 x 0..2: the axis in range (``-3 <= N -
    shift < 3``), a Squeeze's axis 1."""
    stats: dict[str, int] = {}
    problems: list[str] = []
    points = [dict(zip("NSD", p, strict=True))
              for p in itertools.product(range(5), range(3), range(3))]
    check(_computed_axis(op, shift, **attrs), list("NSD"), points, stats, problems)
    assert not problems, problems[:3]
    assert stats.get("contract agreed", 0) >= 18 and stats.get("onnxruntime ran", 0), stats


@pytest.mark.parametrize(("trips", "names"), [(1, "NS"), (2, "NSD"), (3, "NSD"), (3, "NNN")])
def test_from_onnx_and_contract_type_a_squeeze_by_the_iteration_number(trips, names):
    """``from_onnx`` and ``contract`` refused the Loop ('axes must be constant integers'):
    the function its body runs as sees the iteration number unknown. One axis of unknown
    value is one axis fewer; the contract (the body's conditions, typed with the number a
    symbol) agrees with onnxruntime at every size in 0..2, and the graph runs as
    onnxruntime does where it is valid."""
    model = _loop("Squeeze", trips, names)
    symbols = sorted(set(names))
    points = [dict(zip(symbols, p, strict=True))
              for p in itertools.product(range(3), repeat=len(symbols))]
    stats: dict[str, int] = {}
    problems: list[str] = []
    check(model, names, points, stats, problems)
    assert not problems, problems[:3]
    assert stats.get("contract agreed", 0) == len(points), stats
    assert stats.get("onnxruntime ran", 0) >= 1, stats
    inputs, outputs = ko.from_onnx(model)
    run = kt.function(inputs, outputs)
    ones = [1 if n in names[:trips] else 2 for n in names]
    x = np.zeros([ones[names.index(n)] for n in names], np.float32)
    assert run(x)[0].shape == ortrun.run(model, {"x": x})[0]


def test_a_squeeze_by_one_axis_of_unknown_value_is_one_axis_fewer():
    """``Squeeze(x[N, S, D], [int32(N) - 1])`` (a size cast to int32 and back is not
    folded): one axis fewer, sizes unknown; the contract is undecided, in a note naming
    the node (what it needs is checked when the model runs)."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "z"], ["n"]),
             helper.make_node("Cast", ["n"], ["n32"], to=TensorProto.INT32),
             helper.make_node("Cast", ["n32"], ["e"], to=I64),
             helper.make_node("Sub", ["e", "one"], ["e1"]),
             helper.make_node("Unsqueeze", ["e1", "z1"], ["ax"]),
             helper.make_node("Squeeze", ["x", "ax"], ["y"], name="squeeze_y")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, list("NSD"))],
                              [helper.make_tensor_value_info("y", F, None)],
                              [numpy_helper.from_array(np.array(0, np.int64), "z"),
                               numpy_helper.from_array(np.array([0], np.int64), "z1"),
                               numpy_helper.from_array(np.array(1, np.int64), "one")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    assert str(ko.from_onnx(model)[1][0].type) == "float32[?,?]"
    assert any("'squeeze_y' (Squeeze)" in note for note in ko.contract(model).notes)
    stats: dict[str, int] = {}
    problems: list[str] = []
    points = [dict(zip("NSD", p, strict=True)) for p in itertools.product(range(4), range(3),
                                                                          range(2))]
    check(model, list("NSD"), points, stats, problems)
    assert not problems, problems[:3]
    assert stats.get("onnxruntime ran", 0) >= 1 and stats.get("onnxruntime refused", 0), stats
