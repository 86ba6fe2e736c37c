"""Conditions on a product of factors decided by the factors' bounds
(:mod:`kantensor.types.productsign`), judged by brute force: every product of values
within the bounds is inside the interval, and a decided condition holds (or fails) at
every such product."""

from __future__ import annotations

import itertools
import operator

from hypothesis import given
from hypothesis import strategies as st

from kantensor.types.productsign import decided_by_interval, product_interval

OPS = {">=": operator.ge, ">": operator.gt, "==": operator.eq, "!=": operator.ne}
_ends = st.one_of(st.none(), st.integers(-4, 4))


@st.composite
def factor_bounds(draw):
    lo, hi = draw(_ends), draw(_ends)
    if lo is not None and hi is not None and lo > hi:
        lo, hi = hi, lo
    return lo, hi


def _values(lo, hi):
    """The values a factor takes in a brute force: its bounds, or 6 past an open side."""
    return range(-6 if lo is None else lo, (6 if hi is None else hi) + 1)


@given(st.integers(-3, 3), st.lists(factor_bounds(), min_size=1, max_size=3),
       st.integers(-5, 5))
def test_every_product_within_the_bounds_is_in_the_interval(k, bounds, r):
    names = [f"f{i}" for i in range(len(bounds))]
    table = dict(zip(names, bounds, strict=True))
    low, high = product_interval(k, names, r, table.__getitem__)
    values = set()
    for point in itertools.product(*(_values(*b) for b in bounds)):
        v = k
        for x in point:
            v *= x
        values.add(v + r)
        assert low is None or v + r >= low, (point, low)
        assert high is None or v + r <= high, (point, high)
    for op, compare in OPS.items():
        verdict = decided_by_interval(op, low, high)
        if verdict is not None:
            assert all(compare(v, 0) is verdict for v in values), (op, low, high)


def test_bounded_factors_give_the_tight_interval():
    """Two factors at least 1 (windows that fit) times 3: at least 3, so ``>= 0``."""
    bounds = {"a": (1, None), "b": (1, None)}
    assert product_interval(3, ["a", "b"], 0, bounds.__getitem__) == (3, None)
    assert product_interval(3, ["a", "b"], -3, bounds.__getitem__) == (0, None)
    assert decided_by_interval(">=", 3, None) is True
    assert decided_by_interval(">", 0, None) is None
    zero = {"a": (0, 0), "b": (None, None)}
    assert product_interval(2, ["a", "b"], 1, zero.__getitem__) == (1, 1)
