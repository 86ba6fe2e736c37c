"""Classes of equal sizes that kept two forms until canon16 (benchmarks/canon_rate.py),
judged by brute force at every satisfying point of a grid of sizes (0 and 1 included)
and at far sizes: a min or max of several sizes beside a floor of itself (the lattice
keeps it whole, so Hermite's identity meets it: kantensor.types.lattice._floored), and a
floor or remainder whose argument the facts simplify, formed with what the facts drop
and nothing formed first (kantensor.types.factsatoms.pruned). Every form is the size at
every point where the facts hold (soundness), over random sizes and random facts; forms
of stacks of them grow at most linearly. The number of examples is
``KANTENSOR_FACTS_EXAMPLES`` (40 by default, 150 with ``KANTENSOR_LONG=1``:
tests/sizing.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizegen
import sizing
from canonpairs import assert_one_form, at, equal, grid, k, m, n, points
from kantensor.types import factsatoms
from kantensor.types.canon import canonical_form
from kantensor.types.conditions import Condition
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 40, 150)
GRID = grid(9)


def _equal(x, y, stated=()) -> bool:
    return equal(x, y, points(stated, GRID))


U = dim_min(k, n)
# canon_rate --seed 6: U - U//2 is (U + 1)//2 (Hermite's identity over U), but the lattice
# took U into the max of the rest first: max(m + U, n + U) - m - n - U//2.
HERMITE = [
    (U - U // 2 - dim_min(m, n), (U + 1) // 2 + dim_max(m, n) - m - n),
    (2 * U - U // 3 - dim_max(m, n) + m, U + (2 * U + 2) // 3 - n + dim_min(m, n)),
    (dim_max(k, m) - dim_max(k, m) // 2 + dim_min(k, n),
     (dim_max(k, m) + 1) // 2 + k + n - dim_max(k, n)),
    # (and where opening U leaves fewer terms, it is opened: the lattice.lattice_kept form
    # is only the shorter of the two; canon_rate --seed 1 found this one kept two forms)
    (m + dim_max(m, n) % 4, dim_max(m, n) + dim_max(m, n) % 4 + dim_min(m, n) - n),
]


@pytest.mark.parametrize(("x", "y"), HERMITE)
def test_a_min_of_several_beside_a_floor_of_itself_gets_one_form(x, y):
    assert _equal(x, y)  # (the oracle: brute force)
    assert canonical_form(x) == canonical_form(y)
    assert EMPTY.simplify(x) == EMPTY.simplify(y)
    assert _equal(canonical_form(x), x) and _equal(EMPTY.simplify(y), y)


X = dim_min(4, k)
# canon_rate's class left by canon15: under m <= k, max(m % 2, min(4, k)) is min(4, k) and
# the remainder's argument is 2*n + 6 - min(4, k) or min(4, k), congruent modulo 2; its
# form, max(2*n + 6, k + 2*n + 2, min(2*k, k + 4)) - k, opens min(4, k) and has pieces
# that are not.
UNDER = [
    ([(m, k)], X % 2, (dim_max(0, n - dim_max(m % 2, X) + 3) + dim_max(X, n + 3)) % 2),
    ([(m, k)], (X + n) % 2, (dim_max(0, n - dim_max(m % 2, X) + 3) + dim_max(X, n + 3) + n) % 2),
    ([(n, m)], dim_min(3, m) % 2, (dim_max(n % 2, dim_min(3, m)) + 2 * k) % 2),
]


@pytest.mark.parametrize(("stated", "x", "y"), UNDER)
def test_a_floor_whose_argument_the_facts_simplify_gets_one_form(stated, x, y):
    facts = Facts(Condition(a, "<=", b) for a, b in stated)
    assert _equal(x, y, stated)  # (the oracle: brute force where the facts hold)
    fx, fy = facts.simplify(x), facts.simplify(y)
    assert fx == fy
    assert _equal(fx, x, stated) and _equal(fy, y, stated)


def test_the_pair_differs_where_the_facts_do_not_hold():
    """The facts are needed: at m = 3, k = 0 the two differ (so the form is the facts')."""
    _, x, y = UNDER[0]
    p = {"k": 0, "m": 3, "n": 0}
    assert at(x, p) != at(y, p)
    assert EMPTY.simplify(x) != EMPTY.simplify(y)


def _sure(rng: random.Random, symbols: tuple[str, ...]):
    facts, stated = sizegen.facts(rng, symbols)
    grid = [p for p in sizegen.points(symbols) if sizegen.holds(stated, p)]
    return facts, grid


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(1, 3))
def test_floors_of_min_and_max_under_random_facts_are_sound(rng, count):
    """``Facts.simplify`` of floors and remainders of sums of min and max (what
    :func:`.factsatoms.pruned` forms) under random facts (``<=``, ``>= 1 .. 3``, ``<= 4 ..
    12``, ``% 2 .. 3 == 0``) is the size at every point of the grid (0 and 1 included)
    where the facts hold."""
    symbols = sizegen.SYMBOLS[:count]
    facts, grid = _sure(rng, symbols)
    inner = sizegen.lattice_tree(rng, symbols)
    t = (rng.choice(["//", "%"]), inner, rng.randint(2, 4))
    if rng.random() < 0.5:
        t = ("+", t, sizegen.tree(rng, symbols, 2))
    x = sizegen.build(t)
    form = facts.simplify(x)
    for p in grid:
        assert at(form, p) == sizegen.value(t, p), (facts, x, form, p)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.integers(-2, 2), st.integers(1, 3), st.integers(2, 4), st.integers(0, 3),
       st.sampled_from([dim_min, dim_max]))
