"""A Concat of many inputs (SSDlite's TorchScript export with torchvision's 91 classes
concatenates the boxes of 90 of them) adds their sizes; its builder wrote the sum nested
one level per input (``((c0 + c1) + c2) + ...``), past the DSL's bound on expression
nesting (64 levels, kept for hostile signatures), so main refused the model: "expression
nested more than 64 levels deep". Written balanced (``c0+c1+(c2+c3)``) the sum of 90
nests 7 levels deep, and the model is typed; so is a Split into 90 parts whose sizes
are read from the inputs' shapes (their sum is its axis). Judged by onnxruntime at sizes
that all differ (0 and 1 among them)."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from differential import count
from kantensor.types.dim import Dim
from kantensor.types.symbols import substitute

F = TensorProto.FLOAT
K = 90


def _model():
    """``cat = Concat(x0..x89)`` (``x_i: [n_i, 2]``), and ``Split(cat, sizes)`` back into
    the 90 parts, ``sizes`` the Concat of the inputs' first axes."""
    nodes = [helper.make_node("Shape", [f"x{i}"], [f"s{i}"], end=1) for i in range(K)]
    nodes += [helper.make_node("Concat", [f"s{i}" for i in range(K)], ["sizes"], axis=0),
              helper.make_node("Concat", [f"x{i}" for i in range(K)], ["cat"], axis=0),
              helper.make_node("Split", ["cat", "sizes"], [f"p{i}" for i in range(K)],
                               axis=0)]
    outputs = ["cat", "p0", f"p{K - 1}"]
    graph = helper.make_graph(
        nodes, "many", [helper.make_tensor_value_info(f"x{i}", F, [f"n{i}", 2])
                        for i in range(K)],
        [helper.make_tensor_value_info(o, F, None) for o in outputs],
        [numpy_helper.from_array(np.array([0], np.int64), "unused")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def test_a_concat_of_ninety_inputs_is_typed_as_onnxruntime_runs_it():
    model = _model()
    _, (cat, first, last) = ko.from_onnx(model)
    total = cat.type.shape[0]
    assert isinstance(total, Dim) and cat.type.shape[1] == 2
    assert str(first.type) == "float32[n0,2]" and str(last.type) == f"float32[n{K - 1},2]"
    contract = ko.contract(model)
    assert contract.exact and not contract.atoms, str(contract)
    for sizes in (list(range(K)), list(range(K))[::-1], [(7 * i) % K for i in range(K)]):
        point = {f"n{i}": n for i, n in enumerate(sizes)}
        got = ortrun.run(model, {f"x{i}": np.zeros((n, 2), np.float32)
                                 for i, n in enumerate(sizes)})
        count("many inputs: onnxruntime runs judged")
        assert isinstance(got, list), got
        assert substitute(total, point) == sum(sizes)
        assert got == [(sum(sizes), 2), (sizes[0], 2), (sizes[-1], 2)], (got, sizes)
