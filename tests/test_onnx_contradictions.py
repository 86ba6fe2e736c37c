"""A model node whose own conditions hold at no sizes together is refused when the model
is read (``from_onnx``, ``infer_shapes``, ``contract``), naming the node and the
conditions, as a node that cannot be built is (a Reshape whose static target
contradicts its input's static size). Judged by onnxruntime: every model refused fails
at every size tried, and none is refused that runs at some size."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from differential import count
from kantensor.onnx import contradiction
from kantensor.onnx.contradiction import _hold_together, _rising, consistent, settled
from kantensor.types import conditions
from kantensor.types.conditions import AnyOf, Condition
from kantensor.types.dim import Dim
from kantensor.types.facts import EMPTY

F = TensorProto.FLOAT


def _broadcast(offset: int, other: tuple[int, int]):
    """``x[:, None] * concat(x, ones(offset))[None, :] + y``: ``[n, n + offset]`` against
    ``y`` of shape ``other``, one Add whose two axes each need a broadcast."""
    nodes = [helper.make_node("Concat", ["x", "pad"], ["c"], axis=0),
             helper.make_node("Unsqueeze", ["x", "ax1"], ["xu"]),
             helper.make_node("Unsqueeze", ["c", "ax0"], ["cu"]),
             helper.make_node("Mul", ["xu", "cu"], ["xc"]),
             helper.make_node("Add", ["xc", "y"], ["z"], name="/Add")]
    inits = [numpy_helper.from_array(np.ones(offset, np.float32), "pad"),
             numpy_helper.from_array(np.array([1]), "ax1"),
             numpy_helper.from_array(np.array([0]), "ax0"),
             numpy_helper.from_array(np.zeros(other, np.float32), "y")]
    model = helper.make_model(helper.make_graph(
        nodes, "broadcast", [helper.make_tensor_value_info("x", F, ["n"])],
        [helper.make_tensor_value_info("z", F, None)], inits),
        opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_a_node_whose_conditions_contradict_each_other_is_refused():
    """``[n, n + 3] + [2, 3]`` needs ``n == 2 or n == 1`` of one axis and ``n + 3 == 3``
    of the other: no n meets both (it was typed, with an empty contract)."""
    model = _broadcast(3, (2, 3))
    want = "node '/Add' (Add): its conditions contradict each other, so the model is " \
        "valid at no sizes: no sizes meet all of n == 2 or n == 1; n + 3 == 3"
    for read in (ko.from_onnx, ko.infer_shapes, ko.contract):
        with pytest.raises(kt.TypeInferenceError) as caught:
            read(model)
        assert str(caught.value) == want, read
    for n in range(6):
        assert isinstance(ortrun.run(model, {"x": np.ones(n, np.float32)}), ortrun.Refusal)


def test_a_static_reshape_that_contradicts_its_input_is_refused_naming_the_node():
    nodes = [helper.make_node("Reshape", ["x", "s"], ["y"], name="/Reshape")]
    model = helper.make_model(helper.make_graph(
        nodes, "reshape", [helper.make_tensor_value_info("x", F, [2, 3])],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(np.array([4, 2]), "s")]),
        opset_imports=[helper.make_opsetid("", 17)])
    for read in (ko.from_onnx, ko.infer_shapes, ko.contract):
        with pytest.raises(kt.TypeInferenceError, match=r"node '/Reshape' \(Reshape\): "
                           r"Reshape: where-clause a0\*a1 == 8 fails: 6 == 8 is false"):
            read(model)


def test_a_model_is_refused_only_where_onnxruntime_fails_at_every_size():
    """Every ``[n, n + offset] + y`` for offsets 0..3 and y of 1..3 x 1..3: a model the
    reader refuses (its node's conditions contradict each other, or one of them fails)
    fails in onnxruntime at every n in 0..5; one it reads runs exactly where its
    contract holds."""
    contradicted = 0
    for offset, p, q in itertools.product(range(4), (1, 2, 3), (1, 2, 3)):
        answer = _judged(_broadcast(offset, (p, q)), range(6), (offset, p, q))
        contradicted += isinstance(answer, str) and "contradict each other" in answer
    assert contradicted


def _judged(model, sizes, case) -> str | dict:
    """``model`` (over ``x: float[n]``) run by onnxruntime at every n of ``sizes`` and read
    by ``ko.contract``: its refusal's message (onnxruntime fails at every such n), or the
    runs (n -> whether onnxruntime runs it; the contract holds exactly there)."""
    runs = {n: not isinstance(ortrun.run(model, {"x": np.ones(n, np.float32)}),
                              ortrun.Refusal) for n in sizes}
    count("contradictions: sizes judged by onnxruntime", len(runs))
    try:
        contract = ko.contract(model)
    except kt.TypeInferenceError as exc:
        assert not any(runs.values()), (case, runs, exc)
        return str(exc)
    assert {n: contract.holds(n=n).value for n in runs} == runs, case
    return runs


def test_a_branch_whose_node_contradicts_itself_is_no_refusal_of_the_model():
    """``If(cond)`` whose then-branch holds the contradictory Add of
    :func:`test_a_node_whose_conditions_contradict_each_other_is_refused` and whose
    else-branch broadcasts against ``[1, 1]``: onnxruntime runs it at every n where cond
    is False, so the reader does not refuse it (it did: "the model is valid at no
    sizes"), and its contract refuses no n (whether it should say the branch is chosen
    when the model runs is another question)."""
    def branch(name, other):
        nodes = [helper.make_node("Concat", ["x", "pad"], [f"{name}c"], axis=0),
                 helper.make_node("Unsqueeze", ["x", "ax1"], [f"{name}xu"]),
                 helper.make_node("Unsqueeze", [f"{name}c", "ax0"], [f"{name}cu"]),
                 helper.make_node("Mul", [f"{name}xu", f"{name}cu"], [f"{name}xc"]),
                 helper.make_node("Add", [f"{name}xc", other], [f"{name}z"],
                                  name=f"/{name}/Add")]
        return helper.make_graph(nodes, name, [], [
            helper.make_tensor_value_info(f"{name}z", F, None)])
    node = helper.make_node("If", ["cond"], ["z"], then_branch=branch("then", "y"),
                            else_branch=branch("else", "y1"))
    inits = [numpy_helper.from_array(np.ones(3, np.float32), "pad"),
             numpy_helper.from_array(np.array([1]), "ax1"),
             numpy_helper.from_array(np.array([0]), "ax0"),
             numpy_helper.from_array(np.zeros((2, 3), np.float32), "y"),
             numpy_helper.from_array(np.zeros((1, 1), np.float32), "y1")]
    model = helper.make_model(helper.make_graph([node], "branches", [
        helper.make_tensor_value_info("x", F, ["n"]),
        helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("z", F, None)], inits),
        opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    contract = ko.contract(model)
    ko.from_onnx(model)
    ko.infer_shapes(model)
    for n in range(5):
        x = np.ones(n, np.float32)
        assert ortrun.run(model, {"x": x, "cond": np.array(False)}) == [(n, n + 3)]
        assert isinstance(ortrun.run(model, {"x": x, "cond": np.array(True)}),
                          ortrun.Refusal)
        assert contract.holds(n=n).value is not False


def _rising_sizes():
    """Sizes that grow with every size they hold: positive multiples of n, m and of
    floors by ints of such sizes plus an int (a stack of windows' outputs)."""
    names = st.sampled_from([kt.Dim("n"), kt.Dim("m")])

    def grow(inner):
        return st.one_of(
            st.tuples(inner, st.integers(0, 9), st.integers(1, 8)).map(
                lambda t: (t[0] + t[1]) // t[2]),
            st.tuples(inner, inner, st.integers(1, 3)).map(lambda t: t[0] + t[2] * t[1]))

    return st.recursive(names, grow, max_leaves=4)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_rising_sizes(), st.sampled_from([">=", ">"]),
                          st.integers(-3, 40)), min_size=2, max_size=4))
