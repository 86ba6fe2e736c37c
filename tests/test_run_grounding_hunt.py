"""``relation(op)`` in ``kanren.run`` with the output's size grounded by ``membero`` and
an input's size open (or named), over random signatures ``(n),(m)->(OUT)`` whose size
multiplies quotients and remainders of polynomials by polynomials, with coefficients
that are sizes (``m*((m*m + n)//(2*m + 1))``, ``((m*m)//(m + 1))*((m + 3) % (2*m - 1))``),
beside floors by ints and min and max of them:
every grounding ``run`` answers is one some size of the open input gives (sound: ``run``
shows no conditions, so a pending equation that holds nowhere would be a wrong answer).
An answer it cannot judge is refused (:class:`kantensor.query.UndecidedAnswer`), which is
allowed. Judged by Python's own ``//`` and ``%`` over ``m`` in 0..FAR (an answer no ``m`` there
gives is then looked for much further before it is called wrong). A grounding Python
gives that ``run`` leaves out is allowed (incomplete, not wrong) and not asserted.
``KANTENSOR_RUN_HUNT_EXAMPLES`` (default 30) sets how many signatures.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kanren import membero, run
from unification import var

import kantensor as kt
import sizing
from kantensor.logic.polybounds import bounds
from kantensor.query import UndecidedAnswer
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.symbols import substitute

EXAMPLES = sizing.size("RUN_HUNT_EXAMPLES", 30, 600)
FAR = range(400)
FURTHER = range(400, 20000)
OUTS = tuple(range(12))
CALLS = {"min": min, "max": max}

leaves = st.sampled_from(["m", "m", "n", "1", "2", "3"])


def _poly(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.tuples(st.sampled_from(["+", "-", "*", "*"]), children, children).map(
        lambda t: f"({t[1]} {t[0]} {t[2]})")


polys = st.recursive(leaves, _poly, max_leaves=4)
quotients = st.tuples(polys, st.sampled_from(["//", "%"]), polys).map(
    lambda t: f"({t[0]} {t[1]} {t[2]})")
floors = st.tuples(polys, st.sampled_from(["//", "%"]), st.integers(2, 50)).map(
    lambda t: f"({t[0]} {t[1]} {t[2]})")
extremes = st.tuples(st.sampled_from(["min", "max"]), polys, st.one_of(quotients, floors)).map(
    lambda t: f"{t[0]}({t[1]}, {t[2]})")
terms = st.one_of(quotients, polys, floors, extremes,
                  st.tuples(st.one_of(polys, extremes), quotients).map(lambda t: f"{t[0]}*{t[1]}"))
outs = st.tuples(terms, st.sampled_from(["+", "-", "*"]), terms).map(
    lambda t: f"({t[0]} {t[1]} {t[2]})")


def _py(expr: str, n: int, m: int) -> int | None:
    try:
        v = eval(expr, CALLS, {"n": n, "m": m})  # noqa: S307
    except ZeroDivisionError:
        return None
    return v if v >= 0 else None


def check(expr: str, n: int, named: bool) -> None:
    op = kt.op(f"(n),(m)->({expr})", name="hunted")(lambda a, b: a)
    second = kt.TensorType("float32", (kt.Dim("b"),)) if named \
        else kt.pattern("float32", (var(),))
    out = var()
    found = set()
    try:  # an answer run cannot judge is refused (incomplete, never wrong)
        for k in run(None, out, kt.relation(op)(kt.pattern("float32", (n,)), second,
                                                kt.pattern("float32", (out,))),
                     membero(out, OUTS)):
            found.add(k)
    except UndecidedAnswer:
        pass
    given = {_py(expr, n, m) for m in FAR}
    for k in found - given:
        assert any(_py(expr, n, m) == k for m in FURTHER), (expr, n, named, k, found, given)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(expr=outs, n=st.sampled_from([0, 1, 3]), named=st.booleans())
def test_run_grounds_only_sizes_some_input_gives(expr: str, n: int, named: bool) -> None:
    try:
        check(expr, n, named)
    except kt.SignatureSyntaxError:
        return


def _bounds_hold(expr: str, n: int) -> None:
    op_text = re.sub(r"\bn\b", str(n), expr)
    m = kt.Dim("m")
    try:
        x = eval(op_text, {"min": dim_min, "max": dim_max}, {"m": m})  # noqa: S307
    except ZeroDivisionError:
        return
    found = None if isinstance(x, int) else bounds(x, "m", m)
    if found is None:
        return
    lo, hi, den, start = found
    for v in range(start, start + 300):
        want = _value(op_text, v)
        if want is None:
            continue
        at = [substitute(p, {"m": v}) if isinstance(p, kt.Dim) else p for p in (lo, hi, den)]
        assert at[2] > 0 and at[0] <= at[2] * want <= at[1], (expr, n, v, found)


def _value(text: str, v: int) -> int | None:
    try:
        return eval(text, CALLS, {"m": v})  # noqa: S307
    except ZeroDivisionError:
        return None


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(expr=outs, n=st.sampled_from([0, 1, 3]))
def test_polynomial_bounds_hold_from_their_start(expr: str, n: int) -> None:
    """logic/polybounds: ``lo <= den*x <= hi`` and ``den > 0`` at every ``m`` from
    ``start`` on (300 of them) where Python's ``x`` has a value."""
    _bounds_hold(expr, n)
