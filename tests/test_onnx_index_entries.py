"""Constant indices (GatherND's, ScatterND's, ReverseSequence's lengths, RoiAlign's batch
indices) are read for the conditions their values make up to
:data:`~kantensor.onnx.bounds.MAX_INDEX_ENTRIES` entries; a larger constant is taken as
data, as computed indices are, so that a model file cannot make its reading take time and
memory per entry (hostile input: a 2 GB model holds 250 million int64 indices). Judged by
the contract at the sizes where the indices fit or not, and by the reading's peak memory
against the indices' own bytes."""

from __future__ import annotations

import tracemalloc

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
from kantensor.onnx.bounds import MAX_INDEX_ENTRIES


def _gather_nd(rows: int, value: int):
    indices = np.full((rows, 1), value, np.int64)
    node = helper.make_node("GatherND", ["data", "indices"], ["y"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("data", TensorProto.FLOAT, ["a", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(indices, "indices")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), indices


def test_constant_indices_up_to_the_bound_are_read() -> None:
    model, _ = _gather_nd(MAX_INDEX_ENTRIES, 5)
    contract = ko.contract(model)
    assert contract.holds(a=6).value is True
    assert contract.holds(a=5).value is False  # (index 5 of an axis of 5)


def test_larger_constant_indices_are_taken_as_data_within_their_own_bytes() -> None:
    model, indices = _gather_nd(16 * MAX_INDEX_ENTRIES, 5)
    tracemalloc.start()
    try:
        typed = ko.infer_shapes(model)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    dims = [d.dim_value for d in typed.graph.output[0].type.tensor_type.shape.dim]
    assert dims == [16 * MAX_INDEX_ENTRIES, 3]
    # the data rule: an indexed axis needs an entry, the values are not read
    assert ko.contract(model).holds(a=5).value is True
    assert peak < 4 * indices.nbytes, (peak, indices.nbytes)
