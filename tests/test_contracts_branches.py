"""The contract of a model with control flow needs what its subgraphs need: an If fails
where the branch it takes fails, a Loop where an iteration of its body fails, so the
conditions of their subgraphs' nodes are the model's (each naming its node and
subgraph). Judged by onnxruntime (tests/ortrun.py) at every point of a small grid, with
each value of the If's condition or the Loop's trip count where the data give it:
``holds`` is True exactly where every run succeeds, False where every run fails, and
undecided where the data decide.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import kantensor as kt
import kantensor.onnx as ko
import ortrun

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _branch(nodes, out: str, name: str):
    return helper.make_graph(nodes, name, [],
                             [helper.make_tensor_value_info(out, F, None)])


def _if_model(then_nodes, cond: str = "data", rank: int = 2):
    """``y = If(c, then: then_nodes -> t, else: Identity(x) -> e)`` over ``x: float[N, D]``
    (``float[N]`` for rank 1); ``cond``: "data" (a bool input), "true" (a constant) or
    "size" (``Shape(x)[0] == 1``)."""
    dims = ["N", "D"][:rank]
    x = helper.make_tensor_value_info("x", F, dims)
    other = _branch([helper.make_node("Identity", ["x"], ["e"])], "e", "else")
    nodes, inputs, inits = [], [x], []
    if cond == "data":
        inputs.append(helper.make_tensor_value_info("c", B, []))
    elif cond == "true":
        inits.append(numpy_helper.from_array(np.array(True), "c"))
    else:
        inits += [numpy_helper.from_array(np.array([0], np.int64), "zero"),
                  numpy_helper.from_array(np.array([1], np.int64), "one")]
        nodes += [helper.make_node("Shape", ["x"], ["shape"]),
                  helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0),
                  helper.make_node("Equal", ["n", "one"], ["c1"]),
                  helper.make_node("Squeeze", ["c1"], ["c"])]
    nodes.append(helper.make_node("If", ["c"], ["y"], name="if",
                                  then_branch=_branch(then_nodes, "t", "then"),
                                  else_branch=other))
    graph = helper.make_graph(nodes, "g", inputs,
                              [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _runs(model, point: dict, conds) -> list[bool]:
    """Whether onnxruntime runs ``model`` at the sizes of ``point``, per condition value."""
    shape = tuple(point[d] for d in ("N", "D") if d in point)
    out = []
    for c in conds:
        feeds = {"x": np.ones(shape, np.float32)}
        if isinstance(c, int) and not isinstance(c, bool):  # a Loop's trip count
            feeds["M"] = np.array(c, np.int64)
        elif c is not None:
            feeds["c"] = np.array(c)
        out.append(not isinstance(ortrun.run(model, feeds), ortrun.Refusal))
    return out


def _judged(model, conds, rank: int = 2, sizes=range(4)) -> int:
    """Check ``holds`` of the model's contract (and of kt.contract of from_onnx's graph)
    against onnxruntime at every point of ``sizes``; the number of points judged."""
    contract = ko.contract(model)
    inputs, outputs = ko.from_onnx(model)
    graph = kt.contract(outputs, inputs)
    judged = 0
    for values in itertools.product(sizes, repeat=rank):
        point = dict(zip(("N", "D")[:rank], values, strict=True))
        runs = _runs(model, point, conds)
        verdict = contract.holds(**point)
        expected = True if all(runs) else False if not any(runs) else None
        assert verdict.value is expected, (point, runs, verdict)
        assert graph.holds(**point).value is expected, (point, runs)
        judged += 1
    return judged


MATMUL = [helper.make_node("MatMul", ["x", "x"], ["t"], name="square")]


def test_a_known_condition_gives_its_branchs_conditions():
    """A constant condition: the then branch's ``MatMul(x, x)`` needs ``D == N``."""
    model = _if_model(MATMUL, "true")
    contract = ko.contract(model)
    assert contract.exact and contract.dsl() == "where D == N"
    assert "square in if: then_branch" in str(contract)
    assert _judged(model, [None]) == 16


