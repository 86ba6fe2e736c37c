"""Facts.simplify ends on sizes whose floor's least constant comes out and whose form puts
it back in (it recursed without end), and keeps their value (brute force on a grid of
sizes, 0 and 1 included, and at far sizes)."""

from __future__ import annotations

import itertools

from kantensor.types.dim import Dim, dim_max, dim_min
from kantensor.types.facts import EMPTY
from kantensor.types.symbols import substitute

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
