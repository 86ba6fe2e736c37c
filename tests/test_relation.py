"""kt.relation is a kanren goal: composition with kanren's own goals, order
independence, agreement with make_node."""

import inspect
import itertools
import random

import numpy as np
import pytest
from etuples import etuple
from hypothesis import given, settings
from hypothesis import strategies as st
from kanren import conde, eq, lall, membero, run
from kanren.constraints import neq
from unification import isvar, var

import kantensor as kt
import sizing
from kantensor.logic.terms import TensorTerm
from kantensor.ops import CATALOGUE
from kantensor.types.dtypes import DTYPES
from test_one_relation import ENTRIES, _bound, _flat


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


def _promoted(a: str, b: str) -> str | None:
    """promote_types, None for a pair kantensor refuses (a low-precision dtype)."""
    try:
        return kt.promote_types(a, b)
    except TypeError:
        return None


def test_neq_after_the_relation_does_not_lose_other_branches():
    # kanren's neq mutates the store of the state it gets: every state the relation
    # yields must be a copy, or one answer's neq would prune another's.
    d = var("d")
    goal = lall(kt.relation(kt.add)(kt.pattern(d, (2,)), "int8[2]", "int16[2]"),
                kt.labelo(), neq(d, "uint8"))
    got = sorted(run(0, d, goal))
    want = sorted(x for x in DTYPES if x != "uint8" and _promoted(x, "int8") == "int16")
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


def test_a_signature_of_no_inputs_is_a_goal_over_its_outputs():
    """``relation("->(3)")(Y)``: no input terms, one output term (a TypeError: 'expected
    the input terms followed by 1 output term'); its answer is the query's, and a
    relation of inputs still needs them."""
    y = var()
    (got,) = run(0, y, kt.relation("->(3)")(y))
    (answer,) = kt.query("->(3)", [], [var("Y")])
    assert got.shape == answer["Y"].shape == (3,)
    with pytest.raises(TypeError, match="expected the input terms"):
        kt.relation(kt.add)(y)


def _catalogue_calls():
    """(entry name, the bound Op, the example's input types, the parameters) of each
    catalogue example with parameters whose call binds them (one per Op and count)."""
    seen = set()
    for entry in ENTRIES:
        for example in entry.examples:
            found = "in" in example and "error" not in example and _bound(entry, example)
            params = {k: v for k, v in example.items() if k not in ("in", "out")}
            if not found or not params or any(  # (a call of any count: none to refuse)
                    p.is_tensor and p.kind != "tensor" for p in CATALOGUE[entry.name].spec.params):
                continue
            key = (str(found[0]), len(_flat(example["in"])))
            if key not in seen:
                seen.add(key)
                yield pytest.param(entry.name, *found, params, id=f"{entry.name}-{key[1]}")


@pytest.mark.parametrize(("name", "op", "types", "params"), list(_catalogue_calls()))
def test_a_count_the_call_refuses_is_an_arity_error_of_the_query(name, op, types, params):
    """One input fewer or more than a catalogue example's, where Python's binding of
    the Op's call (its ``inspect`` signature) refuses that many tensors: the query is
    an arity error, not 'no solutions' (it was for 65 Ops with parameters, ``flatten``,
    ``sum{axis=0}``, ``pad``...: the builder refused the count and the query read that
    as no answer)."""
    call = inspect.signature(getattr(kt, name))
    for k in (len(types) - 1, len(types) + 1):
        if k < 0:
            continue
        given = (types + types)[:k]
        try:
            call.bind(*(t() for t in given), **params)
            continue  # (a call that takes that many: no claim)
        except TypeError:
            pass
        with pytest.raises(kt.TypeInferenceError, match=f"takes [0-9 or]+ inputs?, got {k}"):
            kt.query(op, given, [var("Z")])


