"""NonMaxSuppression selects at most every box of every batch and class: its count, a
size the data decide, is at most ``b*c*n`` (a fact for the nodes after it, stated by its
relation). So a detector that gathers its boxes by the selected indices (SSDlite's
dynamo export: ``boxes[nms[:, 2]]``) needs no box to exist where it selects some, and
its contract is exact; main left ``N >= 1 or nms == 0`` to the run. Judged by
onnxruntime: the bound holds at every size (and is reached with no threshold), and the
model runs at every ``N`` the contract calls valid."""

from __future__ import annotations

import itertools

import numpy as np
from onnx import TensorProto, helper

import kantensor.onnx as ko
import ortrun
from differential import count
from onnxparts import i64


def _nms(shape_b: list, shape_s: list, gather: bool = False):
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "most"], ["sel"],
                              name="nms")]
    if gather:  # (boxes [1, N, 4] of one class: gather the selected ones' rows)
        nodes += [helper.make_node("Gather", ["sel", "two"], ["idx"], axis=1),
                  helper.make_node("Squeeze", ["boxes", "zero"], ["rows"]),
                  helper.make_node("Gather", ["rows", "idx"], ["kept"], axis=0,
                                   name="pick")]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, shape_b),
                     helper.make_tensor_value_info("scores", TensorProto.FLOAT, shape_s)],
        [helper.make_tensor_value_info("kept" if gather else "sel", TensorProto.FLOAT
                                       if gather else TensorProto.INT64, None)],
        [i64("most", [1000]), i64("two", 2), i64("zero", [0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_the_selected_count_is_at_most_every_box_of_every_class():
    """onnxruntime's count is at most b*c*n at every size 0..3, and b*c*n where no box
    overlaps another (the bound is reached: no tighter one is true)."""
    model = _nms(["b", "n", 4], ["b", "c", "n"])
    rng = np.random.default_rng(0)
    for b, c, n in itertools.product(range(4), repeat=3):
        corner = np.arange(n, dtype=np.float32)[None, :, None] * 10  # (apart: no overlap)
        boxes = np.concatenate([corner, corner, corner + 1, corner + 1], axis=2)
        boxes = np.broadcast_to(boxes, (b, n, 4)).copy()
        got = ortrun.run(model, {"boxes": boxes, "scores": rng.random((b, c, n),
                                                                      np.float32)})
        count("nms count: onnxruntime runs judged")
        assert isinstance(got, list) and got[0] == (b * c * n, 3), (b, c, n, got)
    contract = ko.contract(model)
    assert contract.exact and not contract.atoms, str(contract)


def test_gathering_the_selected_boxes_needs_nothing_of_n():
    """``rows[nms[:, 2]]``: where NMS selects a box there is one, so the Gather's
    ``N >= 1 or nms == 0`` holds by the fact ``nms <= N``: every N is valid, and
    onnxruntime runs every N from 0 (main: approximate, a check left to the run)."""
    model = _nms([1, "N", 4], [1, 1, "N"], gather=True)
    contract = ko.contract(model)
    assert contract.exact and not contract.atoms, str(contract)
    for n in range(5):
        boxes = np.zeros((1, n, 4), np.float32)
        boxes[..., 2:] = 1
        got = ortrun.run(model, {"boxes": boxes, "scores": np.ones((1, 1, n), np.float32)})
        count("nms count: onnxruntime runs judged")
        assert contract.holds(N=n).value is True and isinstance(got, list), (n, got)
