"""Conditions on a product of factors decided by the factors' bounds
(:mod:`kantensor.types.productsign`), judged by brute force: every product of values
within the bounds is inside the interval, and a decided condition holds (or fails) at
every such product."""

from __future__ import annotations

import itertools
import operator

from hypothesis import given, settings
from hypothesis import strategies as st

from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import Facts
from kantensor.types.productsign import decided_by_interval, factors, parts_bounds, product_interval
from kantensor.types.symbols import substitute

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


# -- bounds of an expression by its parts: a min or max by its arguments, a product by
# -- its factors (parts_bounds), judged at every point of a box where the facts hold
SYMBOLS = ("a", "b", "c")


@st.composite
def expressions(draw, depth=2):
    """A size expression over a, b, c: a symbol, ``x - k``, a min or max of two, or a
    product of two over disjoint symbols, times an int plus an int."""
    if depth == 0 or draw(st.booleans()):
        e = Dim(draw(st.sampled_from(SYMBOLS))) - draw(st.integers(0, 2))
    else:
        kind = draw(st.sampled_from(("min", "max", "product")))
        x, y = draw(expressions(depth - 1)), draw(expressions(depth - 1))
        if kind == "product":
            e = (Dim("a") - draw(st.integers(0, 2))) * (Dim("b") - draw(st.integers(0, 2)))
        else:
            e = (dim_min if kind == "min" else dim_max)(x, draw(st.sampled_from((0, 1, y))))
    return draw(st.sampled_from((1, 2, -1, 3))) * e + draw(st.integers(-2, 2))


@settings(max_examples=150, deadline=None)
@given(expressions(), st.lists(st.tuples(st.sampled_from(SYMBOLS), st.integers(0, 3),
                                         st.integers(0, 3)), max_size=3))
def test_the_bounds_by_parts_hold_at_every_point(e, lows):
    """Every value of the expression at sizes 0..5 where the facts (``s >= lo``,
    ``s <= lo + span``) hold lies within the bounds ``parts_bounds`` gives, and where
    the facts' own bounds say a side they are never looser."""
    facts = Facts([Condition(Dim(s), ">=", lo) for s, lo, _ in lows] +
                  [Condition(Dim(s), "<=", lo + span) for s, lo, span in lows])
    bounds = parts_bounds(facts.bounds, factors)
    if isinstance(e, int):
        return
    low, high = bounds(e)
    plain = facts.bounds(e)
    assert plain[0] is None or (low is not None and low >= plain[0])
    assert plain[1] is None or (high is not None and high <= plain[1])
    for point in itertools.product(range(6), repeat=len(SYMBOLS)):
        env = dict(zip(SYMBOLS, point, strict=True))
        if not all(c.holds(env) for c in facts.atoms):
            continue
        v = substitute(e, env)
        assert (low is None or v >= low) and (high is None or v <= high), (e, env, v, low,
                                                                          high)


def test_a_view_after_windows_is_bounded_through_its_min():
    """``min(1, 3*((H+3)//4 - 1)*((W+3)//4 - 1)) - 1`` is 0 where both windows fit (the
    facts' own bounds leave its low side open)."""
    H, W = Dim("H"), Dim("W")
    p = 3 * ((H + 3) // 4 - 1) * ((W + 3) // 4 - 1)
    e = dim_min(1, p) - 1
    facts = Facts([Condition((H + 3) // 4 - 1, ">=", 1), Condition((W + 3) // 4 - 1, ">=", 1)])
    assert facts.bounds(e)[0] is None
    assert parts_bounds(facts.bounds, factors)(e) == (0, 0)
