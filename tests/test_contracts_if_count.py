"""An If whose branches give different counts gives a size its condition decides (one
more size the data decide, named after the If); what both branches guarantee of their
counts bounds it. SSDlite's TorchScript export keeps torchvision's early return for no
boxes as such an If: ``keep = [] if boxes.numel() == 0 else nms(boxes, ...)``, then
``boxes[keep]``. Its count is 0 or NonMaxSuppression's (at most the boxes' count ``M``,
made inside the else branch), so it is at most ``M`` whichever branch runs, and the
Gather's ``M >= 1 or If == 0`` holds by that fact: the contract is exact (main left it
to the run: approximate). Where the branches' counts have no common bound that
implies a node's condition (a then branch of ``N`` indices into ``M`` boxes), the
condition stays a check made when the model runs. Judged by onnxruntime at every ``N``
in 0..4 and masks that keep none, one, some and all of the boxes."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from differential import count
from kantensor.onnx import size_conditions
from kantensor.types.dim import Dim
from kantensor.types.symbols import free_symbols, substitute
from onnxparts import i64

F, I64 = TensorProto.FLOAT, TensorProto.INT64



def _detector(then: str = "empty", classes: int = 1, top: int | None = None,
              inputs: int = 0):
    """``boxes = all[nonzero(scores > 0.5)]`` (``[M, 4]``; with ``classes`` rows of
    scores ``[classes, N]``, the boxes of each row concatenated, ``M`` the sum of their
    counts, each at most ``top`` where given: a TopK of ``min(top, count)``, as
    torchvision keeps at most 300 boxes a class; with ``inputs``, the boxes ``[n_i, 4]``
    and scores of that many classes are the model's inputs), ``keep = If(numel(boxes) ==
    0, then: <then>, else: nms(boxes)[:, 2])``, ``out = boxes[keep[:top]]``, as the
    TorchScript exporter writes torchvision's ``batched_nms``. ``then``: "empty" (a constant ``[]``,
    torchvision's) or "all" (``Range(0, N)``: every index of ``all``, not of
    ``boxes``)."""
    if then == "empty":
        then_nodes = [helper.make_node("Constant", [], ["none"], value=numpy_helper.from_array(
            np.zeros(0, np.int64), "v"))]
    else:
        then_nodes = [helper.make_node("Shape", ["all"], ["sh"]),
                      helper.make_node("Gather", ["sh", "zero"], ["n"], axis=0),
                      helper.make_node("Range", ["zero", "n", "one"], ["none"])]
    else_nodes = [
        helper.make_node("Unsqueeze", ["boxes", "axes0"], ["b3"]),
        helper.make_node("Unsqueeze", ["kept_scores", "axes01"], ["s3"]),
        helper.make_node("NonMaxSuppression", ["b3", "s3", "most", "iou"], ["sel"],
                         name="NonMaxSuppression_9"),
        helper.make_node("Gather", ["sel", "twos"], ["col"], axis=1),
        helper.make_node("Squeeze", ["col", "axes1"], ["keep_e"])]
    branch = lambda nodes, out, name: helper.make_graph(  # noqa: E731
        nodes, name, [], [helper.make_tensor_value_info(out, I64, None)])
    nodes, inits = [], []
    if inputs:  # (the boxes and scores of each class given: M = n0 + ... + n{inputs-1})
        classes = 0
        nodes += [helper.make_node("Concat", [f"box{i}" for i in range(inputs)], ["boxes"],
                                   axis=0),
                  helper.make_node("Concat", [f"score{i}" for i in range(inputs)],
                                   ["kept_scores"], axis=0)]
    for c in range(classes):
        row = "scores" if classes == 1 else f"row{c}"
        if classes > 1:
            inits.append(i64(f"c{c}", c))
            nodes.append(helper.make_node("Gather", ["scores", f"c{c}"], [row], axis=0))
        nodes += [helper.make_node("Greater", [row, "half"], [f"mask{c}"]),
                  helper.make_node("NonZero", [f"mask{c}"], [f"nz{c}"],
                                   name="/NonZero" if c == 0 else f"/NonZero_{c}"),
                  helper.make_node("Squeeze", [f"nz{c}", "axes0"], [f"idx{c}"])]
        if top is not None:  # (the top ``min(top, count)`` of them)
            nodes += [helper.make_node("Gather", [row, f"idx{c}"], [f"sc{c}"], axis=0),
                      helper.make_node("Shape", [f"sc{c}"], [f"len{c}"]),
                      helper.make_node("Concat", ["tops", f"len{c}"], [f"both{c}"], axis=0),
                      helper.make_node("ReduceMin", [f"both{c}"], [f"k{c}"], keepdims=1),
                      helper.make_node("TopK", [f"sc{c}", f"k{c}"], [f"v{c}", f"i{c}"]),
                      helper.make_node("Gather", [f"idx{c}", f"i{c}"], [f"top{c}"], axis=0)]
            kept = f"top{c}"
        else:
            kept = f"idx{c}"
        nodes += [helper.make_node("Gather", ["all", kept], [f"boxes{c}"], axis=0),
                  helper.make_node("Gather", [row, kept], [f"kept_scores{c}"], axis=0)]
    if classes:
        nodes += [
            helper.make_node("Concat", [f"boxes{c}" for c in range(classes)], ["boxes"],
                             axis=0),
            helper.make_node("Concat", [f"kept_scores{c}" for c in range(classes)],
                             ["kept_scores"], axis=0)]
    nodes += [
        helper.make_node("Shape", ["boxes"], ["shape"]),
        helper.make_node("ReduceProd", ["shape"], ["numel"], keepdims=0),
        helper.make_node("Equal", ["numel", "zero"], ["empty"]),
        helper.make_node("Cast", ["empty"], ["cond"], to=TensorProto.BOOL),
        helper.make_node("If", ["cond"], ["keep"], name="If_7",
                         then_branch=branch(then_nodes, "none", "then"),
                         else_branch=branch(else_nodes, "keep_e", "else")),
        helper.make_node("Slice", ["keep", "zeros", "tops"], ["kept"]),  # (keep[:top])
        helper.make_node("Gather", ["boxes", "kept" if top else "keep"], ["out"], axis=0,
                         name="/Gather_35")]
    inits += [numpy_helper.from_array(np.array(0.5, np.float32), "half"),
              numpy_helper.from_array(np.array([0.5], np.float32), "iou"),
              i64("zero", 0), i64("one", 1), i64("axes0", [0]), i64("axes01", [0, 1]),
              i64("axes1", [1]), i64("twos", [2]), i64("most", [1000]),
              i64("tops", [top or 0]), i64("zeros", [0])]
    scores = ["N"] if classes == 1 else [classes, "N"]
    given = [helper.make_tensor_value_info("scores", F, scores),
             helper.make_tensor_value_info("all", F, ["N", 4])] if classes else [
        *(helper.make_tensor_value_info(f"box{i}", F, [f"n{i}", 4]) for i in range(inputs)),
        *(helper.make_tensor_value_info(f"score{i}", F, [f"n{i}"]) for i in range(inputs))]
    graph = helper.make_graph(
        nodes, "detector", given,
        [helper.make_tensor_value_info("out", F, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def _masks(n: int) -> list[np.ndarray]:
    """Scores keeping none, one, about half and all of ``n`` boxes."""
    out = [np.zeros(n, np.float32), np.ones(n, np.float32)]
    if n:
        one = np.zeros(n, np.float32)
        one[-1] = 1
        out += [one, (np.arange(n) % 2).astype(np.float32)]
    return out


def _run(model, n: int, scores: np.ndarray):
    """onnxruntime's output shapes at ``n`` boxes apart from each other (no overlap: NMS
    keeps every box it is given), or how it failed."""
    corner = np.arange(n, dtype=np.float32)[:, None] * 10
    boxes = np.concatenate([corner, corner, corner + 1, corner + 1], axis=1)
    count("if count: onnxruntime runs judged")
    return ortrun.run(model, {"scores": scores, "all": boxes.reshape(n, 4)})


def test_the_if_count_is_at_most_the_boxes_and_the_gather_needs_nothing():
    model = _detector()
    _, outputs = ko.from_onnx(model)
    for contract in (ko.contract(model), kt.contract(outputs)):
        assert contract.exact and not contract.atoms, str(contract)
        assert "approximate" not in str(contract)
    (out,) = outputs
    assert str(out.type) == "float32[If_7,4]", out.type
    bounds = [str(c) for c in size_conditions(outputs) if "If_7" in str(c)]
    assert bounds == ["If_7 <= NonZero"], bounds
    contract = ko.contract(model)
    for n in range(5):
        assert contract.holds(N=n).value is True
        for scores in _masks(n):
            got = _run(model, n, scores)
            kept = int(np.count_nonzero(scores > 0.5))
            # (the bound If_7 <= NonZero holds, and is reached: NMS keeps apart boxes)
            assert isinstance(got, list) and got[0] == (kept, 4), (n, scores, got)


def test_a_then_branch_past_the_boxes_leaves_the_gather_to_the_run():
    """``keep = Range(0, N)`` where no box is kept: at ``M == 0 < N`` the Gather reads
    index 0 of no box, and onnxruntime fails; where boxes are kept it runs. The If's
    count is at most ``N`` (NonMaxSuppression's ``<= M <= N``), which does not imply the
    Gather's condition: the contract stays approximate, undecided at every ``N >= 1``."""
    model = _detector(then="all")
    contract = ko.contract(model)
    assert not contract.exact
    assert [str(a.clause) for a in contract.atoms] == ["NonZero >= 1 or If_7 == 0"], \
        str(contract)
    for n in range(5):
        verdict = contract.holds(N=n)
        runs = [isinstance(_run(model, n, s), list) for s in _masks(n)]
        if n == 0:
            assert verdict.value is True and all(runs), (n, verdict, runs)
        else:
            assert verdict.value is None and runs[0] is False and runs[1] is True, \
                (n, verdict, runs)


def test_seventy_classes_keep_the_gathered_rows_known():
    """``boxes[keep[:300]]`` over the boxes of 70 classes given as inputs (``M = n0 + ...
    + n69``): the Gather's rows are ``min(300, If_7)`` in both of its cases (``i == 0``:
    the case's own clause says so, whatever the facts); main left them unknown, as
    the prover, given the If's fact of 71 terms too, gave up. onnxruntime's rows are
    the kept boxes' at sizes that all differ (0 and 1 among them)."""
    k = 70
    model = _detector(inputs=k, top=300)
    _, (out,) = ko.from_onnx(model)
    assert str(out.type) == "float32[min(300,If_7),4]", out.type
    for sizes in (list(range(k)), [0] * k, [(3 * i) % 7 for i in range(k)]):
        boxes = [np.array([[10 * j, 0, 10 * j + 1, 1] for j in range(n)], np.float32)
                 .reshape(n, 4) for n in sizes]
        offset = np.cumsum([0, *sizes])  # (every box apart: NMS keeps each)
        feeds = {f"box{i}": b + np.array([10 * offset[i], 0, 10 * offset[i], 0], np.float32)
                 for i, b in enumerate(boxes)}
        feeds |= {f"score{i}": np.ones(n, np.float32) for i, n in enumerate(sizes)}
        got = ortrun.run(model, feeds)
        count("if count: onnxruntime runs judged")
        assert got == [(min(300, sum(sizes)), 4)], (sizes, got)


def _judged(model, feeds) -> None:
    """onnxruntime runs ``model`` on ``feeds(n, c)`` at every ``N`` in 0..7 and both If
    conditions: where it runs, each stated size is the run's (an If's count bound to
    the run's), every size condition holds and the contract does not say it fails;
    where it fails for a condition, the contract does not say it runs."""
    _, outputs = ko.from_onnx(model)
    contract = ko.contract(model)
    for n in range(8):
        verdict = contract.holds(N=n).value
        for c in (True, False):
            got = ortrun.run(model, feeds(n, c))
            count("if count: onnxruntime runs judged")
            if not isinstance(got, list):
                assert verdict is not True, (n, c, got, str(contract))
                continue
            assert verdict is not False, (n, c, got, str(contract))
            bound: dict = {"N": n}
            for o, shape in zip(outputs, got, strict=True):
                assert len(o.type.shape) == len(shape), (o.type, shape)
                for d, k in zip(o.type.shape, shape, strict=True):
                    value = substitute(d, bound) if isinstance(d, Dim) else d
                    if isinstance(value, int):
                        assert value == k, (n, c, o.type, shape)
                        continue
                    (free,) = free_symbols(value)  # (a count the data decide: the run's)
                    assert str(value) == str(free), (n, c, o.type, shape)
                    bound[free] = k
            for cond in size_conditions(outputs):
                assert cond.holds(**bound), (n, c, str(cond), got)


def test_a_branch_count_guarantee_bounds_only_its_own_case():
    """``y = If(c, then: NonZero(ConstantOfShape([N - 5])), else: [])`` then ``z =
    x[:5]``: the then count's ``NonZero <= N - 5`` holds only where the then branch
    runs (it fails at ``N < 5``); main judged the else case's 0 under it too, stated
    ``If_1 <= N - 5`` and so ``N >= 5``, and typed ``z`` ``float32[5]``, where
    onnxruntime gives ``(N,)`` at ``N < 5`` with ``c`` False."""
    def c(name, v, dt=np.int64):
        return numpy_helper.from_array(np.array(v, dt), name)
    then = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Sub", ["s", "five"], ["s5"]),
         helper.make_node("ConstantOfShape", ["s5"], ["z"],
                          value=c("one", [1.0], np.float32)),
         helper.make_node("NonZero", ["z"], ["nz"], name="NonZero_2"),
         helper.make_node("Squeeze", ["nz", "ax0"], ["t"])],
        "then", [], [helper.make_tensor_value_info("t", I64, None)])
    other = helper.make_graph(
        [helper.make_node("Constant", [], ["e"], value=c("w", np.zeros(0, np.int64)))],
        "else", [], [helper.make_tensor_value_info("e", I64, None)])
    g = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other, name="If_1"),
         helper.make_node("Slice", ["x", "zero1", "five"], ["z"])], "g",
        [helper.make_tensor_value_info("x", F, ["N"]),
         helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", I64, None),
         helper.make_tensor_value_info("z", F, None)],
        [c("five", [5]), c("zero1", [0]), c("ax0", [0])])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    _, outputs = ko.from_onnx(model)
    assert [str(o.type) for o in outputs] == ["int64[If_1]", "float32[min(5,N)]"], \
        [str(o.type) for o in outputs]
    assert "If_1 <= N - 5" not in [str(x) for x in size_conditions(outputs)]
    _judged(model, lambda n, cv: {"x": np.zeros(n, np.float32), "c": np.array(cv)})
