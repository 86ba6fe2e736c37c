"""A truth computed from sizes when a model is read (``Equal(Shape(x)[0], 1)``, a size
cast to bool) is known only where every size decides it: ``n == -1`` is False and ``n
>= 0`` True for every size, ``n == 1`` and ``bool(n)`` are not. A value folded by a
size's spelling (a Dim unequal to 1, a Dim true) picked an If's branch by guess, and
infer_shapes claimed the other branch's shape where onnxruntime took this one. Judged by
onnxruntime (tests/ortrun.py) at sizes 0 to 3.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _branch(op: str, out: str):
    return helper.make_graph([helper.make_node(op, ["x"], [out])], out, [],
                             [helper.make_tensor_value_info(out, F, None)])


def _picked(truth: list, k: int):
    """``If(truth(Shape(x)[0], k), Transpose(x), Identity(x))`` over ``x: float[N, D]``:
    ``truth`` the nodes computing ``c`` from ``n`` (one int64) and ``k``."""
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0),
             *truth,
             helper.make_node("If", ["c"], ["y"], then_branch=_branch("Transpose", "t"),
                              else_branch=_branch("Identity", "e"))]
    inits = [numpy_helper.from_array(np.array(0, np.int64), "zero"),
             numpy_helper.from_array(np.array(k, np.int64), "k")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, ["N", "D"])],
                              [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _compare(op: str):
    return [helper.make_node(op, ["n", "k"], ["c"])]


CASES = {
    "n == 1": (_compare("Equal"), 1, False),
    "n > 1": (_compare("Greater"), 1, False),
    "n <= 2": (_compare("LessOrEqual"), 2, False),
    "bool(n)": ([helper.make_node("Cast", ["n"], ["c"], to=TensorProto.BOOL)], 0, False),
    "not (n == 1)": ([helper.make_node("Equal", ["n", "k"], ["eq"]),
                      helper.make_node("Not", ["eq"], ["c"])], 1, False),
    # decided at every size: folded, the output typed exactly
    "n == -1": (_compare("Equal"), -1, True),
    "n < 0": (_compare("Less"), 0, True),
    "n >= 0": (_compare("GreaterOrEqual"), 0, True),
}


@pytest.mark.parametrize("case", CASES)
def test_a_truth_of_sizes_is_known_only_where_every_size_decides_it(case):
    truth, k, decided = CASES[case]
    model = _picked(truth, k)
    dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    inferred = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in dims]
    assert all(isinstance(d, str) and d in ("N", "D") for d in inferred) is decided, inferred
    for n, d in itertools.product(range(4), repeat=2):
        (shape,) = ortrun.run(model, {"x": np.zeros((n, d), np.float32)})
        sizes = {"N": n, "D": d}
        for got, want in zip(inferred, shape, strict=True):
            if isinstance(got, int) or got in sizes:  # a size claimed: onnxruntime's
                assert sizes.get(got, got) == want, (case, n, d, inferred, shape)