# ------------------------------------------------- random conjunctions vs brute force
KANREN_CASES = sizing.size("KANREN_CASES", 40, 400)
_DT = ("int8", "uint8", "float32")
_SIZES = (1, 2, 3)
_TIE = kt.SignatureOp("tie", "(n):T,(n):T->():T", lambda a, b: a[0])
#: Ops and the input ranks they are tried with.
_OPS = [(kt.add, [(0, 1), (1, 1), (2, 1)]), (_TIE, [(1, 1)]), (kt.matmul, [(2, 1), (1, 2)]),
        (kt.sum.bind(axis=0), [(1,), (2,)]), (kt.concatenate.bind(axis=0), [(1, 1), (2, 2)]),
        (kt.einsum.bind(subscripts="i,i->i"), [(1, 1)]),
        (kt.squeeze, [(2,)])]


def _conjunction(seed):
    """Relations on patterns over dtype variables d0..d2 and size variables n0, n1, with
    eq / neq / membero / conde goals, each as a (goal, brute-force predicate) pair."""
    rng = random.Random(seed)
    d = [var(f"d{i}_{seed}") for i in range(3)]
    n = [var(f"n{i}_{seed}") for i in range(2)]

    def dtype():
        return rng.choice(d) if rng.random() < 0.8 else rng.choice(_DT)

    def size():
        return rng.choice(n) if rng.random() < 0.7 else rng.choice(_SIZES)

    def value(term, env):
        return env.get(term, term) if isvar(term) else term

    parts = []
    for _ in range(rng.choice([1, 2])):
        op, ranks = rng.choice(_OPS)
        ins = [kt.pattern(dtype(), tuple(size() for _ in range(r))) for r in rng.choice(ranks)]
        out_dtype = dtype()

        def holds(env, op=op, ins=ins, out_dtype=out_dtype):
            types = [kt.TensorType(value(p.dtype, env), tuple(value(x, env) for x in p.shape))
                     for p in ins]
            try:
                out = op(*[t() for t in types])
            except (TypeError, ValueError):
                return False
            return out.type.dtype == value(out_dtype, env)
        parts.append((kt.relation(op).goal(ins, [kt.pattern(out_dtype, None)]), holds))
    for _ in range(rng.choice([1, 2, 3])):
        kind = rng.choice(["eq", "neq", "neq", "membero", "conde"])
        if kind == "eq":
            v, k = rng.choice(n), rng.choice(_SIZES)
            parts.append((eq(v, k), lambda env, v=v, k=k: env[v] == k))
        elif kind == "neq":
            if rng.random() < 0.5:
                v, k = rng.choice(d), rng.choice(_DT)
            else:
                v, k = rng.choice(n), rng.choice([*n, *_SIZES[:2]])
            parts.append((neq(v, k), lambda env, v=v, k=k: env[v] != value(k, env)))
        elif kind == "membero":
            v, ks = rng.choice(d), tuple(rng.sample(_DT, 2))
            parts.append((membero(v, ks), lambda env, v=v, ks=ks: env[v] in ks))
        else:
            a, x, b, y = rng.choice(d), rng.choice(_DT), rng.choice(n), rng.choice(_SIZES)
            parts.append((conde([eq(a, x)], [eq(b, y)]),
                          lambda env, a=a, x=x, b=b, y=y: env[a] == x or env[b] == y))
    return d + n, parts


@pytest.mark.parametrize("seed", range(KANREN_CASES))
def test_random_conjunctions_agree_with_brute_force_in_every_order(seed):
    variables, parts = _conjunction(seed)
    domains = [_DT] * 3 + [_SIZES] * 2
    want = set()
    for values in itertools.product(*domains):
        env = dict(zip(variables, values, strict=True))
        if all(holds(env) for _, holds in parts):
            want.add(values)
    ground = [membero(v, dom) for v, dom in zip(variables, domains, strict=True)]
    rng = random.Random(seed)
    for _ in range(3):
        goals = [g for g, _ in parts] + ground
        rng.shuffle(goals)
        got = set(run(0, tuple(variables), *goals, kt.labelo()))
        assert got == want, (sorted(got - want)[:3], sorted(want - got)[:3])
    # relations_first (the relations moved before the other goals): the same answers
    got = set(run(0, tuple(variables), kt.relations_first(*goals, kt.labelo())))
    assert got == want, (sorted(got - want)[:3], sorted(want - got)[:3])


