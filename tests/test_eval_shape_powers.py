"""Python's powers of sizes in traced code, judged by NumPy at every size of a box.

A size is a Python int in NumPy code, so ``b ** e`` of sizes and Python numbers is
Python's power: an int to a negative power is a float (``2 ** -1``), a negative number to
a power that is not an integer is complex (``(-2) ** 0.5``), and 0 to a negative power
raises ZeroDivisionError. For every program ``x.astype(dt) * b ** e`` of a grid (bases
Python ints and floats of both signs, sizes, halves of sizes; exponents sizes, their
differences, halves and negations), eval_shape's result must agree with NumPy at every
``N, K`` in 0..4: where its conditions hold, NumPy runs and gives the case's dtype and
shape; where NumPy runs with that dtype, they hold (a condition may exclude sizes where
NumPy's dtype is another one: ``(-2) ** (N * 0.5)`` is complex at odd ``N``, and
eval_shape assumes ``N % 2 == 0``). NumPy's dtype is read by kantensor's documented rule
for Python numbers (docs/numpy.rst, "Differences from NumPy"): a Python float (complex)
beside an int or bool array is of the default dtype, float32 (complex64)."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

BASES = {
    "-3": lambda n, k: -3, "-2": lambda n, k: -2, "-1": lambda n, k: -1, "-0.5": lambda n, k: -0.5,
    "0": lambda n, k: 0, "0.5": lambda n, k: 0.5, "1": lambda n, k: 1, "2": lambda n, k: 2,
    "-3.0": lambda n, k: -3.0, "-1.0": lambda n, k: -1.0, "0.0": lambda n, k: 0.0,
    "2.0": lambda n, k: 2.0, "N-K": lambda n, k: n - k, "K": lambda n, k: k,
    "N-2": lambda n, k: n - 2, "K/2": lambda n, k: k / 2, "(K-N)/2": lambda n, k: (k - n) / 2,
}
EXPONENTS = {
    "N": lambda n, k: n, "N-K": lambda n, k: n - k, "N*0.5": lambda n, k: n * 0.5,
    "N/2": lambda n, k: n / 2, "-N": lambda n, k: -n, "N//2": lambda n, k: n // 2,
    "N%2": lambda n, k: n % 2, "(N-K)/2": lambda n, k: (n - k) / 2,
    "-N*0.25": lambda n, k: -n * 0.25, "N*0.5+1": lambda n, k: n * 0.5 + 1,
    "-1": lambda n, k: -1, "0.5": lambda n, k: 0.5, "(N-K)*1.5": lambda n, k: (n - k) * 1.5,
}
#: Pairs the grid leaves out: both constant (Python computes them, no graph), and a size
#: base to a constant int power (a size, no number)
SKIP = {(b, e) for b in ("-3", "-2", "-1", "-0.5", "0", "0.5", "1", "2", "-3.0", "-1.0",
                         "0.0", "2.0") for e in ("-1", "0.5")}
PROGRAMS = [(b, e) for b, e in itertools.product(BASES, EXPONENTS) if (b, e) not in SKIP]


def _program(base, exponent, dtype, spy):
    def fn(x, y):
        n, k = x.shape[0], y.shape[0]
        return x.astype(dtype) * spy(BASES[base](n, k) ** EXPONENTS[exponent](n, k))
    return fn


def _numpy(base, exponent, dtype, n, k):
    """NumPy's dtype and shape at ``N = n, K = k`` (None where it raises), the dtype read
    by kantensor's rule for a Python float or complex beside an int or bool array."""
    seen = []

    def spy(v):
        seen.append(v)
        return v
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _program(base, exponent, dtype, spy)(np.zeros(n, np.float32),
                                                       np.zeros(k, np.float32))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    want = out.dtype
    if dtype != "float32" and type(seen[0]) is float:
        want = np.dtype(np.float32)
    if dtype != "float32" and type(seen[0]) is complex:
        want = np.dtype(np.complex64)
    return want, out.shape


@pytest.mark.parametrize("dtype", ["int32", "float32", "bool"])
@pytest.mark.parametrize(("base", "exponent"), PROGRAMS, ids=[f"{b}**{e}" for b, e in PROGRAMS])
def test_a_power_of_sizes_is_typed_as_numpy_computes_it(base, exponent, dtype):
    result = kt.eval_shape(_program(base, exponent, dtype, lambda v: v),
                           "float32[N]", "float32[K]")
    for n, k in itertools.product(range(5), repeat=2):
        sizes = {"N": n, "K": k}
        out = _numpy(base, exponent, dtype, n, k)
        holds = result.holds(sizes)
        if out is None:
            assert not holds, sizes
            continue
        case = next((c for c in result.cases if all(x.holds(sizes) for x in c.conditions)),
                    result)
        if out[0] != case.type.dtype:
            assert not holds, (sizes, out[0], case.type)
            continue
        assert holds, (sizes, out[0], result.assumptions)
        assert tuple(substitute(d, sizes) for d in case.type.shape) == out[1], sizes


def test_a_negative_number_to_half_a_size_assumes_it_even():
    """``(-2) ** (N * 0.5)`` is complex at odd ``N`` (NumPy: complex64), float32 was said
    at every ``N``: the contract names ``N % 2 == 0``."""
    result = kt.eval_shape(lambda x: x * (-2) ** (x.shape[0] * 0.5), "float32[N]")
    assert result.type == kt.TensorType("float32", (kt.Dim("N"),))
    assert [str(a) for a in result.assumptions] == ["N % 2 == 0"]
    assert [result.contract.holds(N=n) for n in range(4)] == [True, False, True, False]


def test_an_int_to_a_negative_size_is_a_float_in_its_own_case():
    """``2 ** (N - K)`` is an int at ``N >= K`` and a float below: one case each (an int
    power was assumed, refusing every ``N < K`` where NumPy runs)."""
    result = kt.eval_shape(lambda x, y: x.astype(np.int32) * 2 ** (x.shape[0] - y.shape[0]),
                           "float32[N]", "float32[K]")
    assert {str(c.conditions[0]): c.type.dtype for c in result.cases} == {
        "N - K >= 0": "int32", "N - K < 0": "float32"}
    assert result.holds({"N": 0, "K": 3})


def test_a_float_of_sizes_it_cannot_read_to_a_negative_power_is_refused_by_name():
    with pytest.raises(TypeError, match=r"math\.sqrt|complex"):
        kt.eval_shape(lambda x: x * (-2) ** math.sqrt(x.shape[0]), "float32[N]")
