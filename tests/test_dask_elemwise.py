"""Elementwise nodes lowered as dask.array lowers the same program (issue 37).

The oracle is dask.array's own graph for the same code on the same Dask arrays: where
every input is a Dask array of the dtype NumPy's loop takes and gives, kantensor's graph
has dask.array's keys (names and tokens), so ``dask.order`` orders both alike; the values
are dask.array's and NumPy's. Where the inputs differ from that (a constant, another
dtype, a promotion of kantensor's that is not NumPy's loop), the node is kantensor's
blockwise, and its values are the NumPy backend's.
"""

from __future__ import annotations

import dask.array as da
import dask.order
import numpy as np
import pytest
from dask.base import collections_to_expr

import kantensor as kt

RNG = np.random.default_rng(37)


def _standardised(x):
    return np.sum((x - np.mean(x, axis=0)) / np.std(x, axis=0), axis=1)


#: Programs written once for kantensor tensors and Dask arrays alike, by their inputs'
#: shapes, chunks and dtype.
PROGRAMS = {
    "standardised": (_standardised, [((60, 40), (25, 15))], "float64"),
    "broadcast_sub_div": (lambda x, m: (x - m) / m, [((30, 20), (7, 8)), ((20,), (8,))],
                          "float64"),
    "broadcast_size_one": (lambda x, y: x * y + x, [((12, 1), (5, 1)), ((1, 9), (1, 4))],
                           "float32"),
    "unary_and_ufuncs": (lambda x, y: np.tanh(-x) + np.abs(y) - np.exp(x), [((16, 6), (5, 3))] * 2,
                         "float64"),
    "integers": (lambda x, y: (x // y) % y - (x << y) ^ y, [((20,), (6,))] * 2, "int32"),
    "comparisons": (lambda x, y: (x < y) & (x >= -y), [((10, 10), (4, 3))] * 2, "float64"),
    "zero_d": (lambda x, s: x * s - s, [((11, 4), (3, 2)), ((), ())], "float64"),
}


def _values(shape, dtype):
    if np.dtype(dtype).kind == "i":
        return RNG.integers(1, 20, size=shape).astype(dtype)
    return RNG.normal(size=shape).astype(dtype)


def _both(name):
    program, specs, dtype = PROGRAMS[name]
    values = [_values(shape, dtype) for shape, _ in specs]
    arrays = [da.from_array(v, chunks=c) for v, (_, c) in zip(values, specs, strict=True)]
    tensors = [kt.TensorType(dtype, (None,) * len(shape))(f"x{i}")
               for i, (shape, _) in enumerate(specs)]
    f = kt.function(tensors, program(*tensors), backend="dask")
    return f(*arrays), program(*arrays), program(*values)


def _graph(y):
    return dict(collections_to_expr([y], optimize_graph=True).__dask_graph__())


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_elementwise_programs_are_dask_arrays_graph_key_for_key(name):
    ours, theirs, numpy = _both(name)
    assert ours.name == theirs.name
    assert dict(ours.__dask_graph__()).keys() == dict(theirs.__dask_graph__()).keys()
    graphs = [_graph(ours), _graph(theirs)]
    assert graphs[0].keys() == graphs[1].keys()
    assert dask.order.order(graphs[0]) == dask.order.order(graphs[1])
    got, want = ours.compute(), theirs.compute()
    assert got.dtype == want.dtype == np.asarray(numpy).dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, numpy, rtol=1e-12)


#: Nodes whose inputs NumPy's loop would not take as they are: kantensor's promotion
#: (int8 and uint8 give int16, an integer divided gives the default float), a constant
#: (a Python float beside float32), mixed dtypes. Its blockwise, and the NumPy backend's
#: values.
MIXED = {
    "int8_uint8": (lambda x, y: x + y, ("int8", "uint8")),
    "int_divide": (lambda x, y: x / y, ("int32", "int32")),
    "constant": (lambda x, y: x * 2.5 - y, ("float32", "float32")),
    "float32_float64": (lambda x, y: x - y, ("float32", "float64")),
}


@pytest.mark.parametrize("name", list(MIXED))
def test_other_dtypes_are_kantensors_blockwise_with_numpy_backends_values(name):
    program, dtypes = MIXED[name]
    values = [_values((13, 5), d) for d in dtypes]
    tensors = [kt.TensorType(d, (None, None))(f"x{i}") for i, d in enumerate(dtypes)]
    out = program(*tensors)
    want = kt.function(tensors, out)(*values)
    got = kt.function(tensors, out, backend="dask")(
        *[da.from_array(v, chunks=(4, 3)) for v in values]).compute()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
