"""Contracts of Gathers whose positions' interval is known (onnx/intervals.py), judged by
onnxruntime at every size of a small domain: positions ``start + arange(seq)`` (the
interval's end an expression over a size), and a Loop's body reading row ``i + offset``
at each iteration ``i`` (the interval ``[i + offset, i + offset + 1)`` over the iteration
number, needed at every iteration: decided at its two ends where it is affine in ``i``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from differential import count
from test_onnx_loops import AXES, I64, B, F, const, graph, model, node, size_of, t, untyped
from test_onnx_memo_nodes import _offset_positions


@pytest.mark.parametrize("start", [0, 3, 7])
def test_a_gather_by_an_offset_range_fits_exactly_where_onnxruntime_runs(start):
    """``table[start + arange(seq)]`` on a 16-row table: the positions' interval is
    ``[start, start + seq)``, so the contract is ``start + seq <= 16`` (or no positions:
    ``seq == 0``), exactly where onnxruntime runs it. The offset was counted twice (the
    Gather's size input carries ``seq + start`` itself): ``seq + 6 <= 16`` for start 3."""
    model_ = _offset_positions(start, rows=16)
    contract = ko.contract(model_)
    assert contract.names == ("seq",) and contract.exact
    for seq in range(17):
        runs = isinstance(ortrun.run(model_, {"x": np.zeros(seq, np.float32)}), list)
        count("gather offsets: onnxruntime runs judged")
        assert contract.holds(seq=seq).value is runs, (start, seq, runs)
    assert runs is (start == 0)  # (seq 16 runs only from 0)


def _walk(offset: int, cond_input: bool):
    """A Loop of ``m`` iterations (fewer if its condition input is false: then none)
    whose body reads row ``i + offset`` of ``x: [n, d]`` at iteration ``i``."""
    body = graph([node("Add", ["i", "off"], ["at"]),
                  node("Gather", ["x", "at"], ["row"], axis=0),
                  node("Identity", ["c_in"], ["c_out"])],
                 [t("i", I64, []), t("c_in", B, [])], [*untyped("c_out"), t("row", F, ["d"])],
                 "body", inits=[const("off", offset)])
    nodes = [*size_of("a", 0, "m"),
             node("Loop", ["m", "cond" if cond_input else "true"], ["rows"], body=body,
                  name="walk")]
    inputs = [t("x", F, ["n", "d"]), t("a", F, ["m"])]
    if cond_input:
        inputs.append(t("cond", B, []))
    return model(graph(nodes, inputs, untyped("rows"), inits=AXES))


@pytest.mark.parametrize(("offset", "cond_input"), itertools.product([0, 2], [False, True]))
def test_a_loop_body_reading_row_i_needs_it_at_every_iteration(offset, cond_input):
    """Row ``i + offset`` at every ``i < iters`` fits ``n`` rows where it fits at ``i = 0``
    and ``i = iters - 1``: ``m == 0 or (offset + 1 <= n and m + offset <= n)``, exactly
    where onnxruntime runs it (all 36 points decided); with a condition input the count
    is the data's (``0 <= iters <= m``): a point is valid or invalid only where both
    conditions' runs agree, else undecided. main had no condition at all (the builder
    refused the iteration number's interval, and the body was typed without it): it
    called every point valid."""
    walk = _walk(offset, cond_input)
    contract = ko.contract(walk)
    iters = "walk_iters" if cond_input else "m"
    assert [str(a.clause) for a in contract.atoms] == [
        f"{iters} == 0 or ({offset + 1} <= n and {iters}{f' + {offset}' if offset else ''} "
        f"<= n)"]
    undecided = 0
    for n, m in itertools.product(range(6), range(6)):
        runs = set()
        for cond in (True, False) if cond_input else (True,):
            feeds = {"x": np.zeros((n, 2), np.float32), "a": np.zeros(m, np.float32)}
            if cond_input:
                feeds["cond"] = np.array(cond)
            runs.add(isinstance(ortrun.run(walk, feeds), list))
            count("loop rows: onnxruntime runs judged")
        claim = contract.holds(n=n, d=2, m=m).value
        undecided += claim is None
        assert claim is None or {claim} == runs, (n, m, claim, runs)
        assert claim is not None or runs == {True, False}, (n, m, runs)
    assert undecided == (0 if not cond_input else 15 if offset == 0 else 24)


def test_a_loop_of_a_known_count_needs_its_last_row():
    """Four iterations reading row ``i + 2``: ``6 <= n`` (its first row's ``3 <= n``
    follows), exactly where onnxruntime runs it; with 10 rows no condition, with 5 rows
    ``6 <= 5`` (the model fails at every size)."""
    walk = _walk(2, False)
    walk.graph.node[-1].input[0] = "four"
    walk.graph.initializer.append(const("four", 4))
    contract = ko.contract(walk)
    assert [str(a.clause) for a in contract.atoms] == ["6 <= n"]
    for n, m in itertools.product(range(9), (0, 3)):
        feeds = {"x": np.zeros((n, 2), np.float32), "a": np.zeros(m, np.float32)}
        runs = isinstance(ortrun.run(walk, feeds), list)
        count("loop rows: onnxruntime runs judged")
        assert contract.holds(n=n, d=2, m=m).value is runs, (n, runs)
    for rows, atoms in ((10, []), (5, ["6 <= 5"])):
        walk.graph.input[0].CopyFrom(t("x", F, [rows, "d"]))
        contract = ko.contract(walk)
        assert [str(a.clause) for a in contract.atoms] == atoms
        feeds = {"x": np.zeros((rows, 2), np.float32), "a": np.zeros(1, np.float32)}
        assert contract.holds(d=2, m=1).value is isinstance(ortrun.run(walk, feeds), list)


def test_constant_positions_expanded_to_a_batch_are_none_at_an_empty_batch():
    """``table[expand(arange(5), [B, 5])]`` over a 3-row table: the positions' interval
    is ``[0, 5)``, all ints, yet there are none at ``B == 0``, where onnxruntime runs it;
    main refused the model (every Gather of an interval of ints had to fit)."""
    inits = [numpy_helper.from_array(np.array(v, np.int64), name)
             for name, v in (("zero", 0), ("five", 5), ("one", 1))]
    inits.append(numpy_helper.from_array(np.zeros((3, 2), np.float32), "table"))
    nodes = [helper.make_node("Shape", ["ids"], ["shape"]),
             helper.make_node("Range", ["zero", "five", "one"], ["positions"]),
             helper.make_node("Expand", ["positions", "shape"], ["rows"]),
             helper.make_node("Gather", ["table", "rows"], ["y"], axis=0)]
    model_ = helper.make_model(helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["B", 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits),
        opset_imports=[helper.make_opsetid("", 17)])
    contract = ko.contract(model_)
    assert contract.exact and contract.dsl() == "where B == 0"
    for b in range(4):
        runs = isinstance(ortrun.run(model_, {"ids": np.zeros((b, 5), np.int64)}), list)
        count("gather offsets: onnxruntime runs judged")
        assert contract.holds(B=b).value is runs, (b, runs)
