"""A subgraph (an If's branch, a Loop's body) is read under the facts of the graph
around it as they stand at its node: what the nodes before it need, and what they
guarantee of the sizes the data decide (NonZero's count ``NonZero <= N``), hold
wherever the node runs. Main read each subgraph with no facts, so a Gather of
``NonZero`` indices into ``N`` rows in a branch left ``If_then == 0 or N >= 1 or
NonZero == 0`` to the run (the contract approximate), and ``x[:NonZero]`` in a branch
was ``min(N, NonZero)`` rows, not the else branch's ``NonZero``. A fact stated inside
one branch stays that branch's. Judged by onnxruntime at sizes that all differ (0 and
1 among them), masks keeping none, one, some and all, both values of the condition."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from differential import count
from onnxparts import i64

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL



def _branch(nodes: list, out: str, name: str) -> object:
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, F, None)])


def _model(nodes: list, inputs: list, inits: list, outputs: tuple[str, ...]):
    graph = helper.make_graph(nodes, "m", inputs,
                              [helper.make_tensor_value_info(o, F, None) for o in outputs],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


_COUNT = [helper.make_node("Greater", ["s", "half"], ["mask"]),  # idx = nonzero(s > 0.5)
          helper.make_node("NonZero", ["mask"], ["nz"], name="/NonZero"),
          helper.make_node("Squeeze", ["nz", "axes0"], ["idx"])]
_COUNT_INITS = [numpy_helper.from_array(np.array(0.5, np.float32), "half"),
                i64("axes0", [0]), i64("z1", [0])]


def _sliced_or_gathered():
    """``out = x[:len(idx)] if c else x[idx]`` (``x`` of ``N`` rows, ``idx`` the
    NonZero of ``s > 0.5``), beside ``sum = x + w`` (``w`` of ``K`` rows: broadcast, so
    the model is invalid where ``N != K`` and neither is 1: onnxruntime refuses it)."""
    then = [helper.make_node("Shape", ["idx"], ["kn"]),
            helper.make_node("Slice", ["x", "z1", "kn"], ["t"])]
    other = [helper.make_node("Gather", ["x", "idx"], ["e"], axis=0)]
    nodes = [*_COUNT, helper.make_node("Add", ["x", "w"], ["sum"]),
             helper.make_node("If", ["c"], ["out"], name="If_then",
                              then_branch=_branch(then, "t", "then"),
                              else_branch=_branch(other, "e", "else"))]
    inputs = [helper.make_tensor_value_info("x", F, ["N", 4]),
              helper.make_tensor_value_info("w", F, ["K", 4]),
              helper.make_tensor_value_info("s", F, ["N"]),
              helper.make_tensor_value_info("c", B, [])]
    return _model(nodes, inputs, _COUNT_INITS, ("out", "sum"))


def _masks(n: int) -> list[np.ndarray]:
    """Scores keeping none, one, about half and all of ``n`` rows."""
    out = [np.zeros(n, np.float32), np.ones(n, np.float32)]
    if n:
        one = np.zeros(n, np.float32)
        one[-1] = 1
        out += [one, (np.arange(n) % 2).astype(np.float32)]
    return out


def test_a_branch_knows_the_count_is_at_most_the_rows():
    """Both branches give ``NonZero`` rows (``x[:NonZero]`` is that many: ``NonZero <=
    N``), so the If's output is ``float32[NonZero,4]`` in from_onnx, infer_shapes and
    the contract alike (main: ``If_then`` rows, the contract approximate over
    ``If_then_then == 1 or N >= 1 or NonZero == 0``). onnxruntime runs every point the
    contract finds valid, with that many rows, and refuses every other."""
    model = _sliced_or_gathered()
    _, (out, total) = ko.from_onnx(model)
    assert str(out.type) == "float32[NonZero,4]", out.type
    shape = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape
    assert [d.dim_param or d.dim_value for d in shape.dim] == ["NonZero", 4]
    for contract in (ko.contract(model), kt.contract([out, total])):
        assert contract.exact, str(contract)
        assert all("NonZero" not in str(a.clause) and "If" not in str(a.clause)
                   for a in contract.atoms), str(contract)
    contract = ko.contract(model)
    for n, k in [(0, 0), (0, 1), (1, 0), (1, 3), (2, 2), (2, 3), (3, 1), (4, 0), (4, 4)]:
        verdict = contract.holds(N=n, K=k).value
        assert verdict is (n == k or 1 in (n, k)), (n, k, verdict, str(contract))
        for scores in _masks(n):
            for c in (True, False):
                feeds = {"x": np.ones((n, 4), np.float32), "w": np.ones((k, 4), np.float32),
                         "s": scores, "c": np.array(c)}
                got = ortrun.run(model, feeds)
                count("branch facts: onnxruntime runs judged")
                if not verdict:
                    assert isinstance(got, ortrun.Refusal), (n, k, scores, c, got)
                    continue
                kept = int(np.count_nonzero(scores > 0.5))
                assert got == [(kept, 4), (n if k == 1 else k, 4)], (n, k, scores, c, got)


def test_a_loop_body_knows_the_count_is_at_most_the_rows():
    """A Loop summing ``x[idx]`` at each iteration: its body's Gather needs nothing
    (main: ``Loop_1_iters == 0 or N >= 1 or NonZero == 0``, approximate). onnxruntime
    runs it at every ``N`` and trip count."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cin"], ["cout"]),
         helper.make_node("Gather", ["x", "idx"], ["g"], axis=0),
         helper.make_node("ReduceSum", ["g"], ["r"], keepdims=0),
         helper.make_node("Add", ["acc", "r"], ["acc2"])], "body",
        [helper.make_tensor_value_info("i", I64, []),
         helper.make_tensor_value_info("cin", B, []),
         helper.make_tensor_value_info("acc", F, [])],
        [helper.make_tensor_value_info("cout", B, []),
         helper.make_tensor_value_info("acc2", F, [])])
    model = _model(
        [*_COUNT, helper.make_node("Loop", ["trips", "", "zero"], ["out"], name="Loop_1",
                                   body=body)],
        [helper.make_tensor_value_info("x", F, ["N", 4]),
         helper.make_tensor_value_info("s", F, ["N"]),
         helper.make_tensor_value_info("trips", I64, [])],
        [*_COUNT_INITS, numpy_helper.from_array(np.array(0, np.float32), "zero")], ("out",))
    inputs, outputs = ko.from_onnx(model)
    for contract in (ko.contract(model), kt.contract(outputs)):
        assert contract.exact and not contract.atoms, str(contract)
    run = kt.function(inputs, outputs)
    for n in range(4):
        for scores in _masks(n):
            for trips in (0, 1, 3):
                x = np.arange(4 * n, dtype=np.float32).reshape(n, 4)
                feeds = {"x": x, "s": scores, "trips": np.array(trips, np.int64)}
                got = ortrun.run(model, feeds)
                count("branch facts: onnxruntime runs judged")
                assert got == [()], (n, scores, trips, got)
                want = trips * x[scores > 0.5].sum()
                (value,) = run(x, scores, np.array(trips, np.int64))
                assert np.asarray(value).shape == () and float(value) == want


