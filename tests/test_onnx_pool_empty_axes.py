"""Pools over an empty spatial axis, judged by onnxruntime (tests/ortwindows.py: a run
counts where onnxruntime runs the node and its window output is ONNX's formula's, not an
empty map; a refusal, a crash, a truncated or an empty window count as invalid).

onnxruntime's pools check ``input.Size() > 0 || N == 0`` ("Only N can be zero"): over an
empty batch they run an empty spatial axis (and no channels) wherever the pads hold a
window, and the global pools run it whatever it is. kantensor refused every empty
spatial axis. Each one-node model has named sizes (n, c, w) and is judged at every
assignment of a small grid (0 and 1 among the sizes): the contract holds exactly where
onnxruntime runs it, and the model at those sizes is typed with onnxruntime's shape.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
import ortwindows

#: Assignments of (n, c, w): an empty batch with every c and w, and non-empty ones.
GRID = [*itertools.product([0], [0, 1, 3], [0, 1, 2, 3]),
        *itertools.product([1, 2], [0, 2], [0, 1, 3])]

POOLS = [("MaxPool", 7), ("MaxPool", 8), ("MaxPool", 10), ("MaxPool", 12), ("MaxPool", 22),
         ("AveragePool", 7), ("AveragePool", 11), ("AveragePool", 19), ("AveragePool", 22),
         ("LpPool", 11), ("LpPool", 18), ("LpPool", 22)]

WINDOWS = [dict(kernel_shape=[1]), dict(kernel_shape=[2]), dict(kernel_shape=[2], pads=[1, 1]),
           dict(kernel_shape=[3], pads=[2, 2]), dict(kernel_shape=[3], pads=[1, 1]),
           dict(kernel_shape=[3], pads=[2, 1], strides=[3]),
           dict(kernel_shape=[2], pads=[1, 1], strides=[2]),
           dict(kernel_shape=[1], auto_pad="SAME_UPPER"), dict(kernel_shape=[2], auto_pad="VALID"),
           dict(kernel_shape=[2], pads=[1, 1], strides=[2], ceil_mode=1),
           dict(kernel_shape=[2], pads=[1, 1], dilations=[2]),
           dict(kernel_shape=[2], pads=[1, 1], dilations=[2], strides=[1])]


def _model(op: str, opset: int, shape: list, **attributes) -> onnx.ModelProto:
    node = helper.make_node(op, ["x"], ["y"], **attributes)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, shape)], [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                                         None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _typed(model: onnx.ModelProto) -> tuple:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = ko.infer_shapes(model)
    dims = typed.graph.output[0].type.tensor_type.shape.dim
    return tuple(d.dim_value if d.HasField("dim_value") else None for d in dims)


def _judge(op: str, opset: int, rank: int = 1, **attributes) -> tuple[int, int]:
    """The model of named sizes judged on :data:`GRID` (the other spatial axes, if
    ``rank`` is 2, of size 2): the contract holds exactly where onnxruntime runs it within
    ONNX's rule, and there it is typed with onnxruntime's shape. Returns how many ran and
    how many of those had an empty spatial axis."""
    more = [2] * (rank - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contract = ko.contract(_model(op, opset, ["n", "c", *more, "w"], **attributes))
    ran = empty = 0
    for n, c, w in GRID:
        shape = [n, c, *more, w]
        fixed = _model(op, opset, shape, **attributes)
        run = ortwindows.judge(ortwindows.Watched(fixed), {"x": np.zeros(shape, np.float32)})
        valid = isinstance(run, list)
        assert bool(contract.holds(n=n, c=c, w=w)) is valid, ((n, c, w), run)
        if valid:
            ran, empty = ran + 1, empty + (w == 0)
            assert _typed(fixed) == run[0], ((n, c, w), run[0])
    return ran, empty


def _has(op: str, opset: int, attributes: dict) -> bool:
    """Whether the pool of this opset has these attributes (ceil_mode from MaxPool-10,
    AveragePool-10 and LpPool-18; dilations from MaxPool-10, AveragePool-19, LpPool-18)."""
    since = {"ceil_mode": {"MaxPool": 10, "AveragePool": 10, "LpPool": 18},
             "dilations": {"MaxPool": 10, "AveragePool": 19, "LpPool": 18}}
    return all(opset >= since[a][op] for a in attributes if a in since)


@pytest.mark.parametrize("op, opset, attributes", [
    (op, opset, a) for (op, opset), a in itertools.product(POOLS, WINDOWS) if _has(op, opset, a)])
def test_a_pool_over_an_empty_axis_of_an_empty_batch(op, opset, attributes):
    ran, _ = _judge(op, opset, **attributes)
    assert ran >= 1


@pytest.mark.parametrize("op, opset", POOLS)
def test_pools_whose_pads_hold_a_window_run_an_empty_axis(op, opset):
    """kernel 3, pads (2, 2) fits an empty axis: 2 positions, where the batch is empty."""
    ran, empty = _judge(op, opset, kernel_shape=[3], pads=[2, 2])
    assert empty == 3  # n = 0, c in (0, 1, 3)
    ran, empty = _judge(op, opset, rank=2, kernel_shape=[1, 3], pads=[0, 2, 0, 1])
    assert empty == 3


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
@pytest.mark.parametrize("opset", [1, 21, 22])
@pytest.mark.parametrize("rank", [1, 2])
def test_a_global_pool_over_an_empty_axis_of_an_empty_batch(op, opset, rank):
    ran, empty = _judge(op, opset, rank)
    assert empty == 3


def test_an_empty_axis_of_a_batch_is_still_refused():
    """onnxruntime: "Only N can be zero"; named by the relation."""
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3], pads=[2, 2])
    model = helper.make_model(helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 0])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]),
        opset_imports=[helper.make_opsetid("", 22)])
    with pytest.raises(kt.TypeInferenceError, match="empty"):
        ko.from_onnx(model)


@pytest.mark.parametrize("attributes", WINDOWS)
def test_the_empty_batch_clause_is_listed_only_where_a_window_fits_an_empty_axis(attributes):
    """``w >= min(1, n)`` ("Only N can be zero") is an atom of the contract exactly where
    onnxruntime runs an empty axis of an empty batch (its pads hold a window: there the
    atom refuses ``n >= 1, w == 0``); elsewhere the window's ``out >= 1`` implies
    ``w >= 1`` and the contract listed both (``w >= 2`` beside ``w >= min(1, n)``)."""
    model = _model("MaxPool", 12, ["n", "c", "w"], **attributes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        atoms = [str(a.clause) for a in ko.contract(model).atoms]
    shape = [0, 1, 0]
    run = ortwindows.judge(ortwindows.Watched(_model("MaxPool", 12, shape, **attributes)),
                           {"x": np.zeros(shape, np.float32)})
    assert ("w >= min(1, n)" in atoms) is isinstance(run, list), (atoms, run)


@pytest.mark.parametrize("op", ["AveragePool", "MaxPool"])
@pytest.mark.parametrize("extra", [{}, dict(strides=[2]), dict(dilations=[2])])
def test_pads_not_smaller_than_the_kernel_are_refused_with_ceil_mode(op, extra):
    """onnxruntime refuses a pool whose pads reach its kernel ("Pad should be smaller than
    kernel") at every size, ceil_mode or not: the contract is refused, not ``W >= 1``."""
    attributes = dict(kernel_shape=[1], pads=[0, 1], ceil_mode=1, **extra)
    shape = [1, 1, 3]
    run = ortrun.run(_model(op, 19, shape, **attributes), {"x": np.zeros(shape, np.float32)})
    assert isinstance(run, ortrun.Refusal) and "PoolAttributes" in run.why, run
    with pytest.raises(ValueError, match=r"pads \(0, 1\) must be smaller than kernel_shape"):
        ko.contract(_model(op, 19, ["N", 1, "W"], **attributes))


@pytest.mark.parametrize("op, opset", [("MaxPool", 12), ("AveragePool", 19), ("LpPool", 18)])
@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER"])
def test_a_dilated_same_pool_holds_exactly_where_onnxruntime_runs(op, opset, auto_pad):
    """onnxruntime pads a SAME pool as if undilated (total ``(ceil(w/s) - 1)*s + k - w``)
    and then slides the dilated window: it refuses the output it computes where that is
    negative (``w == 1``, kernel 3, dilation 2); the output size is left unknown."""
    for k, s, d, ceil in itertools.product([2, 3, 4], [1, 2, 3], [2, 3], [0, 1]):
        attributes = dict(kernel_shape=[k], strides=[s], dilations=[d], ceil_mode=ceil,
                          auto_pad=auto_pad)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            contract = ko.contract(_model(op, opset, ["n", 1, "w"], **attributes))
        for n, w in itertools.product(range(3), range(7)):
            run = ortrun.run(_model(op, opset, [n, 1, w], **attributes),
                             {"x": np.zeros((n, 1, w), np.float32)})
            assert bool(contract.holds(n=n, w=w)) is isinstance(run, list), (
                attributes, (n, w), run, contract.dsl())
