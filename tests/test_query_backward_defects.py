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


def _many(n: int, where: bool) -> tuple:
    """A broadcast of ``n`` named sizes onto ``2*s0 + 1``: as a loop (``+(),...->()``
    given the output) or as a where-clause (the output a variable)."""
    from kanren import var

    names = [f"s{i}" for i in range(n)]
    given = [f"float32[{s}]" for s in names]
    if where:
        text = f"({'),('.join(names)})->(2*s0+1) where broadcast({','.join(names)}) == 2*s0+1"
        return kt.relation(kt.Signature.parse(text))(*given, var())
    text = "+" + ",".join("()" for _ in names) + "->()"
    return kt.relation(kt.Signature.parse(text))(*given, "float32[2*s0+1]")


@pytest.mark.parametrize("where", [False, True], ids=["loop", "where"])
@pytest.mark.parametrize("n", [8, 16, 64])
def test_run_answers_a_broadcast_of_many_named_sizes(n, where):
    """Each size is ``2*s0 + 1`` or 1: ``s0`` is 1 (``s0 == 2*s0 + 1`` has no size), the
    others 3 or 1, one of them 3 (the oracle's four-size cases check the answers by brute
    force): ``run`` answers, found case by case (``logic.casesplit``), where it raised
    UndecidedAnswer (8 sizes) or "size expression too large" (16)."""
    from kanren import run, var

    assert len(run(0, var(), _many(n, where))) == 1


@pytest.mark.parametrize("where", [False, True], ids=["loop", "where"])
def test_run_refuses_past_the_case_budget_bounded(where):
    """Past :data:`~kantensor.logic.casesplit.MAX_CASES` cases (200 sizes) the refusal is
    UndecidedAnswer naming the conditions and sizes, never a ValueError from expanding
    the product of the broadcast's cases."""
    from kanren import run, var

    from kantensor.query import UndecidedAnswer

    with pytest.raises(UndecidedAnswer) as refused:
        run(0, var(), _many(200, where))
    assert "s199 == 1" in refused.value.condition and "s0" in refused.value.size
