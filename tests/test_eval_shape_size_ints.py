"""A size used as a Python int by an Op that computes in a narrow integer dtype must fit
it: NumPy 2 raises OverflowError for ``x_int8 * len(x)`` at ``len(x) == 200`` (NEP 50),
where kantensor's graph wrapped it and eval_shape said every size valid. Judged by NumPy
at sizes across each dtype's bounds: the result holds exactly where NumPy runs, with its
dtype and shape."""

from __future__ import annotations

import itertools
import operator
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint64", "int64"]
OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv}
SIZES = {"N": lambda n, k: n, "N-K": lambda n, k: n - k, "N*K": lambda n, k: n * k}
NS = (0, 1, 127, 128, 255, 256, 300)
KS = (0, 1, 3, 200)
PROGRAMS = list(itertools.product(DTYPES, OPS, SIZES))


@pytest.mark.parametrize(("dtype", "op", "size"), PROGRAMS,
                         ids=[f"{d} {o} {s}" for d, o, s in PROGRAMS])
def test_a_size_as_a_python_int_fits_the_dtype_or_is_assumed_to(dtype, op, size):
    def fn(x, y):
        return OPS[op](x.astype(dtype), SIZES[size](x.shape[0], y.shape[0]))
    result = kt.eval_shape(fn, "float32[N]", "float32[K]")
    for n, k in itertools.product(NS, KS):
        sizes = {"N": n, "K": k}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = fn(np.zeros(n, np.float32), np.zeros(k, np.float32))
        except OverflowError:
            out = None
        assert result.holds(sizes) == (out is not None), (sizes, result.assumptions)
        if out is not None:
            assert out.dtype == result.type.dtype
            assert tuple(substitute(d, sizes) for d in result.type.shape) == out.shape


POWERS = {"2 ** K": lambda n, k: 2 ** k, "N ** K": lambda n, k: n ** k,
          "(-3) ** K": lambda n, k: (-3) ** k}


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "float32"])
@pytest.mark.parametrize("power", POWERS)
def test_a_power_of_sizes_never_wraps(power, dtype):
    """Python's ``2 ** K`` is exact; the graph computes it in int64, which wraps (``2 **
    64`` was 0: ``x * 2 ** len(y)`` ran to zeros at 64 where NumPy gives 1.8e19), and
    beside an int8 array NumPy refuses it past 127. Where eval_shape's result holds,
    NumPy runs and kt.function computes NumPy's values; where NumPy refuses, it does not
    hold (a power past int64's top is assumed away: the graph cannot compute it)."""
    def fn(x, y):
        return x.astype(dtype) * POWERS[power](x.shape[0], y.shape[0])
    result = kt.eval_shape(fn, "float32[N]", "float32[K]")
    for n, k in itertools.product((0, 1, 2, 3, 5), (0, 1, 3, 7, 31, 40, 62, 63, 64)):
        sizes = {"N": n, "K": k}
        x, y = np.ones(n, np.float32), np.zeros(k, np.float32)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = fn(x, y)
        except OverflowError:
            assert not result.holds(sizes), sizes
            continue
        if not result.holds(sizes):
            continue  # (an inner approximation of the fit: never where the graph wraps)
        case = next((c for c in result.cases if all(x.holds(sizes) for x in c.conditions)),
                    result)
        got = kt.function(list(case.inputs), list(case.outputs))(x, y)
        got = got[0] if isinstance(got, list) else got
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64))


#: Python ints computed from a power or a product of sizes (A: x's length, C: y's
#: second axis) with ints by + - * // %.
COMPOUND = {
    "3 * A ** C // 3": lambda a, c: 3 * a ** c // 3,
    "A ** C + 100": lambda a, c: a ** c + 100,
    "100 - A ** C": lambda a, c: 100 - a ** c,
    "2 * A ** C": lambda a, c: 2 * a ** c,
    "A ** C % 7": lambda a, c: a ** c % 7,
    "A ** C // (A + 1)": lambda a, c: a ** c // (a + 1),
    "2 ** C * A": lambda a, c: 2 ** c * a,
    "3 ** C // 2 + A": lambda a, c: 3 ** c // 2 + a,
    "2 ** C % (A + 1)": lambda a, c: 2 ** c % (a + 1),
    "2 ** C + 2 ** A": lambda a, c: 2 ** c + 2 ** a,
    "A * C * 3 // 3": lambda a, c: a * c * 3 // 3,
    "(A - C) ** 2 * 5 % 11": lambda a, c: (a - c) ** 2 * 5 % 11,
}
COMPOUND_CASES = list(itertools.product(["int8", "uint8", "int16", "int64"], COMPOUND,
                                        ["*", "+", "-"]))


@pytest.mark.parametrize(("dtype", "number", "op"), COMPOUND_CASES,
                         ids=[f"{d} x {o} ({n})" for d, n, o in COMPOUND_CASES])
def test_an_int_computed_from_a_power_of_sizes_fits_the_dtype_or_is_assumed_to(
        dtype, number, op):
    """``x_int8 * (3 * len(x) ** y.shape[1] // 3)`` held at A == 3, C == 5, where NumPy 2
    raises OverflowError (Python integer 243 out of bounds for int8): the fit was checked
    of a size or a power taken directly, not of an int computed from one. Judged by NumPy
    at A, C in 0..6: where the result holds NumPy runs, with its dtype and shape (an inner
    approximation: it may not hold at some sizes where NumPy runs, never the other way),
    and it holds at A == 1, C == 0."""
    def fn(x, y):
        return OPS[op](x, COMPOUND[number](len(x), y.shape[1]))
    result = kt.eval_shape(fn, f"{dtype}[A]", "int32[B,C]")
    assert result.holds({"A": 1, "B": 1, "C": 0})
    for a, c in itertools.product(range(7), repeat=2):
        sizes = {"A": a, "B": 1, "C": c}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = fn(np.ones(a, dtype), np.zeros((1, c), np.int32))
        except OverflowError:
            assert not result.holds(sizes), (sizes, result.assumptions)
            continue
        if result.holds(sizes):
            assert out.dtype == result.type.dtype
            assert tuple(substitute(d, sizes) for d in result.type.shape) == out.shape


def test_an_int_of_sizes_that_never_fits_is_refused_by_name():
    """``x_uint8 * -(len(x) ** C)`` fits uint8 only at 0 (and ``A ** C - 100`` where the
    power is at least 100), which the inner approximation does not read: refused, naming
    the dtype, where eval_shape said every size valid."""
    with pytest.raises(TypeError, match="computed in uint8"):
        kt.eval_shape(lambda x, y: x * -(len(x) ** y.shape[1]), "uint8[A]", "int32[B,C]")
