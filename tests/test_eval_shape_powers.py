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
eval_shape assumes ``N % 2 == 0``). NumPy's dtype is NumPy's own: eval_shape follows NEP 50,
so a Python float (complex) beside an int or bool array is float64 (complex128)."""

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
    """NumPy's dtype and shape at ``N = n, K = k`` (None where it raises)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _program(base, exponent, dtype, lambda v: v)(np.zeros(n, np.float32),
                                                               np.zeros(k, np.float32))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return out.dtype, out.shape


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
        "N - K >= 0": "int32", "N - K < 0": "float64"}  # (NumPy's: a Python float is weak)
    assert result.holds({"N": 0, "K": 3})


def test_a_float_of_sizes_it_cannot_read_to_a_negative_power_is_refused_by_name():
    with pytest.raises(TypeError, match=r"math\.sqrt|complex"):
        kt.eval_shape(lambda x: x * (-2) ** math.sqrt(x.shape[0]), "float32[N]")


#: Integer arrays to a Python int of sizes (N: the array's length, K: another's).
ARRAY_POWERS = {
    "x ** (N - 3)": lambda x, y: x ** (len(x) - 3),
    "np.power(x, N - 3)": lambda x, y: np.power(x, len(x) - 3),
    "x ** (K - N)": lambda x, y: x ** (len(y) - len(x)),
    "x ** (2 * K - N - 1)": lambda x, y: x ** (2 * len(y) - len(x) - 1),
    "x[:1] ** (K - 2)": lambda x, y: x[:1] ** (len(y) - 2),
    "x ** -N": lambda x, y: x ** -len(x),
    "x ** (N * K)": lambda x, y: x ** (len(x) * len(y)),
}
ARRAY_DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float32"]
ARRAY_CASES = list(itertools.product(ARRAY_DTYPES, ARRAY_POWERS))


@pytest.mark.parametrize(("dtype", "power"), ARRAY_CASES,
                         ids=[f"{d} {p}" for d, p in ARRAY_CASES])
def test_an_integer_array_to_a_negative_size_power_is_not_assumed_valid(dtype, power):
    """NumPy raises ValueError ("Integers to negative integer powers are not allowed")
    for an integer or bool array to a negative Python int, unless the result is empty;
    eval_shape's contract held there (``C <= 2147483650`` for int32, nothing for int64).
    Judged by NumPy at every N, K in 0..6: the result holds exactly where NumPy runs."""
    fn = ARRAY_POWERS[power]
    if dtype == "bool" and "**" in power and power != "x ** -N":  # NumPy's bool ** 2 is
        # np.square's int8, other powers int64 (np.power's always int64); -N is never 2:
        with pytest.raises(TypeError, match="the size's value decides the dtype"):
            kt.eval_shape(fn, f"{dtype}[N]", "float32[K]")  # refused, not guessed
        return
    result = kt.eval_shape(fn, f"{dtype}[N]", "float32[K]")
    for n, k in itertools.product(range(7), repeat=2):
        sizes = {"N": n, "K": k}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = fn(np.ones(n, dtype), np.zeros(k, np.float32))
        except (ValueError, OverflowError):
            out = None
        assert result.holds(sizes) == (out is not None), (sizes, result.assumptions)
        if out is not None:
            assert out.dtype == result.type.dtype
            assert tuple(substitute(d, sizes) for d in result.type.shape) == out.shape


GIVEN_EXPONENTS = {"-1": -1, "-3": -3, "np.int64(-1)": np.int64(-1),
                   "np.array(-2)": np.array(-2), "np.array([1, -1])": np.array([1, -1]),
                   "2": 2, "np.array([0, 3])": np.array([0, 3]), "-1.0": -1.0}
GIVEN_CASES = list(itertools.product(["bool", "int8", "int32", "int64", "float32"],
                                     GIVEN_EXPONENTS))


@pytest.mark.parametrize(("dtype", "exponent"), GIVEN_CASES,
                         ids=[f"{d} ** {e}" for d, e in GIVEN_CASES])
def test_an_integer_array_to_a_given_negative_int_is_refused_as_numpy_raises(dtype, exponent):
    """``x ** -1`` of an int array (or ``np.power(x, np.array([1, -1]))``) raised in NumPy
    (ValueError) and eval_shape typed it; where NumPy runs at sizes 1 and 2, eval_shape
    gives a type of NumPy's shape that holds there."""
    e = GIVEN_EXPONENTS[exponent]
    runs = []
    for n in (1, 2):
        try:
            runs.append(np.power(np.ones(n, dtype), e).shape)
        except ValueError:
            runs.append(None)
    if None in runs:
        with pytest.raises(TypeError, match="negative integer power"):
            kt.eval_shape(lambda x: x ** e, f"{dtype}[2]")
        return
    result = kt.eval_shape(lambda x: x ** e, f"{dtype}[N]")
    for n, shape in zip((1, 2), runs, strict=True):
        assert result.holds({"N": n})
        assert tuple(substitute(d, {"N": n}) for d in result.type.shape) == shape
