"""A where-clause bounding a size by quotients or remainders that holds at no size (``k <
n//n + 1`` at ``k == 2``, ``k >= (n + 1)//n`` at ``k == 0``, ``k <= n % n - 1`` at any
``k``: ``n//n`` is 1, ``(n + 1)//n`` at least 1 and ``n % n`` 0 wherever they have a
value) is refused by make_node, query and the relation
alike (DESIGN: one relation behind every front end), through the quotients' bounds
(:mod:`kantensor.types.quotientbound`); one that holds somewhere is accepted by all
three. Judged by Python's ``eval`` of the where-clause over n in 0..50."""

from __future__ import annotations

import pytest
from kanren import run
from unification import var

import kantensor as kt
from frontends import front_ends, somewhere
from kantensor.types.dim import Dim

SIZES = range(51)

#: where-clauses over n and the second input's size k, each asked at k in 0..3
DECIDED = ["k < n//n + 1", "k >= (n + 1)//n", "k <= n//n - 1", "k + n//n <= 0",
           "k > 2*(n//n)", "k >= (2*n + 1)//n", "k < (n + 1)//n", "k <= (n - 1)//n",
           "3*k + (n + 2)//n < 4", "k >= n//(n + 1)",
           # remainders: at most b - 1, at most a - j*b where a >= j*b, at least 0
           "k <= n % n - 1", "k < n % (n + 1) - n", "k > (n + 1) % n + n",
           "k + 1 <= n % n", "2*k < n % (n + 2) - n + 1",
           # min and max: of their arguments' bounds
           "k <= min(n, n//n) - 1", "k <= max(n//n, n % n)", "2*k < min(n//n, n) + 1",
           "max(n//n, n % n) + k < 1", "max(n//n, 0) + 2*k < 3",
           # a form the facts give where the divisors are nonzero ((n*n) % n is 0)
           "k <= (n*n) % n - 1"]
#: others: whatever the front ends say, all three agree and never refuse where some
#: size holds
OTHERS = ["k >= (n*n + 1)//n", "k > n//(2*n) + 1"]


def _somewhere(clause: str, k: int) -> bool:
    return somewhere(lambda n: eval(clause, {}, {"n": n, "k": k}), SIZES)  # noqa: S307


@pytest.mark.parametrize("k", range(4))
@pytest.mark.parametrize("clause", DECIDED)
def test_front_ends_accept_exactly_where_some_size_does(clause, k) -> None:
    want = _somewhere(clause, k)
    assert front_ends(f"(n),(k)->(n) where {clause}", k) == (want, want, want), (clause, k)


@pytest.mark.parametrize("k", range(4))
@pytest.mark.parametrize("clause", OTHERS)
def test_front_ends_agree_and_never_refuse_what_some_size_gives(clause, k) -> None:
    """make_node and query agree; ``run`` agrees or, where their answer holds under a
    condition it can neither show nor decide (``k >= (n*n + 1)//n`` at k = 0: true at no
    size, not proved so), raises UndecidedAnswer, never answers it as true."""
    made, queried, related = front_ends(f"(n),(k)->(n) where {clause}", k)
    assert made == queried and related in (made, None), (clause, k, made, queried, related)
    assert made or not _somewhere(clause, k), (clause, k)
    assert related is not None or not _somewhere(clause, k), (clause, k)


@pytest.mark.parametrize("clause", ["k <= n % n - 1", "k < n % (n + 1) - n",
                                    "k + 1 <= n % n"])
def test_a_clause_true_at_no_sizes_is_refused_over_named_sizes(clause) -> None:
    """Both sizes named: the clause holds at no (n, k) in 0..50 (judged by Python), so
    make_node, query and the relation all refuse it."""
    assert not any(_somewhere(clause, k) for k in SIZES), clause
    op = kt.op(f"(n),(k)->(n) where {clause}", name="nowhere")(lambda x, y: x)
    a, b = (kt.TensorType("float32", (Dim(s),)) for s in "ab")
    with pytest.raises(kt.TypeInferenceError):
        op.make_node(a("x"), b("y"))
    out = var()
    assert list(kt.query(op, [a, b], [out])) == []
    assert run(0, out, kt.relation(op)(a, b, out)) == ()
