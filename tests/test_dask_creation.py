"""Creation Ops whose sizes are Dims bound from the inputs' shapes (``zeros((n,))``,
``arange(n)``, ``eye(n)``) lowered to Dask's own functions, in Dask's automatic chunks
(issue 37 point 1): lowered as the Op's blockwise, each was one task holding the whole
array (``eye(n)`` at n = 20,000: 2.98 GiB in one task) while the plan said Dask's
automatic chunks. Values judged by NumPy's functions; the chunks by dask.array's own
functions of the same sizes.
"""

from __future__ import annotations

import dask
import dask.array as da
import numpy as np
import pytest

import kantensor as kt

N, M = 23, 7

#: name -> (kantensor's graph of x: float64[n] and y: float64[m], NumPy's of n and m,
#: dask.array's array of n and m whose chunks the lowering has)
CASES = {
    "zeros": (lambda n, m: kt.zeros((n, m), dtype="int16"),
              lambda n, m: np.zeros((n, m), np.int16),
              lambda n, m: da.zeros((n, m), dtype=np.int16, chunks="auto")),
    "ones": (lambda n, m: kt.ones((n,)), lambda n, m: np.ones(n),
             lambda n, m: da.ones(n, chunks="auto")),
    "full": (lambda n, m: kt.full((m, n), 2.5, dtype="float32"),
             lambda n, m: np.full((m, n), 2.5, np.float32),
             lambda n, m: da.full((m, n), 2.5, dtype=np.float32, chunks="auto")),
    "arange": (lambda n, m: kt.arange(n), lambda n, m: np.arange(n),
               lambda n, m: da.arange(n, chunks="auto")),
    "arange_bounds": (lambda n, m: kt.arange(m, n, 3), lambda n, m: np.arange(m, n, 3),
                      lambda n, m: da.arange(m, n, 3, chunks="auto")),
    "arange_down": (lambda n, m: kt.arange(n, m, -2), lambda n, m: np.arange(n, m, -2),
                    lambda n, m: da.arange(n, m, -2, chunks="auto")),
    "arange_size_step": (lambda n, m: kt.arange(2, n, m), lambda n, m: np.arange(2, n, m),
                         lambda n, m: da.arange(2, n, m, chunks="auto")),
    "arange_wraps": (lambda n, m: kt.arange(120, n + 120, dtype="int8"),
                     lambda n, m: np.arange(120, n + 120, dtype=np.int8),
                     lambda n, m: da.arange(120, n + 120, chunks="auto")),
    "arange_uint64": (lambda n, m: kt.arange(n, dtype="uint64"),
                      lambda n, m: np.arange(n, dtype=np.uint64),
                      lambda n, m: da.arange(n, chunks="auto", dtype=np.uint64)),
    "eye": (lambda n, m: kt.eye(n), lambda n, m: np.eye(n),
            lambda n, m: da.eye(n, chunks="auto")),
    # (Dask's chunks="auto" misses blocks of a matrix that is not square: a side given)
    "eye_wide": (lambda n, m: kt.eye(m, n, k=2, dtype="int32"),
                 lambda n, m: np.eye(m, n, 2, dtype=np.int32),
                 lambda n, m: da.eye(n, chunks=n, M=m, k=-2, dtype=np.int32).T),
}


def _function(case):
    x = kt.TensorType.parse("float64[n]")("x")
    y = kt.TensorType.parse("float64[m]")("y")
    return kt.function([x, y], CASES[case][0](x.type.shape[0], y.type.shape[0]),
                       backend="dask")


@pytest.mark.parametrize("case", list(CASES))
def test_a_creation_of_bound_sizes_is_dasks_function_with_numpys_values(case):
    f = _function(case)
    got = f(np.zeros(N), np.zeros(M), chunks=5)
    want = CASES[case][1](N, M)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.chunks == CASES[case][2](N, M).chunks
    assert got.chunks == f.chunks(((5,) * 4 + (3,),), ((5, 2),))
    np.testing.assert_array_equal(got.compute(), want)
    assert "dask.array." in str(f.plan()).splitlines()[-1]


