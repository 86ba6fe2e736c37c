"""Conditions in their plainest form (kantensor.types.tidy): the forms relations make
read as people write them, and the tidied clauses hold exactly where the original does
at every assignment of sizes >= 0 (brute force over a box with 0 and 1, on random
expressions of min, max, floor division, remainder and products)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.conditions import AnyOf, Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.symbols import substitute
from kantensor.types.tidy import tidy
from kantensor.types.tidysize import tidy_size

N_EXAMPLES = sizing.size("TIDY_EXAMPLES", 200, 2000)
NAMES = ("a", "b", "c")
BOX = range(0, 6)  # every symbol's values in the brute force (0 and 1 included)

a, b, c = (Dim(n) for n in NAMES)
B, D, H, K, L, M, N, S1, T, W = (Dim(n) for n in ("B", "D", "H", "K", "L", "M", "N", "S1",
                                                  "T", "W"))


def _text(clauses) -> str:
    return " and ".join(map(str, clauses))


@pytest.mark.parametrize(("condition", "expected"), [
    (Condition(D * N, "==", 3 * N * (D // 3)), "N == 0 or D % 3 == 0"),  # N may be 0
    (Condition(dim_max(1, K) * dim_min(1, K), "==", M), "K == M"),
    (Condition(T**2 - T * dim_min(32, T + 3) + 2 * T + dim_min(32, T + 3) - 3, "==", 0),
     "T <= 29"),  # (T - 1)*(T + 3 - min(32, T + 3)) == 0
    (Condition(T**2 + S1 - S1 * T - T, "==", 0), "T == 1 or S1 == T"),
    (Condition(N**2 + N * dim_min(1, N) - N**2 * dim_min(1, N) - N, "==", 0), ""),
    (Condition(2 * B * S1 * T, ">=", 1), "B >= 1 and S1 >= 1 and T >= 1"),
    (Condition(2 - H // 2, "==", 0), "H//2 == 2"),
    (Condition(L - 2, "==", L - dim_min(2, L)), "L >= 2"),
    (Condition(T, "==", dim_min(32, T + 3)), "T == 32"),
    (Condition(B * S1 * T, "==", 4 * B * T * (S1 // 4)), "B == 0 or T == 0 or S1 % 4 == 0"),
    (Condition(dim_max(B, T) * dim_min(1, B, T), ">=", 1), "B >= 1 and T >= 1"),
    (Condition(D // 2 * dim_min(1, D // 2), "==", B), "D//2 == B"),
    (Condition(D, "==", 3 * (D // 3)), "D % 3 == 0"),
    (Condition(4, "==", dim_max(4, K) * dim_min(1, K)), "K >= 1 and K <= 4"),
    (Condition(D, "==", dim_max(D, N) * dim_min(1, D, N)),  # index arrays broadcast
     "(N >= 1 and D >= N) or D == 0"),
])
def test_the_forms_relations_make_read_plainly(condition, expected) -> None:
    assert _text(tidy(condition)) == expected


def test_a_broadcast_keeps_its_cases_and_its_source() -> None:
    clause = AnyOf(((Condition(W * dim_min(1, W), "==", B),), (Condition(B, "==", 1),)))
    (tidied,) = tidy(clause)
    assert str(tidied) == "W == B or B == 1", str(tidied)
    assert tidy(AnyOf(((Condition(B, "==", B),), (Condition(B, "==", 1),)))) == ()
    assert tidy(Condition(N, "==", N + 1)) == (Condition(N, "==", N + 1),)  # never: kept


def test_a_floor_or_remainder_by_a_size_is_kept() -> None:
    """Linear in its one size but divided by it: no bound is read off at 0 (it raised)."""
    for condition in (Condition((2 * a - 1) % a, "==", 0), Condition(a, "==", 0 // a),
                      Condition(a // b + a, ">=", 1)):
        assert tidy(condition) == (condition,)
    unit = dim_min(1, B, T)  # a broadcast's size divides: no case split puts 0 there
    divides = Condition((B * T + B) % (dim_max(B, T) * unit), "==", 0)
    for values in itertools.product(range(1, 5), repeat=2):
        sizes = dict(zip("BT", values, strict=True))
        assert all(x.holds(sizes) for x in tidy(divides)) == divides.holds(sizes)


def test_sizes_lose_products_of_min_and_max() -> None:
    assert tidy_size(dim_max(1, K) * dim_min(1, K)) == K
    assert tidy_size(dim_max(a, b) * dim_min(a, b)) == a * b
    assert tidy_size(a * dim_min(1, a)) == a
    assert tidy_size(dim_min(1, a) ** 3) == dim_min(1, a)
    assert tidy_size(a * b * dim_min(1, a * b)) == a * b
    assert tidy_size(a * dim_min(1, a, b)) == a * dim_min(1, a, b)  # b == 0 makes it 0


# -- soundness: tidied and original agree everywhere --------------------------------------

def _leaf():
    return st.one_of(st.sampled_from([a, b, c]), st.integers(0, 4))


def _expr(depth: int = 3):
    def extend(inner):
        return st.one_of(
            st.tuples(inner, inner).map(lambda p: p[0] + p[1]),
            st.tuples(inner, inner).map(lambda p: p[0] * p[1]),
            st.tuples(inner, inner).map(lambda p: p[0] - p[1]),
            st.tuples(inner, st.integers(1, 4)).map(lambda p: p[0] // p[1]),
            st.tuples(inner, st.integers(1, 4)).map(lambda p: p[0] % p[1]),
            st.tuples(inner, st.sampled_from([a, b])).map(lambda p: p[0] // p[1]),
            st.tuples(inner, st.sampled_from([a, b])).map(lambda p: p[0] % p[1]),
            st.tuples(inner, inner).map(lambda p: dim_min(*p)),
            st.tuples(inner, inner).map(lambda p: dim_max(*p)),
            inner.map(lambda x: dim_min(1, x)),
            st.tuples(inner, inner).map(lambda p: dim_max(*p) * dim_min(*p)),
            inner.map(lambda x: x * dim_min(1, x)),
            st.tuples(inner, inner).map(lambda p: (p[0] - 1) * (p[0] - p[1])),
            st.tuples(inner, inner).map(lambda p: p[1] * p[0] - p[1] * 3 * (p[0] // 3)),
        )
    return st.recursive(_leaf(), extend, max_leaves=depth * 2)


def _holds(clause, sizes) -> bool | None:
    try:
        return clause.holds(sizes)
    except ZeroDivisionError:
        return None


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(left=_expr(), right=_expr(), op=st.sampled_from(["==", ">=", ">", "<=", "!="]))
def test_tidied_conditions_hold_where_the_original_does(left, right, op) -> None:
    condition = Condition(left, op, right)
    tidied = tidy(condition)
    for values in itertools.product(BOX, repeat=len(NAMES)):
        sizes = dict(zip(NAMES, values, strict=True))
        want = _holds(condition, sizes)
        if want is None:
            continue
        got = all(_holds(x, sizes) for x in tidied)
        assert got == want, (str(condition), _text(tidied), sizes)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(x=_expr())
def test_tidied_sizes_equal_the_original(x) -> None:
    y = tidy_size(x)
    for values in itertools.product(BOX, repeat=len(NAMES)):
        sizes = dict(zip(NAMES, values, strict=True))
        try:
            want = substitute(x, sizes)
        except ZeroDivisionError:
            continue
        assert substitute(y, sizes) == want, (str(x), str(y), sizes)


@pytest.mark.parametrize("condition", [
    Condition(a, "==", dim_min(1, a // a)), Condition(a // b, "==", a // b),
    Condition(c % b, "<=", c % b), Condition(a, "==", a), Condition(b, ">=", dim_min(1, c // b))])
def test_a_tidied_condition_over_a_quotient_holds_only_where_python_defines_it(condition):
    """A condition that divides by a size holds nowhere that size is 0 (Python's value of
    its text does not exist there), however its cases are said: ``a == min(1, a//a)``
    read as ``(a//a >= 1 and a == 1) or a == 0`` held at ``a == 0``; and ``a == a``,
    tidied after ``a//b == a//b`` (the same key, 0 == 0), was given that one's form.
    Judged by Python's ``eval`` of the text at every point of the box."""
    tidy(Condition(a // b, "==", a // b))  # (remembered first: its key is a == a's)
    tidied = tidy(condition)
    for values in itertools.product(BOX, repeat=len(NAMES)):
        sizes = dict(zip(NAMES, values, strict=True))
        try:
            want = bool(eval(str(condition), {"min": min, "max": max}, dict(sizes)))  # noqa: S307
        except ZeroDivisionError:
            want = False
        assert all(x.holds(sizes) for x in tidied) == want, (str(condition), _text(tidied), sizes)


@pytest.mark.parametrize("clause", [
    AnyOf(((Condition(b % a, "==", 0),), (Condition(b, "==", 0),))),
    AnyOf(((Condition(b // a, "==", c),), (Condition(c, ">=", b + 1),))),
    AnyOf(((Condition(0 % a, "!=", c),), (Condition(c, ">=", 1),))),
    AnyOf(((Condition(b % a, ">=", 0),), (Condition(c, "==", 2),))),
    AnyOf(((Condition(c // c, "<", 1),), (Condition(b, "<=", a),)))])
def test_a_tidied_disjunction_keeps_a_case_where_another_has_no_value(clause):
    """``b % a == 0 or b == 0`` was tidied to ``b % a == 0``: ``b == 0`` implies it only
    where ``a >= 1`` (at ``a == 0`` it has no value, and the second case holds), and a
    case that holds wherever it has a value (``b % a >= 0``) was dropped as always
    holding. Judged by Python's ``eval`` of each case's text at every point of the box."""
    tidied = tidy(clause)
    for values in itertools.product(BOX, repeat=len(NAMES)):
        sizes = dict(zip(NAMES, values, strict=True))
        want = False
        for case in clause.cases:
            try:
                want = want or all(eval(str(x), {"min": min}, dict(sizes)) for x in case)  # noqa: S307
            except ZeroDivisionError:
                pass
        assert all(x.holds(sizes) for x in tidied) == want, (str(clause), _text(tidied), sizes)
