"""Contracts of models with sizes the data decide (a NonZero's count): such a size is no
input size. ``kt.contract`` on the graph ``from_onnx`` builds and ``kantensor.onnx.contract``
on the model list the same input sizes and conditions; a condition over a count is a
check made when the model runs, which ``holds`` quantifies away over what NonZero
guarantees of its count (``0 <= count <= numel``): True where it holds for every count,
False where for none, undecided where the data decide. Judged by onnxruntime at every
input size of a small domain and every mask of what the NonZero counts.

A size the data decide is known by its object, never by its spelling (issue 32/33): a
size of the user's, or a ``dim_param`` of the model, spelled like it is another size.
"""

from __future__ import annotations

import itertools

import numpy as np
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from differential import count
from kantensor.onnx import infer_shapes
from kantensor.onnx.importer import read_types
from kantensor.types.symbols import DataSymbol
from test_onnx_loops import accumulate

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _model(nodes, inputs, outputs):
    model = helper.make_model(helper.make_graph(nodes, "counts", inputs, outputs),
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # (what onnxruntime reads)
    return model


def _broadcast_count():
    """``Transpose(NonZero(x)) + y``: the count of x's non-zeros broadcast against
    ``y: [m, 1]``; valid where ``count == m or count == 1 or m == 1``."""
    nodes = [helper.make_node("NonZero", ["x"], ["nz"], name="/NonZero"),
             helper.make_node("Transpose", ["nz"], ["t"], perm=[1, 0]),
             helper.make_node("Cast", ["t"], ["tf"], to=F),
             helper.make_node("Add", ["tf", "y"], ["z"], name="/Add")]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["n"]),
                          helper.make_tensor_value_info("y", F, ["m", 1])],
                  [helper.make_tensor_value_info("z", F, None)])


def test_a_count_is_no_input_size_of_the_graph_or_the_model():
    model = _broadcast_count()
    _, outputs = ko.from_onnx(model)
    graph, whole = kt.contract(outputs), ko.contract(model)
    for contract in (graph, whole):
        assert contract.names == ("n", "m")
        assert [str(a.clause) for a in contract.atoms] == [
            "NonZero == m or NonZero == 1 or m == 1"]  # what NonZero guarantees: no atom
        assert contract.bounds and all(str(c) == "NonZero <= n" for c in contract.bounds)
        text = str(contract)
        assert "approximate: 1 condition names sizes the data decide, checked when the " \
            "model runs" in text, text
        assert "NonZero is decided when the model runs, at NonZero node '/NonZero': how " \
            "many elements of its input are not zero" in text, text
        assert "NonZero == m (checked when the model runs)" in text, text
    assert str(graph) == str(whole)
    verdict = whole.holds(n=9, m=5)
    assert verdict.value is None and "is checked when the model runs (it depends on " \
        "NonZero, which the data decide, not the input sizes)" in str(verdict), verdict


def test_holds_quantifies_a_count_away_as_onnxruntime_runs_every_mask():
    """At each (n, m) in 0..3 x 0..3, onnxruntime at every mask of x: the model runs at
    every mask exactly where ``holds`` is True, at none where it is False, and at some
    only where it is undecided."""
    model = _broadcast_count()
    _, outputs = ko.from_onnx(model)
    contracts = (kt.contract(outputs), ko.contract(model))
    seen = set()
    for n, m in itertools.product(range(4), range(4)):
        runs = set()
        for mask in itertools.product((0.0, 1.0), repeat=n):
            got = ortrun.run(model, {"x": np.array(mask, np.float32).reshape(n),
                                     "y": np.zeros((m, 1), np.float32)})
            runs.add(not isinstance(got, ortrun.Refusal))
            count("data-decided sizes: onnxruntime runs judged")
        want = True if runs == {True} else False if runs == {False} else None
        seen.add(want)
        for contract in contracts:
            assert contract.holds(n=n, m=m).value is want, (n, m, runs)
            if want is not None:  # the approximations agree where the inputs decide
                assert contract.outer.holds(n=n, m=m).value or not want
                assert not contract.inner.holds(n=n, m=m).value or want
    assert seen == {True, False, None}


