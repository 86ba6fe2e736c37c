"""An integer divisor inside a subgraph (an If's branch, a Loop's body), judged by
onnxruntime (tests/ortrun.py) on ``x: float[N, D]`` at N in 0..3, D in 0..1, with the
If's condition a size comparison (``N > 2``) or the data (an input ``flag``, run at
both values), that If inside the then branch of an If by a size, and the Loop running
``N`` iterations.

onnxruntime checks a divisor that is a constant (an initializer of the subgraph or of
the graph around it, a Constant node's output) when it makes the kernel: a 0 there
fails the session's initialization at every size, whichever branch runs and however
many iterations; kantensor said the model held wherever that branch was not taken or
the Loop ran no iteration. A divisor that folds to 0 from constants (``Sub(c, c)``) is
checked when it runs: only where its branch is taken. A constant 2 divides anywhere.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _c(name: str, value) -> TensorProto:
    return numpy_helper.from_array(np.array(value, np.int64), name)


def _n(op: str, inputs: list, out: str, **attrs):
    return helper.make_node(op, inputs, [out], **attrs)


#: ``yt = x[:n / d]`` (``n = [N]``) for a divisor ``d`` made by the nodes and
#: initializers given (``z1``, a [0] of the graph around, is one too); and whether
#: onnxruntime refuses the model when it loads it
DIVISORS = {
    "initializer 0": ([], [_c("d", [0])], "Div", True),
    "initializer 0, Mod": ([], [_c("d", [0])], "Mod", True),
    "initializer 0, fmod": ([], [_c("d", [0])], "fmod", True),
    "Constant 0": ([_n("Constant", [], "d", value=_c("v", [0]))], [], "Div", True),
    "value_ints 0": ([_n("Constant", [], "d", value_ints=[0])], [], "Div", True),
    "the outer graph's 0": ([_n("Identity", ["z1"], "unused")], [], "Div outer", True),
    "Sub(c, c)": ([_n("Sub", ["one", "one"], "d")], [_c("one", [1])], "Div", False),
    "initializer 2": ([], [_c("d", [2])], "Div", False),
}


def _division(case: str, out: str) -> tuple[list, list]:
    nodes, inits, op, _ = DIVISORS[case]
    divisor = "z1" if op == "Div outer" else "d"
    divide = _n("Mod", ["n", divisor], "q", **({"fmod": 1} if op == "fmod" else {})) \
        if op in ("Mod", "fmod") else _n("Div", ["n", divisor], "q")
    return [*nodes, divide, _n("Slice", ["x", "z1", "q", "z1"], out)], inits


def _model(nodes: list, inputs: list, inits: list = ()):
    head = [_n("Shape", ["x"], "s"), _n("Slice", ["s", "z1", "o1"], "n"),
            _n("Squeeze", ["n", "z1"], "ns")]
    graph = helper.make_graph(
        head + nodes, "g", [helper.make_tensor_value_info("x", F, ["N", "D"]), *inputs],
        [helper.make_tensor_value_info("y", F, None)],
        [_c("z1", [0]), _c("o1", [1]), _c("two", 2), *inits])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _if(case: str, by_data: bool):
    nodes, inits = _division(case, "yt")
    then = helper.make_graph(nodes, "then", [], [helper.make_tensor_value_info("yt", F, None)],
                             inits)
    other = helper.make_graph([_n("Identity", ["x"], "ye")], "else", [],
                              [helper.make_tensor_value_info("ye", F, None)])
    flag = [helper.make_tensor_value_info("flag", TensorProto.BOOL, [])] if by_data else []
    cond = [] if by_data else [_n("Greater", ["ns", "two"], "flag")]
    return _model([*cond, _n("If", ["flag"], "y", then_branch=then, else_branch=other)], flag)


def _nested(case: str):
    """The If by the data as the then branch of an If by a size (``N > 2``)."""
    inner = _if(case, True).graph
    then = helper.make_graph(
        [n for n in inner.node if n.op_type == "If"], "outer_then", [],
        [helper.make_tensor_value_info("y", F, None)])
    then.output[0].name = "yo"
    then.node[0].output[0] = "yo"
    other = helper.make_graph([_n("Identity", ["x"], "ye2")], "outer_else", [],
                              [helper.make_tensor_value_info("ye2", F, None)])
    flag = [helper.make_tensor_value_info("flag", TensorProto.BOOL, [])]
    return _model([_n("Greater", ["ns", "two"], "big"),
                   _n("If", ["big"], "y", then_branch=then, else_branch=other)], flag)


def _loop(case: str):
    nodes, inits = _division(case, "piece")
    body = helper.make_graph(
        [*nodes, _n("Identity", ["c"], "c2"), _n("Identity", ["acc"], "acc2")], "body",
        [helper.make_tensor_value_info("i", I64, []),
         helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc", F, None)],
        [helper.make_tensor_value_info("c2", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc2", F, None)], inits)
    return _model([_n("Loop", ["ns", "", "x"], "y", body=body)], [])


def _runs(model, n: int, d: int, flags: tuple) -> set[bool]:
    """Whether onnxruntime runs the model at (n, d), at each value of the flag."""
    out = set()
    for flag in flags:
        feeds = {"x": np.zeros((n, d), np.float32)}
        if flag is not None:
            feeds["flag"] = np.array(flag)
        out.add(isinstance(ortrun.run(model, feeds), list))
    return out


def _holds(contract, n: int, d: int) -> bool | None:
    try:
        return bool(contract.holds(N=n, D=d))
    except TypeError:  # undecided: the data decide it
        return None


SUBGRAPHS = {"If by a size": lambda c: _if(c, False), "If by the data": lambda c: _if(c, True),
             "Loop": _loop, "If in an If": _nested}


@pytest.mark.parametrize("where", SUBGRAPHS)
@pytest.mark.parametrize("case", DIVISORS)
def test_a_constant_zero_divisor_in_a_subgraph_is_refused_everywhere(where, case):
    model = SUBGRAPHS[where](case)
    contract = ko.contract(model)
    flags = (True, False) if "If" in where and where != "If by a size" else (None,)
    refused_at_load = DIVISORS[case][3]
    for n, d in itertools.product(range(4), range(2)):
        runs = _runs(model, n, d, flags)
        holds = _holds(contract, n, d)
        if refused_at_load:
            assert runs == {False}, (n, d)
        if len(runs) == 1:  # the same at every value of the data: decided
            assert holds == runs.pop(), (where, case, n, d, str(contract))
        else:  # the data decide it: undecided
            assert holds is None, (where, case, n, d, str(contract))
