"""An integer Mod of values holding sizes, judged by onnxruntime (tests/ortrun.py): the
output of ``ConstantOfShape(Mod(p, q) + 1)`` over ``x: float[N, D]`` at N in 0..4, D in
0..3, where onnxruntime refuses a divisor 0 ('Integer modulo by zero').

The Dim algebra made ``(D*N) % D`` 0 with no fact, so the model was typed ``[1]`` and its
contract said every size is valid, D == 0 too; the remainder by a size that may be 0 is
now kept, and Mod states that its size divisor is not 0 (a condition of the node's, the
contract's), under which the remainder is 0 again.
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

F = TensorProto.FLOAT


def _c(name: str, value) -> TensorProto:
    return numpy_helper.from_array(np.array(value, np.int64), name)


def _n(op: str, inputs: list, out: str):
    return helper.make_node(op, inputs, [out])


#: ``e`` (int64[1]) from ``n = [N]`` and ``d = [D]``, and the remainder's divisor.
CASES = {
    "(N*D) % D": [_n("Mul", ["n", "d"], "p"), _n("Mod", ["p", "d"], "e")],
    "(2*N*D + 3*D) % D": [_n("Mul", ["n", "d"], "p"), _n("Mul", ["p", "two"], "p2"),
                          _n("Mul", ["d", "three"], "d3"), _n("Add", ["p2", "d3"], "q"),
                          _n("Mod", ["q", "d"], "e")],
    "N % D": [_n("Mod", ["n", "d"], "e")],
    "(N*D) % (N*D)": [_n("Mul", ["n", "d"], "p"), _n("Mod", ["p", "p"], "e")],
    "0 % D": [_n("Mod", ["zero", "d"], "e")],
    "D % (N + 1)": [_n("Add", ["n", "one"], "n1"), _n("Mod", ["d", "n1"], "e")],
    "(N*D + D) % (N + 1)": [_n("Add", ["n", "one"], "n1"), _n("Mul", ["n1", "d"], "p"),
                            _n("Mod", ["p", "n1"], "e")],
    "(N - D) % D": [_n("Sub", ["n", "d"], "p"), _n("Mod", ["p", "d"], "e")],
}


def _model(nodes: list):
    head = [helper.make_node("Shape", ["x"], ["s"]),
            helper.make_node("Slice", ["s", "z1", "o1"], ["n"]),
            helper.make_node("Slice", ["s", "o1", "t1"], ["d"])]
    tail = [_n("Add", ["e", "one"], "e1"), _n("ConstantOfShape", ["e1"], "y")]
    inits = [_c("z1", [0]), _c("o1", [1]), _c("t1", [2]), _c("one", [1]), _c("two", [2]),
             _c("three", [3]), _c("zero", [0])]
    graph = helper.make_graph(head + nodes + tail, "g",
                              [helper.make_tensor_value_info("x", F, ["N", "D"])],
                              [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("case", CASES)
def test_a_remainder_by_a_size_is_onnxruntimes(case):
    model = _model(CASES[case])
    t = ko.infer_shapes(model).graph.output[0].type.tensor_type
    (dim,) = t.shape.dim
    size = dim.dim_value if dim.HasField("dim_value") else \
        kt.TensorType.parse(f"float32[{dim.dim_param}]").shape[0]
    contract = ko.contract(model)
    for n, d in itertools.product(range(5), range(4)):
        out = ortrun.run(model, {"x": np.zeros((n, d), np.float32)})
        runs = isinstance(out, list)
        assert contract.holds(N=n, D=d) == runs, (case, n, d, str(contract))
        if runs:
            assert substitute(size, {"N": n, "D": d}) == out[0][0], (case, n, d, size)