def test_a_nms_count_reshaped_in_a_branch():
    """``keep = nms(boxes)[:, 2]`` before the If, ``boxes[keep].reshape(len(keep), 4)``
    in its then branch, as exporters write a guarded post-processing: the branch's
    Gather needs nothing, NonMaxSuppression's count being at most the boxes' ``M``
    (main: ``If_5_then == 0 or M >= 1 or NonMaxSuppression_4 == 0``, approximate)."""
    then = [helper.make_node("Gather", ["b2", "keep"], ["g"], axis=0),
            helper.make_node("Shape", ["keep"], ["kn"]),
            helper.make_node("Concat", ["kn", "four"], ["shp"], axis=0),
            helper.make_node("Reshape", ["g", "shp"], ["t"])]
    nodes = [helper.make_node("Unsqueeze", ["b2", "axes0"], ["b3"]),
             helper.make_node("Unsqueeze", ["sc", "axes01"], ["s3"]),
             helper.make_node("NonMaxSuppression", ["b3", "s3", "most", "iou"], ["sel"],
                              name="NonMaxSuppression_4"),
             helper.make_node("Gather", ["sel", "twos"], ["col"], axis=1),
             helper.make_node("Squeeze", ["col", "axes1"], ["keep"]),
             helper.make_node("If", ["c"], ["out"], name="If_5",
                              then_branch=_branch(then, "t", "then"),
                              else_branch=_branch([helper.make_node("Identity", ["b2"], ["e"])],
                                                  "e", "else"))]
    model = _model(nodes, [helper.make_tensor_value_info("b2", F, ["M", 4]),
                           helper.make_tensor_value_info("sc", F, ["M"]),
                           helper.make_tensor_value_info("c", B, [])],
                   [numpy_helper.from_array(np.array([0.5], np.float32), "iou"),
                    i64("axes0", [0]), i64("axes01", [0, 1]), i64("axes1", [1]),
                    i64("twos", [2]), i64("most", [1000]), i64("four", [4])], ("out",))
    _, outputs = ko.from_onnx(model)
    assert str(outputs[0].type) == "float32[If_5,4]", outputs[0].type
    for contract in (ko.contract(model), kt.contract(outputs)):
        assert contract.exact and not contract.atoms, str(contract)
    for m in range(5):
        corner = np.arange(m, dtype=np.float32)[:, None] * 10  # (apart: NMS keeps all)
        boxes = np.concatenate([corner, corner, corner + 1, corner + 1], axis=1)
        for scores in _masks(m):
            for c in (True, False):
                got = ortrun.run(model, {"b2": boxes.reshape(m, 4), "sc": scores,
                                         "c": np.array(c)})
                count("branch facts: onnxruntime runs judged")
                assert got == [(m, 4)], (m, scores, c, got)  # (no score threshold)


