"""A subgraph whose node ONNX's shape inference refuses by its attributes or constants
(a Squeeze of axis 5 of a vector, a Transpose's repeated axis, ConstantOfShape of
``[-1]``, Reshape to ``[-1, -1]``...) makes onnxruntime refuse the model when it loads
it, whichever If branch runs and however many iterations a Loop runs: the contract
must never hold. A node whose failure depends on what it runs on (a Split of ``-2``
rows, a TopK of ``-1``, an Expand to ``[-3]``, a Range of step 0) fails only where it
runs: the contract holds where the other branch runs, where the Loop runs no iteration.
Judged by onnxruntime at sizes 0..3."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from kantensor import TypeInferenceError
from onnxparts import i64

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL



def _node(op, inputs, outputs=("t",), **attrs):
    return helper.make_node(op, list(inputs), list(outputs), **attrs)


#: node kind -> (the nodes making ``t`` from ``x: float[N]``, their constants, and
#: whether the constants may stand in the subgraph as a Constant node)
REFUSED_AT_LOAD = {
    "Squeeze axis 5": ([_node("Squeeze", ["x", "k"])], [i64("k", [5])]),
    "Transpose perm [0, 0]": ([_node("Transpose", ["x"], perm=[0, 0])], []),
    "ConstantOfShape [-1]": ([_node("ConstantOfShape", ["k"])], [i64("k", [-1])]),
    "ConstantOfShape of a Constant [-1]": (
        [_node("Constant", [], ["k"], value=i64("v", [-1])), _node("ConstantOfShape", ["k"])],
        []),
    "Concat axis 3": ([_node("Concat", ["x", "x"], axis=3)], []),
    "Gather axis 2": ([_node("Gather", ["x", "k"], axis=2)], [i64("k", [0])]),
    "Reshape [-1, -1]": ([_node("Reshape", ["x", "k"])], [i64("k", [-1, -1])]),
    "Tile [-1]": ([_node("Tile", ["x", "k"])], [i64("k", [-1])]),
    "Unsqueeze [0, 0]": ([_node("Unsqueeze", ["x", "k"])], [i64("k", [0, 0])]),
    "OneHot depth 0": ([_node("OneHot", ["zero", "zero", "v"])],
                       [numpy_helper.from_array(np.array([0, 1], np.float32), "v")]),
}
#: what kantensor says of each (the node's own refusal, as in a main graph)
SAID = {"Squeeze axis 5": "axis 5 is out of bounds for a tensor of dimension 1",
        "Transpose perm [0, 0]": r"perm \(0, 0\) is not a permutation of the 1 axes",
        "ConstantOfShape [-1]": "shape has a negative entry -1",
        "ConstantOfShape of a Constant [-1]": "shape has a negative entry -1",
        "Concat axis 3": "axis 3 is out of bounds for a tensor of dimension 1",
        "Gather axis 2": "axis 2 is out of bounds for a tensor of dimension 1",
        "Reshape [-1, -1]": "shape has more than one -1",
        "Tile [-1]": "repeats has a negative entry -1",
        "Unsqueeze [0, 0]": r"repeated axis in \(0, 0\)",
        "OneHot depth 0": "depth 0 is below 1"}
FAILS_WHERE_RUN = {
    "Split [-2, 2]": ([_node("Split", ["x", "k"], ["t", "u"], axis=0)], [i64("k", [-2, 2])]),
    "TopK -1": ([_node("TopK", ["x", "k"], ["t", "u"])], [i64("k", [-1])]),
    "Expand [-3]": ([_node("Expand", ["x", "k"])], [i64("k", [-3])]),
    "Range step 0": ([_node("Range", ["ra", "rb", "rc"], ["r"]), _node("Cast", ["r"], to=F)],
                     [i64("ra", 0), i64("rb", 3), i64("rc", 0)]),
}


def _model(nodes, inputs, output, constants):
    g = helper.make_graph(
        [_node("Shape", ["x"], ["s"]), _node("Gather", ["s", "zero"], ["n"], axis=0),
         *nodes], "g", [helper.make_tensor_value_info("x", F, ["N"])], [output],
        [i64("zero", 0), i64("two", 2), numpy_helper.from_array(np.array(True), "true"),
         *constants])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def if_model(kind: dict, name: str):
    """If(N > 2): the then branch is the node, the else branch x."""
    nodes, constants = kind[name]
    branch = lambda ns, o, nm: helper.make_graph(  # noqa: E731
        ns, nm, [], [helper.make_tensor_value_info(o, F, None)])
    return _model([_node("Greater", ["n", "two"], ["c"]), _node(
        "If", ["c"], ["y"], name="if", then_branch=branch(nodes, "t", "then"),
        else_branch=branch([_node("Identity", ["x"], ["e"])], "e", "else"))],
        ["x"], helper.make_tensor_value_info("y", F, None), constants)


def loop_model(kind: dict, name: str):
    """Loop(N): each iteration's scan output is the node's result's shape (none at 0)."""
    nodes, constants = kind[name]
    body = helper.make_graph(
        [*nodes, _node("Identity", ["c_in"], ["c_out"]), _node("Shape", ["t"], ["ts"])],
        "body", [helper.make_tensor_value_info("i", I64, []),
                 helper.make_tensor_value_info("c_in", B, [])],
        [helper.make_tensor_value_info("c_out", B, []),
         helper.make_tensor_value_info("ts", I64, ["r"])])
    return _model([_node("Loop", ["n", "true"], ["y"], name="L", body=body)], ["x"],
                  helper.make_tensor_value_info("y", I64, None), constants)