def test_a_size_spelled_like_a_count_is_another_size():
    """A size of the user's named like the model's count is not that count: adding the
    two is a broadcast with its condition (one name for both typed the sum as if the
    sizes were one), and the contract over the user's size keeps it as a run-time check."""
    model = _model(_broadcast_count().graph.node[:3], [
        helper.make_tensor_value_info("x", F, ["n"])],
        [helper.make_tensor_value_info("tf", F, None)])
    _, (counted,) = ko.from_onnx(model)
    size = counted.type.shape[0]
    assert str(size) == "NonZero" and type(size.name) is DataSymbol
    assert size != kt.Dim("NonZero")
    user = kt.tensor("u", "float32", (kt.Dim("NonZero"), 1))
    total = user + counted
    (condition,) = total.owner.conditions
    assert str(condition) == "NonZero == NonZero or NonZero == 1 or NonZero == 1"
    contract = kt.contract(total)
    assert contract.names == ("NonZero", "n")
    assert contract.holds(NonZero=1, n=4).value is True
    assert contract.holds(NonZero=3, n=0).value is False  # the count is 0
    assert contract.holds(NonZero=3, n=1).value is None  # 0 fails, 1 holds: the data decide


def _declared_alike():
    """A model whose If branches declare their output ``[NonZero]`` (a dim_param of the
    model's own, read after the main graph's NonZero, named ``/NonZero``, is met)."""
    then = helper.make_graph([helper.make_node("Identity", ["w"], ["a"])], "then", [],
                             [helper.make_tensor_value_info("a", F, ["NonZero"])])
    other = helper.make_graph([helper.make_node("Identity", ["w"], ["b"])], "else", [],
                              [helper.make_tensor_value_info("b", F, ["NonZero"])])
    nodes = [helper.make_node("NonZero", ["x"], ["nz"], name="/NonZero"),
             helper.make_node("If", ["c"], ["w_out"], then_branch=then, else_branch=other,
                              name="/If"),
             helper.make_node("Cast", ["nz"], ["nzf"], to=F),
             helper.make_node("Add", ["nzf", "w_out"], ["z"], name="/Add")]
    return _model(nodes, [helper.make_tensor_value_info("x", F, ["n"]),
                          helper.make_tensor_value_info("w", F, ["k"]),
                          helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                  [helper.make_tensor_value_info("z", F, None)])


def test_a_count_is_named_apart_from_every_dim_param_of_the_model():
    """The count's name is fresh against the dim_params of every graph of the model, the
    subgraphs read after it too, so the names infer_shapes writes say one size each."""
    model = _declared_alike()
    reader = read_types(model)
    assert list(reader.counts.sizes) == ["NonZero0"]
    assert str(reader.types["nz"]) == "int64[1,NonZero0]"
    (d,) = [d for d in reader.types["nz"].shape if not isinstance(d, int)]
    assert type(d.name) is DataSymbol and d != kt.Dim("NonZero0")
    written = {v.name: [x.dim_param or x.dim_value for x in v.type.tensor_type.shape.dim]
               for v in infer_shapes(model).graph.value_info}
    assert written["nz"] == [1, "NonZero0"]
    assert [str(a.clause) for a in ko.contract(model).atoms] == [
        "NonZero0 == k or NonZero0 == 1 or k == 1"]


def test_a_loops_count_is_no_input_size_and_holds_never_claims_a_failing_point():
    """A Loop's iteration count (``n`` if its condition input is true, else 0) grows
    ``acc``; ``acc + b`` needs ``iters + m == k`` (or a 1). kt.contract of the graph does
    not list the count as an input size (it did, and ``holds`` asked for its value); a
    point ``holds`` calls valid runs in onnxruntime with either condition, one it calls
    invalid runs with neither (the count's bounds are ``0 <= iters <= n``: where only 0
    and n occur, it may stay undecided)."""
    model = accumulate(True)
    model.graph.input.append(helper.make_tensor_value_info("b", F, ["k", "d"]))
    model.graph.node.append(helper.make_node("Add", ["acc", "b"], ["total"], name="/Add"))
    model.graph.output.append(helper.make_tensor_value_info("total", F, None))
    _, outputs = ko.from_onnx(model)
    graph, whole = kt.contract(outputs), ko.contract(model)
    assert graph.names == whole.names == ("n", "d", "m", "k")
    assert "acc_loop_iters is decided when the model runs, at Loop node 'acc_loop'" in \
        str(graph)
    claims = set()
    for n, m, k in itertools.product(range(3), range(3), range(4)):
        runs = set()
        for cond in (True, False):
            got = ortrun.run(model, {"x": np.ones((n, 1), np.float32),
                                     "a": np.ones((m, 1), np.float32),
                                     "cond": np.array(cond),
                                     "b": np.ones((k, 1), np.float32)})
            runs.add(not isinstance(got, ortrun.Refusal))
            count("data-decided sizes: onnxruntime runs judged")
        for contract in (graph, whole):
            claim = contract.holds(n=n, d=1, m=m, k=k).value
            claims.add(claim)
            assert claim is None or {claim} == runs, (n, m, k, claim, runs)
    assert claims == {True, False, None}
