"""NumPy functions that are compositions of catalogue Ops (kantensor.ops.compositions):
called through NumPy on symbolic tensors, against NumPy on the same arrays
(conformance.py), on random shapes, dtypes and parameters."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from conformance import ALL_DTYPES, arrays, conform, hidden_mask, shapes

CASES = settings(max_examples=100, deadline=None)


def _one(data, min_dims=0, max_dims=4, hide=True):
    shape = data.draw(shapes(min_dims, max_dims), label="shape")
    x = data.draw(arrays(data.draw(st.sampled_from(ALL_DTYPES), label="dtype"), shape))
    hidden = [data.draw(hidden_mask(len(shape)), label="hidden")] if hide else []
    return x, hidden


def _same_dtype_pair(data, shape_a, shape_b):
    dtype = data.draw(st.sampled_from(ALL_DTYPES), label="dtype")
    return data.draw(arrays(dtype, shape_a)), data.draw(arrays(dtype, shape_b))


@pytest.mark.parametrize("fn", [np.atleast_1d, np.atleast_2d, np.atleast_3d, np.fliplr,
                                np.flipud, np.diagflat, np.ravel])
@CASES
@given(data=st.data())
def test_one_array(fn, data):
    x, hidden = _one(data)
    conform(fn.__name__, fn, fn, [x], hidden)


@CASES
@given(data=st.data())
def test_rot90_and_rollaxis(data):
    x, hidden = _one(data)
    n = x.ndim
    k = data.draw(st.integers(-5, 5))
    axes = tuple(data.draw(st.lists(st.integers(-n - 1, n), min_size=2, max_size=2)))
    conform("rot90", lambda v: np.rot90(v, k, axes), lambda a: np.rot90(a, k, axes), [x],
            hidden)
    axis, start = data.draw(st.integers(-n - 1, n)), data.draw(st.integers(-n - 2, n + 1))
    conform("rollaxis", lambda v: np.rollaxis(v, axis, start),
            lambda a: np.rollaxis(a, axis, start), [x], hidden)


@CASES
@given(data=st.data())
def test_several_arrays(data):
    """column_stack and dstack of arrays of one dtype, ranks and lengths usually fit."""
    n = data.draw(st.integers(0, 3))
    ranks = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3))
    other = data.draw(st.integers(0, 3))
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    xs = [data.draw(arrays(dtype, (n, other, 2)[:r] if data.draw(st.booleans()) else
                           (n,) * r)) for r in ranks]
    for fn in (np.column_stack, np.dstack):
        conform(fn.__name__, lambda *v, f=fn: f(list(v)), lambda *a, f=fn: f(list(a)), xs)


@CASES
@given(data=st.data())
def test_products(data):
    """inner, vdot and kron of two arrays of one dtype."""
    sa = data.draw(shapes(0, 3))
    sb = data.draw(st.sampled_from([sa, sa[-1:], data.draw(shapes(0, 3))]))
    a, b = _same_dtype_pair(data, sa, sb)
    for fn in (np.inner, np.vdot, np.kron):
        conform(fn.__name__, fn, fn, [a, b])


@CASES
@given(data=st.data())
def test_append_insert_delete(data):
    x, _ = _one(data, 0, 3, hide=False)
    n = x.ndim
    axis = data.draw(st.one_of(st.none(), st.integers(-n, n - 1) if n else st.none()))
    length = x.size if axis is None else x.shape[axis]
    values = data.draw(arrays(x.dtype.name, data.draw(st.sampled_from(
        [(), (1,), x.shape, x.shape[:1] + (1,) * max(n - 1, 0)]))))
    conform("append", lambda v, w: np.append(v, w, axis=axis),
            lambda a, w: np.append(a, w, axis=axis), [x, values])
    obj = data.draw(st.integers(-length - 1, length + 1))
    conform("insert", lambda v, w: np.insert(v, obj, w, axis=axis),
            lambda a, w: np.insert(a, obj, w, axis=axis), [x, values])
    conform("delete", lambda v: np.delete(v, obj, axis=axis),
            lambda a: np.delete(a, obj, axis=axis), [x])
    if length:
        many = data.draw(st.lists(st.integers(-length, length - 1), max_size=3))
        conform("delete", lambda v: np.delete(v, many, axis=axis),
                lambda a: np.delete(a, many, axis=axis), [x])


@CASES
@given(data=st.data())
def test_splits(data):
    x, hidden = _one(data, 0, 4)
    sections = data.draw(st.one_of(st.integers(1, 4), st.lists(st.integers(0, 5),
                                                                max_size=3)))
    for fn in (np.hsplit, np.vsplit, np.dsplit):
        conform(fn.__name__, lambda v, f=fn: f(v, sections),
                lambda a, f=fn: f(a, sections), [x], hidden)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1)) if x.ndim else 0
    conform("array_split", lambda v: np.array_split(v, sections, axis),
            lambda a: np.array_split(a, sections, axis), [x], hidden)


def test_symbolic_sizes_and_empty_like():
    n, d = kt.dims("n d")
    x = kt.tensor("x", "float32", (n, d))
    v = kt.tensor("v", "int8", (n,))
    assert str(np.insert(x, 0, 1.0, axis=1).type) == "float32[n,d+1]"
    assert str(np.column_stack([v, v]).type) == "int8[n,2]"
    assert str(np.kron(x, v[:, None]).type) == "float32[n**2,d]"
    assert str(np.atleast_3d(v).type) == "int8[1,n,1]"
    assert str(np.rot90(x).type) == "float32[d,n]"
    assert [str(t.type) for t in np.array_split(kt.tensor("u", "int8", (7,)), 3)] == \
        ["int8[3]", "int8[2]", "int8[2]"]
    e = np.empty_like(x, dtype="int16")
    assert str(e.type) == "int16[n,d]"
    got = kt.function([x], e)(np.ones((2, 3), np.float32))
    assert got.shape == np.empty_like(np.ones((2, 3)), dtype="int16").shape == (2, 3)
    assert got.dtype == np.int16
