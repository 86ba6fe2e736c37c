"""NumPy's functions and ndarray methods called with their arguments in NumPy's order
(``np.sum(x, 0, np.int8)``, ``x.std(0, None, None, 1)``, ``np.sort(x, 0, None)``) mean
what they mean in NumPy (:mod:`kantensor.types.numpyargs`), judged by NumPy itself: at
sizes that all differ, ``eval_shape`` on symbolic sizes gives NumPy's shape and dtype
where NumPy runs, and refuses where NumPy raises (NumPy's own positional quirks too:
``ndarray.all`` takes ``axis, dtype, out, keepdims``, whatever its shown signature says).
"""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

#: Calls of ``x`` (float64 or int32 ``[n, m]``) in NumPy's convention; each runs in NumPy.
CALLS = [
    "np.sum(x, 0, np.int8)", "np.sum(x, 0, None)", "np.sum(x, 0, None, None, True)",
    "np.prod(x, None, np.int16, None, True)", "np.mean(x, 1, np.float32)",
    "np.mean(x, 1, None, None, True)", "np.var(x, 0, None, None, 1)",
    "np.std(x, 0, None, None, 1, True)", "np.max(x, 0, None, True)",
    "np.amin(x, 1, None, True)", "np.min(x, None, None, False, 5)",
    "np.all(x, 0, None, True)", "np.argmax(x, 1, None)", "np.cumsum(x, 1, None, None)",
    "np.quantile(x, 0.5, 1, None, False, 'linear', True)",
    "np.median(x, 1, None, False, True)", "np.round(x, 1, None)", "np.sort(x, 0, None)",
    "np.argsort(x, 1, None)", "np.reshape(x, (-1,), 'C')", "np.dot(x, x.T, None)",
    "np.concatenate([x, x], 1, None)", "np.stack([x, x], 1, None)", "np.ravel(x, 'C')",
    "np.copy(x, 'K')", "np.broadcast_to(x, (2,) + x.shape, False)",
    "np.zeros_like(x, np.int8, 'K', True, None)", "np.full_like(x, 2, None, 'K')",
    "np.compress([True, False], x, 0, None)", "np.take(x, [0, 1], 1, None, 'raise')",
    "x.sum(0, np.int8)", "x.sum(0, None, None, True)", "x.mean(1, np.float32)",
    "x.std(0, None, None, 1)", "x.var(None, None, None, 0, True)", "x.max(0, None, True)",
    "x.min(1, None, True, 7)", "x.prod(1, np.int16, None, True)",
    "x.all(0, None, None, True)", "x.any(1, None, None, True)", "x.argmax(0, None)",
    "x.cumsum(0, np.int8)", "x.cumprod(1, None, None)", "x.round(1, None)",
    "x.astype(np.int8, 'K')", "x.flatten('C')", "x.ravel('C')",
    "x.reshape(-1, order='C')", "x.reshape(x.shape[1], -1, order='C')",
    # parameters that change no value, at any value (numpyargs.INERT)
    "np.empty_like(x, np.int32, 'C')", "np.zeros_like(x, order='F')", "np.copy(x, 'F')",
    "np.full_like(x, 2, None, 'F', False)", "x.astype(np.float32, 'F', 'unsafe', True, False)",
    "np.median(x, 0, None, True)", "np.quantile(x, 0.3, 1, None, True)",
    "np.sort(x, 1, 'stable')", "np.sort(x, stable=True)",
]

#: Calls NumPy refuses (NumPy's order gives a value to a parameter that cannot take it).
REFUSED = ["x.all(0, None, True)", "x.any(0, None, True)", "np.sum(x, 0, None, True)"]

SIZES = [{"n": 2, "m": 3}, {"n": 3, "m": 5}]


def _numpy(source: str, dtype: str, sizes: dict[str, int]) -> tuple[tuple, str]:
    x = np.arange(sizes["n"] * sizes["m"]).reshape(sizes["n"], sizes["m"]).astype(dtype)
    out = eval(source, {"np": np, "x": x})
    return np.shape(out), np.asarray(out).dtype.name


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize("source", CALLS)
def test_numpy_order_means_what_numpy_says(source, dtype):
    fn = eval(f"lambda x: {source}", {"np": np})
    r = kt.eval_shape(fn, f"{dtype}[n,m]")
    for sizes in SIZES:
        shape, want = _numpy(source, dtype, sizes)
        assert r.holds(sizes), (source, sizes)
        got = tuple(substitute(d, sizes) if isinstance(d, kt.Dim) else d
                    for d in r.type.shape)
        assert (got, r.type.dtype) == (shape, want), (source, sizes)


@pytest.mark.parametrize("source", REFUSED)
def test_what_numpy_refuses_in_its_order_is_refused(source):
    for sizes in SIZES:
        with pytest.raises((TypeError, ValueError)):
            _numpy(source, "float64", sizes)
    with pytest.raises(TypeError):
        kt.eval_shape(eval(f"lambda x: {source}", {"np": np}), "float64[n,m]")


@pytest.mark.parametrize("source, named", [
    ("np.argsort(x, 0, 'stable')", "kind='stable'"), ("x.argsort(0, 'stable')", "kind='stable'"),
    ("np.trace(x, 0, 0, 1, np.int8)", "dtype="), ("x.reshape(-1, order='F')", "order='F'")])
def test_a_numpy_parameter_the_op_lacks_is_refused_by_its_name(source, named):
    _numpy(source, "float64", SIZES[0])  # NumPy runs it
    with pytest.raises(TypeError, match="is not supported on symbolic tensors") as info:
        kt.eval_shape(eval(f"lambda x: {source}", {"np": np}), "float64[n,m]")
    assert named in str(info.value)
