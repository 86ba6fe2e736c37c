"""A value computed from sizes when a model is read (``Div(1 - Shape(x)[0], 2)``, a size
cast to uint8) is folded only where it is that value at every size: ONNX's integer Div
truncates toward zero (a floor differs where the quotient is negative) and a Cast to a
narrow integer wraps (``100*N`` in uint8 is 44 at N = 3). Judged by onnxruntime
(tests/ortrun.py): the output of ``ConstantOfShape(e + 10)`` at N in 0..5, D in 0..2.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.types.symbols import substitute

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _c(name: str, value) -> TensorProto:
    return numpy_helper.from_array(np.array(value, np.int64), name)


def _model(nodes: list, inits: list):
    """``y = ConstantOfShape(e + 10)`` over ``x: float[N, D]``, ``nodes`` computing the
    int64[1] ``e`` from ``n = [N]`` and ``d = [D]``."""
    head = [helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Slice", ["s", "z1", "o1"], ["n"]),
            helper.make_node("Slice", ["s", "o1", "t1"], ["d"])]
    tail = [helper.make_node("Add", ["e", "ten"], ["e10"]),
            helper.make_node("ConstantOfShape", ["e10"], ["y"])]
    inits = [*inits, _c("z1", [0]), _c("o1", [1]), _c("t1", [2]), _c("ten", [10])]
    graph = helper.make_graph(head + nodes + tail, "g",
                              [helper.make_tensor_value_info("x", F, ["N", "D"])],
                              [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _node(op: str, inputs: list, out: str, **kw):
    return helper.make_node(op, inputs, [out], **kw)


CASES = {
    "(1 - N) / 2": ([_node("Sub", ["one", "n"], "a"), _node("Div", ["a", "two"], "e")],
                    [_c("one", [1]), _c("two", [2])]),
    "N / -2": ([_node("Div", ["n", "m2"], "e")], [_c("m2", [-2])]),
    "(D - N) / 3": ([_node("Sub", ["d", "n"], "a"), _node("Div", ["a", "three"], "e")],
                    [_c("three", [3])]),
    "N / 2": ([_node("Div", ["n", "two"], "e")], [_c("two", [2])]),
    "uint8(100 * N)": ([_node("Mul", ["n", "c100"], "a"),
                        _node("Cast", ["a"], "b", to=TensorProto.UINT8),
                        _node("Cast", ["b"], "e", to=I64)], [_c("c100", [100])]),
    "int8(-1), N": ([_node("Concat", ["m1", "n"], "a", axis=0),
                     _node("Cast", ["a"], "b", to=TensorProto.UINT8),
                     _node("Cast", ["b"], "c", to=I64),
                     _node("Slice", ["c", "z1", "o1"], "f"),
                     _node("Sub", ["f", "c250"], "e")], [_c("m1", [-1]), _c("c250", [250])]),
    "int64(N)": ([_node("Cast", ["n"], "b", to=TensorProto.INT32),
                  _node("Cast", ["b"], "e", to=I64)], []),
}


#: The quotients by an int: folded at either sign of the dividend (truncated toward 0).
FOLDED = ("(1 - N) / 2", "N / -2", "(D - N) / 3", "N / 2")


@pytest.mark.parametrize("case", CASES)
def test_a_value_of_sizes_is_folded_only_as_onnxruntime_computes_it(case):
    model = _model(*CASES[case])
    t = ko.infer_shapes(model).graph.output[0].type.tensor_type
    inferred = [d.dim_value if d.HasField("dim_value") else d.dim_param or None
                for d in t.shape.dim] if t.HasField("shape") else None
    if case in FOLDED:
        assert inferred is not None and None not in inferred, (case, inferred)
    for n, d in itertools.product(range(6), range(3)):
        (shape,) = ortrun.run(model, {"x": np.zeros((n, d), np.float32)})
        if inferred is None:
            continue
        assert len(inferred) == len(shape)
        for got, want in zip(inferred, shape, strict=True):
            if isinstance(got, str):
                got = substitute(kt.TensorType.parse(f"float32[{got}]").shape[0],
                                 {"N": n, "D": d})
            if got is not None:
                assert got == want, (case, n, d, inferred, shape)


def _pooled(pooled: str):
    """``ConstantOfShape(Div(N - 7, 8) + 10)`` over ``x: float[1, 1, N]``, after a
    MaxPool of window 8 over ``pooled`` (x: its facts say ``N >= 8``; w: ``M >= 8``)."""
    nodes = [helper.make_node("MaxPool", [pooled], ["p"], kernel_shape=[8]),
             helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Slice", ["s", "two", "three"], ["n"]),
             _node("Sub", ["n", "seven"], "a"), _node("Div", ["a", "eight"], "e"),
             _node("Add", ["e", "ten"], "e10"), _node("ConstantOfShape", ["e10"], "y")]
    inits = [_c("two", [2]), _c("three", [3]), _c("seven", [7]), _c("eight", [8]),
             _c("ten", [10])]
    graph = helper.make_graph(nodes, "g", [
        helper.make_tensor_value_info("x", F, [1, 1, "N"]),
        helper.make_tensor_value_info("w", F, [1, 1, "M"])],
        [helper.make_tensor_value_info("y", F, None),
         helper.make_tensor_value_info("p", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _size(model) -> str:
    """The output's one size as infer_shapes writes it ("?": not known)."""
    dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    return "?" if len(dims) != 1 else dims[0].dim_param or str(dims[0].dim_value) \
        if dims[0].HasField("dim_value") or dims[0].dim_param else "?"


def test_a_quotient_is_folded_under_the_facts_of_the_nodes_before_and_only_there():
    """Where a window of 8 before it says N >= 8, (N - 7) / 8 is a floor (every valid N
    gives it a sign); the same Div where the window is over another input is the
    quotient truncated toward zero at either sign (max(0, N - 7)//8 - max(0, 7 - N)//8,
    whose second part is 0: 10 at N < 7), though the node memo met it first under those
    facts (its key holds them)."""
    pooled, other = _pooled("x"), _pooled("w")
    assert _size(pooled) == "(N + 1)//8 + 9"
    assert _size(other) == "max(10, (N + 1)//8 + 9)"
    assert _size(pooled) == "(N + 1)//8 + 9"  # (each model typed again: the memos)
    w = np.zeros((1, 1, 8), np.float32)
    for n in range(8, 20):
        (shape, _) = ortrun.run(pooled, {"x": np.zeros((1, 1, n), np.float32), "w": w})
        assert shape == ((n + 1) // 8 + 9,)
    for n in range(20):  # (at n = 2: (2 - 7) / 8 truncates to 0, a floor gives -1)
        (shape, _) = ortrun.run(other, {"x": np.zeros((1, 1, n), np.float32), "w": w})
        assert shape == (max(10, (n + 1) // 8 + 9),)
