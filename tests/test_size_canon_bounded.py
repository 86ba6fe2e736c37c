"""Sizes over several sizes that depend on some only through bounded parts
(kantensor.types.canonsplit, canonperiodic), floors whose bounded part is no interval
below a factor of the divisor (canonfloor), and Hermite's identity over a remainder of
a max of several sizes (canon). Judged by brute force: each form is the size's value at
every point of a grid (0 and 1 included) and far; sizes equal there (a brute-force
table over each size's period) get one form. The number of examples is
``KANTENSOR_FACTS_EXAMPLES`` (30 by default, 150 with ``KANTENSOR_LONG=1``: tests/sizing.py)."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.canon import canonical_form
from kantensor.types.canonperiodic import periodic_out
from kantensor.types.canonsplit import separated
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 30, 150)
k, m, n = Dim("k"), Dim("m"), Dim("n")
SIZES = (k, m, n)
VALUES = (0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 24, 37)
GRID = [dict(zip("kmn", p, strict=True)) for p in itertools.product(VALUES, repeat=3)]
FAR = ({"n": 10**12 + 7, "m": 3, "k": 10**9}, {"n": 1, "m": 2**40 + 1, "k": 0})


def _at(x, sizes):
    return x if isinstance(x, int) else substitute(x, sizes)


def _sound(x, y) -> None:
    for p in [*GRID[::3], *FAR]:
        assert _at(y, p) == _at(x, p), (x, y, p)


w = dim_min(1, m % 4)
v = dim_min(w, n - 2)


@pytest.mark.parametrize(("ways", "form"), [
    # canon_rate --seed 3: a floor of a sum of min over a bounded remainder, 0 at every size
    (((w + v + dim_min(w + 1, n - 1) + 1) // 2 - v - 1, 0), "0"),
    # canon_rate --seed 4: a bounded part that is no interval below the factor 4 of 8
    # (its E is 1, 2 or 5: by its blocks, E//4; off on 357b36b, a loop since stopped)
    (((4 * n + 2 * ((m % 3) // 2) + m % 3 + 1) // 8 - n, (2 * n + m % 3) // 4 - n),
     "(2*n + m % 3)//4 - n"),
    # tests/test_size_canon_floor's property, seed 431053: a floor that never depends on m
    ((n + (8 * (k % 3) + m % 3 + 4) // 12 + 1, n + (2 * (k % 3) + 1) // 3 + 1),
     "n + (k + 2)//3 - k//3 + 1"),
    # ... seed 94519: E over a size of B (n % 2 beside 6*n), by 2 or by 4
    (((6 * n + 4 * (m // 3) + n % 2 + 4) // 8, (3 * n + 2 * (m // 3) + 2) // 4),
     "(3*n + 2*(m//3) + 2)//4"),
    # an E below a factor of the divisor is taken over the size as it is, shorter or not
    # (the floor by 6 has one term, its form by 3 two: (m + n)//2 - n//3)
    (((3 * m + n + 3 * (n % 3)) // 6 - n % 3 - 2 * (n // 3), (m + n) // 2 - n),
     "(m + n)//2 - n"),
    # canon_rate --seed 7: Hermite's identity over u = k % 2 + max(k, m) % 4
    (((k % 2 + dim_max(k, m) % 4 + 1) // 2 + (k % 2 + dim_max(k, m) % 4) // 2
      - 2 * (dim_max(k, m) % 4), k % 2 - dim_max(k, m) % 4), "k % 2 - max(k, m) % 4"),
])
def test_sizes_left_in_two_forms_before_get_one(ways, form) -> None:
    """Each was in two forms on 610f47e (benchmarks/canon_rate.py --show, seeds 3, 4 and
    7 of --pairs 1000; test_size_canon_floor.py's property without its exclusions)."""
    for x in ways:
        _sound(ways[0], x)
        assert str(canonical_form(x)) == form, x
        assert str(EMPTY.simplify(x)) == form, x


def test_hermite_over_a_remainder_of_a_max_under_facts() -> None:
    """canon_rate --seed 7's pair was under ``n % 3 == 0`` and ``n <= k``."""
    facts = Facts([Condition(n % 3, "==", 0), Condition(n, "<=", k)])
    u = k % 2 + dim_max(k, m) % 4
    a, b = (u + 1) // 2 + u // 2 - 2 * (dim_max(k, m) % 4), k % 2 - dim_max(k, m) % 4
    assert facts.simplify(a) == facts.simplify(b)


def _bounded_part(rng: random.Random, s: Dim):
    """A random bounded size of ``s`` alone (a remainder, a min with an int, a floor of
    a remainder, or a sum of two)."""
    def one():
        e = rng.randint(2, 4)
        kind = rng.randrange(4)
        if kind == 0:
            return s % e
        if kind == 1:
            return dim_min(e, s)
        if kind == 2:
            return (s % (2 * e)) // e
        return dim_min(1, s % e)
    part = rng.randint(1, 3) * one()
    return part + rng.randint(-1, 2) * one() if rng.random() < 0.4 else part


def _atom(rng: random.Random, parts: list):
    """A random floor, remainder, min or max of sums of ``parts`` and ints."""
    def arg():
        return sum((rng.randint(0, 3) * p for p in parts), start=rng.randint(-2, 6))
    kind = rng.randrange(4)
    if kind == 0:
        return arg() // rng.randint(2, 12)
    if kind == 1:
        return arg() % rng.randint(2, 12)
    return (dim_min if kind == 2 else dim_max)(arg(), arg())


def _table(x, sizes: list, period: int) -> dict:
    """``x`` at every point of ``0 .. period - 1`` of ``sizes`` (the brute force)."""
    return {p: _at(x, dict(zip((str(s) for s in sizes), p, strict=True)))
            for p in itertools.product(range(period), repeat=len(sizes))}


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_atoms_of_bounded_parts_that_are_sums_get_one_form(seed) -> None:
    """A floor, remainder, min or max of bounded parts of two or three sizes: its form is
    its value; where brute force finds it a sum of one function per size (on a grid of
    the parts' common period, all their values), it and that sum (built by substituting
    0 for the other sizes) get one form."""
    rng = random.Random(seed)
    sizes = rng.sample(SIZES, rng.randint(2, 3))
    x = _atom(rng, [_bounded_part(rng, s) for s in sizes])
    for y in (separated(x), canonical_form(x)):
        _sound(x, y)
    if isinstance(x, int):
        return
    period = 24  # (every part above repeats with a period dividing 24, from 0 on)
    got = _table(x, sizes, period)
    zero = got[(0,) * len(sizes)]
    summed = all(got[p] == sum(got[tuple(q if j == i else 0 for j, q in enumerate(p))]
                               for i in range(len(sizes))) - (len(sizes) - 1) * zero
                 for p in got)
    if summed:
        total = sum((substitute(x, {str(t): 0 for t in sizes if t is not s}) for s in sizes),
                    start=-(len(sizes) - 1) * zero)
        _sound(x, total)
        assert canonical_form(x) == canonical_form(total), (x, total)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_size_through_bounded_parts_only_is_taken_out(seed) -> None:
    """A size over ``n`` (unbounded) and ``m`` through bounded parts inside atoms over
    both: its form is its value; where brute force finds ``x(m, n) - x(0, n)`` the same
    at every ``n`` of a grid for each ``m`` of the parts' period, ``x`` and ``x(0, n) +
    x(m, 0) - x(0, 0)`` get one form."""
    rng = random.Random(seed)
    p, q = _bounded_part(rng, m), _bounded_part(rng, m)
    kind = rng.randrange(3)
    if kind == 0:
        x = (rng.randint(1, 3) * n + p + rng.randint(0, 3)) // rng.randint(2, 6) \
            + rng.randint(-1, 1) * p
    elif kind == 1:
        x = dim_min(p + rng.randint(0, 2), n - rng.randint(0, 3)) + dim_max(q, n) - n
    else:
        x = (p + dim_min(p, n - 2) + dim_min(p + 1, n - 1) + rng.randint(0, 2)) // 2 \
            - dim_min(q, n - rng.randint(0, 2))
    for y in (periodic_out(x, canonical_form), canonical_form(x)):
        _sound(x, y)
    if isinstance(x, int):
        return
    ns = range(30)
    same = all(len({_at(x, {"m": a, "n": b}) - _at(x, {"m": 0, "n": b}) for b in ns}) == 1
               for a in range(24))
    if same:
        total = substitute(x, {"m": 0}) + substitute(x, {"n": 0}) - _at(x, {"m": 0, "n": 0})
        _sound(x, total)
        assert canonical_form(x) == canonical_form(total), (x, total)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), op=st.sampled_from(["//", "%"]))
def test_floors_with_a_bounded_part_of_one_size_stay_sound(seed, op) -> None:
    """``(g*B + E) op d`` for a bounded ``E`` of one size whose values are no interval
    below ``g`` (``(E + B')//g`` then): the form is the size's value; and it equals
    ``(B + E//g)//(d/g)``, which gets the same form where both are written by it."""
    rng = random.Random(seed)
    g, d = rng.randint(2, 4), rng.randint(1, 3)
    b = rng.randint(1, 3) * n + rng.randint(0, 3) * (k // rng.randint(2, 3)) + rng.randint(0, 5)
    e = _bounded_part(rng, m) + rng.randint(0, 2) * _bounded_part(rng, m)
    x = (g * b + e) // (g * d) if op == "//" else (g * b + e) % (g * d)
    y = (b + e // g) // d if op == "//" else g * ((b + e // g) % d) + e % g
    _sound(x, y)
    for z in (x, y):
        form = canonical_form(z)
        _sound(z, form)  # (and bounded: on 600 examples, at most 5 times as long)
        assert len(str(form)) <= 8 * len(str(z)) + 100, (z, form)
