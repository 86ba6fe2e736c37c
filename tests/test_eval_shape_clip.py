"""``np.clip`` with a bound left out (``np.clip(x, 0, None)``, ``x.clip(min=0)``: a ReLU
in real code), judged by NumPy: eval_shape refused it (an object array of the None
bound), where NumPy computes ``maximum(x, lo)`` (``minimum(x, hi)``; a copy without
either). Types at sizes 0..3 and values through the NumPy backend must be NumPy's."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt

CALLS = ["np.clip(x, 0, None)", "np.clip(x, None, 1)", "x.clip(min=0)", "x.clip(max=1.5)",
         "x.clip(0)", "x.clip(0, 1)", "np.clip(x, None, None)", "np.clip(x, a_min=-1, a_max=2)",
         "np.clip(x, min=0)", "np.clip(x, y, None)", "np.clip(x, None, y.max())"]


@pytest.fixture
def numpy_floats():
    """Python floats as NumPy's float64 (kantensor's default float is float32: a
    documented difference, docs/numpy.rst)."""
    previous = kt.get_default_dtype()
    kt.set_default_dtype("float64")
    yield
    kt.set_default_dtype(previous)


@pytest.mark.parametrize("source", CALLS)
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_a_bound_left_out_is_numpy_s(source, dtype, numpy_floats):
    fn = eval("lambda x, y: " + source, {"np": np})
    r = kt.eval_shape(fn, f"{dtype}[A,B]", f"{dtype}[B]")
    rng = np.random.default_rng(0)
    for a, b in [(0, 3), (2, 3), (3, 1)]:  # (y.max() of no element raises)
        x = (rng.standard_normal((a, b)) * 3).astype(dtype)
        y = (rng.standard_normal(b) * 3).astype(dtype)
        want = fn(x, y)
        assert r.holds({"A": a, "B": b})
        assert r.type.dtype == str(want.dtype)
        x_ = kt.tensor("x", dtype, (None, None))
        y_ = kt.tensor("y", dtype, (None,))
        f = kt.function([x_, y_], fn(x_, y_))
        np.testing.assert_array_equal(f(x, y), want)