def test_a_condition_the_data_decide_leaves_its_branchs_conditions_undecided():
    """The condition is an input: valid where both branches run (``D == N``), otherwise
    onnxruntime fails with one condition's value only: undecided, never valid."""
    model = _if_model(MATMUL, "data")
    contract = ko.contract(model)
    assert not contract.exact
    assert contract.holds(N=2, D=3).value is None
    assert contract.holds(N=3, D=3).value is True
    assert "if_then == 0 or D == N" in str(contract)
    assert _judged(model, [True, False]) == 16


def test_a_comparison_of_sizes_guards_its_branchs_conditions_exactly():
    """``If(Shape(x)[0] == 1)``: the then branch runs where ``N == 1``, so the model needs
    ``N != 1 or D == N``: exact, each point valid or not."""
    model = _if_model(MATMUL, "size")
    contract = ko.contract(model)
    assert contract.exact
    assert contract.holds(N=1, D=2).value is False
    assert contract.holds(N=2, D=3).value is True
    assert _judged(model, [None]) == 16


def test_a_branch_whose_nodes_contradict_is_valid_nowhere_when_taken():
    """A then branch needing ``N == 3`` and ``N == 2`` (two vector products) fails at
    every size: taken always, the model is refused as a main graph's node would be;
    taken as the data say, no size is valid for every run, nor invalid (the else branch
    runs): the If needs ``if_then == 0``."""
    w3 = numpy_helper.from_array(np.ones(3, np.float32), "w3")
    w2 = numpy_helper.from_array(np.ones(2, np.float32), "w2")
    then = [helper.make_node("Constant", [], ["w3"], value=w3),
            helper.make_node("Constant", [], ["w2"], value=w2),
            helper.make_node("MatMul", ["x", "w3"], ["a"], name="dot3"),
            helper.make_node("MatMul", ["x", "w2"], ["b"], name="dot2"),
            helper.make_node("Add", ["a", "b"], ["t"])]
    taken = _if_model(then, "true", rank=1)
    with pytest.raises(kt.TypeInferenceError, match="'dot2'"):  # as a main graph's node
        ko.contract(taken)
    assert not any(_runs(taken, {"N": n}, [None])[0] for n in range(5))
    either = _if_model(then, "data", rank=1)
    assert "if_then == 0" in str(ko.contract(either))
    assert all(ko.contract(either).holds(N=n).value is None for n in range(5))
    assert _judged(either, [True, False], rank=1, sizes=range(5)) == 5


def test_a_taken_branch_whose_conditions_no_size_meets_together_is_valid_nowhere():
    """Each node of the then branch builds (``N % 2 == 0``, ``N == 0 or N == 1``, ``N == 2
    or N == 1``), and no size meets them all: taken always, the model is refused as
    valid at no sizes, naming the two Adds (the contract once said every size was
    valid, when the branch's conditions were dropped; an empty contract before the
    model's disjunctions were judged together), and onnxruntime fails at every size;
    taken as the data say, every size is undecided (the else branch runs)."""
    consts = {"z0": np.zeros(0, np.float32), "z2": np.zeros(2, np.float32),
              "shape": np.array([2, -1], np.int64)}
    then = [*(helper.make_node("Constant", [], [k], value=numpy_helper.from_array(v, k))
              for k, v in consts.items()),
            helper.make_node("Add", ["x", "z0"], ["a"], name="plus0"),
            helper.make_node("Add", ["x", "z2"], ["b"], name="plus2"),
            helper.make_node("Concat", ["a", "b"], ["ab"], axis=0),
            helper.make_node("Reshape", ["x", "shape"], ["halves"], name="even"),
            helper.make_node("Identity", ["x"], ["t"])]
    taken = _if_model(then, "true", rank=1)
    for read in (ko.contract, ko.from_onnx, ko.infer_shapes):
        with pytest.raises(kt.TypeInferenceError, match="the model is valid at no sizes") \
                as info:
            read(taken)
        assert "'plus2 in if: then_branch' (Add)" in str(info.value)
        assert "'plus0 in if: then_branch'" in str(info.value)
    assert not any(_runs(taken, {"N": n}, [None])[0] for n in range(5))
    either = _if_model(then, "data", rank=1)
    assert _judged(either, [True, False], rank=1, sizes=range(5)) == 5


