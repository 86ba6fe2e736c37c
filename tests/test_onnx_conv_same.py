"""Conv padded SAME_UPPER or SAME_LOWER, dilated or not: kantensor's contract holds
exactly at the sizes onnxruntime runs the node at (it refuses every dilated one, "Dilation
not supported for AutoPadType::SAME_UPPER or AutoPadType::SAME_LOWER", where the spec
computes it: kantensor leaves that node untyped, its contract undecided), and the typed
size there is onnxruntime's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.types.symbols import substitute


def _conv(auto_pad: str, kernel: int, dilation: int, stride: int):
    w = numpy_helper.from_array(np.ones((1, 1, kernel), np.float32), "w")
    node = helper.make_node("Conv", ["x", "w"], ["y"], kernel_shape=[kernel],
                            dilations=[dilation], strides=[stride], auto_pad=auto_pad)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, "N"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _holds(contract: kt.Contract, n: int) -> bool | None:
    try:
        return bool(contract.holds(N=n))
    except TypeError:  # undecided
        return None


@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER"])
@pytest.mark.parametrize("kernel,dilation,stride",
                         [(3, 3, 1), (3, 3, 2), (2, 2, 1), (3, 2, 3), (2, 3, 2), (3, 1, 2),
                          (2, 1, 1)])
def test_valid_exactly_where_onnxruntime_runs(auto_pad, kernel, dilation, stride):
    model = _conv(auto_pad, kernel, dilation, stride)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contract = ko.contract(model)
        dim = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    typed = None
    if len(dim) == 3:
        d = dim[2]
        typed = d.dim_value if d.HasField("dim_value") else (
            kt.TensorType.parse(f"float32[{d.dim_param}]").shape[0] if d.dim_param else None)
    for n in range(0, 12):
        out = ortrun.run(model, {"x": np.zeros((1, 1, n), np.float32)})
        holds = _holds(contract, n)
        if isinstance(out, ortrun.Refusal):
            assert holds is not True, (n, str(contract))
            continue
        assert holds is True, (n, str(contract), out)
        size = substitute(typed, {"N": n}) if isinstance(typed, kt.Dim) else typed
        assert size is None or size == out[0][2], (n, typed, out)
