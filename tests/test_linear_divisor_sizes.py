"""A size whose min, max or floor by an int holds a quotient by the size itself
(``max(8//m, 2)``, ``(8//m + m)//2``, ``min(n//m, m)``): ``kanren.run`` over ``relation``
and ``kt.query`` answer as Python's ``//`` says, and never raise ZeroDivisionError reading
such a size as a linear form or comparing a case of it (``8//m`` has no value at
``m == 0``). Judged by Python's ``//`` and ``%`` over a domain of sizes wide enough for
every grounding in OUT_SIZES."""

from __future__ import annotations

import pytest
from kanren import membero, run
from unification import var

import kantensor as kt

OUT_SIZES = (0, 1, 2, 3, 4)
WIDE = range(60)
CASES = [
    ("(n),(m)->(max(8//m, 2))", lambda n, m: max(8 // m, 2)),
    ("(n),(m)->((8//m + m)//2)", lambda n, m: (8 // m + m) // 2),
    ("(n),(m)->(max(n//m + m, 3))", lambda n, m: max(n // m + m, 3)),
    ("(n),(m)->((n%m + 2*m)//3)", lambda n, m: (n % m + 2 * m) // 3),
    ("(n),(m)->(m + min(n//m, min(m, 1)))", lambda n, m: m + min(n // m, min(m, 1))),
]


def _python(fn, n: int, m: int) -> int | None:
    try:
        return fn(n, m)
    except ZeroDivisionError:
        return None


@pytest.mark.parametrize(("text", "fn"), CASES, ids=[c[0] for c in CASES])
def test_run_grounds_exactly_the_sizes_some_divisor_gives(text, fn):
    op = kt.op(text, name="linear")(lambda a, b: a)
    out = var()
    found = set(run(0, out, kt.relation(op)(kt.pattern("float32", (3,)),
                                             kt.pattern("float32", (var(),)),
                                             kt.pattern("float32", (out,))),
                    membero(out, OUT_SIZES)))
    given = {size for m in WIDE if (size := _python(fn, 3, m)) in OUT_SIZES}
    assert found == given, (text, found - given, given - found)


def _holds(answer, m: int) -> bool:
    """Whether the answer's conditions hold at ``M == m`` (where they have a value)."""
    return all(c.holds({"M": m}) for c in answer.where)


@pytest.mark.parametrize("size", OUT_SIZES)
@pytest.mark.parametrize(("text", "fn"), CASES, ids=[c[0] for c in CASES])
def test_query_backwards_answers_exactly_the_divisors_that_give_the_size(text, fn, size):
    op = kt.op(text, name="linear")(lambda a, b: a)
    answers = list(kt.query(op, ["float32[3]", kt.pattern("float32", (var("M"),))],
                            [f"float32[{size}]"]))
    given = {m for m in WIDE if _python(fn, 3, m) == size}
    covered = set()
    for answer in answers:
        m = answer["M"]
        at = {m} if isinstance(m, int) else {k for k in WIDE if _holds(answer, k)}
        assert at <= given, (text, size, answer, at - given)
        covered |= at
    assert covered == given, (text, size, answers, given - covered)
