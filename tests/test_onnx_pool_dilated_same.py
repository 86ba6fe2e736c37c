"""A SAME MaxPool whose kernel is shorter than its stride, dilated on some axis: its
contract holds exactly where onnxruntime runs it, and the sizes it types are
onnxruntime's (judged at every size 0..5 of the spatial axis).

onnxruntime refuses a negative SAME total pad ("padding values must be non-negative")
in its undilated MaxPool kernel only; a dilation on any axis runs the dilated kernel,
which pads every axis as it can (docs/onnx.rst: dilated pools run them). The contract
refused a negative pad on each undilated axis of a dilated pool (``dilations=[1, 2]``,
the pad of axis 0 negative at every even size: onnx_size_chains.py seed 31684). The
width is 1: its pad is 0."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor.onnx as ko
import ortrun
import shapejudge

SIZES = range(6)


def _model(dilations: list[int], auto_pad: str, ceil_mode: int):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, "h", 1])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("MaxPool", ["x"], ["y"], auto_pad=auto_pad, ceil_mode=ceil_mode,
                            dilations=dilations, kernel_shape=[1, 1], strides=[2, 2])
    return helper.make_model(helper.make_graph([node], "pool", [x], [y]),
                             opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("ceil_mode", [0, 1])
@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER"])
@pytest.mark.parametrize("dilations", [[1, 1], [1, 2], [2, 1], [1, 3]], ids=str)
def test_a_dilated_same_pool_holds_where_onnxruntime_runs(dilations, auto_pad, ceil_mode):
    model = _model(dilations, auto_pad, ceil_mode)
    contract = ko.contract(model)
    typed = shapejudge.typed_shapes(ko.infer_shapes(model))["y"]
    ran_somewhere = False
    for h in SIZES:
        got = ortrun.run(model, {"x": np.ones((1, 1, h, 1), np.float32)})
        runs = not isinstance(got, ortrun.Refusal)
        ran_somewhere |= runs
        assert contract.holds(h=h).value is runs, (h, got, contract.holds(h=h))
        if runs:
            said = [shapejudge.kantensor_size(d, {"h": h}) if isinstance(d, str) else d
                    for d in typed]  # (None: a dilated SAME axis, left unknown)
            assert len(said) == len(got[0]) and all(
                d is None or d == n for d, n in zip(said, got[0], strict=True)), (h, typed, got)
    assert ran_somewhere
