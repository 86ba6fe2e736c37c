"""Seeded mutants of exporter-written ops (tests/onnx_attr_mutants.py), every value's
inferred shape judged by onnxruntime at three assignments of the named sizes in which
every name differs (tests/shapejudge.py): none may be wrong.

And the cases the mutants found, judged by onnxruntime on a grid of sizes.
"""

from __future__ import annotations

import random
import warnings
from functools import partial

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
import onnx_attr_mutants as am
import ortrun
import shapejudge as sj
from exported_models import Graph
from kantensor.onnx.math.axis import hardmax_2d, log_softmax_2d, softmax_2d
from kantensor.onnx.tensor.resize import resize
from kantensor.types.symbols import substitute

SEEDS = range(80)


def _holds(contract: kt.Contract, sizes: dict[str, int]) -> bool | None:
    """Whether the contract holds at ``sizes`` (None: undecided, an op or opset kantensor
    does not type)."""
    try:
        return bool(contract.holds(**sizes))
    except TypeError:
        return None


def _keeps(contract: kt.Contract, sizes: dict[str, int]) -> bool:
    return _holds(contract, sizes) is not False


@pytest.mark.parametrize("maker", sorted(am.MAKERS))
def test_no_mutant_value_is_typed_wrong(maker):
    """Where onnxruntime runs a mutant, kantensor's contract does not say it fails, and
    no value is typed wrong; where it refuses a mutant at every size tried, the contract
    does not say it holds at any of them. A window with no position, or one onnxruntime reaches
    only by truncating a negative quotient, kantensor refuses (docs/contracts.rst):
    windows are judged at sizes where its contract holds."""
    judged = 0
    for seed in SEEDS:
        rng = random.Random(seed)
        model, candidates = am.MAKERS[maker](rng)
        try:
            contract = ko.contract(model)
        except (kt.TypeInferenceError, ValueError):  # refused at every size: by onnxruntime too
            assert am.accepted(model, candidates, rng, want=1) == [], (maker, seed)
            continue
        keep = partial(_keeps, contract) if maker.startswith("windows") else None
        refused: list[dict[str, int]] = []
        sizes = am.accepted(model, candidates, rng, keep=keep, refused=refused)
        if not sizes:  # onnxruntime refuses the mutant at every size tried: so does kantensor
            assert all(_holds(contract, s) is not True for s in refused), (
                maker, seed, refused, str(contract))
        if len(sizes) < 3:  # onnxruntime refuses the mutant at most sizes
            continue
        assert all(_holds(contract, s) is not False for s in sizes), (maker, seed, sizes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            typed = ko.infer_shapes(model)
        judgement = sj.judge(typed, sj.runtime_shapes(model, sizes), sizes)
        assert judgement.of(sj.WRONG) == {}, (maker, seed, sizes)
        judged += 1
    assert judged >= len(SEEDS) // 2, (maker, judged)


def _pool(op: str, kernel: int, stride: int, opset: int = 17, **attrs):
    node = helper.make_node(op, ["x"], ["y"], kernel_shape=[kernel], strides=[stride],
                            **attrs)
    graph = helper.make_graph([node], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                             [1, 1, "N"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("op", ["MaxPool", "AveragePool"])
@pytest.mark.parametrize("kernel,stride", [(3, 3), (3, 2), (2, 3), (3, 1), (1, 2)])
def test_a_valid_pool_in_ceil_mode_is_onnxruntimes(op, kernel, stride):
    """auto_pad VALID with ceil_mode 1: onnxruntime (and onnx's inference) round the
    windows' count up, as with zero pads; kantensor rounded down (ceil_mode ignored):
    N=4, kernel 3, stride 3 ran 2 positions, typed 1, and N=1 ran 1, refused. (Where
    onnxruntime gives no position, an empty output, kantensor refuses the window, as
    it does with pads.)"""
    model = _pool(op, kernel, stride, auto_pad="VALID", ceil_mode=1)
    dim = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim[2]
    size = ko.contract(model)
    typed = dim.dim_value if dim.HasField("dim_value") else (
        kt.TensorType.parse(f"float32[{dim.dim_param}]").shape[0] if dim.dim_param
        else None)
    for n in range(0, 11):
        out = ortrun.run(model, {"x": np.zeros((1, 1, n), np.float32)})
        runs = isinstance(out, list)
        # a window with no position (onnxruntime's empty output) kantensor refuses
        assert size.holds(N=n) == (runs and out[0][2] >= 1), (n, str(size), out)
        if runs and size.holds(N=n):
            assert typed is not None and substitute(typed, {"N": n}) == out[0][2], (
                n, typed, out)


def _sliced(start: int, end: int, step: int):
    node = helper.make_node("Slice", ["x", "s", "e", "a", "k"], ["y"])
    inits = [helper.make_tensor(name, TensorProto.INT64, [1], [v])
             for name, v in (("s", start), ("e", end), ("a", 0), ("k", step))]
    graph = helper.make_graph([node], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


NEGATIVE_WALKS = [(s, e, k) for s in (-2, -3, -5, -(2**63))
                  for e in (-9, -4, -3, -1, 0, 2, -(2**31), -(2**63)) for k in (-1, -2, -3)]


@pytest.mark.parametrize("start,end,step", NEGATIVE_WALKS)
def test_a_negative_walk_from_before_the_axis_is_onnxruntimes(start, end, step):
    """A negative step from a start below -N starts at index 0 (Python takes nothing):
    x[-2::-1] over N=1 is one element. The length over a named N was left unknown; it is
    Python's plus that element where 1 <= N < -start and the end is before index 0."""
    model = _sliced(start, end, step)
    dim = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim[0]
    assert dim.HasField("dim_param") or dim.HasField("dim_value"), (start, end, step)
    typed = dim.dim_value if dim.HasField("dim_value") else \
        kt.TensorType.parse(f"float32[{dim.dim_param}]").shape[0]
    for n in range(0, 9):
        out = ortrun.run(model, {"x": np.zeros((n,), np.float32)})
        assert isinstance(out, list), (n, out)
        got = typed if isinstance(typed, int) else substitute(typed, {"N": n})
        assert got == out[0][0], (start, end, step, n, str(typed), out)


@pytest.mark.parametrize("op,ceil_mode", [("MaxPool", 0), ("MaxPool", 1), ("AveragePool", 0)])
@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER"])
@pytest.mark.parametrize("dilation,stride", [(2, 1), (3, 1), (2, 2), (3, 2)])
def test_a_same_pool_with_dilations_is_not_typed_against_onnxruntime(op, ceil_mode, auto_pad,
                                                                     dilation, stride):
    """A pool padded SAME with dilations: onnxruntime pads as if undilated (kernel 3,
    dilation 3, stride 1 over N=9 ran 5 positions) where the spec and onnx.reference
    give ceil(N / stride) (9): kantensor typed the spec's size; a size typed must be
    onnxruntime's where it runs, so it is left unknown."""
    model = _pool(op, 3, stride, 19, auto_pad=auto_pad, dilations=[dilation],
                  **({"ceil_mode": 1} if ceil_mode else {}))
    dim = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim[2]
    typed = dim.dim_value if dim.HasField("dim_value") else (
        kt.TensorType.parse(f"float32[{dim.dim_param}]").shape[0] if dim.dim_param
        else None)
    runs = 0
    for n in range(1, 13):
        out = ortrun.run(model, {"x": np.zeros((1, 1, n), np.float32)})
        runs += isinstance(out, list)
        if isinstance(out, list) and typed is not None:
            assert substitute(typed, {"N": n}) == out[0][2], (n, typed, out)
    assert runs >= 6


def _opset_11(op: str, shape: list, outputs: int = 1, weight: tuple | None = None,
              ints: tuple = (), opset: int = 11, **attrs):
    """``op`` of ``x: float[shape]`` (and a weight, or int64 constants ``ints``)."""
    g = Graph()
    inputs = ["x", g.weight(*weight)] if weight else ["x", *(g.const(v) for v in ints)]
    ys = g.op(op, *inputs, outputs=outputs, **attrs)
    model = g.model([helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                    ys if isinstance(ys, list) else [ys], opset)
    return model


def _resize_11(scales: list | None = None, sizes: list | None = None, x: list | None = None,
               **attrs):
    """Resize at opset 11 as exporters write it: roi and scales always given (empty
    where unused), sizes where the scales are empty."""
    g = Graph()
    empty = g.const(np.zeros(0), np.float32)
    inputs = ["x", empty, g.const(scales, np.float32) if scales else empty]
    if sizes:
        inputs.append(g.const(sizes))
    y = g.op("Resize", *inputs, **attrs)
    return g.model([helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                  x or [1, 3, "h", "w"])], [y], 11)


#: Split with its sizes an attribute (opsets 11 and 12; an input from 13), ConvTranspose
#: and Cast at opsets 11 and 12, Softmax, LogSoftmax and Hardmax at opsets 11 and 12
#: (over the axes from ``axis`` on, flattened), ArgMax and ArgMin at 11 (no
#: select_last_index), Resize at opset 11, Slice and TopK at opset 10, as such exports
#: write them: left untyped
OPSET_11 = {
    "Split by sizes": lambda: _opset_11("Split", ["n", "d"], 2, axis=-1, split=[1, 2]),
    "Split in equal parts": lambda: _opset_11("Split", ["n", "d"], 2, axis=0),
    "ConvTranspose": lambda: _opset_11("ConvTranspose", ["n", 2, "h", "w"], weight=(2, 3, 3, 3),
                                       strides=[2, 2], pads=[1, 1, 1, 1],
                                       output_padding=[1, 0]),
    **{op: (lambda op=op: _opset_11(op, ["n", 3, "d"])) for op in
       ("Softmax", "LogSoftmax", "Hardmax")},
    "Cast": lambda: _opset_11("Cast", ["n", 3, "d"], to=TensorProto.INT64),
    "ArgMax": lambda: _opset_11("ArgMax", ["n", 3, "d"], axis=-1, keepdims=0),
    "ArgMin": lambda: _opset_11("ArgMin", ["n", 3, "d"], axis=1),
    "Slice at opset 10": lambda: _opset_11("Slice", ["n", 3, "d"], ints=([1, -1], [-1, 0],
                                                                         [0, 2], [1, -1]),
                                           opset=10),
    "TopK at opset 10": lambda: _opset_11("TopK", ["n", 3, "d"], 2, ints=([2],), axis=1,
                                          opset=10),
    "Resize by scales": lambda: _resize_11(scales=[1.0, 1.0, 2.0, 0.5]),
    "Resize to sizes": lambda: _resize_11(sizes=[1, 3, 7, 9]),
}
OPSET_11_SIZES = {"Split by sizes": [{"n": 1, "d": 3}, {"n": 2, "d": 3}, {"n": 5, "d": 3}],
                  "Split in equal parts": [{"n": 2, "d": 1}, {"n": 6, "d": 4}, {"n": 10, "d": 7}],
                  "ConvTranspose": [{"n": 1, "h": 1, "w": 4}, {"n": 2, "h": 5, "w": 2},
                                    {"n": 3, "h": 8, "w": 9}],
                  **{op: [{"n": 1, "d": 2}, {"n": 2, "d": 1}, {"n": 3, "d": 5}] for op in
                     ("Softmax", "LogSoftmax", "Hardmax", "Cast", "ArgMax", "ArgMin",
                      "Slice at opset 10", "TopK at opset 10")},
                  **{case: [{"h": 2, "w": 3}, {"h": 5, "w": 1}, {"h": 9, "w": 4}] for case in
                     ("Resize by scales", "Resize to sizes")}}


@pytest.mark.parametrize("case", OPSET_11)
def test_an_opset_11_op_is_typed_as_onnxruntime_runs_it(case):
    model = OPSET_11[case]()
    sizes = OPSET_11_SIZES[case]
    judgement = sj.judge(ko.infer_shapes(model), sj.runtime_shapes(model, sizes), sizes)
    assert set(judgement.verdicts.values()) == {sj.EXACT}, judgement.verdicts


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_an_opset_11_softmax_computes_onnxruntimes_values(op, axis):
    """Its implementation (a model's constants fold through it) flattens the axes from
    ``axis`` on, as onnxruntime does at opset 11."""
    model = _opset_11(op, [2, 3, 4], axis=axis)
    x = np.random.default_rng(axis + 5).standard_normal((2, 3, 4)).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"x": x})
    impl = {"Softmax": softmax_2d, "LogSoftmax": log_softmax_2d, "Hardmax": hardmax_2d}[op]
    np.testing.assert_allclose(impl(x, axis=axis), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_an_opset_11_resize_computes_onnxruntimes_values(mode):
    """Its implementation (constants fold through it) in tf_half_pixel_for_nn, the
    coordinates of opsets 11 and 12 only: ``(x + 0.5) / scale``."""
    model = _resize_11(scales=[1.0, 1.0, 2.0, 0.75], x=[1, 2, 4, 5], mode=mode,
                       coordinate_transformation_mode="tf_half_pixel_for_nn")
    x = np.random.default_rng(3).standard_normal((1, 2, 4, 5)).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"x": x})
    got = resize(x, np.zeros(0, np.float32), np.array([1.0, 1.0, 2.0, 0.75], np.float32),
                 given=(0, 1, 2), mode=mode,
                 coordinate_transformation_mode="tf_half_pixel_for_nn")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