def test_a_fact_of_one_branch_is_not_the_others():
    """Both branches add ``a`` (``N``) and ``b`` (``K``): the then branch's broadcast
    condition is no fact for the else branch, which states it too (read under it, the
    else branch would state nothing). onnxruntime refuses ``N = 2, K = 3`` whichever
    branch runs, and runs where they broadcast; the contract is True exactly there."""
    add = lambda out: [helper.make_node("Add", ["a", "b"], [out])]  # noqa: E731
    model = _model([helper.make_node("If", ["c"], ["out"], name="If_2",
                                     then_branch=_branch(add("t"), "t", "then"),
                                     else_branch=_branch(add("e"), "e", "else"))],
                   [helper.make_tensor_value_info("a", F, ["N"]),
                    helper.make_tensor_value_info("b", F, ["K"]),
                    helper.make_tensor_value_info("c", B, [])], [], ("out",))
    contract = ko.contract(model)
    assert sorted(str(a.clause) for a in contract.atoms) == [
        "If_2_then == 0 or N == K or N == 1 or K == 1",
        "If_2_then == 1 or N == K or N == 1 or K == 1"], str(contract)
    for n, k in [(2, 3), (3, 2), (2, 2), (1, 3), (0, 1), (0, 2)]:
        valid = n == k or 1 in (n, k)
        assert (contract.holds(N=n, K=k).value is True) is valid, (n, k, str(contract))
        for c in (True, False):
            got = ortrun.run(model, {"a": np.ones(n, np.float32), "b": np.ones(k, np.float32),
                                     "c": np.array(c)})
            count("branch facts: onnxruntime runs judged")
            assert isinstance(got, list) is valid, (n, k, c, got)
