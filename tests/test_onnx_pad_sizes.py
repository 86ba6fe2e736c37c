"""ONNX Pad over a named size: where the build's conditions hold, onnxruntime runs it and
gives the typed size; where they fail, onnxruntime refuses. Negative pads crop, so the
size left must be >= 0; outside constant mode a positive pad copies the cropped axis, so
it must hold a value (onnxruntime: "Cannot use 'edge' mode to pad dimension with a value
of 0"); reflect mode reflects once (each pad less than the cropped axis) and onnxruntime's
wrap mode refuses an empty input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from kantensor.onnx import from_onnx
from kantensor.types.symbols import substitute
from ortrun import Refusal, run


def pad_model(pads: list[int], mode: str):
    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)
    graph = helper.make_graph(
        [node], "pad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(pads, np.int64), "pads")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize(("pads", "mode"), list(itertools.product(
    [[1, 2], [0, 0], [-1, 0], [-1, -1], [0, 3], [-1, 2]],
    ["constant", "edge", "reflect", "wrap"])))
def test_pad_conditions_are_where_onnxruntime_runs(pads, mode):
    model = pad_model(pads, mode)
    _, [y] = from_onnx(model)
    conditions = y.owner.conditions
    for n in range(5):
        holds = all(c.holds({"n": n}) for c in conditions)
        got = run(model, {"x": np.ones(n, np.float32)})
        if holds:
            assert not isinstance(got, Refusal), (n, [str(c) for c in conditions], got)
            assert got == [(substitute(y.type.shape[0], {"n": n}),)], (n, got)
        else:
            assert isinstance(got, Refusal), (n, [str(c) for c in conditions], got)
