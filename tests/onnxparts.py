"""Small ONNX pieces that several tests build models from: an int64 initializer, and the
body of a Loop that ends early where its counter reaches an input ``kk`` (one float a
run as its scan output), so that its iteration count is a size the data decide."""

from __future__ import annotations

import numpy as np
from onnx import GraphProto, TensorProto, helper, numpy_helper


def i64(name: str, value: object) -> TensorProto:
    """An int64 initializer ``name`` holding ``value`` (a scalar or a list)."""
    return numpy_helper.from_array(np.array(value, np.int64), name)


def early_exit_body() -> GraphProto:
    """A Loop body ``(i, c_in) -> (c_out = i < kk, f = 1.0)``: the loop goes on while
    the counter is below the outer value ``kk``, and scans one float a run."""
    return helper.make_graph(
        [helper.make_node("Less", ["i", "kk"], ["c_out"]),
         helper.make_node("Constant", [], ["f"],
                          value=numpy_helper.from_array(np.array(1.0, np.float32), "v"))],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("c_in", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("f", TensorProto.FLOAT, [])])
