"""A condition that divides by a size and holds at no size (``1 == a % a``: ``a % a`` is
0 wherever it has a value) is decided false, so make_node refuses it, as query and the
relation do (DESIGN: one relation behind every front end); one that holds somewhere is
accepted by all three. Judged by Python's ``//`` and ``%`` over sizes 0..59: a front end
accepts exactly where some size gives the where-clause's or the input's value."""

from __future__ import annotations

import pytest

from frontends import front_ends, somewhere
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.facts import EMPTY

SIZES = range(60)

#: (signature, Python's value of the second input's size at n, that size)
CASES = [
    ("(n),(k)->(n) where k == n % n", lambda n: n % n, 1),
    ("(n),(k)->(n) where k == n % n", lambda n: n % n, 0),
    ("(n),(n%n)->(n)", lambda n: n % n, 1),
    ("(n),(n%n)->(n)", lambda n: n % n, 0),
    ("(n),(k)->(n) where k == n // n", lambda n: n // n, 2),
    ("(n),(k)->(n) where k == n // n", lambda n: n // n, 1),
    ("(n),(k)->(n) where k == (2*n) % n", lambda n: (2 * n) % n, 1),
    ("(n),(k)->(n) where k == n % n + n // n", lambda n: n % n + n // n, 3),
    ("(n),(k)->(n) where k == n % n + n // n", lambda n: n % n + n // n, 1),
]


@pytest.mark.parametrize(("text", "fn", "k"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_make_node_query_and_relation_accept_exactly_where_some_size_does(text, fn, k) -> None:
    want = somewhere(lambda n: fn(n) == k, SIZES)
    assert front_ends(text, k) == (want, want, want), (text, k)


@pytest.mark.parametrize(("left", "right"), [
    (1, Dim("a") % Dim("a")), (Dim("a") // Dim("a"), 2), (Dim("a") % Dim("a"), 1),
    ((2 * Dim("a")) % Dim("a") + 1, 0)])
def test_a_condition_that_holds_at_no_size_is_decided_false(left, right) -> None:
    condition = Condition(left, "==", right)
    holds = []
    for n in SIZES:
        try:
            holds.append(eval(str(condition), {}, {"a": n}))  # noqa: S307
        except ZeroDivisionError:
            pass
    assert not any(holds)
    assert EMPTY.decide(condition) is False
