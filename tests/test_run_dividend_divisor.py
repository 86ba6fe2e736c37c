"""A size that divides by a size it also divides (``m//m``, ``(m + 1)//m``,
``(2*m + 3) % m``, ``(m*m)//m``, ``m//(1//m)``, ``m//(4 - m)``): ``kanren.run`` over
``relation`` grounds the output to exactly the sizes some input gives (``m//m`` is 1
wherever it has a value, never 0 or 2: ``run`` shows no conditions, so a grounding no
size gives is a wrong answer), ``kt.query`` backwards answers exactly the inputs that
give an output, and ``make_node`` forwards builds exactly where Python's value exists.
Judged by Python's ``//`` and ``%`` over a domain of sizes wide enough for every
grounding in OUT_SIZES."""

from __future__ import annotations

import random

import pytest
from kanren import membero, run
from unification import var

import kantensor as kt

OUT_SIZES = (0, 1, 2, 3, 4)
WIDE = range(80)
CASES = [
    ("m//m", lambda n, m: m // m),
    ("m%m + 1", lambda n, m: m % m + 1),
    ("(m+1)//m", lambda n, m: (m + 1) // m),
    ("(2*m+3)%m", lambda n, m: (2 * m + 3) % m),
    ("m//(1//m)", lambda n, m: m // (1 // m)),
    ("max(m//(1//m), 3)", lambda n, m: max(m // (1 // m), 3)),
    ("(m*m)//m", lambda n, m: m * m // m),
    ("n//m + m//m", lambda n, m: n // m + m // m),
    ("m//(m-1)", lambda n, m: m // (m - 1)),
    ("max(max(m, 1)*(m//m), 2 - m)", lambda n, m: max(max(m, 1) * (m // m), 2 - m)),
    ("(3*m+1)//(2*m)", lambda n, m: (3 * m + 1) // (2 * m)),
    ("(m*m+5)%(m+1)", lambda n, m: (m * m + 5) % (m + 1)),
    ("(m+7)//(m+2) + (n*m)%m", lambda n, m: (m + 7) // (m + 2) + n * m % m),
    ("m//(4-m)", lambda n, m: m // (4 - m)),
    ("(m+3)%(5-m)", lambda n, m: (m + 3) % (5 - m)),
    ("(m*m)//(2-m) + 1", lambda n, m: m * m // (2 - m) + 1),
    ("m//(0-m) + 2", lambda n, m: m // (0 - m) + 2),
]


def _random_cases(count: int, seed: int) -> list:
    """Quotients and remainders of ``a*m + b`` by ``c*m + d`` (and of those), summed."""
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 2)):
            top = f"({rng.randint(0, 3)}*m+{rng.randint(0, 6)})"
            bottom = f"({rng.randint(1, 2)}*m+{rng.randint(0, 3)}-{rng.randint(0, 2)})"
            if rng.random() < 0.3:
                top = f"(m//{bottom})"
            parts.append(f"{top}{rng.choice(('//', '%'))}{bottom}")
        text = " + ".join(parts)
        found.append((text, eval(f"lambda n, m: {text}")))  # noqa: S307
    return found


CASES += _random_cases(24, 20261201)


def _python(fn, n: int, m: int) -> int | None:
    try:
        value = fn(n, m)
    except ZeroDivisionError:
        return None
    return value if value >= 0 else None


def _op(text: str):
    return kt.op(f"(n),(m)->({text})", name="divided")(lambda a, b: a)


@pytest.mark.parametrize("second", ["b", None], ids=["named", "open"])
@pytest.mark.parametrize(("text", "fn"), CASES, ids=[c[0] for c in CASES])
def test_run_grounds_exactly_the_sizes_some_input_gives(text, fn, second):
    out = var()
    other = kt.TensorType("float32", (kt.Dim(second),)) if second \
        else kt.pattern("float32", (var(),))
    found = set(run(0, out, kt.relation(_op(text))(kt.pattern("float32", (3,)), other,
                                                   kt.pattern("float32", (out,))),
                    membero(out, OUT_SIZES)))
    given = {size for m in WIDE if (size := _python(fn, 3, m)) in OUT_SIZES}
    assert found == given, (text, second, found - given, given - found)


@pytest.mark.parametrize(("text", "fn"), CASES, ids=[c[0] for c in CASES])
def test_query_backwards_answers_exactly_the_inputs_that_give_the_output(text, fn):
    op = _op(text)
    for size in OUT_SIZES:
        given = {m for m in WIDE if _python(fn, 3, m) == size}
        covered = set()
        for answer in kt.query(op, ["float32[3]", kt.pattern("float32", (var("M"),))],
                               [f"float32[{size}]"]):
            m = answer["M"]
            at = {m} if isinstance(m, int) else \
                {k for k in WIDE if all(c.holds({"M": k}) for c in answer.where)}
            assert at <= given, (text, size, answer, at - given)
            covered |= at
        assert covered == given, (text, size, given - covered)


@pytest.mark.parametrize(("text", "fn"), CASES, ids=[c[0] for c in CASES])
def test_make_node_builds_exactly_where_python_has_a_value(text, fn):
    op = _op(text)
    for m in range(12):
        expected = _python(fn, 3, m)
        x, y = kt.tensor("x", "float32", (3,)), kt.tensor("y", "float32", (m,))
        if expected is None:
            with pytest.raises(kt.TypeInferenceError):
                op(x, y)
        else:
            assert op(x, y).type.shape == (expected,), (text, m)
