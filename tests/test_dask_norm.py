"""The Dask backend's norm against NumPy's where Dask's own norm differs: no ``ord`` and
no ``axis`` over three or more axes is NumPy's flat 2-norm (``dask.array.linalg.norm``
refuses it: "Improper number of dimensions to norm")."""

import dask.array as da
import numpy as np
import pytest

import kantensor as kt


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int16", "bool"])
@pytest.mark.parametrize("shape", [(2, 3, 2), (0, 2, 3), (1, 2, 1, 3)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_norm_without_ord_or_axis_over_many_axes_is_numpys_flat_norm(dtype, shape, keepdims):
    rng = np.random.default_rng(7)
    data = (rng.standard_normal(shape) * 3).astype(dtype)
    if dtype.startswith("complex"):
        data = data + 1j * data[::-1].astype(dtype)
    x = kt.tensor("x", dtype, [None] * len(shape))
    out = kt.norm(x, keepdims=keepdims)
    f = kt.function([x], [out], backend="dask")
    (y,) = f(da.from_array(data, chunks=1))
    expected = np.linalg.norm(data, keepdims=keepdims)
    got = y.compute()
    assert got.shape == expected.shape
    assert got.dtype == np.dtype(out.type.dtype) == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5)
