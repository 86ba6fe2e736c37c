"""``math``'s functions of sizes (Python floats) as divisors, judged by Python and NumPy
at every assignment of the sizes 0..4.

``math.sqrt(N)`` is a Python float, so ``1.0 / math.sqrt(N)`` raises ZeroDivisionError at
``N == 0``, where ``1.0 / np.sqrt(N)`` (a NumPy number) is ``inf``: the result must hold
exactly where Python runs (it held at ``N == 0``: the graph did not tell the two apart).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import kantensor as kt
from test_eval_shape_divisors import _judged

#: Arguments made of sizes (x is float32[N], y float32[K]).
ARGUMENTS = ["x.shape[0]", "x.shape[0] + 1", "x.shape[0] / 2", "x.shape[0] - y.shape[0]"]

#: math's functions of one argument, and the others written with one.
FUNCTIONS = ["math.sqrt({e})", "math.log({e})", "math.log2({e})", "math.log10({e})",
             "math.log1p({e})", "math.sin({e})", "math.tan({e})", "math.tanh({e})",
             "math.expm1({e})", "math.exp({e})", "math.cos({e})", "math.hypot({e}, 0)",
             "math.hypot({e}, {e})", "math.pow({e}, 0.5)", "2 * math.sqrt({e})",
             "-math.log({e})", "math.sqrt({e}) / 3", "np.sqrt({e})"]

DIVISIONS = ["2.0 / ({b})", "3 // ({b})", "2.5 % ({b})", "x / ({b})"]

PROGRAMS = [f"lambda x, y: x * ({d.format(b=f.format(e=e))})"
            for f, e, d in itertools.product(FUNCTIONS, ARGUMENTS, DIVISIONS)]


@pytest.mark.parametrize("source", PROGRAMS)
def test_a_division_by_a_math_float_of_sizes_holds_exactly_where_python_runs(source):
    """``2.0 / math.sqrt(N)`` held at ``N == 0``, ``2.0 / math.log(N + 1)`` too: nothing
    was assumed of a divisor made by math; ``math.hypot`` of sizes was refused."""
    try:
        _judged(source)
    except TypeError as exc:  # refused, no wrong answer: only where Python refuses too
        assert "math domain" in str(exc) or "rounded" in str(exc), (source, exc)


def test_math_exp_of_a_size_overflows_as_pythons():
    """``math.exp(N)`` raises OverflowError at ``N >= 710``: assumed ``N <= 709``."""
    fn = lambda x: x * math.exp(x.shape[0])  # noqa: E731
    r = kt.eval_shape(fn, "float32[N]")
    for n in (0, 709, 710):
        try:
            math.exp(n)
            runs = True
        except OverflowError:
            runs = False
        assert r.holds({"N": n}) == runs, n
    assert np.shape(fn(np.zeros(3))) == (3,)


#: abs of sizes and of floats of sizes, as shapes and as numbers.
ABS = ["np.zeros(abs(x.shape[0] - 3))", "np.zeros(abs(x.shape[0] - y.shape[0]) + 1)",
       "x * abs(x.shape[0] / 2)", "x * abs(x.shape[0] - 3)", "np.zeros(abs(-x.shape[0]))",
       "x * (2.0 / abs(x.shape[0] - 3))", "np.zeros(int(abs((x.shape[0] - 3) / 2)))"]


@pytest.mark.parametrize("source", ABS)
def test_abs_of_a_size_is_pythons(source):
    """``abs`` of a size or of a float of sizes was refused (no ``__abs__``): it is the
    int (or float) Python's is, its sign asked as a branch."""
    _judged(f"lambda x, y: {source}")


#: np.arange of floats of sizes (x is float32[N], y float32[K]).
ARANGES = ["np.arange(x.shape[0] / 2)", "np.arange(1, x.shape[0] / 2)",
           "np.arange(x.shape[0] / 2, 0, -1)", "np.arange(x.shape[0] / 4, x.shape[0], 2)",
           "np.arange((x.shape[0] - 3) / 2)", "np.arange(x.shape[0] / 3)",
           "np.arange(x.shape[0] / 3, 0, -1)", "np.arange(x.shape[0] / 2 - y.shape[0])"]


@pytest.mark.parametrize("source", ARANGES)
def test_arange_of_a_float_of_sizes_is_numpys(source):
    """``np.arange(N / 2)`` is NumPy's float64 range of ``ceil(N / 2)`` values; it was
    refused ("must be real number, not Ratio")."""
    fn = eval(f"lambda x, y: {source}", {"np": np})
    r = kt.eval_shape(fn, "float32[N]", "float32[K]")
    _judged(f"lambda x, y: {source}")
    assert r.type.dtype == fn(np.zeros(3), np.zeros(1)).dtype.name