def test_hermite_over_a_min_of_several_beside_the_lattice(a, c, d, s, extreme):
    """``c*U + a*((U + s)//d)`` beside a sum of min and max of other sizes, and the same
    with ``U`` rewritten by Hermite's identity (``U == sum((U + i)//d for i < d)``) get
    one form, and every form is the size at every point. (Until canon18 the first was
    formed both with ``U`` whole, :func:`.lattice.lattice_kept`, and opened, the shorter
    kept: opened, ``c*U`` merged into the rest's min, while the rewriting had no lone
    ``U`` to open; now a size with ``U`` beside a floor of itself is formed with ``U``
    whole, and the lattice opens it after :mod:`.canon` has placed its multiple.)"""
    u = extreme(k, n)
    rest = dim_min(m, n) - dim_max(k, m)
    x = c * u + a * ((u + s) // d) + rest
    y = c * sum(((u + i) // d for i in range(d)), start=0) + a * ((u + s) // d) + rest
    assert _equal(x, y)
    for z in (x, y):
        assert _equal(canonical_form(z), z)
        assert _equal(EMPTY.simplify(z), z)
    assert canonical_form(x) == canonical_form(y)
    assert EMPTY.simplify(x) == EMPTY.simplify(y)


def test_stacks_of_min_beside_their_floors_grow_linearly():
    """Forms of ``sum(U_i - U_i//2)`` over ``U_i = min(k + i, n)`` (and under facts) stay
    within a linear bound of the stack's depth, and :func:`.factsatoms.pruned` decides
    each min or max once per depth (no exponential blow-up)."""
    facts = Facts([Condition(m, "<=", k)])
    calls = []
    real = factsatoms._extreme

    def counted(*args):
        calls.append(args[0])
        return real(*args)

    for depth in range(1, 7):
        x = sum((dim_min(k + i, n) - dim_min(k + i, n) // 2 for i in range(depth)), start=0)
        form = canonical_form(x)
        assert _equal(form, x)
        assert len(str(form)) <= 40 * depth
        y = X
        for i in range(depth):
            y = (dim_max(0, n - dim_max(m % 2, y) + 3) + dim_max(y, n + 3)) % 2 + i
        calls.clear()
        factsatoms._extreme = counted
        try:
            lean = factsatoms.pruned(y, facts)
        finally:
            factsatoms._extreme = real
        assert len(calls) <= 8 * depth
        assert _equal(lean, y, [(m, k)])


G = dim_min(3, n % 3 + n // 4)
R = (dim_max(5, n) + n % 4) % 3
# canon_rate --seeds 8 and 9: a part of one size with no form from its table, written as
# a function of an atom of no form (Hermite's identity over it), kept two forms.
OWN = [
    (G, (G + 1) // 2 + G // 2),
    (R, R % 2 + 2 * (R // 2)),
    (G - G // 2, (G + 1) // 2),
    ((3 * G + 1) // 2, G + (G + 1) // 2),
    (R + n, R % 3 + n),
]


@pytest.mark.parametrize(("x", "y"), OWN)
def test_a_function_of_an_atom_of_no_form_gets_one_form(x, y):
    assert_one_form(x, y, points((), GRID))


def _hermite(rng: random.Random, g):
    d = rng.randint(2, 4)
    if rng.random() < 0.5:
        return sum(((g + i) // d for i in range(d)), start=0)
    return g % d + d * (g // d)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.randoms(use_true_random=False))
def test_an_atom_of_one_size_rewritten_by_hermite_is_sound_and_one_form(rng):
    """An atom ``g`` of one size over a random size (sizegen.tree) and ``g`` written by
    Hermite's identity (``sum((g + i)//d)`` or ``g % d + d*(g//d)``), times an int, get
    one form (where ``g`` has none from its table, over ``g``: canon._over_own), and every
    form is the size at every point of the grid (0 and 1 included) and far."""
    t = sizegen.tree(rng, ("n",))
    x = sizegen.build(t)
    if isinstance(x, int):
        return
    g = dim_min(rng.randint(1, 5), x % rng.randint(2, 4) + x // rng.randint(2, 5)) \
        if rng.random() < 0.5 else (x + n % 4) % rng.randint(2, 5)
    if isinstance(g, int):
        return
    a = rng.choice([-2, -1, 1, 2])
    y0, y1 = a * g, a * _hermite(rng, g)
    assert _equal(y0, y1)
    f0, f1 = EMPTY.simplify(y0), EMPTY.simplify(y1)
    assert _equal(f0, y0) and _equal(f1, y1)
    assert f0 == f1, (y0, y1)


V = dim_min(m, n)
# canon_rate --seed 10: the argument is min(m, n) or 2*(n % 2) - min(m, n), congruent
# modulo 2 while min(m, n) is a free variable (congruent._nested), not once it is opened.
NESTED = [
    (V % 2, (dim_max(0, n % 2 - V) + dim_max(V, n % 2)) % 2),
    ((V + k) % 2, (dim_max(0, n % 2 - V) + dim_max(V, n % 2) + k) % 2),
]


@pytest.mark.parametrize(("x", "y"), NESTED)
def test_a_remainder_of_a_min_of_several_inside_maxes_gets_one_form(x, y):
    assert_one_form(x, y, points((), GRID))


# canon_rate --seed 9: under n % 3 == 0 and n <= 7 (n in 0, 3, 6), (3*n)//8 is n//3; its
# form from its values (restricted.on_points) was j = n/3, an exact quotient, refused
# as not in the fragment, so each kept its own form (n - (17*n + 6)//24 and n//3).
BETWEEN = [
    ((3 * n) // 8, n // 3),
    ((3 * n) // 8 + n, (4 * n) // 3),
    (n - (17 * n + 6) // 24, (3 * dim_max(0, 3 - n - n // 2) + dim_max(3, n + n // 2)) // 4
     - dim_max(0, 3 - n - n // 2)),
]


@pytest.mark.parametrize(("x", "y"), BETWEEN)
def test_sizes_equal_on_the_multiples_between_bounds_get_one_form(x, y):
    facts = Facts([Condition(n % 3, "==", 0), Condition(n, "<=", 7)])
    points = [{"k": 0, "m": 0, "n": v} for v in (0, 3, 6)]
    assert all(at(x, p) == at(y, p) for p in points)
    fx, fy = facts.simplify(x), facts.simplify(y)
    assert fx == fy
    assert all(at(fx, p) == at(x, p) for p in points)
