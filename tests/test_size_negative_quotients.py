"""Bounds of quotients whose numerator may be negative: a traced program's ``4 // (n -
m)`` at ``n < m`` is divided as ``(-4) // (m - n)`` by a positive size (kantensor.types.
dimorder.divided), so the structural interval (kantensor.types.intervals) and the
elimination's bounds (kantensor.types.prove) of ``x // d`` and ``x % d`` for a size
``d >= 1`` (by structure, or by a fact: a divisor of no known sign bounds nothing alone)
and any ``x`` must hold at every point; they said nothing of a negative numerator, and
an odd power of a negative base was unbounded. Judged by Python's own
``//``, ``%`` and ``**`` at every point of a box where the divisor is positive."""

from __future__ import annotations

import itertools
import operator

from hypothesis import given, settings
from hypothesis import strategies as st

from kantensor.types.dim import Dim
from kantensor.types.intervals import interval
from kantensor.types.prove import bounds
from kantensor.types.symbols import substitute
from optrees import evaluate

NAMES = ("a", "b", "c")
BOX = range(0, 7)
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
       "%": operator.mod}

leaves = st.one_of(st.sampled_from(NAMES), st.integers(-5, 5))
numerators = st.recursive(leaves, lambda ch: st.tuples(st.sampled_from(["+", "-", "*"]),
                                                        ch, ch), max_leaves=4)
# a divisor that is a size >= 1 where the algebra divides by it (a difference of sizes
# is asked positive, or divided as its negation, by the trace)
divisors = st.one_of(st.integers(1, 3), st.tuples(st.just("+"), st.sampled_from(NAMES),
                                                  st.integers(1, 2)),
                     st.sampled_from([("-", "a", "b"), ("-", "c", "a")]))


def ev(tree, env):
    return evaluate(tree, env, OPS)


def _inside(low, high, value):
    return (low is None or low <= value) and (high is None or value <= high)


@settings(max_examples=150, deadline=None)
@given(numerators, st.sampled_from(["//", "%"]), divisors, st.integers(1, 3))
def test_bounds_of_a_quotient_hold_at_every_point_of_a_positive_divisor(num, op, den, p):
    expr = ev((op, num, den), {n: Dim(n) for n in NAMES})
    if isinstance(expr, int):
        return
    expr = expr ** p
    structural = interval(expr)
    eliminated = bounds((), expr)
    for values in itertools.product(BOX, repeat=len(NAMES)):
        env = dict(zip(NAMES, values, strict=True))
        if ev(den, env) < 1:
            continue  # (the algebra reads a size divisor as positive)
        value = ev(num, env)
        value = (value // ev(den, env) if op == "//" else value % ev(den, env)) ** p
        assert substitute(expr, env) == value
        assert _inside(*structural, value), (str(expr), env, structural)
        if eliminated != (1, 0):
            assert _inside(*eliminated, value), (str(expr), env, eliminated)


def test_a_negative_numerators_quotient_is_negative():
    """``(-4) // (m - n)`` (a traced ``4 // (n - m)`` at ``n < m``) lies in [-4, -1]: a
    slice stop of that form counts from the end (main: unbounded, read as a start)."""
    n, m = Dim("n"), Dim("m")
    assert bounds(((m - n, ">=", 1),), (-4) // (m - n)) == (-4, -1)
    assert interval((-4) // (m + 1)) == (-4, -1)
    assert interval((-n) // (m + 1)) == (None, 0)
    assert interval(((-4) // (m + 1)) ** 3) == (-64, -1)
    assert interval(((-4) // (m + 1)) ** 2) == (1, 16)


def test_a_divisor_of_no_known_sign_bounds_nothing_by_structure_alone():
    """``(-4) // (m - n)`` built outside a trace (plain Dim arithmetic, ONNX's Div) may
    have ``m < n``, where Python's quotient is positive (``(-4) // (-1) == 4``): its
    structure alone bounds nothing; a fact ``m - n >= 1`` (a trace's case) does."""
    n, m = Dim("n"), Dim("m")
    assert interval((-4) // (m - n)) == (None, None)
    assert bounds((), (-4) // (m - n)) == (None, None)
    values = {(-4) // (b - a) for a in range(6) for b in range(6) if a != b}
    assert min(values) == -4 and max(values) == 4
