"""The nine workloads of ``benchmarks/dask_bench.py``: each a kantensor graph compiled
with ``backend="dask"`` and its dask.array counterpart, on the same generated inputs.

* ``ten_ops``: matmul, tanh, mul, neg, exp, add, sum, max, abs, mean over a tall array;
* ``einsum``, ``tensordot``, ``dot``: ``X.T @ Y`` over the rows (contracted, chunked);
* ``std``: a square array standardised along its columns (mean, std), summed by rows;
* ``diff_trace``: ``diff`` along the rows (overlapping chunks) and ``trace``;
* ``reshape``: ``reshape(concatenate([x[::2], x[1::2]], 1), (-1, C))``, which Dask
  refuses in one pass: kantensor with ``allow_rechunk=True``, dask.array as its error
  message suggests (two passes);
* ``mask``: rows kept by a mask, then flattened (which needs their sizes): kantensor
  with ``compute_chunk_sizes=True``, dask.array with ``compute_chunk_sizes()``;
* ``xarray``: a dask-backed DataArray standardised along time (xarray's own methods).

The one home of the workloads (:data:`WORKLOADS`), their inputs (:func:`inputs`) and
both variants' lazy outputs (:func:`build`): the benchmark and
``tests/test_dask_cluster.py`` read them here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


def ten_ops(x, w):
    """Ten Ops: the same code for kantensor tensors and Dask arrays."""
    h = np.tanh(x @ w)
    z = np.exp(-(h * h)) + h
    return np.sum(z, axis=0), np.max(x, axis=0), np.mean(np.abs(x), axis=0)


def standardised(x):
    return np.sum((x - np.mean(x, axis=0)) / np.std(x, axis=0), axis=1)


@dataclass(frozen=True)
class Workload:
    """Inputs (shapes at scale 1, row chunks), the kantensor graph and the dask.array code."""

    name: str
    shapes: tuple[tuple[int, ...], ...]
    chunks: tuple[tuple[int, ...], ...]
    kantensor: Callable  # (kt, *tensor inputs) -> outputs, options for kt.function
    dask_array: Callable  # (da, *dask inputs) -> outputs

    def sized(self, scale: float) -> tuple[tuple[int, ...], ...]:
        """The shapes at ``scale``: the rows of every input that has chunks of rows
        (a small weight matrix stays as it is)."""
        return tuple((max(int(s[0] * scale), 2 * c[0]),) + s[1:] if c[0] < s[0] else s
                     for s, c in zip(self.shapes, self.chunks, strict=True))


def _xt_y(how):
    def build(kt, x, y):
        if how == "einsum":
            return [kt.einsum("ij,ik->jk", x, y)], {}
        if how == "tensordot":
            return [kt.tensordot(x, y, axes=([0], [0]))], {}
        return [kt.dot(kt.matrix_transpose(x), y)], {}

    def theirs(da, x, y):
        if how == "einsum":
            return [da.einsum("ij,ik->jk", x, y)]
        if how == "tensordot":
            return [da.tensordot(x, y, axes=([0], [0]))]
        return [da.dot(x.T, y)]
    return build, theirs


def _reshape_kt(kt, x):
    y = kt.reshape(kt.concatenate([x[::2], x[1::2]], axis=1), (-1, 50))
    return [kt.sum(y * y, axis=0)], {"allow_rechunk": True}


def _reshape_da(da, x):
    y = da.concatenate([x[::2], x[1::2]], axis=1)
    y = y.reshape((y.shape[0], 2, 50)).reshape((-1, 50))  # Dask's two passes
    return [(y * y).sum(axis=0)]


def _mask_kt(kt, x):
    kept = x[x[:, 0] > 0]
    return [kt.sum(kt.reshape(kept, (-1,)) ** 2)], {"compute_chunk_sizes": True}


def _mask_da(da, x):
    kept = x[x[:, 0] > 0]
    kept.compute_chunk_sizes()
    return [(kept.reshape((-1,)) ** 2).sum()]


_E, _ET = _xt_y("einsum")
_T, _TT = _xt_y("tensordot")
_D, _DT = _xt_y("dot")

WORKLOADS = {w.name: w for w in [
    Workload("ten_ops", ((4_000_000, 64), (64, 16)), ((32768, 64), (64, 16)),
             lambda kt, x, w: (list(ten_ops(x, w)), {}),
             lambda da, x, w: list(ten_ops(x, w))),
    Workload("einsum", ((2_000_000, 64), (2_000_000, 32)), ((32768, 64), (32768, 32)), _E, _ET),
    Workload("tensordot", ((2_000_000, 64), (2_000_000, 32)), ((32768, 64), (32768, 32)),
             _T, _TT),
    Workload("dot", ((2_000_000, 64), (2_000_000, 32)), ((32768, 64), (32768, 32)), _D, _DT),
    Workload("std", ((20_000, 20_000),), ((2_000, 2_000),),
             lambda kt, x: ([standardised(x)], {}), lambda da, x: [standardised(x)]),
    Workload("diff_trace", ((20_000, 20_000),), ((2_000, 2_000),),
             lambda kt, x: ([kt.sum(kt.diff(x, axis=0), axis=1), kt.trace(x)], {}),
             lambda da, x: [da.diff(x, axis=0).sum(axis=1), da.trace(x)]),
    Workload("reshape", ((6_000_000, 50),), ((100_000, 50),), _reshape_kt, _reshape_da),
    Workload("mask", ((6_000_000, 50),), ((100_000, 50),), _mask_kt, _mask_da),
    Workload("xarray", ((10_000, 20_000),), ((1_000, 20_000),), None, None),
]}


def inputs(workload: Workload, scale: float) -> list:
    """The workload's inputs at ``scale``: standard normal values (generator seeded 0, so
    both variants read the same blocks: the same tasks, the same keys), chunked by
    rows."""
    import dask.array as da

    rng = da.random.default_rng(0)
    shapes = workload.sized(scale)
    chunks = [(min(c[0], s[0]),) + tuple(min(a, b) for a, b in zip(c[1:], s[1:], strict=True))
              for s, c in zip(shapes, workload.chunks, strict=True)]
    return [rng.standard_normal(s, chunks=c) for s, c in zip(shapes, chunks, strict=True)]


def build(workload: Workload, variant: str, scale: float) -> list:
    """The lazy outputs of one variant of a workload (nothing computed but what the
    variant itself asks for while building: dask.array's compute_chunk_sizes)."""
    import dask.array as da
    import xarray as xr

    import kantensor as kt

    arrays = inputs(workload, scale)
    if workload.name == "xarray":
        arr = xr.DataArray(arrays[0], dims=("time", "lat"))
        if variant == "dask.array":
            return [((arr - arr.mean("time")) / arr.std("time")).sum("lat").data]
        x = kt.TensorType.parse("float64[time,lat]")("x")
        f = kt.function([x], standardised(x), backend="dask")
        return [f(arr).data]
    if variant == "dask.array":
        return workload.dask_array(da, *arrays)
    tensors = [kt.TensorType("float64", (None,) * len(s))(f"x{i}")
               for i, s in enumerate(workload.shapes)]
    outs, options = workload.kantensor(kt, *tensors)
    return kt.function(tensors, outs, backend="dask", **options)(*arrays)
