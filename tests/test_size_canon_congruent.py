"""Floors and remainders by ``d`` of sums of min and max whose pieces agree modulo ``d``
(kantensor.types.congruent): the multiple of ``d`` comes out, so sizes equal at every
size get one form, judged by brute force on a grid of sizes (0 and 1 included) and at
far sizes; the rewrite keeps the value at every point (soundness). The number of
examples is ``KANTENSOR_FACTS_EXAMPLES`` (40 by default, 150 with
``KANTENSOR_LONG=1``: tests/sizing.py; the longest run uses 5,000)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.canon import canonical_form
from kantensor.types.congruent import congruent_out
from kantensor.types.dim import Dim
from kantensor.types.dimdivide import dim_floordiv, dim_mod
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 40, 150)
m, n, k = Dim("m"), Dim("n"), Dim("k")
GRID = [dict(zip("kmn", p, strict=True)) for p in itertools.product(range(9), repeat=3)]
FAR = [{"k": 10**9 + 3, "m": 7, "n": 2**40 + 1}, {"k": 0, "m": 10**12 + 5, "n": 3}]


def _at(x, sizes):
    return x if isinstance(x, int) else substitute(x, sizes)


def _equal(x, y) -> bool:
    return all(_at(x, p) == _at(y, p) for p in GRID + FAR)


# Facts.simplify recursed without end on it (before 2026-11-29: its floor's least constant
# came out, and its form put it back in): found by a hypothesis test of the floors below.
_CYCLED = (3 * dim_max(0, 3 * n - 1) + dim_max(2 - k - m - 2 * n, n - k - m + 1)
           + 2 * dim_min(2, k)) // 4 - dim_max(0, 3 * n - 1)


def test_simplify_ends_where_a_floor_s_constant_cycles():
    assert _equal(EMPTY.simplify(_CYCLED), _CYCLED)


# Found by benchmarks/canon_rate.py (seeds 1, 14, 15): t written max(t, u) - max(0, u -
# t) inside a floor, whose -max(0, u - t) the algebra makes 5*max(...) inside, -max outside.
@pytest.mark.parametrize(("x", "y"), [
    ((m + 3 * dim_min(2, k)) // 6,
     (dim_max(m, n - k) - dim_max(0, n - k - m) + 3 * dim_min(2, k)) // 6),
    ((3 * m + dim_max(2, n)) // 4 - m,
     (3 * dim_max(0, m + n - dim_max(2, n)) + dim_max(dim_max(2, n) - m, n)) // 4
     - dim_max(0, m + n - dim_max(2, n))),
    (0 * m, (5 * dim_max(0, m // 2 - dim_min(1, k)) + dim_max(m // 2, dim_min(1, k))) // 6
     - dim_max(0, m // 2 - dim_min(1, k))),
    ((m + 2 * dim_min(3, k)) % 4,
     (dim_max(m, n) - dim_max(0, n - m) + 2 * dim_min(3, k) + 8) % 4),
    ((3 * k + 3 * m + 2 * n + 2 * dim_min(2, k) + 2) // 4 - k - m - n, _CYCLED),
    # (found by the hypothesis test below, seed unknown: the form's min of k beside
    # max(2*k + 1, m + n) + min(2*k + 1, m + n) took the lattice past 6 variables)
    ((2 * k + 2 * dim_min(5, k) + 1) // 5,
     (dim_max(2 * k, m + n - 1) - dim_max(0, m + n - 1 - 2 * k) + 2 * dim_min(5, k) + 1)
     // 5),
])
def test_floors_of_congruent_pieces_get_one_form(x, y):
    assert _equal(x, y)  # (the oracle: brute force)
    assert EMPTY.simplify(x) == EMPTY.simplify(y)
    assert canonical_form(x) == canonical_form(y)


def _linear(draw, lo=-2):
    return sum((draw(st.integers(lo, 2)) * Dim(s) for s in "kmn"), draw(st.integers(lo, 3)))


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.data())
def test_t_written_as_max_minus_max_inside_a_floor(data):
    """``(t + w)//d`` and ``(max(t, u) - max(0, u - t) + w)//d`` (equal: ``t`` is
    ``max(t, u) - max(0, u - t)``) get one form, for ``t`` and ``u`` linear over sizes
    (``t``'s coefficients ``>= 0``: with some < 0, a floor of one linear form beside a
    multiple of it may keep two forms, docs/sizes.rst) and ``w`` a min of one size; and
    every form is the size at every point."""
    t, u = _linear(data.draw, 0), _linear(data.draw)
    w = data.draw(st.integers(0, 3)) * dim_min(data.draw(st.integers(0, 5)), k)
    d = data.draw(st.integers(2, 6))
    op = data.draw(st.sampled_from([dim_floordiv, dim_mod]))
    x = op(t + w, d)
    y = op(dim_max(t, u) - dim_max(0, u - t) + w, d)
    if isinstance(x, int) or isinstance(y, int):
        return
    for z in (x, y):
        for form in (congruent_out(z, canonical_form), EMPTY.simplify(z)):
            assert _equal(form, z), (z, form)
    assert canonical_form(x) == canonical_form(y), (x, y)


def test_a_remainder_beside_a_min_of_one_size_gets_one_canonical_form():
    """The example CI's derandomized run found: ``canonical_form`` gives the two one form;
    ``Facts.simplify`` without facts does not yet (it leaves ``(k + max(4*n + min(3, k),
    min(4*k + 3, 5*k))) % 4`` beside the other), so the property above asks the canonical
    form, as docs/sizes.rst states it."""
    x = (k + dim_min(3, k)) % 4
    y = (dim_max(k, n) - dim_max(0, n - k) + dim_min(3, k)) % 4
    assert _equal(x, y)
    assert canonical_form(x) == canonical_form(y)
    assert _equal(EMPTY.simplify(y), y)


def _mm(t, u):
    """``t`` written ``max(t, u) - max(0, u - t)``."""
    return dim_max(t, u) - dim_max(0, u - t)


# Found by random runs of the property above (pair seeds of a driver outside hypothesis):
# a min or max of one size beside several sizes in a floor (its pieces agree modulo d,
# but congruent_out looked only at min and max of several); a min or max in a floor
# whose arguments share a multiple of a size (min(2*k + 5, 3*k) is 2*k + min(5, k));
# the constant outside or inside the one min of one size, by how the parts were grouped;
# t*u split between a floor's part and its sizes' parts two ways; what comes out of a
# min in a floor leaving a narrow argument.
@pytest.mark.parametrize(("x", "y"), [
    (k + (n + dim_min(1, k)) // 2, k + (_mm(n, 2 * k - n + 1) + dim_min(1, k)) // 2),
    (k + (n + dim_min(1, k)) // 2, k + (_mm(n, m - k) + dim_min(1, k)) // 2),
    ((n + dim_min(4, k)) // 2, (_mm(n, 2 * n - 1) + dim_min(4, k)) // 2),
    (k + n + (m + dim_min(5, k)) // 2 + 1,
     (_mm(2 * k + m + 2 * n + 2, 2 * k - 2 * m + n + 3) + dim_min(5, k)) // 2),
    ((2 * m + 2 * n + 2 * dim_min(5, k)) // 3 + 1,
     (_mm(2 * m + 2 * n + 3, 2 * k - 2 * m - n + 1) + 2 * dim_min(5, k)) // 3),
    ((2 * k + 2 * m + 1) // 3 + dim_min(3, k),
     (_mm(2 * k + 2 * m + 1, 2 * m + 2 * n + 2)) // 3 + dim_min(3, k)),
    ((2 * k + 2 * n) // 3 + dim_min(4, k), (_mm(2 * k + 2 * n, 2 * k + 2 * m + 2)) // 3
     + dim_min(4, k)),
    ((2 * k + 2 * m + dim_min(1, k) + 2) // 4,
     (_mm(2 * k + 2 * m + 2, k + m + n + 1) + dim_min(1, k)) // 4),
    (m + n - (m + n + dim_min(5, k) + 2) // 3 + dim_min(5, k) + 1,
     m + n - (m + n + dim_min(5, k) + 2) // 3 + dim_min(6, k + 1)),
    ((m + dim_min(2 * k + 5, 3 * k)) // 2, k + (m + dim_min(5, k)) // 2),
    ((k + m + 1) // 2 - k, m - (k + m) // 2),
])
def test_found_pairs_get_one_form(x, y):
    assert _equal(x, y)  # (the oracle: brute force)
    assert canonical_form(x) == canonical_form(y), (canonical_form(x), canonical_form(y))
    for z in (x, y):
        assert _equal(canonical_form(z), z)
        assert _equal(EMPTY.simplify(z), z)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.data())
def test_congruent_out_keeps_the_value(data):
    """Any floor or remainder of a sum of min and max of linear forms: the rewrite is
    the size at every point of the grid and far from it."""
    args = [_linear(data.draw) for _ in range(data.draw(st.integers(2, 3)))]
    inner = (dim_min if data.draw(st.booleans()) else dim_max)(*args)
    c = data.draw(st.integers(-7, 7))
    arg = c * inner + _linear(data.draw) + dim_max(0, args[0] - args[1])
    x = data.draw(st.sampled_from([dim_floordiv, dim_mod]))(arg, data.draw(st.integers(2, 8)))
    if not isinstance(x, int):
        assert _equal(congruent_out(x, canonical_form), x)
