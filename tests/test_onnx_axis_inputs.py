"""CumSum and CumProd take their axis as an input: it must be one of the input's axes.
main read no value of it, so a model with an axis out of range was "valid at every size"
where onnxruntime refuses every run with data (onnx.reference refuses every run, and
onnxruntime runs an empty input without checking the axis: a point is valid where both
run it, as docs/contracts.rst says). A known axis is checked when the model is read; a
Loop's iteration number as the axis is a condition at every iteration. Judged by
onnxruntime and onnx.reference.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import kantensor.onnx as ko
import ortrun
from kantensor.ops.params import AxisError, ParamError
from kantensor.syntax.errors import TypeInferenceError
from test_onnx_loops import AXES, I64, B, F, graph, model, node, size_of, t, untyped


def _runs(model_, feeds) -> bool:
    """Whether onnxruntime and onnx.reference both run the model on ``feeds``."""
    if isinstance(ortrun.run(model_, feeds), ortrun.Refusal):
        return False
    try:
        ReferenceEvaluator(model_).run(None, feeds)
    except Exception:  # (numpy's AxisError and the like: the spec refuses)
        return False
    return True


#: the opset each op is read at (CumProd is new in opset 26)
_OPSET = {"CumSum": 17, "CumProd": 26}


def _along(op: str, axis: int):
    graph_ = helper.make_graph(
        [helper.make_node(op, ["x", "axis"], ["y"], name="acc")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "m"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(axis, np.int64), "axis")])
    return helper.make_model(graph_, opset_imports=[helper.make_opsetid("", _OPSET[op])])


@pytest.mark.parametrize(("op", "axis"), list(itertools.product(["CumSum", "CumProd"],
                                                                [1, -2, 2, -3, 5])))
def test_a_known_axis_is_one_of_the_inputs_axes(op, axis):
    model_ = _along(op, axis)
    fits = -2 <= axis <= 1
    runs = [_runs(model_, {"x": np.ones(shape, np.float32)})
            for shape in ((2, 3), (0, 3), (1, 0))]
    assert runs == [fits] * 3
    if fits:
        _, (y,) = ko.from_onnx(model_)
        assert str(y.type) == "float32[n,m]" and ko.contract(model_).exact
    else:
        with pytest.raises(AxisError, match=f"node 'acc' .*axis {axis} is out of bounds"):
            ko.from_onnx(model_)


def test_the_iteration_number_as_the_axis_is_a_condition_at_every_iteration():
    """``CumSum(x, i)`` over ``x: [n, d]`` at each of ``m`` iterations needs ``i <= 1``:
    ``m <= 2`` (main: valid at every count). (onnx.reference cannot run a Loop of no
    iteration with a scan output, "need at least one array to concatenate", where
    onnxruntime stacks nothing: it judges only the runs of one iteration or more.)"""
    body = graph([node("CumSum", ["x", "i"], ["r"]),
                  node("ReduceSum", ["r"], ["row"], keepdims=0),
                  node("Identity", ["c_in"], ["c_out"])],
                 [t("i", I64, []), t("c_in", B, [])], [*untyped("c_out"), t("row", F, [])],
                 "body")
    loop = model(graph([*size_of("a", 0, "m"), node("Loop", ["m", "true"], ["rows"],
                                                     body=body, name="walk")],
                       [t("x", F, ["n", "d"]), t("a", F, ["m"])], untyped("rows"),
                       inits=AXES))
    contract = ko.contract(loop)
    assert [str(a.clause) for a in contract.atoms] == ["m == 0 or m - 1 <= 1"]
    assert contract.exact
    for n, d, m in itertools.product((0, 2), (1, 3), range(5)):
        feeds = {"x": np.ones((n, d), np.float32), "a": np.zeros(m, np.float32)}
        runs = _runs(loop, feeds) if m else isinstance(ortrun.run(loop, feeds), list)
        assert contract.holds(n=n, d=d, m=m).value is runs, (n, d, m)


@pytest.mark.parametrize(("axis", "fits"), [([1], True), ([0, 0], False), ([[1]], False)])
def test_the_axis_is_a_scalar_or_one_entry(axis, fits):
    """onnxruntime takes the axis as a scalar or a tensor of one entry (the spec says a
    scalar: onnx.reference refuses ``[1]``) and refuses any other (``[0, 0]``,
    ``[[1]]``), where every shape was read as an axis "valid at every size"."""
    model_ = _along("CumSum", axis)
    runs = [not isinstance(ortrun.run(model_, {"x": np.ones(shape, np.float32)}),
                           ortrun.Refusal) for shape in ((2, 3), (1, 2))]
    assert runs == [fits] * 2
    if fits:
        assert ko.contract(model_).holds(n=2, m=3).value is True
    else:
        with pytest.raises((TypeInferenceError, ParamError), match="node 'acc'"):
            ko.contract(model_)


@pytest.mark.parametrize(("op", "opset"), [("ReduceSum", 13), ("ReduceMax", 18),
                                           ("ReduceMean", 18)])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("known", [False, True])
def test_reduce_axes_of_rank_0_are_refused_as_onnxruntime_refuses_them(op, opset, keepdims,
                                                                        known):
    """``ReduceX(x[n, m], axes)`` with ``axes`` of rank 0: onnxruntime refuses every run
    ('An axes tensor must be a vector tensor'), data or initializer, at every size.
    Without keepdims, axes that are data left the node untyped (the contract approximate,
    undecided at every size); now the model is refused, as with keepdims."""
    inits = [numpy_helper.from_array(np.array(1, np.int64), "a")] if known else []
    inputs = [helper.make_tensor_value_info("x", F, ["n", "m"])] + (
        [] if known else [helper.make_tensor_value_info("a", I64, [])])
    model_ = helper.make_model(helper.make_graph(
        [helper.make_node(op, ["x", "a"], ["y"], keepdims=keepdims)], "g", inputs,
        [helper.make_tensor_value_info("y", F, None)], inits),
        opset_imports=[helper.make_opsetid("", opset)])
    model_.ir_version = 8
    with pytest.raises(ParamError, match="axes must have 1 axis, got 0"):
        ko.from_onnx(model_)
    for n, m in itertools.product(range(3), repeat=2):
        for v in ([None] if known else range(-2, 2)):
            feeds = {"x": np.zeros((n, m), np.float32)}
            feeds.update({} if known else {"a": np.array(v, np.int64)})
            assert isinstance(ortrun.run(model_, feeds), ortrun.Refusal), (n, m, v)
