"""Overloads whose alternatives differ in rank or dtype (issues 32, 33): the build's types
are the first alternative's, and its conditions are a *choice*, never a need.

``squeeze(axis=None)`` keeps an axis of unknown size under ``!= 1``; NumPy drops it where
it is 1 and gives another rank. The build marks such conditions (``Source.otherwise``:
what a later alternative gives), and every front end agrees on what that means:

* forward (make_node) builds the first alternative, under its conditions;
* ``kt.query`` answers every alternative, the first one's conditions being the build's;
* a contract calls the sizes where a choice fails *not covered* (``holds`` undecided,
  ``inner`` excludes them, ``outer`` includes them), never invalid;
* ``kt.refine`` at such sizes says which alternative applies there.

Judged by brute force against NumPy over sizes 0..3 (``np.squeeze`` on zeros of each
shape, and programs that go on past the squeeze, through ``kt.eval_shape``).
"""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.query import var
from kantensor.signature.forward import relational
from kantensor.types.conditions import Condition, Source
from kantensor.types.contracts import Contract, merged_atoms
from kantensor.types.symbols import substitute

SIZES = range(4)


def _at(t: kt.TensorType, sizes: dict) -> tuple | None:
    """The shape ``t`` says at named ``sizes`` (None where an entry is unknown)."""
    out = []
    for d in t.shape:
        if d is None:
            return None
        d = substitute(d, sizes) if not isinstance(d, int) else d
        if not isinstance(d, int):
            return None
        out.append(d)
    return tuple(out)


def _numpy(f, *arrays):
    try:
        return np.shape(f(*arrays))
    except (ValueError, IndexError, TypeError):
        return None


# shapes with named sizes: each axis a name (n, m, k) or an int
PATTERNS = [("n",), ("n", 3), (1, "n"), ("n", "m"), ("n", 2, "m"), ("n", 1, "m"),
            (0, "n"), ("n", "m", "k")]


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: ",".join(map(str, p)))
def test_squeeze_contract_never_calls_a_valid_point_invalid(pattern):
    names = sorted({d for d in pattern if isinstance(d, str)})
    x = kt.tensor("x", "float32", tuple(kt.Dim(d) if isinstance(d, str) else d
                                        for d in pattern))
    y = kt.squeeze(x)
    c = kt.contract(y)
    chosen = [a for a in c.atoms if a.chosen]
    assert all(cond.source.otherwise for cond in y.owner.conditions)
    assert c.exact is (not chosen)
    counts = {"valid": 0, "uncovered": 0}
    for values in itertools.product(SIZES, repeat=len(names)):
        sizes = dict(zip(names, values, strict=True))
        shape = tuple(sizes[d] if isinstance(d, str) else d for d in pattern)
        want = np.squeeze(np.zeros(shape)).shape  # squeeze never refuses
        verdict = c.holds(**sizes)
        # forward at these sizes is NumPy's; the symbolic type holds exactly where the
        # contract covers the point
        assert kt.squeeze(kt.tensor("x", "float32", shape)).type.shape == want
        if verdict.value is True:
            counts["valid"] += 1
            assert _at(y.type, sizes) == want, (sizes, y.type)
            assert c.inner.holds(**sizes).value and c.outer.holds(**sizes).value
        else:
            assert verdict.value is None, (sizes, verdict)  # never "invalid"
            counts["uncovered"] += 1
            assert len(want) != y.type.ndim  # another alternative's rank applies here
            assert "not the type the graph was built for" in repr(verdict)
            assert not c.inner.holds(**sizes).value and c.outer.holds(**sizes).value
    assert counts["valid"] > 0


