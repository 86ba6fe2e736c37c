"""Masked rows (chunks of unknown size) through reductions, slices, scans and transposes,
then paired with the rows themselves: judged by NumPy's values and by Dask's blocks.

Two axes of unknown chunks are aligned block by block only where they have one origin
(:meth:`kantensor.backend.dask.lower.Session.origin`). A tree reduction over other axes,
a slice or an index on other axes, a scan or softmax along another axis, and a transpose
keep the rows' blocks as they are, in order, so they pass the origin on; a flip, a roll
or a concatenation along the rows does not, and stays refused (or takes the sizes).
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import kantensor as kt
from kantensor.backend.dask import UnknownChunksError

#: row blocks (2 rows each) of 1, 0 and 2 rows kept: blocks of different sizes
KEEP = np.array([1, 0, 0, 0, 1, 1], bool)
DATA = np.arange(12.0).reshape(6, 2) * 0.5 - 2.0


def _exp_norm(a: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(a - a.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


KEPT = [
    ("center", lambda y: y - kt.mean(y, axis=1, keepdims=True),
     lambda a: a - a.mean(1, keepdims=True)),
    ("sum_plus_column", lambda y: kt.sum(y, axis=1) + y[:, 0], lambda a: a.sum(1) + a[:, 0]),
    ("softmax_times", lambda y: kt.softmax(y, axis=1) * y, lambda a: _exp_norm(a, 1) * a),
    ("log_softmax_plus", lambda y: kt.log_softmax(y, axis=1) + y,
     lambda a: np.log(_exp_norm(a, 1)) + a),
    ("logsumexp_plus_column", lambda y: kt.logsumexp(y, axis=1) + y[:, 1],
     lambda a: np.log(np.exp(a).sum(1)) + a[:, 1]),
    ("columns_sliced", lambda y: y[:, :1] + y[:, 1:], lambda a: a[:, :1] + a[:, 1:]),
    ("max_minus", lambda y: y - kt.max(y, axis=1, keepdims=True),
     lambda a: a - a.max(1, keepdims=True)),
    ("cumsum_plus", lambda y: kt.cumsum(y, axis=1) + y, lambda a: np.cumsum(a, 1) + a),
    ("cumprod_plus", lambda y: kt.cumprod(y, axis=1) + y, lambda a: np.cumprod(a, 1) + a),
    ("transposed_twice", lambda y: kt.transpose(kt.transpose(y)) + y, lambda a: a + a),
    ("moveaxis", lambda y: kt.moveaxis(y[:, :, None], 0, 2) * y.T[:, None, :],
     lambda a: np.moveaxis(a[:, :, None], 0, 2) * a.T[:, None, :]),
    ("var_std", lambda y: kt.var(y, axis=1) + kt.std(y, axis=1) + y[:, 0],
     lambda a: a.var(1) + a.std(1) + a[:, 0]),
    ("argmax_plus", lambda y: kt.argmax(y, axis=1) + y[:, 0],
     lambda a: a.argmax(1) + a[:, 0]),
    ("count_plus", lambda y: kt.count_nonzero(y, axis=1) + y[:, 0],
     lambda a: np.count_nonzero(a, axis=1) + a[:, 0]),
    ("norm_plus", lambda y: kt.norm(y, axis=1) + y[:, 0],
     lambda a: np.linalg.norm(a, axis=1) + a[:, 0]),
    ("flip_columns", lambda y: kt.flip(y, axis=1) + y, lambda a: a[:, ::-1] + a),
    ("diff_columns", lambda y: kt.diff(y, axis=1) * y[:, :1],
     lambda a: np.diff(a, axis=1) * a[:, :1]),
    ("diff_bool_columns", lambda y: kt.diff(y > 0, axis=1) & (y[:, 1:] > 1),
     lambda a: np.diff(a > 0, axis=1) & (a[:, 1:] > 1)),
    ("row_index_kept", lambda y: y[:, 1] * kt.sum(y[:, None, :], axis=2)[:, 0],
     lambda a: a[:, 1] * a.sum(1)),
]


@pytest.mark.parametrize("name, build, numpy", KEPT, ids=[c[0] for c in KEPT])
def test_rows_kept_as_blocks_pair_with_the_rows(name, build, numpy):
    """Each pattern raised UnknownChunksError (two unknown chunkings of no common
    origin); now NumPy's values, with the rows still the mask's blocks (unknown sizes,
    one block per block of the input, each block NumPy's result on those rows). With
    compute_chunk_sizes=True (sizes computed once per origin), NumPy's values too."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    f = kt.function([x, m], build(x[m]), backend="dask")
    y = f(DATA, KEEP, chunks=2)
    want = numpy(DATA[KEEP])
    got = y.compute()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
    rows = 0 if name != "moveaxis" else 2
    assert len(y.chunks[rows]) == 3 and all(np.isnan(c) for c in y.chunks[rows])
    for b in range(3):
        block = y.blocks[(slice(None),) * rows + (b,)].compute()
        part = KEEP[2 * b:2 * b + 2]
        np.testing.assert_allclose(block, numpy(DATA[2 * b:2 * b + 2][part]), rtol=1e-12)
    sized = kt.function([x, m], build(x[m]) * 1.0, backend="dask", compute_chunk_sizes=True)
    np.testing.assert_allclose(sized(DATA, KEEP, chunks=2).compute(), want, rtol=1e-12)


REORDERED = [
    ("flip_rows", lambda y: kt.flip(y, axis=0) + y, lambda a: a[::-1] + a),
    ("flip_all", lambda y: kt.flip(y) + y, lambda a: a[::-1, ::-1] + a),
    ("roll_rows", lambda y: kt.roll(y, 1, axis=0) + y, lambda a: np.roll(a, 1, axis=0) + a),
    ("concatenate_rows_swapped", lambda y: kt.concatenate([y, kt.flip(y, axis=0)], axis=0)
     + kt.concatenate([kt.flip(y, axis=0), y], axis=0),
     lambda a: np.concatenate([a, a[::-1]]) + np.concatenate([a[::-1], a])),
]


@pytest.mark.parametrize("name, build, numpy", REORDERED, ids=[c[0] for c in REORDERED])
def test_rows_reordered_are_never_paired_block_by_block(name, build, numpy):
    """A flip, roll or concatenation along the rows keeps their block count (flip) but
    not their blocks: pairing them with the rows block by block would add rows of
    other blocks (or fail when computed). Refused naming compute_chunk_sizes, and with
    it NumPy's values."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    try:
        y = kt.function([x, m], build(x[m]), backend="dask")(DATA, KEEP, chunks=2)
    except UnknownChunksError as exc:
        assert "compute_chunk_sizes" in str(exc)
    else:  # only where the lowering took the rows' sizes itself
        assert all(not np.isnan(c) for c in y.chunks[0])
        np.testing.assert_allclose(y.compute(), numpy(DATA[KEEP]), rtol=1e-12)
    f = kt.function([x, m], build(x[m]), backend="dask", compute_chunk_sizes=True)
    np.testing.assert_allclose(f(DATA, KEEP, chunks=2).compute(), numpy(DATA[KEEP]),
                               rtol=1e-12)


@pytest.mark.parametrize("fn, numpy", [(kt.argmax, np.argmax), (kt.argmin, np.argmin)])
def test_arg_reduction_along_the_rows_needs_their_sizes(fn, numpy):
    """An arg-reduction offsets each block's index by the sizes of the reduced axis's
    chunks: along rows of unknown sizes it is refused naming compute_chunk_sizes (and
    with it NumPy's indices); along the columns it takes the unknown rows (the test
    above: it was refused before, though Dask reads no size of the rows)."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    with pytest.raises(UnknownChunksError, match="arg.*compute_chunk_sizes"):
        kt.function([x, m], fn(x[m], axis=0), backend="dask")(DATA, KEEP, chunks=2)
    f = kt.function([x, m], fn(x[m], axis=0), backend="dask", compute_chunk_sizes=True)
    np.testing.assert_array_equal(f(DATA, KEEP, chunks=2).compute(), numpy(DATA[KEEP], 0))


DATA3 = np.arange(36.0).reshape(6, 2, 3) % 7 - 3.0

KEPT3 = [
    ("sum_two_axes", lambda y: kt.sum(y, axis=(1, 2)) + y[:, 1, 2],
     lambda a: a.sum((1, 2)) + a[:, 1, 2]),
    ("mean_last_kept", lambda y: kt.mean(y, axis=-1)[:, None, :] * y[:, :, :1].T.T,
     lambda a: a.mean(-1)[:, None, :] * a[:, :, :1]),
    ("swapaxes", lambda y: kt.swapaxes(y, 0, 2) + kt.transpose(y, (2, 1, 0)),
     lambda a: np.swapaxes(a, 0, 2) + a.transpose(2, 1, 0)),
    ("ellipsis_index", lambda y: y[..., 0] - y[:, :, 2], lambda a: a[..., 0] - a[:, :, 2]),
]


@pytest.mark.parametrize("name, build, numpy", KEPT3, ids=[c[0] for c in KEPT3])
def test_rows_of_3d_arrays_kept_through_several_axes(name, build, numpy):
    """The rows of a masked 3-d array through reductions over two axes, indices of the
    others (``...``, ``None``) and axis swaps: NumPy's values, the rows still unknown."""
    x, m = kt.tensor("x", "float64", (None, 2, 3)), kt.vector("m", "bool")
    y = kt.function([x, m], build(x[m]), backend="dask")(
        da.from_array(DATA3, chunks=(2, 2, 3)), da.from_array(KEEP, chunks=2))
    want = numpy(DATA3[KEEP])
    np.testing.assert_allclose(y.compute(), want, rtol=1e-12)
    assert any(len(c) == 3 and all(np.isnan(c)) for c in y.chunks)