def test_rising_sizes_at_least_ints_hold_together_as_the_prover_finds(conditions):
    """A node's conditions that each say a rising size is at least an int (a pool's
    kept ``out >= 1`` per axis) are accepted without the prover: they hold where the
    sizes are large; the prover, asked, agrees."""
    own = tuple(Condition(d, op, k) for d, op, k in conditions)
    assert _rising(own)
    assert _hold_together(own)
    assert consistent(own, helper.make_node("MaxPool", ["x"], ["y"])) == own


def _gather_and_add(index: int, other: int, gather_first: bool):
    """``x[index]`` and ``x + a`` (``a`` of ``other`` entries) of ``x: float[n]``, in
    either order: the Gather needs ``n > index``, the Add ``n == other or n == 1``."""
    gather = helper.make_node("Gather", ["x", "i"], ["g"], name="gather")
    add = helper.make_node("Add", ["x", "a"], ["s"], name="add")
    model = helper.make_model(helper.make_graph(
        [gather, add] if gather_first else [add, gather], "two",
        [helper.make_tensor_value_info("x", F, ["n"])],
        [helper.make_tensor_value_info("g", F, None),
         helper.make_tensor_value_info("s", F, None)],
        [numpy_helper.from_array(np.arange(other, dtype=np.float32), "a"),
         numpy_helper.from_array(np.array(index), "i")]),
        opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_two_nodes_valid_at_no_sizes_together_are_refused_in_either_order():
    """``x[5]`` needs ``n >= 6``, ``x + a[3]`` needs ``n == 3 or n == 1``: no n meets
    both, and onnxruntime fails at every n. The model was refused ("Add: no solution",
    naming the Add alone) with the Gather first, and typed with an empty contract with
    the Add first; both orders are refused now, naming both nodes."""
    want = "node 'add' (Add): its conditions contradict those of node 'gather' " \
        "(Gather), so the model is valid at no sizes: no sizes meet all of n == 3 or " \
        "n == 1; 6 <= n (node 'gather')"
    for gather_first in (True, False):
        model = _gather_and_add(5, 3, gather_first)
        for read in (ko.from_onnx, ko.infer_shapes, ko.contract) * 2:  # (again: the
            # nodes' slots replayed)
            with pytest.raises(kt.TypeInferenceError) as caught:
                read(model)
            assert str(caught.value) == want, (read, gather_first)
        for n in range(9):
            assert isinstance(ortrun.run(model, {"x": np.ones(n, np.float32)}),
                              ortrun.Refusal), n


def test_the_order_of_two_nodes_changes_no_answer_onnxruntime_judges():
    """``x[index]`` and ``x + a[other]`` in either order, index 0..6, other 1..4: both
    orders refused (with one message), or both typed with contracts that agree at every
    n in 0..8; refused only where onnxruntime fails at every such n, and the contract
    holds exactly where it runs."""
    refused = 0
    for index, other in itertools.product(range(7), range(1, 5)):
        answers = [_judged(_gather_and_add(index, other, gather_first), range(9),
                           (index, other, gather_first)) for gather_first in (True, False)]
        assert answers[0] == answers[1], (index, other, answers)
        refused += isinstance(answers[0], str)
    assert refused


def test_three_nodes_valid_at_no_sizes_together_are_refused_in_every_order():
    """``x[1]`` (``n >= 2``), ``x + a[3]`` (``n == 3 or n == 1``), ``x * b[2]`` (``n ==
    2 or n == 1``): no n meets all three, and onnxruntime fails at every n. In every
    order of the nodes the model is refused naming two of them: with both disjunctions
    before the Gather, its fact leaves one case of the first (``n == 3``), a fact for the
    second (the two orders were typed, with an empty contract)."""
    nodes = {"g": helper.make_node("Gather", ["x", "i"], ["g"], name="gather"),
             "a": helper.make_node("Add", ["x", "a"], ["s"], name="add"),
             "m": helper.make_node("Mul", ["x", "b"], ["p"], name="mul")}
    for order in itertools.permutations("gam"):
        model = helper.make_model(helper.make_graph(
            [nodes[k] for k in order], "three", [helper.make_tensor_value_info("x", F, ["n"])],
            [helper.make_tensor_value_info(o, F, None) for o in "gsp"],
            [numpy_helper.from_array(np.ones(3, np.float32), "a"),
             numpy_helper.from_array(np.ones(2, np.float32), "b"),
             numpy_helper.from_array(np.array(1), "i")]),
            opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        for read in (ko.from_onnx, ko.infer_shapes, ko.contract):
            with pytest.raises(kt.TypeInferenceError, match=r"node '(add|mul)' \((Add|Mul)\): "
                               r"its conditions contradict those of nodes? '(add|mul)'"):
                read(model)
        if order[-1] == "g":  # both disjunctions read before the Gather: settled finds the
            # Gather's fact leaves one case of the first, and names the node of that fact
            # too (it named the first's alone: n == 3, its one case, with no n >= 2)
            first, second = (("add", "Add", "n == 3 or n == 1"), ("mul", "Mul", "n == 2 or "
                             "n == 1"))[::1 if order[0] == "a" else -1]
            with pytest.raises(kt.TypeInferenceError) as caught:
                ko.from_onnx(model)
            assert str(caught.value) == (
                f"node '{second[0]}' ({second[1]}): its conditions contradict those of nodes "
                f"'{first[0]}' ({first[1]}), 'gather' (Gather), so the model is valid at no "
                f"sizes: no sizes meet all of {second[2]}; {first[2]} (node '{first[0]}'); "
                f"2 <= n (node 'gather')"), order
        assert not any(not isinstance(ortrun.run(model, {"x": np.ones(n, np.float32)}),
                                      ortrun.Refusal) for n in range(8)), order


def test_settled_meets_a_replayed_graph_by_identity(monkeypatch) -> None:
    """A model read again node by node (its slots replayed) hands ``settled`` its plans'
    own disjunctions, the same objects each time: the kept key is this reading's, so the
    next one meets it without comparing disjunctions case by case, nor asking again
    whether each has a choice (300 broadcasts: 2.0 -> 0.94 ms CPU a warm reading)."""
    n, m = Dim("n"), Dim("m")
    facts = EMPTY.with_(Condition(m, ">=", 2))

    def disjunctions():
        return [AnyOf(((Condition(n, "==", k),), (Condition(n, "==", 1),)))
                for k in (3, 4, 5)]

    first, replayed, other = disjunctions(), disjunctions(), disjunctions()[:2]
    settled(first, facts)  # (a first reading: its own objects)
    settled(replayed, facts)  # an equal replay: found, and kept with these objects
    compared, asked = [], []
    with monkeypatch.context() as patched:
        patched.setattr(AnyOf, "__eq__", lambda a, b: compared.append(a) or a is b)
        patched.setattr(conditions, "is_choice", lambda c: asked.append(c) or False)
        settled(replayed, facts)  # (the last graph's objects)
        settled(other, facts)
        settled(replayed, facts)  # (a graph read before another)
    assert not compared and asked == [x for c in other for case in c.cases for x in case]
    with pytest.raises(kt.TypeInferenceError, match="valid at no sizes"):  # (still judged)
        settled([*replayed, AnyOf(((Condition(m, "==", 0),), (Condition(m, "==", 1),)))],
                facts)
    with pytest.raises(kt.TypeInferenceError, match="valid at no sizes"):  # (other facts)
        settled(replayed, facts.with_(Condition(n, ">=", 6)))


def test_settled_asks_of_a_case_over_other_sizes_without_the_facts(monkeypatch) -> None:
    """A case over none of the facts' sizes (``m == 1`` of a broadcast, the facts about
    ``n``) is refuted by them only where it holds at no sizes: asked without them (the
    prover's cost, 300 broadcasts read cold: settled's decisions 48 -> 34 ms CPU), and a
    case that holds nowhere (``m < 0``) is still refused."""
    n, m = Dim("n"), Dim("m")
    facts = EMPTY.with_(Condition(n, ">=", 2))
    asked = []
    decide = contradiction.Facts.decide
    monkeypatch.setattr(contradiction.Facts, "decide",
                        lambda self, x: asked.append((str(x), self)) or decide(self, x))
    settled([AnyOf(((Condition(n, "==", m),), (Condition(m, "==", 1),),
                    (Condition(n, "==", 1),)))], facts)
    assert dict(asked) == {"n == m": facts, "m == 1": EMPTY, "n == 1": facts}
    with pytest.raises(kt.TypeInferenceError, match="valid at no sizes"):
        settled([AnyOf(((Condition(m, "<", 0),), (Condition(n, "==", 1),)))], facts)


def test_settled_states_a_case_left_alone_for_the_next_disjunctions_of_its_pass() -> None:
    """``m == 3 or n == 1`` left with ``m == 3`` under ``n >= 2`` is a fact about ``m``
    for the disjunctions after it in the same pass: ``m == 0 or n == 1`` is refuted (not
    left with ``m == 0``, a fact that contradicts the others, judged no more)."""
    n, m = Dim("n"), Dim("m")
    facts = EMPTY.with_(Condition(n, ">=", 2))
    with pytest.raises(kt.TypeInferenceError, match="valid at no sizes"):
        settled([AnyOf(((Condition(m, "==", 3),), (Condition(n, "==", 1),))),
                 AnyOf(((Condition(m, "==", 0),), (Condition(n, "==", 1),)))], facts)


def test_a_disjunction_of_one_case_left_alone_is_named_as_itself() -> None:
    """A disjunction of one case states that case (nothing cut any other): where it and
    another hold at no sizes together (brute force over n in 0..20), the refusal names
    both nodes; explaining the case raised IndexError (the others' disjunction of none)."""
    n = Dim("n")
    one = AnyOf(((Condition(n, "==", 3),),), conditions.Source(node="a", op="Add"))
    two = AnyOf(((Condition(n, "==", 2),), (Condition(n, "==", 1),)),
                conditions.Source(node="m", op="Mul"))
    assert not any(one.holds({n.name: k}) and two.holds({n.name: k}) for k in range(21))
    with pytest.raises(kt.TypeInferenceError, match=r"node 'm' \(Mul\): its conditions "
                       r"contradict those of node 'a' \(Add\).*n == 3 \(node 'a'\)"):
        settled([one, two], EMPTY.with_(Condition(n, ">=", 0)))