def test_eye_of_a_bound_size_is_not_one_task():
    f = _function("eye")
    n = 20_000
    memory = f.memory(((n // 10,) * 10,), ((M,),))
    assert memory.largest[1].held < 256 * 2**20  # one task of the whole: 2.98 GiB
    assert f(da.zeros(n, chunks=n // 10), np.zeros(M)).numblocks == \
        da.eye(n, chunks="auto").numblocks
    g = kt.function([kt.TensorType.parse("float64[n]")("x")], kt.eye(7, 5000, k=4000),
                    backend="dask")
    blocks = g(np.zeros(1))
    assert blocks.numblocks[1] > 1  # blocks of a side, each of them in the graph
    np.testing.assert_array_equal(blocks.compute(), np.eye(7, 5000, 4000))


def test_an_arange_of_floats_stays_one_block_as_the_plan_says():
    x = kt.TensorType.parse("float64[n]")("x")
    f = kt.function([x], kt.arange(x.type.shape[0], dtype="float32"), backend="dask")
    assert str(f.plan()).splitlines()[-1].endswith(
        "blockwise, chunks kept along v0 axis 0 (a size's length: one chunk)")
    got = f(np.zeros(N), chunks=5)
    assert got.numblocks == (1,)
    np.testing.assert_array_equal(got.compute(), np.arange(N, dtype=np.float32))


def test_eye_in_many_blocks_equals_numpys_at_every_shape_and_offset():
    """Dask's automatic chunks made small (1 KiB), so that every matrix is many blocks
    and the side of a block is cut by N, M or both: NumPy's eye at every N, M in 1..40
    (a step of 5) and every offset that puts the diagonal inside or next to it."""
    x = kt.TensorType.parse("float64[n]")("x")
    y = kt.TensorType.parse("float64[m]")("y")
    n, m = x.type.shape[0], y.type.shape[0]
    with dask.config.set({"array.chunk-size": "1KiB"}):
        for k in (-9, -1, 0, 2, 13):
            f = kt.function([x, y], kt.eye(n, m, k=k, dtype="int8"), backend="dask")
            for a in range(1, 41, 5):
                for b in range(1, 41, 5):
                    got = f(np.zeros(a), np.zeros(b), chunks=-1)
                    np.testing.assert_array_equal(got.compute(), np.eye(a, b, k, np.int8))


@pytest.mark.parametrize("kwargs, dtype, low, high", [
    ({}, np.float64, 0.0, 1.0),
    ({"distribution": "integers", "low": -3, "high": 5, "dtype": "int8"}, np.int8, -3, 4),
    ({"distribution": "normal", "low": 2.0, "high": 0.5, "dtype": "float32"}, np.float32,
     -np.inf, np.inf),
])
def test_random_without_a_seed_is_dasks_generator_in_blocks(kwargs, dtype, low, high):
    """random with no seed (any draws): Dask's generator block by block, where it was one
    task of the whole array; NumPy's dtype, the draws in the distribution's range, new
    ones at every call. With a seed, NumPy's one stream: one block, NumPy's values."""
    x = kt.TensorType.parse("float64[n]")("x")
    f = kt.function([x], kt.random((x.type.shape[0], 4), **kwargs), backend="dask")
    assert "dask.array.random" in str(f.plan()).splitlines()[-1]
    with dask.config.set({"array.chunk-size": "64KiB"}):
        a, b = f(np.zeros(20_000), chunks=-1), f(np.zeros(20_000), chunks=-1)
    assert a.numblocks[0] > 1 and a.dtype == dtype
    first, second = a.compute(), b.compute()
    assert first.dtype == dtype and first.shape == (20_000, 4)
    assert low <= first.min() and first.max() <= high
    assert (first != second).mean() > 0.5
    if "normal" in kwargs.values():
        assert abs(first.mean() - 2.0) < 0.05 and abs(first.std() - 0.5) < 0.05
    seeded = kt.random((x.type.shape[0], 4), seed=3, **kwargs)
    g = kt.function([x], seeded, backend="dask")
    np.testing.assert_array_equal(g(np.zeros(50), chunks=5).compute(),
                                  kt.function([x], seeded)(np.zeros(50)))
