"""Contracts of GatherNDs over index tuples computed from sizes, built as the dynamo
exporter (torchlib's ``aten::index``) builds ``x[arange(b)[:, None], start + arange(s)]``:
each index a Range, unsqueezed, expanded to the shape of their ``Max``, unsqueezed on a
last axis and joined by a Concat along it. Each column's value interval is known
(``kantensor.onnx.intervals.columns_of``), so what the GatherND needs is stated exactly
(main called such a contract approximate, "checked when the model runs"). Judged by
onnxruntime at every point of a small domain; where a column's interval is not known
(through a ``Where``) the note stays and no point onnxruntime refuses is claimed."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from differential import count
from onnxparts import i64


def _model(start: int = 0, table: tuple | None = None, where: bool = False,
           mask: bool = False):
    """GatherND of ``data`` by tuples ``(arange(B)[:, None], start + arange(S))``, ``B``
    and ``S`` the sizes of input ``ids``. ``data`` is an input ``[M, K, H]``, or a
    constant of shape ``table``, or (``mask``) ones of the ids' shape (BERT's padding
    mask read by the dynamo export of transformers' mask functions); ``where``: the
    second index goes through a Where (its interval unknown)."""
    nodes = [
        helper.make_node("Shape", ["ids"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["b"], axis=0),
        helper.make_node("Gather", ["shape", "one"], ["s"], axis=0),
        helper.make_node("Range", ["zero", "b", "one"], ["batch"]),
        helper.make_node("Range", ["zero", "s", "one"], ["positions"]),
        helper.make_node("Add", ["positions", "start"], ["shifted"]),
        helper.make_node("Unsqueeze", ["batch", "last"], ["rows"]),      # [B, 1]
        helper.make_node("Unsqueeze", ["shifted", "first"], ["cols"]),   # [1, S]
    ]
    if where:
        nodes += [helper.make_node("Less", ["cols", "zero"], ["negative"]),
                  helper.make_node("Where", ["negative", "zero", "cols"], ["cols2"])]
    cols = "cols2" if where else "cols"
    nodes += [
        helper.make_node("Max", ["rows", cols], ["widest"]),
        helper.make_node("Shape", ["widest"], ["broadcast"]),
        helper.make_node("Expand", ["rows", "broadcast"], ["rows_b"]),
        helper.make_node("Expand", [cols, "broadcast"], ["cols_b"]),
        helper.make_node("Unsqueeze", ["rows_b", "minus_one"], ["rows_u"]),
        helper.make_node("Unsqueeze", ["cols_b", "minus_one"], ["cols_u"]),
        helper.make_node("Concat", ["rows_u", "cols_u"], ["tuples"], axis=-1),
        helper.make_node("GatherND", ["data", "tuples"], ["out"], name="index"),
    ]
    inits = [i64("zero", 0), i64("one", 1), i64("start", start), i64("first", [0]),
             i64("last", [1]), i64("minus_one", [-1])]
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, ["B", "S"])]
    if mask:
        nodes.insert(1, helper.make_node("ConstantOfShape", ["shape"], ["data"],
                                         value=numpy_helper.from_array(np.ones(1, np.float32))))
    elif table is not None:
        inits.append(numpy_helper.from_array(np.zeros(table, np.float32), "data"))
    else:
        inputs.append(helper.make_tensor_value_info("data", TensorProto.FLOAT,
                                                    ["M", "K", "H"]))
    graph = helper.make_graph(nodes, "index", inputs,
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def _runs(model, b: int, s: int, data: tuple | None = None) -> bool:
    feeds = {"ids": np.zeros((b, s), np.int64)}
    if data is not None:
        feeds["data"] = np.zeros(data, np.float32)
    count("gather_nd columns: onnxruntime runs judged")
    return isinstance(ortrun.run(model, feeds), list)


@pytest.mark.parametrize("start", [0, 2])
def test_computed_tuples_into_a_table_fit_exactly_where_onnxruntime_runs(start):
    """Into a 3 x 5 table: ``B <= 3`` and ``S + start <= 5``, or no tuples (``B*S ==
    0``), exactly where onnxruntime runs, and the contract is exact (main: approximate,
    a note that the indices are checked when the model runs, and no condition)."""
    model = _model(start, table=(3, 5))
    contract = ko.contract(model)
    assert contract.exact and not contract.notes, str(contract)
    (atom,) = [str(a.clause) for a in contract.atoms]
    if start == 0:  # (arange(S) + 0: the Range's interval itself)
        assert atom == "(B <= 3 and S <= 5) or B*S == 0"
    else:  # (and the int64 sum's wrap past 2**63 - 1, which no size reaches)
        assert atom.startswith(f"(B <= 3 and S + {start} <= 5 and ") and \
            atom.endswith(" or B*S == 0"), atom
    for b, s in itertools.product(range(6), range(8)):
        assert contract.holds(B=b, S=s).value is _runs(model, b, s), (start, b, s)
    assert contract.holds(B=3, S=5 - start).value is True
    verdict = contract.holds(B=3, S=6 - start)
    assert verdict.value is False and "GatherND index" in str(verdict)


def test_computed_tuples_into_an_input_are_decided_at_every_point():
    """Into data ``[M, K, H]``: each column fits its axis (``B <= M``, ``S <= K``), or
    there are no tuples, or the slice each reads is empty (``H == 0``: onnxruntime reads
    no index then), at every point of 0..3 (and H of 0 and 1) as onnxruntime runs it."""
    model = _model(table=None)
    contract = ko.contract(model)
    assert not contract.notes
    seen = set()
    for b, s, m, k, h in itertools.product(range(4), range(4), range(4), range(4), range(2)):
        runs = _runs(model, b, s, (m, k, h))
        verdict = contract.holds(B=b, S=s, M=m, K=k, H=h)
        assert verdict.decided and verdict.value is runs, (b, s, m, k, h, runs)
        seen.add(runs)
    assert seen == {True, False}


def test_bert_s_padding_mask_read_by_positions_needs_nothing():
    """BERT's dynamo export reads its padding mask (ones of the ids' shape) at
    ``[arange(batch)[:, None], arange(seq)]``: every tuple fits, so the contract is exact
    and every size valid (main: approximate, nothing known)."""
    model = _model(mask=True)
    contract = ko.contract(model)
    assert contract.exact and not contract.notes, str(contract)
    for b, s in itertools.product(range(4), range(5)):
        assert contract.holds(B=b, S=s).value is True and _runs(model, b, s)


def test_a_column_of_unknown_interval_is_left_to_the_run():
    """Through a Where the second column's interval is not known: the note stays, the
    contract is approximate, and no point where onnxruntime refuses is called valid."""
    model = _model(start=1, table=(3, 5), where=True)
    contract = ko.contract(model)
    assert not contract.exact and any("GatherND" in n for n in contract.notes)
    for b, s in itertools.product(range(5), range(8)):
        if contract.holds(B=b, S=s).value is True:
            assert _runs(model, b, s), (b, s)
