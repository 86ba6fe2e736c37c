"""A Loop's body names its carried sizes and iteration number by spelling, after the
node's label (``L_s0``, ``L_s1``, ...): each name must be fresh against every size the
scopes around it know, not only those in their types. An outer Loop's iteration number
is only a known value, and its body's facts (a Gather of row ``i`` of ``N``: ``i <= N -
1``) reach an inner Loop's body: an inner Loop whose label has the same base name (``/L``
in ``L``, or two labels sharing their first 64 characters) named its carried size as the
outer iteration number and took that fact as its own, so ``data[:acc.shape]`` was typed
``M`` rows where onnxruntime gives ``min(M, N)``. Judged by onnxruntime and kt.function at
every N, M in 0..3 and 0, 1, 2 outer trips."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.types.dim import Dim
from kantensor.types.symbols import DataSymbol, free_symbols, substitute

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
_vi = helper.make_tensor_value_info


def _nested(outer: str, inner: str):
    """``for i in range(trips): cnt += data[i]; sls.append(data[:len(acc0)])`` with the
    slice made in an inner Loop (one iteration) carrying ``acc0`` (of ``M``), ``data``
    of ``N``: onnxruntime's slice is ``min(M, N)`` entries."""
    inner_body = helper.make_graph([
        helper.make_node("Identity", ["c2"], ["c2o"]),
        helper.make_node("Shape", ["acc"], ["sh"]),
        helper.make_node("Slice", ["data", "z1", "sh"], ["sl"]),
        helper.make_node("Identity", ["acc"], ["acc2"])], "inner",
        [_vi("j", I64, []), _vi("c2", B, []), _vi("acc", F, None)],
        [_vi("c2o", B, []), _vi("acc2", F, None), _vi("sl", F, None)])
    outer_body = helper.make_graph([
        helper.make_node("Identity", ["cin"], ["cout"]),
        helper.make_node("Gather", ["data", "i"], ["g"], axis=0),
        helper.make_node("Add", ["cnt", "g"], ["cnt2"]),
        helper.make_node("Loop", ["one64", "", "acc0"], ["accf", "sls"], name=inner,
                         body=inner_body)], "outer",
        [_vi("i", I64, []), _vi("cin", B, []), _vi("cnt", F, [])],
        [_vi("cout", B, []), _vi("cnt2", F, None), _vi("sls", F, None)])
    inits = [numpy_helper.from_array(np.array(1, np.int64), "one64"),
             numpy_helper.from_array(np.array([0], np.int64), "z1"),
             numpy_helper.from_array(np.array(0, np.float32), "zero")]
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "zero"], ["cntf", "all"], name=outer,
                          body=outer_body)], "m",
        [_vi("data", F, ["N"]), _vi("acc0", F, ["M"]), _vi("trips", I64, [])],
        [_vi("cntf", F, None), _vi("all", F, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


_LONG = "a" * 64


@pytest.mark.parametrize("outer, inner", [("/L", "L"), ("L", "/L"),
                                          (_LONG + "x", _LONG + "y"), ("outer", "inner")])
def test_an_inner_loops_sizes_are_not_named_as_the_outer_iteration_number(outer, inner):
    m = _nested(outer, inner)
    ins, outs = ko.from_onnx(m)
    fn = kt.function(ins, outs)
    dims = outs[1].type.shape
    (count,) = {s for d in dims if isinstance(d, Dim) for s in free_symbols(d)
                if isinstance(s, DataSymbol)}
    for n in range(4):
        for k in range(4):
            for trips in range(3):
                feeds = {"data": np.ones(n, np.float32), "acc0": np.ones(k, np.float32),
                         "trips": np.array(trips, np.int64)}
                want = ortrun.run(m, feeds)
                if isinstance(want, ortrun.Refusal):  # a row past N: kt refuses it too
                    assert trips > n, (n, k, trips, want)
                    with pytest.raises(IndexError, match="Gather"):
                        fn(*feeds.values())
                    continue
                sizes = {"N": n, "M": k, count: trips}
                stated = tuple(int(substitute(d, sizes)) for d in dims)
                assert stated == want[1], (n, k, trips, str(outs[1].type))
                assert [np.shape(r) for r in fn(*feeds.values())] == want