def _holds(model) -> list:
    try:
        contract = ko.contract(model)
    except (TypeError, ValueError):
        return [False] * 4
    return [contract.holds(N=n).value for n in range(4)]


def _runs(model) -> list[bool]:
    return [not isinstance(ortrun.run(model, {"x": np.zeros(n, np.float32)}), ortrun.Refusal)
            for n in range(4)]


@pytest.mark.parametrize("make", [if_model, loop_model])
@pytest.mark.parametrize("name", list(REFUSED_AT_LOAD))
def test_a_node_refused_at_load_refuses_the_model(name, make):
    """onnxruntime refuses the model at every size; the contract was True where the
    other branch runs (N <= 2) or where the Loop runs no iteration (N = 0)."""
    model = make(REFUSED_AT_LOAD, name)
    assert _runs(model) == [False] * 4
    with pytest.raises(ValueError, match=SAID[name]):
        ko.contract(model)


@pytest.mark.parametrize("make,where", [(if_model, [True, True, True, False]),
                                        (loop_model, [True, False, False, False])])
@pytest.mark.parametrize("name", list(FAILS_WHERE_RUN))
def test_a_node_failing_by_what_it_runs_on_fails_where_it_runs(name, make, where):
    model = make(FAILS_WHERE_RUN, name)
    assert _runs(model) == where
    assert _holds(model) == where


def test_a_dead_branch_of_a_known_condition_refused_at_load_refuses_the_model():
    """If(0 > 2): the then branch never runs, but onnxruntime infers it at load (it was
    accepted as dead, the contract True at every size)."""
    model = if_model(REFUSED_AT_LOAD, "Squeeze axis 5")
    model.graph.node[2].input[0] = "zero"
    assert _runs(model) == [False] * 4
    with pytest.raises(ValueError, match=SAID["Squeeze axis 5"]):
        ko.contract(model)


@pytest.mark.parametrize("size", [["N"], [4]])
def test_a_dead_branch_failing_by_sizes_onnx_knows(size):
    """``x + w`` of declared ``float[3]`` and ``float[4]`` in the branch If(true) never
    takes: onnxruntime's inference refuses it at load (it was typed as the other
    branch's ``float[3]``); of ``w: float[N]`` it knows nothing, and runs it."""
    branch = lambda nodes, out, name: helper.make_graph(  # noqa: E731
        nodes, name, [], [helper.make_tensor_value_info(out, F, None)])
    model = helper.make_model(helper.make_graph(
        [_node("If", ["yes"], ["y"], then_branch=branch([_node("Relu", ["x"], ["g"])], "g", "a"),
               else_branch=branch([_node("Add", ["x", "w"], ["b"])], "b", "b"))], "g",
        [helper.make_tensor_value_info("x", F, [3]), helper.make_tensor_value_info("w", F, size)],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(np.array(True), "yes")]),
        opset_imports=[helper.make_opsetid("", 17)])
    feeds = {"x": np.zeros(3, np.float32), "w": np.zeros(4, np.float32)}
    ran = ortrun.run(model, feeds)
    if size == [4]:
        assert isinstance(ran, ortrun.Refusal) and "Incompatible dimensions" in ran.why
        with pytest.raises(TypeInferenceError, match="could not be broadcast: axis 0 is 3 and 4"):
            ko.contract(model)
    else:
        assert ran == [(3,)]
        assert ko.contract(model).holds(N=4).value is True
