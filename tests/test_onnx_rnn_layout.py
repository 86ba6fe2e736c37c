"""RNN, GRU and LSTM with ``layout = 1`` (batch first, opset 14 on), judged by ONNX's own
reference (``onnx.reference``): onnxruntime's CPU kernels refuse such a node at every
size ("Batchwise recurrent operations (layout == 1) are not supported"), where the spec
defines it and ONNX's node tests run it (``test_*_batchwise``). kantensor types it as the
spec does (its contract holds where onnxruntime refuses: docs/onnx.rst says so): at
every batch and sequence size from 0 to 3 where the contract holds and the reference
runs, each output has the reference's shape and kantensor's kernel its values. (The
reference fails on an empty sequence, stacking no step; kantensor types it as
onnxruntime types an empty sequence at ``layout = 0``.)"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import kantensor as kt
import kantensor.onnx as ko
import ortrun
import shapejudge as sj

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _model(op: str, direction: str, layout: int, hidden: int = 2, size: int = 3):
    dirs = 2 if direction == "bidirectional" else 1
    g = GATES[op]
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.random((dirs, g * hidden, n), np.float32) - 0.5,
                                     name) for name, n in (("W", size), ("R", hidden))]
    outs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    dims = ["B", "S", size] if layout else ["S", "B", size]
    graph = helper.make_graph(
        [helper.make_node(op, ["X", "W", "R"], outs, hidden_size=hidden, layout=layout,
                          direction=direction)], "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outs], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return model, outs


@pytest.mark.parametrize("op", sorted(GATES))
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_batch_first_recurrences_are_typed_as_onnx_s_reference_runs_them(op, direction):
    model, outs = _model(op, direction, layout=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contract = ko.contract(model)
        typed = sj.typed_shapes(ko.infer_shapes(model))
        run = kt.function(*ko.from_onnx(model))
    judged = 0
    for b, s in itertools.product(range(4), repeat=2):
        x = np.random.default_rng(b * 4 + s).random((b, s, 3), np.float32)
        refused = ortrun.run(model, {"X": x})
        assert isinstance(refused, ortrun.Refusal) and "layout" in refused.why, refused
        if not contract.holds(B=b, S=s).value or s == 0:
            continue
        want = ReferenceEvaluator(model).run(None, {"X": x})
        got = run(x)
        for name, w, g in zip(outs, want, got, strict=True):
            stated = tuple(d if isinstance(d, int) else sj.kantensor_size(d, {"B": b, "S": s})
                           for d in typed[name])
            assert stated == w.shape, (name, b, s, typed[name], w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"{name} {b} {s}")
        judged += 1
    assert judged >= 9, judged
