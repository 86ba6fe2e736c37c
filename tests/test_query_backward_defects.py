"""Backward answers the brute-force oracle of ``test_query_backward_oracle`` found wrong
in kind: an answer whose conditions hold at no sizes, kept because ``Facts.decide`` does
not put an equality ``a == 1`` into a product (``a**2``, ``a*b``), and ``run`` answering
``UndecidedAnswer`` (not ``()``) where no type builds: ``Facts.decide`` simplifies the
condition under the facts too (its last resort, for every front end)."""

from __future__ import annotations

import pytest

import kantensor as kt
from kantensor.query.answers import satisfiable
from kantensor.types.conditions import Condition
from kantensor.types.facts import Facts
from test_query_backward_oracle import FIRST, T, _case, a, b, check_query, check_run


@pytest.mark.parametrize("inputs,output", [
    ([T(a * a), T(a)], T(a + 20)),  # a == 1 and a**2 == a + 20: nowhere, answered
    ([T(a), T(b)], T(a * b + 1)),  # nowhere; run: UndecidedAnswer, not ()
], ids=["[a*a]+[a]->[a+20]", "[a]+[b]->[a*b+1]"])
def test_answers_that_hold_nowhere_are_none(inputs, output):
    case = kt.add, inputs, [output]
    c = _case(f"add {inputs} -> {output}", *case)
    assert check_query(c)["answers"] == 0, list(kt.query(*case))
    check_run(c)


def test_satisfiable_sees_an_equality_in_a_power():
    where = [Condition(a, "==", 1), Condition(a * a, "==", a + 20)]
    assert not satisfiable(where, Facts().with_(*where))


#: Conditions over ``a`` alone (some with ``b`` beside) whose truth under ``a == k`` the
#: prover, linear in products and powers, leaves open: ``Facts.decide`` puts the known
#: value into them (one home, so make_node, refine, query and the importer say the same).
_VALUED = [(a * a, "==", a + 20), (a * a, ">=", 3 * a), (a * a * a, "!=", a + 6),
           (a * a - 2 * a, "<", 1), (a * a * b, "==", b * a + b), (a * b * b, ">", b * b)]


@pytest.mark.parametrize("k", range(4))
@pytest.mark.parametrize("left,op,right", _VALUED, ids=str)
def test_decide_puts_known_values_into_products(k, left, op, right):
    """Against evaluation at every ``b`` of 0..7: decided True only where it holds at
    each, False only where it fails at each, and decided at all where ``a`` is its only
    size (its value is then one int)."""
    facts = Facts([Condition(a, "==", k)])
    c = Condition(left, op, right)
    found = facts.decide(c)
    truth = {c.holds({"a": k, "b": v}) for v in range(8)}
    if found is not None:
        assert truth == {found}, (c, k, found, truth)
    if not {"b"} & {str(s) for s in c.symbols()}:
        assert found is not None, (c, k)
    # a set of facts with the condition among them is consistent only where it may hold
    grown = facts.with_(c)
    if truth == {False}:
        assert not grown.consistent(), (c, k)


def test_run_answers_first_where_a_product_bounds_its_factors():
    """``[a*b],[a+b] -> [1]`` of ``(n),(n)->(n) | (a),(b)->(1)``: the first alternative
    needs ``a*b == a + b`` and ``a*b == 1``, which hold nowhere (``a*b == 1`` makes both
    1); the second holds (``a = 0, b = 1``: the brute force of the oracle's case finds its
    points), so ``run`` answers, where it raised UndecidedAnswer."""
    from kanren import run, var

    case = _case("first", FIRST, [T(a * b), T(a + b)], [T(1)])
    assert check_query(case)["answers"] == 1
    got = run(0, var(), kt.relation(case.op)("float32[a*b]", "float32[a+b]", "float32[1]"))
    assert len(got) == 1

