"""Conditions that share a key (``left - right``) but not their divisors are not one
condition (kantensor.types.conditions): ``c + n//k == 2*c + n//k`` has the key of ``c ==
0`` and no value at ``k == 0``. Two conditions that compare equal hold at the same sizes,
so the sets, memos and lists that find a condition by equality (tidy's memo, a Facts'
atoms, Facts.reduce's cases and the tightest of its bounds) never put one for the other.
Judged by Python's ``eval`` of the texts at every point of a box with 0 and 1 (a text
that divides by 0 there does not hold)."""

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
NAMES = ("a", "c", "k", "n")
POINTS = [dict(zip(NAMES, values, strict=True))
          for values in itertools.product(range(0, 4), repeat=len(NAMES))]

a, c, k, n = (Dim(x) for x in NAMES)


def _holds(clause, sizes: dict) -> bool:
    if isinstance(clause, Condition):
        try:
            return bool(eval(str(clause), {"min": min, "max": max}, dict(sizes)))  # noqa: S307
        except ZeroDivisionError:
            return False
    return any(all(_holds(x, sizes) for x in case) for case in clause.cases)


def _all(clauses, sizes: dict) -> bool:
    return all(_holds(x, sizes) for x in clauses)


def _check_reduce(facts: list[Condition], clauses: list) -> None:
    """``Facts(facts).reduce(clauses)`` holds exactly where ``clauses`` do, wherever the
    facts' texts hold (None: nowhere there)."""
    reduced = Facts(facts).reduce(clauses)
    for sizes in POINTS:
        if not _all(facts, sizes):
            continue
        got = reduced is not None and _all(reduced, sizes)
        assert got == _all(clauses, sizes), (
            [str(x) for x in clauses], reduced and [str(x) for x in reduced], sizes)


def _check_tidy(clause) -> None:
    tidied = tidy(clause)
    for sizes in POINTS:
        assert _all(tidied, sizes) == _holds(clause, sizes), (
            str(clause), [str(x) for x in tidied], sizes)


def _padded(x: Condition, pad) -> Condition:
    """``x`` with ``pad`` added to both sides: its values, and ``pad``'s divisors (the key
    keeps them as ``0//d`` terms since the Dim algebra keeps a cancelled divisor)."""
    return Condition(x.left + pad, x.op, x.right + pad)


PLAIN = [Condition(c, "==", 0), Condition(c, ">=", 1), Condition(c, ">=", 2),
         Condition(a, "<=", c), Condition(c, "!=", 1)]
PADS = [n // k, n % k, n // (k - a), a % (c - 1)]


@pytest.mark.parametrize(("plain", "pad"), list(itertools.product(PLAIN, PADS)))
def test_a_condition_padded_by_a_division_is_not_its_plain_form(plain, pad) -> None:
    padded = _padded(plain, pad)
    if padded == plain or padded in {plain} or plain in {padded}:
        assert all(_holds(padded, p) == _holds(plain, p) for p in POINTS), (str(padded), str(plain))
    assert padded == _padded(plain, pad) and hash(padded) == hash(_padded(plain, pad))


@pytest.mark.parametrize("clauses", [
    [_padded(Condition(c, ">=", 1), n // k), Condition(c, ">=", 2)],  # (tightest bound)
    [Condition(c, ">=", 2), _padded(Condition(c, ">=", 1), n // k)],
    [Condition(c, "==", 0), _padded(Condition(c, "==", 0), n // k)],  # (kept once)
    [AnyOf(((Condition(c, "==", 0),), (Condition(a, "==", 3),))),
     AnyOf(((_padded(Condition(c, "==", 0), n // k),), (Condition(a, "==", 3),)))],
])
def test_reduce_keeps_a_bound_or_case_that_divides_beside_its_plain_form(clauses) -> None:
    _check_reduce([], clauses)


@pytest.mark.parametrize("clause", [
    _padded(Condition(c, "==", 0), n // k),  # (tidied to c == 0: its divisor lost)
    AnyOf(((Condition(c, "==", 0), _padded(Condition(c, "==", 0), n // k)),
           (Condition(a, "==", 3),))),
    AnyOf(((Condition(c, ">=", 2), _padded(Condition(c, ">=", 1), n // k)),
           (Condition(a, "==", 3),))),
])
def test_tidy_keeps_the_divisor_of_a_condition_whose_key_lost_it(clause) -> None:
    _check_tidy(clause)


# -- random conditions, padded or not ------------------------------------------------------

def _expr():
    leaf = st.one_of(st.sampled_from([a, c, n]), st.integers(0, 3))
    return st.recursive(leaf, lambda inner: st.one_of(
        st.tuples(inner, inner).map(lambda p: p[0] + p[1]),
        st.tuples(inner, inner).map(lambda p: p[0] - p[1]),
        st.tuples(inner, inner).map(lambda p: dim_min(*p)),
        st.tuples(inner, inner).map(lambda p: dim_max(*p)),
        st.tuples(inner, st.integers(1, 3)).map(lambda p: p[0] // p[1])), max_leaves=4)


def _condition():
    return st.builds(lambda left, op, right, pad: Condition(left + pad, op, right + pad),
                     _expr(), st.sampled_from(["==", "!=", ">=", ">", "<="]), _expr(),
                     st.sampled_from([0, 0, *PADS]))


def _clause():
    return st.one_of(_condition(), st.lists(st.lists(_condition(), min_size=1, max_size=2)
                                            .map(tuple), min_size=2, max_size=3)
                     .map(lambda cases: AnyOf(tuple(cases))))


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(x=_condition(), y=_condition())
def test_equal_conditions_hold_at_the_same_sizes(x, y) -> None:
    if x == y:
        assert hash(x) == hash(y)
        assert all(_holds(x, p) == _holds(y, p) for p in POINTS), (str(x), str(y))


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(_condition(), max_size=2), clauses=st.lists(_clause(), min_size=1,
                                                                  max_size=3))
def test_reduced_clauses_hold_where_the_originals_do(facts, clauses) -> None:
    _check_reduce(facts, clauses)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(clause=_clause())
def test_tidied_clauses_hold_where_the_original_does(clause) -> None:
    _check_tidy(clause)
