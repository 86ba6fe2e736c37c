"""Tidying and deciding conditions whose divisors may be 0 (kantensor.types.tidy,
kantensor.types.facts): never a crash, and the tidied clauses hold exactly where Python's
value of the original's text is true (a condition with no value at a point, its divisor
0 there, does not hold there). Judged by Python's ``eval`` of the texts at every point of
a box with 0 and 1; the facts' answers by the same ``eval`` at the points where the
facts' texts hold."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.conditions import AnyOf, Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import Facts
from kantensor.types.tidy import tidy

N_EXAMPLES = sizing.size("TIDY_EXAMPLES", 200, 2000)
NAMES = ("a", "b", "c")
BOX = range(0, 5)  # every symbol's values in the brute force (0 and 1 included)
POINTS = [dict(zip(NAMES, values, strict=True))
          for values in itertools.product(BOX, repeat=len(NAMES))]

a, b, c = (Dim(n) for n in NAMES)


def _value(text: str, sizes: dict) -> int | None:
    """Python's value of a size's or condition's text at ``sizes`` (None: it divides by 0)."""
    try:
        return eval(text, {"min": min, "max": max}, dict(sizes))  # noqa: S307
    except ZeroDivisionError:
        return None


def _holds(clause, sizes: dict) -> bool:
    if isinstance(clause, Condition):
        return bool(_value(str(clause), sizes))
    return any(all(_holds(x, sizes) for x in case) for case in clause.cases)


def _check_tidy(clause) -> None:
    tidied = tidy(clause)
    for sizes in POINTS:
        assert all(_holds(x, sizes) for x in tidied) == _holds(clause, sizes), (
            str(clause), " and ".join(map(str, tidied)), sizes)


def _check_facts(facts: list[Condition], question: Condition) -> None:
    """``Facts(facts).decide(question)`` and ``.simplify`` of its left side agree with
    Python wherever the facts' texts hold and the question has a value."""
    store = Facts(facts)
    decided = store.decide(question)
    left = store.simplify(question.left)
    for sizes in POINTS:
        if not all(_holds(f, sizes) for f in facts):
            continue
        want = _value(str(question.left), sizes)
        if want is None or _value(str(question.right), sizes) is None:
            continue
        assert _value(str(left), sizes) == want, (str(question.left), str(left), sizes)
        if decided is not None:
            assert _holds(question, sizes) == decided, (str(question), decided, sizes)


@pytest.mark.parametrize("clause", [
    # (the facts of one case equate a and b: the divisor max(a, b) - a is 0 under them)
    AnyOf(((Condition(dim_min(2, b, c) // (dim_max(a, b) - a), "==", 2),),
           (Condition(2 * a + b, "<=", 0),))),
    # (a size through bounded parts, its other sizes put at 0: b % c at c == 0)
    AnyOf(((Condition(dim_min(1, a), "!=", dim_min(1, b % c)),),
           (Condition(dim_min(1, b), ">", a), Condition(dim_min(1, c), ">", dim_min(1, a, c))))),
    AnyOf(((Condition(dim_min(1, b - 1), "==", 1),),
           (Condition(dim_min(1, 4 * b) ** 2, "!=", dim_min(1, (a * c) // (a * c))),))),
])
def test_a_clause_whose_divisor_its_cases_make_0_is_tidied_without_error(clause) -> None:
    """Each raised ZeroDivisionError: the prover's facts of one case equated ``a`` and
    ``b`` and wrote ``max(a, b) - a`` as 0 (types.restricted.equated), and the canonical
    form put the other sizes at 0 to write a size through its bounded parts
    (types.canonperiodic)."""
    _check_tidy(clause)


@pytest.mark.parametrize(("facts", "question"), [
    ([Condition(a, "<=", b), Condition(b, "<=", a)], Condition(c // (b - a), "==", 2)),
    ([Condition(2 * a + b, "<=", 0)], Condition(dim_min(2, b, c) // (dim_max(a, b) - a), "==", 2)),
    ([Condition(dim_min(1, c), ">", (b % 2 + dim_min(1, c)) // 2 - b % 2)],
     Condition(dim_min(1, c), "!=", dim_min(1, a // b))),
    ([Condition(3 * a, "==", b)], Condition(dim_min(1, c), "!=", dim_min(1, 2 % (a * b)))),
])
def test_facts_that_make_a_divisor_0_decide_and_simplify_without_error(facts, question):
    _check_facts(facts, question)


# -- random clauses whose divisors may be 0 -----------------------------------------------

def _by(f):
    def made(p):
        try:
            return f(p)
        except ZeroDivisionError:  # (a divisor that is the int 0: the numerator alone)
            return p[0]
    return made


def _divisor():
    return st.sampled_from([b - a, dim_max(a, b) - a, a - dim_min(a, b), c - a, dim_min(1, a),
                            a * b, a - 1, dim_max(a, c) - dim_min(a, c), a % 2, b // 2,
                            dim_min(a, b), a, b])


def _expr():
    def extend(inner):
        return st.one_of(
            st.tuples(inner, inner).map(lambda p: p[0] + p[1]),
            st.tuples(inner, inner).map(lambda p: p[0] * p[1]),
            st.tuples(inner, inner).map(lambda p: p[0] - p[1]),
            st.tuples(inner, st.integers(1, 4)).map(lambda p: p[0] // p[1]),
            st.tuples(inner, inner).map(_by(lambda p: p[0] // p[1])),
            st.tuples(inner, _divisor()).map(_by(lambda p: p[0] // p[1])),
            st.tuples(inner, _divisor()).map(_by(lambda p: p[0] % p[1])),
            st.tuples(inner, inner).map(lambda p: dim_min(*p)),
            st.tuples(inner, inner).map(lambda p: dim_max(*p)),
            inner.map(lambda x: dim_min(1, x)))
    leaf = st.one_of(st.sampled_from([a, b, c]), st.integers(0, 4))
    return st.recursive(leaf, extend, max_leaves=6)


def _condition():
    return st.builds(Condition, _expr(), st.sampled_from(["==", "!=", ">=", ">", "<=", "<"]),
                     _expr())


def _linear():
    size = st.one_of(st.sampled_from([a, b, c]), st.integers(0, 2),
                     st.builds(lambda x, k: k * x, st.sampled_from([a, b, c]), st.integers(1, 3)),
                     st.builds(lambda x, y: x + y, st.sampled_from([a, b, c]),
                               st.sampled_from([a, b, c, 1])))
    return st.builds(Condition, size, st.sampled_from(["==", "<=", ">=", "<"]), size)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(cases=st.lists(st.lists(st.one_of(_condition(), _linear()), min_size=1, max_size=2)
                      .map(tuple), min_size=1, max_size=3))
def test_tidied_clauses_with_divisors_that_may_be_0_hold_where_python_says(cases) -> None:
    _check_tidy(cases[0][0] if len(cases) == 1 and len(cases[0]) == 1 else AnyOf(tuple(cases)))


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(st.one_of(_condition(), _linear()), min_size=1, max_size=3),
       question=_condition())
def test_facts_decide_and_simplify_with_divisors_that_may_be_0(facts, question) -> None:
    _check_facts(facts, question)
