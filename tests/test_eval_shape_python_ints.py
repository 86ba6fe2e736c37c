"""``math.floor``, ``math.ceil``, ``math.trunc`` and ``round`` of a traced NumPy scalar:
the Python int NumPy code gets, judged by Python and NumPy on the values.

eval_shape types it as a wrapped int64 (weak under NEP 50); the graph computes it as
Python does, raises where Python raises (nan, an infinity) or where the int does not fit
int64; beside an array of a narrower integer dtype it is refused (only the data decide
whether NumPy raises OverflowError there), and a comparison compares the exact int.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.ops.pyints import PythonIntError

#: Each rounding as NumPy code spells it (eval_shape traces ``round`` by its name).
ROUNDINGS = {"floor": lambda v: math.floor(v), "ceil": lambda v: math.ceil(v),
             "trunc": lambda v: math.trunc(v), "round": lambda v: round(v)}
VALUES = [-2.5, -1.5, -0.5, -0.25, 0.0, 0.5, 1.5, 2.5, 3.49, 7.99, -7.99, 1e15 + 0.5,
          -(2.0 ** 62)]


def _compiled(fn, spec: str):
    r = kt.eval_shape(fn, spec)
    return r, kt.function(list(r.inputs), list(r.outputs))


@pytest.mark.parametrize("name", sorted(ROUNDINGS))
def test_the_values_are_pythons(name: str) -> None:
    """Of a float64 scalar (the one ``math.trunc`` takes), each value as Python gives it:
    floor, ceil, toward zero, half to even."""
    rounding = ROUNDINGS[name]
    r, f = _compiled(lambda x: rounding(x[0]), "float64[n]")
    assert r.type == kt.TensorType("int64", ()) and r.outputs[0].wrapped
    for v in VALUES:
        assert int(f(np.array([v]))[0]) == rounding(np.float64(v)), v


@pytest.mark.parametrize(("value", "error"), [(float("nan"), ValueError),
                                               (float("inf"), OverflowError),
                                               (-float("inf"), OverflowError),
                                               (1e300, OverflowError), (2.0 ** 63, OverflowError)])
def test_where_python_raises_or_int64_cannot_hold_it_raises(value: float, error: type) -> None:
    _, f = _compiled(lambda x: math.floor(x.sum()), "float64[n]")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error):
            f(np.array([value]))
    if value == value and abs(value) != float("inf"):  # Python's int: one int64 cannot hold
        assert math.floor(value) > np.iinfo(np.int64).max


def test_beside_a_narrower_integer_array_it_is_refused() -> None:
    """``x_int8 * math.floor(s)``: NumPy raises OverflowError where the int does not fit
    int8, which only the data decide; beside int64 (or a float) it is NumPy's dtype."""
    x = np.array([100, 100, 100], np.int8)
    with pytest.raises(OverflowError):
        _ = x * math.floor(x.astype(np.float64).sum())  # the oracle: NumPy raises here
    with pytest.raises(PythonIntError, match="Python int of the data"):
        kt.eval_shape(lambda x: x * math.floor(x.astype(np.float64).sum()), "int8[n]")
    for spec, fn in [("int64[n]", lambda x: x * math.floor(x.sum())),
                     ("float32[n]", lambda x: x * math.ceil(x.sum())),
                     ("float16[n]", lambda x: x + round(x[0]))]:
        v = np.arange(1, 4).astype(spec.split("[")[0])
        assert kt.eval_shape(fn, spec).type.dtype == np.asarray(fn(v)).dtype.name


def test_a_comparison_compares_the_exact_int() -> None:
    """``x_int8 > math.floor(s)`` with ``s`` 300: NumPy compares the exact int (all False);
    cast to int8 it would be 44 (all True)."""
    fn = lambda x: x > math.floor(x.astype(np.float64).sum())  # noqa: E731
    x = np.array([100, 100, 100], np.int8)
    _, f = _compiled(fn, "int8[n]")
    assert (f(x)[0] == fn(x)).all() and not fn(x).any()


@pytest.mark.parametrize(("fn", "spec"), [
    (lambda x: math.trunc(x.sum()), "float32[n]"),  # np.float32 has no __trunc__
    (lambda x: round(x.sum()), "complex64[n]"),
    (lambda x: round(x[0]), "bool[n]"),
    (lambda x: math.floor(x), "float64[n]"),  # only 0-d arrays convert
])
def test_where_numpy_raises_it_is_refused(fn, spec: str) -> None:
    v = np.arange(1, 4).astype(spec.split("[")[0])
    with pytest.raises(TypeError):
        fn(v)
    with pytest.raises(TypeError):
        kt.eval_shape(fn, spec)
