"""Review revA27 (session 27): an answer of ``kt.query`` that holds at no sizes, kept:
``above [a*b] -> [a+1]`` (``(n)->(n) where n > 2 | (n)->(n+1)``) answers ``where a*b > 2
and a*b == a + 1``, and ``a*(b - 1) == 1`` makes ``a == 1, b == 2``, ``a*b == 2``.
``Facts.consistent`` (query27's ``_valued_false``, ``product_bounds``: a product equal to
an int only) says True. The oracle is brute force (tests/test_query_backward_oracle's
check_query). Also so before query27 (677874a7)."""

from __future__ import annotations

from kantensor.types.conditions import Condition
from kantensor.types.facts import Facts
from test_query_backward_oracle import ABOVE, T, _case, a, b, check_query


def test_above_of_a_product_has_no_answer_that_holds_nowhere() -> None:
    check_query(_case("above [a*b] -> [a+1]", ABOVE, [T(a * b)], [T(a + 1)]))


def test_a_product_equal_to_a_sum_bounds_it() -> None:
    facts = Facts([Condition(a * b, ">", 2), Condition(a * b, "==", a + 1)])
    assert not any(Condition(a * b, ">", 2).holds({"a": x, "b": y}) and
                   Condition(a * b, "==", a + 1).holds({"a": x, "b": y})
                   for x in range(50) for y in range(50))  # (the brute force: no sizes)
    assert not facts.consistent()
