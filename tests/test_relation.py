"""kt.relation is a kanren goal: composition with kanren's own goals, order
independence, agreement with make_node."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kanren import conde, eq, lall, membero, run
from kanren.constraints import neq
from unification import var

import kantensor as kt
from kantensor.logic.terms import TensorTerm
from kantensor.types.dtypes import DTYPES


def _types(answers):
    """Reified answers as comparable values (TensorTerms of ground parts)."""
    return sorted(map(str, answers))


def test_relation_is_a_goal_of_kanrens_run():
    y = var()
    (out,) = run(0, y, kt.relation(kt.add)("float32[3]", "float64[]", y))
    assert out == TensorTerm("float32", (3,), False)


def test_pending_size_is_rechecked_when_a_later_goal_binds_it():
    a = var("a")
    add = kt.relation(kt.add)
    x = kt.pattern("float32", (a,))
    # a must broadcast with 3: 1 and 3 pass, 4 fails -- whichever goal comes first
    for value, ok in ((4, False), (3, True), (1, True)):
        first = run(0, a, add(x, "float32[3]", var()), eq(a, value))
        second = run(0, a, eq(a, value), add(x, "float32[3]", var()))
        assert first == second == ((value,) if ok else ())


def test_relation_composes_with_membero_and_conde():
    d, y = var("d"), var("y")
    add = kt.relation(kt.add)
    goal = lall(membero(d, ("int8", "int16", "float32")),
                add(kt.pattern(d, (2,)), "int8[2]", y),
                conde([eq(y, kt.pattern("int16", (2,)))], [eq(y, kt.pattern("float32", (2,)))]))
    assert sorted(run(0, d, goal)) == ["float32", "int16"]


def test_neq_after_the_relation_does_not_lose_other_branches():
    # kanren's neq mutates the store of the state it gets: every state the relation
    # yields must be a copy, or one answer's neq would prune another's.
    d = var("d")
    goal = lall(kt.relation(kt.add)(kt.pattern(d, (2,)), "int8[2]", "int16[2]"),
                kt.labelo(), neq(d, "uint8"))
    got = sorted(run(0, d, goal))
    want = sorted(x for x in DTYPES if x != "uint8" and kt.promote_types(x, "int8") == "int16")
    assert got == want == ["int16"]
    goal = lall(kt.relation(kt.add)(kt.pattern(d, (2,)), "int8[2]", "int16[2]"),
                kt.labelo(), neq(d, "int16"))
    assert run(0, d, goal) == ("uint8",)  # uint8 + int8 -> int16, as in NumPy


def test_relation_rejects_a_wrong_number_of_terms():
    with pytest.raises(TypeError, match="expected the input terms followed by 1 output"):
        kt.relation(kt.add)(var())
    with pytest.raises(ValueError, match="max_rank"):
        kt.relation(kt.add, max_rank=-1)


_GOALS = ["eq", "membero", "neq"]


def _composed(seed):
    """A random query: the add relation on partly unknown types, plus one of eq /
    membero / neq on a dtype or a size."""
    rng = random.Random(seed)
    d, n = var(f"d{seed}"), var(f"n{seed}")
    x = kt.pattern(d, (n,))
    other = f"{rng.choice(['int8', 'float32', 'uint8', 'bool'])}[{rng.choice([1, 3])}]"
    out = kt.pattern(rng.choice(["int16", "float32", "float64", "int8"]), (3,))
    kind = _GOALS[seed % 3]
    if kind == "eq":
        extra = eq(n, rng.choice([1, 2, 3]))
    elif kind == "membero":
        extra = membero(d, tuple(rng.sample(DTYPES, 5)))
    else:
        extra = neq(d, rng.choice(DTYPES))
    rel = kt.relation(kt.add)(x, other, out)
    return (d, n), rel, extra


@pytest.mark.parametrize("seed", range(60))
def test_goal_order_does_not_change_the_answers(seed):
    form, rel, extra = _composed(seed)
    a = set(run(0, form, rel, extra, kt.labelo()))
    b = set(run(0, form, extra, rel, kt.labelo()))
    c = set(run(0, form, rel, kt.labelo(), extra))
    assert a == b == c


_FORWARD_DTYPES = st.sampled_from(DTYPES)
_SHAPES = st.lists(st.sampled_from([1, 2, 3]), max_size=3).map(tuple)


@settings(max_examples=1000, deadline=None)
@given(_FORWARD_DTYPES, _SHAPES, _FORWARD_DTYPES, _SHAPES,
       st.sampled_from(["add", "matmul", "mul", "maximum"]))
def test_relation_agrees_with_make_node(d1, s1, d2, s2, name):
    op = getattr(kt, name)
    x, y = kt.TensorType(d1, s1), kt.TensorType(d2, s2)
    try:
        want = op(x(), y()).type
    except TypeError:
        want = None
    out = var()
    got = run(0, out, kt.relation(op)(x, y, out))
    if want is None:
        assert got == ()
    else:
        assert len(got) == 1
        assert got[0] == TensorTerm(want.dtype, want.shape, False)


def test_identity_by_object_not_by_spelling():
    # a user's Dim named like an internal name survives; answers hold only user variables
    n = kt.Dim("_n")
    x = kt.tensor("x", "float32", (n, 4))
    assert (x + x).type == kt.TensorType("float32", (n, 4))
    answers = list(kt.query(kt.add, [x.type, kt.pattern("float32", (var("k"), 4))],
                            [var("Z")]))
    assert {"k": 1, "Z": kt.TensorType("float32", (n, 4))} in answers
    answer = kt.query(kt.matmul, [var("A"), "float32[3,5]"], ["float32[2,5]"])[0]
    assert set(answer) == {"A"}


def test_query_and_relation_read_their_target_by_one_rule():
    """An Op, a Signature, an Op's name or signature text, in both front ends."""
    X = var("X")
    by_op = run(0, X, kt.relation(kt.matmul)(X, "float32[3,4]", "float32[5,4]"), kt.labelo(X))
    by_name = run(0, X, kt.relation("matmul")(X, "float32[3,4]", "float32[5,4]"), kt.labelo(X))
    assert by_op == by_name and len(by_op) > 1
    text = str(kt.matmul.signature)
    assert {str(t) for t in run(0, X, kt.relation(text)(X, "float32[3,4]", "float32[5,4]"),
                                kt.labelo(X))} == {str(t) for t in by_op}
    assert [a["X"] for a in kt.query("matmul", [X, "float32[3,4]"], ["float32[5,4]"])] == \
        [a["X"] for a in kt.query(kt.matmul, [X, "float32[3,4]"], ["float32[5,4]"])]
    for front in (kt.relation, lambda t: kt.query(t, [], [])):
        with pytest.raises(ValueError, match=r"unknown Op 'matmull' \(did you mean matmul\?\)"):
            front("matmull")


def test_one_arity_check_for_infer_query_and_commands():
    from kantensor.commands import COMMANDS
    message = "add +(),()->(): takes 2 inputs, got 1"
    for run_it in (lambda: kt.add(kt.vector("v")),
                   lambda: kt.query("add", ["float32[3]"], [var("Z")]),
                   lambda: COMMANDS["query"]("add float32[3] -> Z"),
                   lambda: COMMANDS["infer"]("add float32[3]")):
        with pytest.raises(kt.TypeInferenceError) as info:
            run_it()
        assert str(info.value) == message
