"""benchmarks/export_contracts.py's onnxruntime runner speaks tests/ortrun's worker
protocol: a run answers the outputs' shapes, a refusal onnxruntime's error (when the
request's layout drifted from the worker's, every point read as a crash)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from export_contracts import Runner  # noqa: E402


def _model(path: Path) -> str:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]),
                               helper.make_node("MatMul", ["y", "x"], ["w"])],
                              "g", [x], [y, w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)
    return str(path)


def test_the_runner_answers_shapes_and_refusals(tmp_path):
    path = _model(tmp_path / "m.onnx")
    runner = Runner(3000, 120)
    try:
        x = np.ones((3, 3), np.float32)
        assert runner.run(path, {"x": x}) == [x.shape, (x @ x).shape]
        refused = runner.run(path, {"x": np.ones((2, 3), np.float32)})
        assert isinstance(refused, str) and not refused.startswith("crash"), refused
    finally:
        runner.stop()
