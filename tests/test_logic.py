"""The kanren extensions: occurs check, constraint store, propagation, labeling."""

from kanren import conde, eq, run
from unification import var

from kantensor.logic.dims import ArithEq, Broadcast, Compare
from kantensor.logic.dtypes import InCategory, Promote
from kantensor.logic.state import KState, explaining, label, post, unify_oc, walk
from kantensor.logic.terms import TensorTerm
from kantensor.types.dim import Dim
from kantensor.types.dtypes import DTYPES, Priority, promote_types


def test_occurs_check_refuses_cycles():
    x = var()
    assert unify_oc(x, (1, x), KState()) is False
    assert unify_oc(TensorTerm("float32", x), TensorTerm("float32", (2, x)), KState()) is False
    assert unify_oc(x, (1, 2), KState())[x] == (1, 2)


def test_arith_waits_until_one_unknown_then_solves():
    n, k, out = var(), var(), var()
    s = post(KState(), ArithEq(out, ("+", ("-", n, k), 1)))  # out == n - k + 1
    assert s is not None and len(s.store) == 1  # two unknowns: waits
    s = post(unify_oc(n, 10, s), )
    s = post(unify_oc(out, 4, s))
    assert walk(k, s) == 7 and s.store == ()


def test_arith_rejects_negative_and_impossible_sizes():
    n = var()
    assert post(KState(), ArithEq(n, ("-", 2, 5))) is None
    assert post(unify_oc(n, 7, KState()), ArithEq(n, ("*", 2, var()))) is None  # 2*m == 7
    with explaining() as reasons:
        post(KState(), ArithEq(3, ("+", 1, 1), "1+1", "input 0 axis 0"))
    assert reasons == ["input 0 axis 0: size 3 does not equal 1+1 = 2"]


def test_compare_decides_from_a_constant_difference():
    n = var()
    assert post(KState(), Compare(">", ("+", n, 1), n)).store == ()  # n+1 > n always
    assert post(KState(), Compare("<", ("+", n, 1), n)) is None


def test_broadcast_propagates_and_labels():
    a, b, out = var(), var(), var()
    s = post(KState(), Broadcast((a, 3), out))
    assert walk(out, s) == 3 and len(s.store) == 1  # a may still be 1 or 3
    assert sorted(walk(a, x) for x in label(s)) == [1, 3]
    s = post(KState(), Broadcast((a, b), out))
    assert s.store and list(label(s)) == [s]  # nothing known to guess from
    assert post(KState(), Broadcast((3, 4), out)) is None


def test_promotion_ground_fast_path_and_enumeration():
    d, out = var(), var()
    s = post(KState(), Promote(out, (("int8", Priority.TENSOR), ("uint8", Priority.TENSOR))))
    assert walk(out, s) == "int16"
    s = post(unify_oc(out, "int16", KState()),
             Promote(out, ((d, Priority.TENSOR), ("int8", Priority.TENSOR))))
    got = sorted(walk(d, x) for x in label(s))
    assert got == sorted(t for t in DTYPES if promote_types(t, "int8") == "int16")


def test_branches_do_not_share_the_store():
    """kanren's neq/isinstanceo leak state between conde branches; our store is a tuple
    carried by each state, so each branch keeps its own constraints."""
    t, x = var(), var()

    def constrain(category):
        def goal(s):
            s = s if isinstance(s, KState) else KState(s)
            out = post(s, InCategory(t, category))
            if out is not None:
                yield out
        return goal

    answers = run(0, (t, x), conde([constrain("floating"), eq(x, 1)],
                                   [constrain("integer"), eq(x, 2)]))
    assert len(answers) == 2
    # each answer kept its own category constraint: label them separately
    s_float = post(unify_oc(x, 1, KState()), InCategory(t, "floating"))
    assert {walk(t, s) for s in label(s_float)} == {"float16", "float32", "float64"}


def test_symbolic_dims_are_placeholders_not_values():
    n = var()
    s = post(KState(), ArithEq(6, ("*", 2, n)))
    assert walk(n, s) == 3
    assert Dim("n") + Dim("n") == 2 * Dim("n")
