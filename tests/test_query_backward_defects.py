"""Backward answers the brute-force oracle of ``test_query_backward_oracle`` found wrong
in kind: an answer whose conditions hold at no sizes, kept because ``Facts.decide`` does
not put an equality ``a == 1`` into a product (``a**2``, ``a*b``), and ``run`` answering
``UndecidedAnswer`` (not ``()``) where no type builds: ``types.refuting.refutes`` simplifies the
condition under the facts too."""

from __future__ import annotations

import pytest

import kantensor as kt
from kantensor.query.answers import satisfiable
from kantensor.types.conditions import Condition
from kantensor.types.facts import Facts
from test_query_backward_oracle import T, _case, a, b, check_query, check_run


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