def test_neq_survives_a_signature_that_ties_two_variables():
    """The issue's reproducer: with ``(n):T,(n):T->():T`` the signature ties d1 and d2;
    a neq on d1 posted before or after holds either way."""
    dts = ("uint8", "int8", "float32")
    d1, d2 = var("d1"), var("d2")
    rel = kt.relation(kt.Signature.parse("(n):T,(n):T->():T"))
    goal = rel(kt.pattern(d1, (3,)), kt.pattern(d2, (3,)), var())
    after = run(0, (d1, d2), goal, neq(d1, "uint8"), membero(d1, dts), membero(d2, dts),
                kt.labelo())
    before = run(0, (d1, d2), neq(d1, "uint8"), goal, membero(d1, dts), membero(d2, dts),
                 kt.labelo())
    assert sorted(after) == sorted(before) == [("float32", "float32"), ("int8", "int8")]


def test_a_template_relation_takes_an_unbound_input():
    """sum's signature is rendered per rank: an unbound input has its rank enumerated,
    as query does, so a concatenate -> sum chain answers in either order."""
    X, Y = var("X"), var("Y")
    (only,) = run(0, X, kt.relation(kt.sum.bind(axis=0))(X, "float64[3]"), kt.labelo(X))
    assert only.dtype == "float64" and len(only.shape) == 2 and only.shape[1] == 3
    cat = kt.relation(kt.concatenate.bind(axis=0))
    total = kt.relation(kt.sum.bind(axis=0))
    forwards = run(0, (Y, X), cat("float64[2,3]", "float64[1,3]", Y), total(Y, X), kt.labelo())
    backwards = run(0, (Y, X), total(Y, X), cat("float64[2,3]", "float64[1,3]", Y), kt.labelo())
    want = (TensorTerm("float64", (3, 3), False), TensorTerm("float64", (3,), False))
    assert forwards == backwards == (want,)


def _add_zero(expr, universal):
    """The rewrite ``x + 0 -> x`` of docs/terms.rst: the Variable that replaces the sum,
    if the guard allows it."""
    a, zero = var(), var()

    def is_zero(s):
        data = getattr(s.get(zero, zero), "data", None)
        return iter([s] if data is not None and not np.any(data) else [])

    guard = kt.relation(kt.add)(a, zero, a)
    if universal:
        guard = kt.holds_for_all(guard, over=[a, zero])
    return run(1, a, eq(expr, etuple(kt.add, a, zero)), is_zero, guard)


@pytest.mark.parametrize(("shape", "fires"), [((None,), False), ((3,), True), ((1,), False),
                                              ((kt.Dim("n"),), False)])
def test_a_rewrite_guard_holds_for_every_size(shape, fires):
    """v + zeros(3) is v only where v's size is 3: the relation alone holds for an unknown
    size (some size fits), the universal guard only for a known 3. The rewritten graph
    computes what the original does (checked by running both)."""
    zeros = kt.constant(np.zeros(3, dtype="float32"))
    v = kt.tensor("v", "float32", shape)
    total = v + zeros
    assert _add_zero(total, universal=False) == (() if shape == (1,) else (v,))
    got = _add_zero(total, universal=True)
    assert got == ((v,) if fires else ())
    for n in (1, 3):
        if shape[0] in (None, n) or isinstance(shape[0], kt.Dim):
            value = np.arange(n, dtype="float32")
            if got:  # the rewrite must not change what the graph computes
                assert kt.function([v], got[0])(value).shape == \
                    kt.function([v], total)(value).shape


def test_static_rewrites_still_fire_under_the_universal_guard():
    x = kt.matrix("x", "float32")
    assert _add_zero(x + 0, universal=True) == (x,)
    assert _add_zero(kt.vector("i", "int8") + 0.0, universal=True) == ()
