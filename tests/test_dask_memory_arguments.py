"""What ``f.chunks``, ``f.memory`` and ``f.plan`` of a Dask Function take for each
input: its chunks, or a Dask array standing for its chunks (read, nothing computed).
A Dask array given there raised ``TypeError: chunks ((dask.array<getitem, ...>, ...``
after iterating the array element by element; a NumPy array, a TypeError about chunks
of a thousand ``np.float64(1.0)``. Now each is what the call makes, checked against
the blocks Dask computes, and anything else a TypeError saying what was given and what
is expected (so is the NumPy backend's ``f.memory`` given arrays for shapes).
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import kantensor as kt


def _matmul():
    x, w = kt.matrix("x", "float64"), kt.matrix("w", "float64")
    return x, w, kt.function([x, w], kt.tanh(x @ w), backend="dask")


def test_a_dask_array_stands_for_its_chunks():
    _, _, g = _matmul()
    X = da.from_array(np.arange(60.0).reshape(12, 5), chunks=(5, 3))
    W = da.from_array(np.ones((5, 4)), chunks=(3, 2))
    assert g.chunks(X, W) == g.chunks(X.chunks, W.chunks) == g(X, W).chunks
    assert str(g.memory(X, W)) == str(g.memory(X.chunks, W.chunks))
    assert str(g.plan(X, W)) == str(g.plan(X.chunks, W.chunks))
    computed = g(X, W).compute()
    blocks = g(X, W).blocks
    assert tuple(tuple(blocks[i, 0].compute().shape[0] for i in range(blocks.shape[0]))
                 for _ in (0,)) == (g.chunks(X, W)[0],)
    np.testing.assert_allclose(computed, np.tanh(X.compute() @ W.compute()))
    # the largest output block the report counts is the largest block Dask computes
    largest = max(blocks[i, j].compute().nbytes for i in range(blocks.shape[0])
                  for j in range(blocks.shape[1]))
    assert g.memory(X, W).largest_output == largest


def test_a_masked_dask_array_stands_for_its_unknown_chunks():
    x = kt.matrix("x", "float64")
    g = kt.function([x], 2 * x, backend="dask")
    X = da.from_array(np.arange(40.0).reshape(10, 4), chunks=(5, 4))
    rows = X[X[:, 0] > 10]
    report = g.memory(rows)
    assert str(g.chunks(rows)) == str(g(rows).chunks) == "((nan, nan), (4,))"
    assert report.unknown == report.tasks > 0
    assert f"{report.tasks} tasks of bytes unknown" in str(report)
    assert [b.shape[0] for b in (g(rows).blocks[i].compute() for i in range(2))] == [2, 5]


@pytest.mark.parametrize("given, said", [
    (np.ones((12, 5)), r"got numpy\.ndarray of shape \(12, 5\): a NumPy array has no "
                       r"chunks: give the chunks= you would call with"),
    ([1, 2], r"got \[1, 2\] \(not a sequence of sequences of block sizes, each an int "
             r">= 0 or nan\)"),
    (((5, -1), (5,)), r"got \(\(5, -1\), \(5,\)\) \(not a sequence of sequences of block sizes"),
    (((5.5,), (5,)), r"got \(\(5.5,\), \(5,\)\) \(not a sequence of sequences of block sizes"),
])
def test_anything_else_says_what_was_given_and_what_is_expected(given, said):
    _, _, g = _matmul()
    W = da.ones((5, 4), chunks=2)
    head = (r"^f\.chunks, f\.memory and f\.plan take, for input 0 \(x\), its chunks \(one "
            r"tuple of block sizes per axis, e\.g\. \(\(2, 2\), \(2, 2\)\)\) or a Dask "
            r"array \(whose chunks are read\); ")
    for method in (g.memory, g.plan, g.chunks):
        with pytest.raises(TypeError, match=head + said):
            method(given, W)


def test_the_numpy_backends_memory_takes_shapes_and_says_so():
    x, w, _ = _matmul()
    f = kt.function([x, w], x @ w)
    assert f.memory((12, 5), [5, 4]).shapes == ((12, 5), (5, 4))
    for given, what in ((da.ones((12, 5)), r"dask\.array\.core\.Array of shape \(12, 5\)"),
                        (np.ones((12, 5)), r"numpy\.ndarray of shape \(12, 5\)"),
                        ((12, -5), r"builtins\.tuple \(12, -5\)")):
        with pytest.raises(TypeError, match=r"^memory\(\) takes one shape per input \(a "
                           r"tuple of ints >= 0, such as a\.shape\); input 0 \(x\) got "
                           + what):
            f.memory(given, (5, 4))