def test_an_if_in_a_branch_passes_its_conditions_out():
    """An If inside the then branch of an If, both on constants: the inner branch's
    ``MatMul(x, x)`` is the model's condition."""
    inner = helper.make_node("If", ["c"], ["t"], name="inner",
                             then_branch=_branch(MATMUL, "t", "then"),
                             else_branch=_branch([helper.make_node("Identity", ["x"], ["e"])],
                                                 "e", "else"))
    model = _if_model([inner], "true")
    contract = ko.contract(model)
    assert contract.dsl() == "where D == N"
    assert "square in inner: then_branch in if: then_branch" in str(contract)
    assert _judged(model, [None]) == 16


def _loop_model(body_nodes, trips: str = "data", carried: bool = False,
                declared: bool = False):
    """``Loop(M, true)`` over ``x: float[N, D]`` whose body runs ``body_nodes`` (giving
    ``t``, a scan output, declared of rank 2 if ``declared``); ``trips``: "data" (an
    input M) or "two" (a constant); ``carried``: the body also carries ``acc`` (``a:
    float[D]``, unchanged) that ``body_nodes`` may read as ``acc_in``."""
    inputs = [helper.make_tensor_value_info("i", I64, []),
              helper.make_tensor_value_info("c_in", B, [])]
    outputs = [helper.make_tensor_value_info("c_out", B, [])]
    nodes = [*body_nodes, helper.make_node("Identity", ["c_in"], ["c_out"])]
    if carried:
        inputs.append(helper.make_tensor_value_info("acc_in", F, None))
        outputs.append(helper.make_tensor_value_info("acc_out", F, None))
        nodes.append(helper.make_node("Identity", ["acc_in"], ["acc_out"]))
    outputs.append(helper.make_tensor_value_info("t", F, ["r", "c"] if declared else None))
    body = helper.make_graph(nodes, "body", inputs, outputs)
    graph_inputs = [helper.make_tensor_value_info("x", F, ["N", "D"])]
    inits = [numpy_helper.from_array(np.array(True), "true")]
    if trips == "data":
        graph_inputs.append(helper.make_tensor_value_info("M", I64, []))
    else:
        inits.append(numpy_helper.from_array(np.array(2, np.int64), "M"))
    loop_inputs, loop_outputs = ["M", "true"], ["y"]
    if carried:
        inits.append(numpy_helper.from_array(np.ones(3, np.float32), "a"))
        loop_inputs.append("a")
        loop_outputs.insert(0, "acc")
    node = helper.make_node("Loop", loop_inputs, loop_outputs, body=body, name="loop")
    graph = helper.make_graph([node], "g", graph_inputs,
                              [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_loop_needs_its_bodys_conditions_where_it_runs():
    """A body's ``MatMul(x, x)``: a trip count the data give makes ``D == N`` needed
    where the loop runs (``loop_iters == 0 or D == N``: valid at D == N, undecided
    elsewhere, since no iteration runs at M = 0); two iterations make it exact. (Its
    scan output is declared of rank 2: undeclared, onnxruntime gives it rank 1 after no
    iteration, and no point is valid whatever M: test_onnx_loop_idle_scans.)"""
    by_data = _loop_model(MATMUL, declared=True)
    contract = ko.contract(by_data)
    assert "loop_iters == 0 or D == N" in str(contract)
    assert "square in loop: body" in str(contract)
    assert _judged(by_data, [0, 1, 2]) == 16
    undeclared = ko.contract(_loop_model(MATMUL))
    assert not any(undeclared.holds(N=n, D=n).value for n in range(3))
    twice = _loop_model(MATMUL, "two")
    assert ko.contract(twice).dsl() == "where D == N"
    assert _judged(twice, [None]) == 16


def test_a_carried_size_that_never_changes_is_its_initial_size_in_the_bodys_conditions():
    """The body adds its carried ``acc`` (3 entries, never changed) to each row of x:
    D broadcasts against 3, needed at each of the two iterations."""
    add = [helper.make_node("Add", ["x", "acc_in"], ["t"], name="plus")]
    model = _loop_model(add, "two", carried=True)
    contract = ko.contract(model)
    assert contract.exact and contract.holds(N=2, D=3) and contract.holds(N=2, D=1)
    assert not contract.holds(N=2, D=2)
    assert _judged(model, [None]) == 16


def _scan_model(outputs: bool = True, axis: int = 0, opset: int = 17):
    """A Scan over the T rows of ``x: float[T, N]`` (``[N, T]`` scanned on ``axis`` 1;
    ``[B, T, N]`` at opset 8, with ``s0: [B, D]``) adding each to its state ``s0: [D]``,
    which it keeps; ``outputs``: the sums are its scan output (else the body has none)."""
    nodes = [helper.make_node("Add", ["s_in", "r"], ["o"], name="plus"),
             helper.make_node("Identity", ["s_in"], ["s_out"])]
    outs = [helper.make_tensor_value_info(n, F, None) for n in ("s_out", "o")[:1 + outputs]]
    body = helper.make_graph(nodes, "body", [helper.make_tensor_value_info(n, F, None)
                                             for n in ("s_in", "r")], outs)
    batch = ["B"] if opset < 9 else []
    x = [*batch, *(("T", "N") if axis == 0 else ("N", "T"))]
    extra = {"scan_input_axes": [axis]} if axis else {}
    node = helper.make_node("Scan", [""] * bool(batch) + ["s0", "x"],
                            ["s", "y"][:1 + outputs], body=body, num_scan_inputs=1,
                            name="scan", **extra)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("s0", F, [*batch, "D"]),
                                            helper.make_tensor_value_info("x", F, x)],
                              [helper.make_tensor_value_info(("s", "y")[outputs], F, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=7)


def _judged_at(model, sizes: dict) -> int:
    """``holds`` of the model's contract and of kt.contract of from_onnx's graph against
    onnxruntime at every point of ``sizes`` (a range per named size of the float
    inputs): exact, no point undecided; the number of points judged."""
    contract = ko.contract(model)
    inputs, outputs = ko.from_onnx(model)
    graph = kt.contract(outputs, inputs)
    shapes = [[d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim]
              for i in model.graph.input]
    judged = 0
    for values in itertools.product(*sizes.values()):
        point = dict(zip(sizes, values, strict=True))
        feeds = {i.name: np.ones([point.get(d, d) for d in shape], np.float32)
                 for i, shape in zip(model.graph.input, shapes, strict=True)}
        runs = not isinstance(ortrun.run(model, feeds), ortrun.Refusal)
        assert contract.holds(**point).value is runs, (point, contract.holds(**point))
        assert graph.holds(**point).value is runs, (point, graph.holds(**point))
        judged += 1
    return judged


def test_a_scan_needs_its_bodys_conditions_where_it_scans():
    """``T >= 1`` and the broadcast of D and N, exact. ONNX's pseudo-code would run no
    iteration at ``T = 0`` (each scan output "an empty tensor" of no stated shape), but
    onnxruntime refuses every scan over an empty axis and onnx.reference one with scan
    outputs: the contract says invalid there, naming the Scan node."""
    model = _scan_model()
    contract = ko.contract(model)
    assert contract.exact and "plus in scan: body" in str(contract)
    verdict = contract.holds(T=0, N=2, D=2)
    assert verdict.value is False and "T >= 1" in str(verdict) and "Scan scan" in str(verdict)
    assert not contract.holds(T=1, N=2, D=3) and contract.holds(T=1, N=2, D=2)
    assert contract.dsl().splitlines()[0] == "where T >= 1, D == N"
    with pytest.raises(RuntimeError, match="zero scan-input length"):
        ReferenceEvaluator(model).run(None, {"s0": np.ones(2, np.float32),
                                             "x": np.ones((0, 2), np.float32)})
    assert _judged_at(model, {"T": range(4), "N": range(4), "D": range(4)}) == 64


def test_an_empty_scan_is_refused_without_scan_outputs_or_on_another_axis():
    """onnxruntime refuses ``T = 0`` also where the body has no scan output (which
    onnx.reference runs: nothing to concatenate) and its process dies scanning an empty
    axis 1; at opset 8 it dies on an empty batch too, so ``B >= 1`` as well."""
    states = _scan_model(outputs=False)
    feeds = {"s0": np.ones(2, np.float32), "x": np.ones((0, 2), np.float32)}
    assert ReferenceEvaluator(states).run(None, feeds)[0].shape == (2,)
    assert isinstance(ortrun.run(states, feeds), ortrun.Refusal)
    assert _judged_at(states, {"T": range(3), "N": range(3), "D": range(3)}) == 27
    crashed = ortrun.run(_scan_model(axis=1), {"s0": np.ones(2, np.float32),
                                               "x": np.ones((2, 0), np.float32)})
    assert isinstance(crashed, ortrun.Refusal) and crashed.crashed
    assert _judged_at(_scan_model(axis=1), {"T": range(3), "N": (1, 2), "D": (2,)}) == 6
    batched = _scan_model(opset=8)
    assert "B >= 1" in str(ko.contract(batched))
    assert _judged_at(batched, {"B": range(3), "T": range(3), "N": (1, 2),
                                  "D": (2,)}) == 18


def test_the_graphs_contract_names_the_inner_node_and_the_node_around_it():
    """kt.contract of from_onnx's graph names a subgraph's node as ko.contract does: the
    node itself, in which subgraph of which node (not only the node around it)."""
    nested = _if_model([helper.make_node(
        "If", ["c"], ["t"], name="inner", then_branch=_branch(MATMUL, "t", "then"),
        else_branch=_branch([helper.make_node("Identity", ["x"], ["e"])], "e", "else"))],
        "true")
    two = {"N": 2, "D": 3}
    for model, point, where in (
            (_if_model(MATMUL, "true"), two, "MatMul square in if: then_branch"),
            (_if_model(MATMUL, "size"), {"N": 1, "D": 3},
             "MatMul square in if: then_branch, If if"),
            (nested, two, "MatMul square in inner: then_branch in if: then_branch"),
            (_loop_model(MATMUL, "two"), two, "MatMul square in loop: body"),
            (_scan_model(), {"T": 1, **two}, "Add plus in scan: body")):
        inputs, outputs = ko.from_onnx(model)
        graph = kt.contract(outputs, inputs)
        verdict = graph.holds(**point)
        assert verdict.value is False and str(verdict).endswith(f"({where})"), verdict
        assert str(verdict) == str(ko.contract(model).holds(**point))
        assert where in str(graph)


def test_a_sequence_map_needs_its_bodys_conditions_for_every_element():
    """SequenceMap's body multiplies each row of ``x: float[T, N]`` by ``w: float[D, 2]``:
    ``T == 0 or N == D``; the ConcatFromSequence after it needs ``T >= 1`` (onnxruntime
    refuses to concatenate an empty sequence, "Must have 1 or more inputs")."""
    body = helper.make_graph([helper.make_node("MatMul", ["e", "w"], ["o"], name="mm")],
                             "body", [helper.make_tensor_value_info("e", F, None)],
                             [helper.make_tensor_value_info("o", F, None)])
    graph = helper.make_graph(
        [helper.make_node("SplitToSequence", ["x"], ["seq"], axis=0, keepdims=1),
         helper.make_node("SequenceMap", ["seq"], ["out"], body=body, name="smap"),
         helper.make_node("ConcatFromSequence", ["out"], ["y"], axis=0, name="cat")], "g",
        [helper.make_tensor_value_info("x", F, ["T", "N"]),
         helper.make_tensor_value_info("w", F, ["D", 2])],
        [helper.make_tensor_value_info("y", F, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    contract = ko.contract(model)
    assert "mm in smap: body" in str(contract)
    assert contract.dsl() == "where T >= 1, N == D"  # (not the case T >= 1, T == 0)
    assert str(contract.holds(T=0, N=2, D=2)).endswith("T >= 1 fails at T=0, N=2, D=2 "
                                                        "(ConcatFromSequence cat)")
    assert _judged_at(model, {"T": range(3), "N": range(4), "D": range(4)}) == 48
