"""One form for floors and remainders of a narrow argument (kantensor.types.narrow) and
for sums of min and max of one size that have no form from their table (the lattice's
form then): named forms, and hypothesis over random bounded arguments of several sizes
and random sums of min and max rewritten by identities. The number of examples is
``KANTENSOR_FACTS_EXAMPLES`` (60 by default, 150 with ``KANTENSOR_LONG=1``;
the longest run uses 5,000)."""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import sizegen
import sizing
from kantensor.types.canon import canonical_form
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.intervals import interval
from kantensor.types.narrow import narrow
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 60, 150)
m, n, k = Dim("m"), Dim("n"), Dim("k")
#: Arguments of several sizes whose structural interval is their exact range.
NARROW = (dim_min(m, n % 4), dim_min(k % 2, n), m % 2 + n % 2, dim_min(m % 3, n),
          dim_max(m % 2, n % 3), m % 3 + dim_min(1, n), dim_min(m, n % 6))


def _at(x, sizes):
    return x if isinstance(x, int) else substitute(x, sizes)


@pytest.mark.parametrize(("ways", "form"), [
    ((dim_min(m, n % 4) // 3, (dim_min(m, n % 4) + 3) // 6, (dim_min(m, n % 4) + 1) // 4),
     "min(m, n % 4)//3"),
    (((dim_min(k % 2, n) + 1) // 2, dim_min(k % 2, n), dim_min(k % 2, n) % 2,
      (dim_min(k % 2, n) + 5) % 6 + 6 * dim_min(k % 2, n) - 5), "min(k % 2, n)"),
    # the remainders in a floor are written over m and n (canonunfold.unfolded)
    (((m % 2 + n % 2) // 2, (m % 2 + n % 2 + 2) // 4, (m % 2 + n % 2 + 1) // 3),
     "(m + n)//2 - m//2 - n//2"),
])
def test_floors_of_a_narrow_argument_get_one_form(ways, form) -> None:
    for x in ways:
        for p in sizegen.points(("n", "m", "k")):
            assert _at(x, p) == _at(ways[0], p)
        assert str(canonical_form(x)) == form, x
        assert str(EMPTY.simplify(x)) == form, x


def test_under_facts_the_facts_bounds_narrow_the_argument() -> None:
    """``min(k, m//4)`` is 0 or 1 under ``m <= 6``: ``(x + 1)//2`` is ``x`` (the step
    of the least divisor), so the Hermite sum of ``x`` gets ``-x``'s form."""
    x = dim_min(k, m // 4)
    facts = Facts([Condition(m, "<=", 6), Condition(m, "<=", n)])
    assert facts.simplify((x + 1) // 2) == facts.simplify(x)
    assert facts.simplify((x + 1) // 2 - 2 * x + x // 2) == facts.simplify(-x)


@pytest.mark.parametrize(("lo", "hi", "d"), [(0, 3, 3), (3, 6, 6), (1, 2, 2), (5, 9, 9),
                                             (0, 9, 8), (4, 13, 8), (7, 7, 3), (0, 20, 4)])
def test_narrow_is_exact_on_its_range(lo, hi, d) -> None:
    """Against Python's ``//`` and ``%`` at every value of the range (a stand-in size
    ``t`` for the argument, shifted to the range)."""
    t = Dim("t")
    for op in ("//", "%"):
        found = narrow(op, t + lo, d, lo, hi)
        if hi // d > lo // d + 1:
            assert found is None
            continue
        for v in range(hi - lo + 1):
            want = (v + lo) // d if op == "//" else (v + lo) % d
            got = _at(found, {"t": v}) if found is not None else want
            assert got == want, (op, lo, hi, d, found, v)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(which=st.integers(0, len(NARROW) - 1), shift=st.integers(-3, 8),
       d=st.integers(1, 9), other=st.integers(0, 30), op=st.sampled_from(["//", "%"]))
@example(which=0, shift=3, d=6, other=0, op="//")
def test_atoms_equal_on_a_narrow_range_get_one_form(which, shift, d, other, op) -> None:
    """``(a + s)//d`` and every ``(a + s')//d' + c`` equal to it at each value of ``a``'s
    range (``d' <= 12``) get one form, as do the remainders; each form is exact at every
    grid point."""
    a = NARROW[which]
    lo, hi = interval(a)
    values = range(lo, hi + 1)

    def table(s: int, e: int, how: str) -> list[int]:
        return [(v + s) // e if how == "//" else (v + s) % e for v in values]

    x = (a + shift) // d if op == "//" else (a + shift) % d
    want = table(shift, d, op)
    form = canonical_form(x)
    for p in sizegen.points(("n", "m", "k")):
        assert _at(form, p) == _at(x, p), (x, form, p)
    rng = random.Random(other)
    for _ in range(40):
        s, e, how = rng.randint(-3, 12), rng.randint(1, 12), rng.choice(["//", "%"])
        got = table(s, e, how)
        c = want[0] - got[0]
        if [g + c for g in got] != want:
            continue
        y = ((a + s) // e if how == "//" else (a + s) % e) + c
        assert canonical_form(y) == form, (x, y, form, canonical_form(y))


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
@example(seed=1420)  # min(3*min(5, n), max(10, n)): no form from its table
def test_sums_of_min_and_max_of_one_size_rewritten_get_one_form(seed) -> None:
    """Sums of min and max of one size rewritten by identities of min and max get one
    form, also where no form comes from its table; both forms are sound."""
    rng = random.Random(seed)
    t = sizegen.lattice_tree(rng, ("n",), 4)
    u = t
    for _ in range(rng.randint(1, 2)):
        u = sizegen.lattice_rewrite(rng, u, ("n",))
    x, y = sizegen.build(t), sizegen.build(u)
    fx, fy = canonical_form(x), canonical_form(y)
    for p in sizegen.points(("n",)):
        assert _at(fx, p) == _at(fy, p) == sizegen.value(t, p), (x, y, fx, fy, p)
    if sizegen.decided(x) and sizegen.decided(y):
        assert fx == fy, (x, y, fx, fy)


@pytest.mark.parametrize(("ways", "form"), [
    # a bounded addend that never moves the argument across a multiple of 8
    (((3 * n) // 4 - n, (7 * m + 5 * n + 2 * ((m + n) // 2) + 1) // 8 - m - n),
     "-((n + 3)//4)"),
    # k beside k//2 written over k//2 and k % 2, then k % 2 absorbed
    (((2 * n) // 3 + 1, (k + 4 * n + 4 * (k // 2)) // 6 - k // 2 + 1), "n - (n + 2)//3 + 1"),
    (((4 * n + k % 2) // 6, (2 * n) // 3), "n - (n + 2)//3"),
    (((6 * n + 7 * (k % 2) + 1) % 8 - 7 * (k % 2), (6 * n + 1) % 8 - 8 * (k % 2)),
     "7 - 2*((n + 3) % 4) - 8*(k % 2)"),
])
def test_bounded_addends_a_floor_never_feels_are_taken_out(ways, form) -> None:
    test_floors_of_a_narrow_argument_get_one_form(ways, form)


ADDENDS = ((k % 2, lambda v: v % 2), (k % 3, lambda v: v % 3), (dim_min(2, k), lambda v: min(2, v)),
           (dim_max(k % 2, k % 3), lambda v: max(v % 2, v % 3)))


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(a=st.integers(-4, 6), b=st.integers(-4, 6), c=st.integers(-5, 12),
       which=st.integers(0, len(ADDENDS) - 1), e=st.integers(-9, 9), d=st.integers(2, 9),
       op=st.sampled_from(["//", "%"]))
@example(a=6, b=0, c=1, which=0, e=7, d=8, op="//")
def test_a_floor_equal_to_its_linear_floor_and_addends_gets_its_form(
        a, b, c, which, e, d, op) -> None:
    """``(a*n + b*m + c + e*t)//d`` (``t`` a bounded atom of another size) that equals
    ``(a*n + b*m + c)//d + q*t`` at every size (every remainder of ``n`` and ``m`` by
    ``d``, every ``t``) gets that size's form (and ``%`` likewise with ``... % d +
    q*t``); each form is exact at every grid point."""
    t, value = ADDENDS[which]
    plain = a * n + b * m + c
    x = (plain + e * t) // d if op == "//" else (plain + e * t) % d
    form = canonical_form(x)
    for p in sizegen.points(("n", "m", "k")):
        assert _at(form, p) == _at(x, p), (x, form, p)
    cut = (lambda v: v // d) if op == "//" else (lambda v: v % d)
    values = [(a * i + b * j + c, value(v)) for i in range(d) for j in range(d)
              for v in range(6)]
    for q in range(-2, 3):
        if all(cut(s + e * w) == cut(s) + q * w for s, w in values):
            y = (plain // d if op == "//" else plain % d) + q * t
            assert form == canonical_form(y), (x, y, form, canonical_form(y))


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(c=st.integers(0, 8), s=st.integers(1, 4), which=st.integers(0, 2), d=st.integers(2, 3),
       extreme=st.sampled_from([dim_min, dim_max]))
@example(c=5, s=1, which=1, d=2, extreme=dim_min)
def test_floors_over_a_min_of_one_size_with_its_constant_inside_are_of_one_u(
        c, s, which, d, extreme) -> None:
    """Hermite's identity over ``u = e + min(c, m)`` where some floors hold ``u``'s min
    with a constant inside (``min(c + s, m + s) - s``, as a form writes it): the sum is
    ``u``'s form."""
    e = (k, k % 2, n)[which]
    u = e + extreme(c, m)
    shifted = e + extreme(c + s, m + s) - s
    y = sum(((shifted if i % 2 else u) + i) // d for i in range(d))
    for p in sizegen.points(("n", "m", "k")):
        assert _at(y, p) == _at(u, p)
    assert canonical_form(y) == canonical_form(u), (y, canonical_form(y), canonical_form(u))


def test_a_min_of_several_with_its_constant_inside_a_floor_comes_out() -> None:
    """``min(k + 1, M + 1)`` is ``min(k, M) + 1``, so its multiple of the divisor comes
    out of the floor (canon_rate pairs; under no facts too, where the argument's own form
    would merge it into one max first)."""
    big = dim_max(1, n)
    x = 2 * dim_min(k, big) - 2 * ((big + dim_min(k + 1, big + 1) + 2 * dim_min(k, big) + 2)
                                   // 3) + 2
    top = dim_max(k, n)
    y = (top + dim_min(m + 1, top) + dim_min(m, top - 1)) // 2 - dim_min(m, top - 1) - 1
    for size, same in ((x, -2 * (big // 3)), (y, (top + 1) // 2 - 1)):
        for p in sizegen.points(("n", "m", "k")):
            assert _at(size, p) == _at(same, p)
        assert canonical_form(size) == canonical_form(same)
        assert EMPTY.simplify(size) == EMPTY.simplify(same)


def test_a_constant_put_back_inside_by_the_arguments_form_ends() -> None:
    """``(2*max(4, m) + min(2, m)) % 3``: its argument's form has a max with its constant
    inside, which Facts.simplify takes out only where a multiple of 3 comes out with it
    (taking it out for nothing, the argument's form put it back, without end)."""
    x = (2 * dim_max(4, m) + dim_min(2, m)) % 3
    form = EMPTY.simplify(x)
    assert EMPTY.simplify(form) == form
    for v in range(40):
        assert _at(form, {"m": v}) == _at(x, {"m": v})