def test_squeeze_build_query_and_contract_agree():
    n = kt.Dim("n")
    x = kt.tensor("x", "float32", (n, 3))
    y = kt.squeeze(x)
    answers = list(kt.query(kt.squeeze, ["float32[n,3]"], [var("Z")]))
    assert [a["Z"] for a in answers] == [kt.TensorType("float32", (n, 3)),
                                         kt.TensorType("float32", (3,))]
    assert y.type == answers[0]["Z"]  # forward builds the first alternative
    assert [str(c) for c in y.owner.conditions] == ["n != 1"]
    assert y.owner.conditions[0].source.otherwise == "float32[3]"
    c = kt.contract(y)
    assert c.label == "approximate"
    assert c.holds(n=2) and c.holds(n=0)
    assert c.holds(n=1).value is None
    assert str(c.holds(n=1)) == (
        "undecided at n=1: n != 1 fails there, so squeeze gives float32[3], not the "
        "type the graph was built for")
    with pytest.raises(TypeError, match="squeeze gives float32"):
        bool(c.holds(n=1))
    text = str(c)
    assert "approximate: where n != 1 fails, squeeze gives float32[3]" in text
    assert "n == 1  (not covered)" in text
    assert c.solutions(n=(0, 4)) == [{"n": 0}, {"n": 2}, {"n": 3}, {"n": 4}]
    assert c.inner.label == "sufficient" and c.outer.label == "necessary"
    assert c.fix(n=3).exact and c.fix(n=3).holds()
    assert c.fix(n=1).holds().value is None


def _branching(x):
    if x.shape[1] > 2:
        return np.squeeze(x) * 2
    return x


def _branching_index(x):
    if x.shape[1] > 2:  # the case's need n >= 2 is the squeeze's [n,m]'s: at n = 1, [m]
        return np.squeeze(x)[1]
    return x[0]


def _branch_on_squeezed(x):
    y = np.squeeze(x)
    if y.shape[0] >= 3:  # at n = 1 NumPy's y is [3]: this branch, not the other
        return y * 2
    raise ValueError("too short")


def test_a_contract_past_the_choice_is_judged_by_numpy():
    """Conditions after a choice assume it: where it fails they are not judged (``[1]``
    needs ``n >= 2`` of the graph's ``[n,3]``, but at n = 1 NumPy indexes a ``[3]``)."""
    programs = [
        (lambda x: np.squeeze(x)[1], "float32[n,3]"),
        (lambda x: np.squeeze(x) @ np.ones((3, 2), np.float32), "float32[n,3]"),
        (lambda x, y: np.squeeze(x) + y, "float32[n,3]", "float32[4,3]"),
        (lambda x, y: np.concatenate([np.squeeze(x), y]), "float32[n,2]", "float32[m,2]"),
        (lambda x: np.squeeze(x).sum(axis=0), "float32[n,2,m]"),
        (_branching, "float32[n,m]"),  # a case's assumption is a choice
        (_branching_index, "float32[n,m]"),  # a need after the choice in its case
        (_branch_on_squeezed, "float32[n,3]"),  # a branch on the size it chose
        # a case refused on the chosen types: NumPy runs it where the choice fails
        (lambda z, w: np.concatenate([z, np.squeeze(w)]) if w.shape[1] >= z.shape[0]
         else z[1:], "float32[a]", "float32[c,b]"),
    ]
    seen = {True: 0, False: 0, None: 0}
    for f, *types in programs:
        r = kt.eval_shape(f, *types)
        c = r.contract
        names = list(c.names)
        for values in itertools.product(SIZES, repeat=len(names)):
            sizes = dict(zip(names, values, strict=True))
            arrays = [np.zeros(_at(kt.TensorType.parse(t), sizes), np.float32)
                      for t in types]
            got = _numpy(f, *arrays)
            verdict = c.holds(**sizes).value
            seen[verdict] += 1
            if verdict is True:
                assert got == _at(r.type, sizes), (types, sizes)
            elif verdict is False:
                assert got is None, (types, sizes)
            if c.inner.holds(**sizes).value:
                assert got is not None
            if got is not None:
                assert c.outer.holds(**sizes).value, (types, sizes)
    assert all(seen.values()), seen


def test_eval_shape_states_the_choice_as_an_assumption():
    r = kt.eval_shape(lambda x: np.squeeze(x) * 2, "float32[n,3]")
    (a,) = r.assumptions
    assert str(a) == "n != 1" and a.source.otherwise == "float32[3]"
    assert r.contract.holds(n=1).value is None
    assert not r.contract.exact


def test_refine_at_an_uncovered_size_names_the_alternative():
    n = kt.Dim("n")
    y = kt.squeeze(kt.tensor("x", "float32", (n, 3)))
    with pytest.raises(kt.RefinementError) as info:
        kt.refine(y, given={"n": 1})
    message = str(info.value)
    assert "where-clause x.shape[0] != 1 fails" in message
    assert "under n != 1; where that fails a later one gives float32[3]" in message
    assert kt.refine(y, given={"n": 2})[y] == kt.TensorType("float32", (2, 3))


