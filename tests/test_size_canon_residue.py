"""Floors and remainders by ``d`` of several sizes whose part of one size has a min or max
(kantensor.types.canonresidue): that part is written by its residues modulo ``d``, so
sizes equal at every size get one form, judged by brute force on a grid of sizes (0 and 1
included) and at far sizes; the forms keep the value at every point (soundness). The
number of examples is ``KANTENSOR_FACTS_EXAMPLES`` (150 by default; the long run uses
5,000)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.canon import canonical_form
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
m, n, k = Dim("m"), Dim("n"), Dim("k")
GRID = [dict(zip("kmn", p, strict=True)) for p in itertools.product(range(12), range(3),
                                                                     range(6))]
FAR = [{"k": 10**9 + 3, "m": 7, "n": 2**40 + 1}, {"k": 0, "m": 10**12 + 5, "n": 3}]


def _at(x, sizes):
    return x if isinstance(x, int) else substitute(x, sizes)


def _equal(x, y) -> bool:
    return all(_at(x, p) == _at(y, p) for p in GRID + FAR)


# docs/sizes.rst's list had it (canon11): max(2*k, 3 - k) + 1 and min(1, k) agree modulo
# 2 at every k, their pieces do not.
@pytest.mark.parametrize(("x", "y"), [
    (k + (n + dim_min(1, k)) // 2,
     (n + dim_max(2 * k, 3 - k) + 1) // 2 + 2 * dim_min(0, k - 1)),
    ((n + dim_min(1, k)) % 2, (n + dim_max(2 * k, 3 - k) + 1) % 2),
    ((m + 3 * dim_min(2, k)) // 6, (m + 3 * dim_min(2, k)) // 6),
])
def test_parts_congruent_modulo_the_divisor_get_one_form(x, y):
    assert _equal(x, y)
    fx, fy = EMPTY.simplify(x), EMPTY.simplify(y)
    assert fx == fy, (fx, fy)
    assert _equal(fx, x)


def _part(depth: int = 2):
    """Random sizes of ``k`` alone (ints, ``+ -``, min and max, int multiples: floors in
    them bring other classes, docs/sizes.rst's list)."""
    leaf = st.one_of(st.just(k), st.integers(-3, 4))
    if depth == 0:
        return leaf
    sub = _part(depth - 1)
    return st.one_of(
        leaf,
        st.builds(lambda op, a, b: op(a, b),
                  st.sampled_from([lambda a, b: a + b, lambda a, b: a - b, dim_min, dim_max]),
                  sub, sub),
        st.builds(lambda a, c: a * c, sub, st.integers(-2, 3)),
    )


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(p=_part(), q=_part(), d=st.integers(2, 4), c=st.integers(1, 3), s=st.integers(0, 3),
       remainder=st.booleans())
def test_a_part_of_one_size_moved_by_a_multiple_of_the_divisor_keeps_one_form(
        p, q, d, c, s, remainder):
    """``(c*n + p + s)//d`` and ``(c*n + P + s)//d - q`` with ``P`` the one-size form of ``p +
    d*q`` (in which ``d*q`` is no longer a term the Dim algebra takes out), and the
    remainders alike: one form, equal to both at every size."""
    hidden = canonical_form(p + d * q)
    if remainder:
        x, y = (c * n + p + s) % d, (c * n + hidden + s) % d
    else:
        x, y = (c * n + p + s) // d, (c * n + hidden + s) // d - q
    assert _equal(x, y)
    fx, fy = canonical_form(x), canonical_form(y)
    assert _equal(fx, x) and _equal(fy, y)
    assert fx == fy, (x, y, fx, fy)


def test_a_rewrite_the_algebra_writes_back_ends():
    """A floor whose parts, once rewritten by their residues, the Dim algebra writes back
    as they were: the rewrite looped (RecursionError; canon14's property test found it at
    seed 64541). Its form keeps its value at every point."""
    x = n + (4 * n + 3 * (m % 2) + 6 * (m % 3) + 2 * dim_min(3, m)) // 8 + k // 2
    grid = [dict(zip("kmn", p, strict=True)) for p in itertools.product(range(3), range(13),
                                                                         range(9))]
    assert all(_at(canonical_form(x), p) == _at(x, p) for p in grid + FAR)
