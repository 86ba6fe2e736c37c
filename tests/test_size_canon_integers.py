"""Classes of equal sizes that kept two forms until canon17 (docs/sizes.rst), judged by
brute force at every satisfying point of a grid of sizes (0 and 1 included) and at far
sizes: a min or max with a piece that is alone the least only at rational points
(kantensor.types.latticecells.needed: ``min((m % 4)//2, n - m, n//2)`` is ``min((m %
4)//2, n - m)``), and a sum of min and max whose min of one size took the lattice past its variables
(lattice.lattice_parts); since canon18, a floor of a min or max of several sizes whose
pieces' floors are linear, or never alone the least (kantensor.types.canonextreme:
``min(4*m + 1, 4*n + 1, 5*n)//4`` is ``min(m, n)``, ``5*n`` the least only at ``n = 0``),
and a min ``U`` of several beside its floor and the lattice's rest, written by Hermite's
identity (kantensor.types.canon._round forms it with ``U`` whole). Every form is the
size at every point where random facts hold (soundness); the work stays bounded. The
number of examples is ``KANTENSOR_FACTS_EXAMPLES`` (40 by default, 150 with ``KANTENSOR_LONG=1``:
tests/sizing.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizegen
import sizing
from canonpairs import FAR, assert_one_form, equal, grid, k, m, n
from kantensor.types import latticecells
from kantensor.types.canon import canonical_form
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY
from kantensor.types.poly import Opaque

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 40, 150)
GRID = grid(7)


def _equal(x, y, points=GRID + FAR) -> bool:
    return equal(x, y, points)


U = dim_min(m, n)
H = dim_max(2 * dim_min(2, m), dim_min(6, n) // 4)
PAIRS = [
    # equal only at integers: n//2 is never alone the least, as (m % 4)//2 <= m/2
    # (docs/sizes.rst listed it as left since canon15)
    (dim_min((m % 4) // 2, n - m), dim_min((m % 4) // 2, n - m, n // 2)),
    (dim_max(m - (m % 4) // 2, n), dim_max(m - (m % 4) // 2, n, m - n // 2 - 1)),
    # the form of the first is 2*k + 1 beside a min over k, k//2, k//4, k//5, (k + 3)//5
    # and m + n: 7 variables, past the lattice's 6 (hypothesis, test_size_canon_congruent)
    ((2 * k + 2 * dim_min(5, k) + 1) // 5,
     (dim_max(2 * k, m + n - 1) - dim_max(0, m + n - 1 - 2 * k) + 2 * dim_min(5, k) + 1)
     // 5),
    # canon_rate --seed 9: the argument's form is min(4*m + 1, 4*n + 1, 5*n), and its
    # floor by 4 is min(m, n) at every integer point (5*n is the least at n = 0 only)
    ((dim_max(dim_min(1, n), U) + dim_min(1, U) + 3 * U) // 4 - U, 0),
    (dim_min(4 * m + 1, 4 * n + 1, 5 * n) // 4, U),
    (dim_max(4 * m, 4 * n, 3 * n + 3) // 4, dim_max(m, n)),
    (dim_min(2 * k + 4 * m + 2 * n + 2, 4 * m + 4 * n + 3) // 2, 2 * m + n + dim_min(k, n) + 1),
    # (a floor of a min met again is left to Hermite's identity: h//2 alone spreads to
    # min(2, m), (h + 1)//2 does not; canon_rate --seed 14 found it)
    (H, (H + 1) // 2 + H // 2),
    # 2*U - U//2 opened U into the rest's min; its Hermite rewriting had no lone U to open
    (2 * U - U // 2 + dim_min(m, n) - dim_max(k, m),
     2 * ((U + 1) // 2) + U // 2 + dim_min(m, n) - dim_max(k, m)),
]


@pytest.mark.parametrize(("x", "y"), PAIRS)
def test_sizes_equal_at_integers_get_one_form(x, y):
    assert_one_form(x, y, GRID + FAR, canonical=True)


def _piece(rng: random.Random, d: int):
    """A linear form over the sizes, most often ``d*h + r`` (``r`` in ``0 .. d - 1``,
    whose floor by ``d`` is ``h``)."""
    x = sum((rng.randint(0, 3) * v for v in (m, n, k)), start=0)
    if rng.random() < 0.7:
        return d * x + rng.randint(0, d - 1)
    return x + rng.randint(0, 6)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(2, 4), st.integers(2, 4),
       st.sampled_from([dim_min, dim_max]))
def test_a_floor_of_a_min_of_several_is_the_min_of_its_floors(rng, count, d, extreme):
    """``extreme(p1, p2, ...)//d`` and ``extreme(p1//d, p2//d, ...)`` (a floor by ``d > 0``
    is monotone) are one size at every point of the grid (brute force), each form is
    the size, and where the second's form has no floor left (a min or max of linear
    forms, which the lattice decides) the two get one form."""
    pieces = [_piece(rng, d) for _ in range(count)]
    x, y = extreme(*pieces) // d, extreme(*(p // d for p in pieces))
    assert _equal(x, y)
    fx, fy = EMPTY.simplify(x), EMPTY.simplify(y)
    assert _equal(fx, x) and _equal(fy, y)
    if not _floors(fy):
        assert fx == fy, (x, fx, y, fy)


def _floors(x) -> bool:
    """Whether ``x`` has a floor or remainder, or one inside its atoms."""
    return not isinstance(x, int) and any(
        isinstance(a, Opaque) and (a.op in ("//", "%") or any(map(_floors, a.args)))
        for mono, _ in x._terms for a, _ in mono)


_ATOMS = [(m % 4) // 2, n // 2, m % 3, n % 2, (n % 6) // 3, m // 3, k % 2, (k % 5) // 2]


def _linear(rng: random.Random):
    x = rng.randint(-2, 3)
    for v in [m, n, k, *rng.sample(_ATOMS, 2)]:
        x = x + rng.randint(-2, 2) * v
    return x


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(2, 4))
def test_min_and_max_over_bounded_atoms_are_sound_under_random_facts(rng, count):
    """A min or max of ``count`` random linear forms over sizes and bounded atoms of one
    size (``(m % 4)//2``, ``n//2``, ...; the pieces :func:`.latticecells.needed` drops),
    plus such a sum beside it, is its form at every point of the grid (0 and 1 included)
    where random facts hold, both ways of forming; and a piece at least the min at every
    point of the grid added to it leaves it the size."""
    facts, stated = sizegen.facts(rng, ("n", "m", "k"))
    points = [p for p in GRID if sizegen.holds(stated, p)]
    extreme = rng.choice([dim_min, dim_max])
    x = extreme(*(_linear(rng) for _ in range(count)))
    if rng.random() < 0.5:
        x = x + rng.choice([dim_min, dim_max])(_linear(rng), _linear(rng))
    if isinstance(x, int):
        return
    for form in (canonical_form(x), facts.simplify(x), EMPTY.simplify(x)):
        assert _equal(form, x, points), (facts, x, form)


def test_a_piece_is_dropped_only_where_no_integer_point_has_it_alone():
    """The rule's oracle: each piece :func:`.latticecells.needed` drops from a min of
    random affine forms over ``m``, ``n``, ``r = (m % 4)//2`` and ``q = n//2`` is at least
    another kept piece at every integer point of the box (brute force over ``m``, ``n``);
    one it keeps that is alone the least somewhere stays."""
    rng = random.Random(17)
    r, q = (m % 4) // 2, n // 2
    domain = latticecells.domain({"m": True, "n": True, _atom(r): True, _atom(q): True}, {})
    box = [{"m": a, "n": b} for a in range(24) for b in range(24)]
    dropped = 0
    for _ in range(300):
        forms = sorted({((("m", rng.randint(-2, 2)), ("n", rng.randint(-2, 2)),
                         (_atom(r), rng.randint(-2, 2)), (_atom(q), rng.randint(-2, 2))),
                         rng.randint(-3, 3)) for _ in range(3)}, key=str)
        forms = [(tuple(t for t in terms if t[1]), c) for terms, c in forms]
        kept = latticecells.needed(forms, domain, "min")
        values = [[_value(f, p) for f in forms] for p in box]
        for i, f in enumerate(forms):
            if f not in kept:
                dropped += 1
                assert all(min(v[j] for j, g in enumerate(forms) if g in kept) <= v[i]
                           for v in values), (forms, f)
    assert dropped  # (the property is not vacuous)


def _atom(x):
    return next(iter(x._terms))[0][0][0]


def _value(form, p):
    terms, c = form
    sizes = {"m": p["m"], "n": p["n"], _atom((m % 4) // 2): (p["m"] % 4) // 2,
             _atom(n // 2): p["n"] // 2}
    return c + sum(a * sizes[v] for v, a in terms)


def test_the_rules_stay_bounded():
    """:func:`.latticecells.needed` does at most one elimination per piece, and stacks of
    mins with a redundant piece each, of ``c*U - U//2`` beside the lattice and of floors
    of mins of floors (:mod:`.canonextreme`), have forms at most linear in their depth
    (the rules never grow a form exponentially)."""
    calls = []
    real = latticecells.feasible

    def counted(rows):
        calls.append(len(rows))
        return real(rows)

    latticecells.feasible = counted
    try:
        forms = [((("m", 1),), 0), ((("n", 1),), 0), ((("m", 1), ("n", 1)), -1)]
        latticecells.needed(forms, [((("m", 1),), 0), ((("n", 1),), 0)], "min")
    finally:
        latticecells.feasible = real
    assert len(calls) <= len(forms)
    w = v = m
    for depth in range(1, 6):
        x = sum((dim_min((m % 4) // 2 + i, n - m, n // 2 + i) for i in range(depth)), start=0)
        y = sum((2 * dim_min(k + i, n) - dim_min(k + i, n) // 2 for i in range(depth)),
                start=0) + dim_min(m, n) - dim_max(k, m)
        w = dim_min(4 * w + 1, 4 * n + 1, 5 * n) // 4  # (floors of mins, nested)
        v = dim_max(4 * v + 3, 4 * n + 2 + depth, 3 * n + 3) // 4 + v
        for z in (x, y, w, v):
            form = canonical_form(z)
            assert _equal(form, z, GRID[::7] + FAR)
            assert len(str(form)) <= 120 * depth