def test_choices_over_unknown_axes_say_every_later_type():
    x = kt.tensor("x", "float32", (None, 3, None))
    y = kt.squeeze(x)
    assert y.type == kt.TensorType("float32", (None, 3, None))
    assert {c.source.otherwise for c in y.owner.conditions} == {
        "float32[3,?], float32[?,3] or float32[3]"}
    c = kt.contract(y)
    for a, b in itertools.product(SIZES, repeat=2):
        verdict = c.holds({"x.shape[0]": a, "x.shape[2]": b}).value
        assert verdict is (None if 1 in (a, b) else True)


def test_alternatives_of_one_rank_stay_a_case_split():
    """Where the alternatives agree on rank and dtype the answer is the case split (a
    size they differ on unknown), and its conditions are the relation's, not a choice."""
    sig = kt.Signature.parse("(n)->(n) where n > 2 | (n)->(1)")
    n = kt.Dim("n")
    out = relational(sig, (kt.TensorType("float32", (n,)),), (False,))
    assert out.types == (kt.TensorType("float32", (None,)),)
    assert out.conditions == ()
    rank = kt.Signature.parse("(n)->(n) where n > 2 | (n)->()")
    out = relational(rank, (kt.TensorType("float32", (n,)),), (False,))
    assert out.types == (kt.TensorType("float32", (n,)),)
    assert [(str(c), c.source.otherwise) for c in out.conditions] == [("n > 2", "float32[]")]


# -- ONNX: Squeeze without axes over sizes it cannot read --------------------------------
def _squeeze_model(weight_rows: int | None):
    """``Squeeze(x: [n, ?])`` without axes (left untyped: its output's rank is the
    sizes', one of them neither known nor named; fed 3), then a MatMul by a
    ``[weight_rows, 4]`` weight (None: no MatMul)."""
    nodes = [helper.make_node("Squeeze", ["x"], ["y"], name="sq")]
    inits, out = [], "y"
    if weight_rows is not None:
        inits.append(numpy_helper.from_array(np.ones((weight_rows, 4), np.float32), "W"))
        nodes.append(helper.make_node("MatMul", ["y", "W"], ["z"], name="mm"))
        out = "z"
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["n", None])],
        [helper.make_tensor_value_info(out, onnx.TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("rows", [None, 3, 5])
def test_an_untyped_onnx_node_leaves_the_contract_approximate(rows):
    """A node kantensor leaves untyped states no conditions: the contract says so in a
    note and never calls a point valid (it did: "every size is valid", exact, for a
    MatMul that fails at every size); each point is judged by onnxruntime."""
    model = _squeeze_model(rows)
    c = ko.contract(model)
    assert not c.exact and c.label == "approximate"
    assert "node 'sq' (Squeeze)" in c.notes[0]
    assert "no condition is known (see the notes)" in str(c)
    with pytest.raises(ValueError, match="no sizes are known to be valid"):
        c.box()
    for n in range(5):
        at = {"n": n, "x.shape[1]": 3}
        verdict = c.holds(**at)
        assert verdict.value is None and "every condition holds, but node 'sq'" in str(verdict)
        assert not c.inner.holds(**at).value
        ran = ortrun.run(model, {"x": np.zeros((n, 3), np.float32)})
        if not isinstance(ran, ortrun.Refusal):
            assert c.outer.holds(**at).value  # valid points are in the outer one


def test_a_choice_prunes_no_need():
    """A bound that is a choice implies a need's bound (``n > 2`` implies ``n >= 1``),
    but does not replace it: where both fail, the need says "invalid"."""
    n = kt.Dim("n")
    need = Condition(n, ">=", 1, Source(op="need"))
    choice = Condition(n, ">", 2, Source(op="pick", otherwise="float32[]"))
    c = Contract(merged_atoms([need, choice]), [("n", "n")])
    assert [str(a.clause) for a in c.atoms] == ["n >= 1", "n > 2"]
    assert c.holds(n=0).value is False and c.holds(n=0).atom.clause == need
    assert c.holds(n=1).value is None and c.holds(n=3).value is True
    assert not c.outer.holds(n=0).value and c.outer.holds(n=1).value
