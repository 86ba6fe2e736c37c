"""Contracts of Gathers whose positions pass through a Cast to an integer dtype,
judged by onnxruntime at sizes on both sides of where the narrower dtype wraps.

``Range(0, seq)`` cast to int16 (or int8) and back to int32 before it indexes a table:
onnxruntime wraps the positions (``32768`` becomes ``-32768``), so the positions' values
lie in ``[0, seq)`` while ``seq <= 32768`` and cover the whole of int16's range after.
main kept ``[0, seq)`` through the narrowing Cast: its contract said ``seq <= 33000``
for a table of 33000 rows, and refused ``seq = 34000``, where onnxruntime runs (every
wrapped position is a valid index, counting from the end for the negative ones).
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from differential import count

F = TensorProto.FLOAT


def _positions(narrow: int, rows: int, back: int = TensorProto.INT32):
    """``table[rows, 2][Cast(back, Cast(narrow, Range(0, seq)))]``, ``seq`` the length of
    the input ``x``."""
    inits = [numpy_helper.from_array(np.array(v, np.int64), name)
             for name, v in (("zero", 0), ("one", 1))]
    inits.append(numpy_helper.from_array(np.zeros((rows, 2), np.float32), "table"))
    nodes = [helper.make_node("Shape", ["x"], ["sh"]),
             helper.make_node("Gather", ["sh", "zero"], ["seq"], axis=0),
             helper.make_node("Range", ["zero", "seq", "one"], ["pos"]),
             helper.make_node("Cast", ["pos"], ["narrow"], to=narrow),
             helper.make_node("Cast", ["narrow"], ["back"], to=back),
             helper.make_node("Gather", ["table", "back"], ["y"], axis=0)]
    graph = helper.make_graph(nodes, "cast_positions", [helper.make_tensor_value_info(
        "x", F, ["seq"])], [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


I16, I8 = TensorProto.INT16, TensorProto.INT8


@pytest.mark.parametrize(("narrow", "rows", "sizes"), [
    (I16, 33000, (0, 1, 100, 32767, 32768, 32769, 33000, 33001, 34000, 40000)),
    (I16, 40000, (0, 1, 32768, 32769, 39999, 40000, 40001, 50000)),
    (I16, 100, (0, 1, 99, 100, 101, 32768, 32769, 34000)),
    (I8, 200, (0, 1, 127, 128, 129, 200, 201, 300)),
    (I8, 100, (0, 1, 100, 101, 128, 129, 300)),
    (I8, 128, (0, 1, 127, 128, 129, 130, 300)),
])
def test_positions_cast_to_a_narrower_integer_wrap_as_onnxruntime_runs(narrow, rows, sizes):
    """``holds(seq=...)`` is onnxruntime's answer at every size, on both sides of the
    narrow dtype's wrap: a table at least as long as the narrow dtype's range takes every
    wrapped position (no condition from the Gather); a shorter one needs ``seq <= rows``."""
    model = _positions(narrow, rows)
    contract = ko.contract(model)
    for seq in sizes:
        runs = isinstance(ortrun.run(model, {"x": np.zeros(seq, np.float32)}), list)
        count("cast positions: onnxruntime runs judged")
        assert contract.holds(seq=seq).value is runs, (narrow, rows, seq, runs,
                                                       str(contract))


def test_a_widening_cast_keeps_the_positions_exactly():
    """Through int64 -> int32 -> int64 (no value of int32 is lost on the way back) a
    16-row table needs ``seq <= 16``, as before, exactly where onnxruntime runs."""
    model = _positions(TensorProto.INT32, 16, back=TensorProto.INT64)
    contract = ko.contract(model)
    assert contract.exact
    for seq in range(20):
        runs = isinstance(ortrun.run(model, {"x": np.zeros(seq, np.float32)}), list)
        assert contract.holds(seq=seq).value is runs, (seq, runs, str(contract))


def _shifted(op: str, shift: int, rows: int):
    """``table[rows, 2][Cast(int32, op(Cast(int16, Range(0, seq)), shift))]``: the sum or
    difference is computed in int16 and wraps there, as the Cast does."""
    inits = [numpy_helper.from_array(np.array(v, np.int64), name)
             for name, v in (("zero", 0), ("one", 1))]
    inits.append(numpy_helper.from_array(np.array(shift, np.int16), "shift"))
    inits.append(numpy_helper.from_array(np.zeros((rows, 2), np.float32), "table"))
    nodes = [helper.make_node("Shape", ["x"], ["sh"]),
             helper.make_node("Gather", ["sh", "zero"], ["seq"], axis=0),
             helper.make_node("Range", ["zero", "seq", "one"], ["pos"]),
             helper.make_node("Cast", ["pos"], ["narrow"], to=I16),
             helper.make_node(op, ["narrow", "shift"], ["moved"]),
             helper.make_node("Cast", ["moved"], ["back"], to=TensorProto.INT32),
             helper.make_node("Gather", ["table", "back"], ["y"], axis=0)]
    graph = helper.make_graph(nodes, "shifted_positions", [helper.make_tensor_value_info(
        "x", F, ["seq"])], [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize(("op", "shift", "rows", "sizes"), [
    ("Add", 30000, 33000, (0, 1, 2768, 2769, 3000, 3001, 3500)),
    ("Add", 30000, 31000, (0, 1, 1000, 1001, 2768, 2769, 3000)),
    ("Sub", -30000, 33000, (0, 1, 2768, 2769, 3001, 3500)),
    ("Add", 100, 33000, (0, 1, 32667, 32668, 32669)),
])
def test_a_sum_in_a_narrow_integer_wraps_as_onnxruntime_runs(op, shift, rows, sizes):
    """A position shifted in int16 wraps past 32767 onto -32768 (a valid index from the
    end of a table of 33000 rows): main kept ``[30000, 30000 + seq)`` unwrapped and said
    ``seq <= 3000``, refusing sizes where onnxruntime runs; now ``holds`` is onnxruntime's
    answer at every size."""
    model = _shifted(op, shift, rows)
    contract = ko.contract(model)
    for seq in sizes:
        runs = isinstance(ortrun.run(model, {"x": np.zeros(seq, np.float32)}), list)
        count("cast positions: onnxruntime runs judged")
        assert contract.holds(seq=seq).value is runs, (op, shift, rows, seq, runs,
                                                       str(contract))
