"""xarray DataArrays in and out of a Dask Function, never loaded; kt.eval_shape giving the
template of ``xarray.map_blocks``."""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
import xarray as xr

import kantensor as kt
from kantensor.backend.dask import xarray_template, xarray_type

LOADS: list = []


def _watched(block):
    LOADS.append(block.shape)
    return block


def watched(shape, chunks):
    """A Dask array whose blocks record when they are computed."""
    base = da.random.default_rng(0).random(shape, chunks=chunks)
    return base.map_blocks(_watched, dtype=base.dtype)


def standardise(x):
    return (x - np.mean(x, axis=0, keepdims=True)) / np.std(x, axis=0, keepdims=True)


def test_a_dask_backed_dataarray_gives_dataarrays_with_its_dims_unloaded():
    x = kt.TensorType.parse("float64[time,lat]")("x")
    f = kt.function([x], [standardise(x), kt.sum(x, axis=1)], backend="dask")
    time = np.arange(200)
    arr = xr.DataArray(watched((200, 30), (50, 30)), dims=("time", "lat"),
                       coords={"time": time, "lat": np.linspace(-1, 1, 30)})
    LOADS.clear()
    z, s = f(arr)
    assert LOADS == []  # nothing loaded on the client
    assert isinstance(z, xr.DataArray) and z.dims == ("time", "lat")
    assert s.dims == ("time",) and s.chunks == ((50,) * 4,)
    np.testing.assert_array_equal(s.coords["time"].values, time)
    assert z.coords["lat"].shape == (30,)
    values = arr.values
    np.testing.assert_allclose(z.values, standardise(values))
    np.testing.assert_allclose(s.values, values.sum(axis=1))


def test_dims_are_matched_by_name_and_checked():
    x = kt.TensorType.parse("float32[time,lat]")("x")
    f = kt.function([x], x * 2, backend="dask")
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    flipped = xr.DataArray(values.T, dims=("lat", "time"))  # NumPy-backed, other order
    out = f(flipped, chunks=2)
    assert out.dims == ("time", "lat") and isinstance(out.data, da.Array)
    np.testing.assert_array_equal(out.values, values * 2)
    with pytest.raises(TypeError, match="no 'time' that its type"):
        f(xr.DataArray(values, dims=("t", "lat")))
    y = kt.matrix("y", "float32")  # unnamed sizes: dims by position, outputs named apart
    g = kt.function([y], kt.sum(y, axis=0), backend="dask")
    got = g(xr.DataArray(values, dims=("a", "b")), chunks=2)
    assert got.dims == ("output0_dim0",)
    np.testing.assert_array_equal(got.values, values.sum(axis=0))


def test_eval_shape_gives_the_template_of_map_blocks():
    arr = xr.DataArray(da.random.default_rng(1).random((120, 8), chunks=(40, 8)),
                       dims=("time", "lat"), coords={"time": np.arange(120)})
    result = kt.eval_shape(standardise, xarray_type(arr))
    assert str(result.type) == "float64[time,lat]"
    template = xarray_template(result, arr)
    assert template.dims == ("time", "lat") and template.chunks == ((40,) * 3, (8,))
    out = xr.map_blocks(lambda b: (b - b.mean("time")) / b.std("time"),
                        arr.chunk({"time": -1}), template=template.chunk({"time": -1}))
    np.testing.assert_allclose(out.values, standardise(arr.values))
    doubled = kt.eval_shape(lambda x: np.concatenate([x, x]), xarray_type(arr))
    assert xarray_template(doubled, arr).shape == (240, 8)
    with pytest.raises(TypeError, match="takes an xarray.DataArray"):
        xarray_type(np.zeros(3))
