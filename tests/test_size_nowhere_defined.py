"""A condition that divides by a size and holds at no size (``1 == a % a``: ``a % a`` is
0 wherever it has a value) is decided false, so make_node refuses it, as query and the
relation do (DESIGN: one relation behind every front end); one that holds somewhere is
accepted by all three. Judged by Python's ``//`` and ``%`` over sizes 0..59: a front end
accepts exactly where some size gives the where-clause's or the input's value."""

from __future__ import annotations

import pytest
from kanren import run
from unification import var

import kantensor as kt
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


def _somewhere(fn, k: int) -> bool:
    for n in SIZES:
        try:
            if fn(n) == k:
                return True
        except ZeroDivisionError:
            pass
    return False


@pytest.mark.parametrize(("text", "fn", "k"), CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_make_node_query_and_relation_accept_exactly_where_some_size_does(text, fn, k) -> None:
    op = kt.op(text, name="nowhere")(lambda x, y: x)
    a = kt.TensorType("float32", (Dim("a"),))
    second = kt.TensorType("float32", (k,))
    want = _somewhere(fn, k)
    try:
        op.make_node(a("x"), second("y"))
        made = True
    except kt.TypeInferenceError:
        made = False
    out = var()
    queried = bool(list(kt.query(op, [a, second], [out])))
    related = bool(run(0, out, kt.relation(op)(a, second, out)))
    assert (made, queried, related) == (want, want, want), (text, k)


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
