"""``broadcast_to`` and a ``reshape`` of the trailing axes keep a mask's rows block for
block: each block is broadcast or reshaped on its own rows, so the rows' origin passes
(docs/dask.rst, the origins of unknown chunk sizes) and the result pairs with the rows
themselves, nothing computed in the call. Both needed the rows' sizes before (an
UnknownChunksError without ``compute_chunk_sizes=True``). Judged by NumPy on the blocks
Dask computes; an unknown size that is not the input's own (another mask's rows) still
needs the sizes, and gives NumPy's answer once they are computed.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest

import kantensor as kt
from kantensor.backend.dask import UnknownChunksError

DATA = np.arange(60.0).reshape(15, 4) - 7
MASK = np.array([1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0], bool)
OTHER = np.array([1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1], bool)
CHUNKS = (((5, 5, 5), (4,)), ((5, 5, 5),))


def _args(mask=MASK):
    return da.from_array(DATA, chunks=(5, 4)), da.from_array(mask, chunks=5)


def _graphs():
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    rows = x[m]
    return x, m, rows, {
        "broadcast column": (kt.broadcast_to(rows[:, :1], rows.shape) * rows,
                             lambda r: np.broadcast_to(r[:, :1], r.shape) * r),
        "broadcast new axis": (kt.broadcast_to(rows, (2, *rows.shape)) - rows,
                               lambda r: np.broadcast_to(r, (2, *r.shape)) - r),
        "reshape trailing": (kt.sum(kt.reshape(rows, (-1, 2, 2)), axis=2) - rows[:, ::2],
                             lambda r: r.reshape(-1, 2, 2).sum(2) - r[:, ::2]),
        "reshape by size": (rows.reshape(rows.shape[0], 2, 2)[:, 1] + rows[:, 2:],
                            lambda r: r.reshape(len(r), 2, 2)[:, 1] + r[:, 2:]),
    }


@pytest.mark.parametrize("case", list(_graphs()[3]))
@pytest.mark.parametrize("mask", [MASK, OTHER, np.zeros(15, bool), np.ones(15, bool)],
                         ids=["some", "other", "none", "all"])
def test_the_rows_kept_pair_with_the_rows(case, mask):
    x, m, _, graphs = _graphs()
    out, numpy = graphs[case]
    f = kt.function([x, m], out, backend="dask")  # (no compute_chunk_sizes: none needed)
    y = f(*_args(mask))
    assert str(y.chunks[0] if "new axis" not in case else y.chunks[1]) == "(nan, nan, nan)"
    got = y.compute()
    np.testing.assert_array_equal(got, numpy(DATA[mask]))
    # the blocks Dask computes keep the mask's rows, block by block
    axis = 1 if "new axis" in case else 0
    blocks = y.compute_chunk_sizes().chunks[axis]
    assert blocks == tuple(int(mask[i:i + 5].sum()) for i in (0, 5, 10))
    # counted by the blocks the mask keeps rows of, a bound the computed blocks meet
    report = f.memory(*CHUNKS)
    assert report.unknown == 0 and report.at_most == report.tasks
    assert "each block " in str(f.plan(*CHUNKS))
    largest = max(y.blocks[i].compute().nbytes if axis == 0 else
                  y.blocks[:, i].compute().nbytes for i in range(3))
    assert largest <= report.largest_output


def test_another_masks_rows_are_not_kept():
    """Broadcast to the rows of another mask: the unknown sizes are not the input's own
    (the two masks may keep as many rows per block, not the same): refused without the
    sizes, NumPy's answer (or NumPy's error) with them."""
    x, m, n = kt.matrix("x", "float64"), kt.vector("m", "bool"), kt.vector("n", "bool")
    out = kt.broadcast_to(x[m][:, :1], x[n].shape)
    f = kt.function([x, m, n], out, backend="dask")
    with pytest.raises(UnknownChunksError, match="broadcast_to"):
        f(*_args(), da.from_array(OTHER, chunks=5))
    g = kt.function([x, m, n], out, backend="dask", compute_chunk_sizes=True)
    one = np.zeros(15, bool)
    one[6] = True  # one row, broadcast to the other mask's rows
    np.testing.assert_array_equal(g(*_args(one), da.from_array(OTHER, chunks=5)).compute(),
                                  np.broadcast_to(DATA[one][:, :1], DATA[OTHER].shape))
    with pytest.raises(ValueError):  # (NumPy's: 5 rows cannot broadcast to 9)
        g(*_args(), da.from_array(OTHER, chunks=5)).compute()
    with pytest.raises(ValueError):
        np.broadcast_to(DATA[MASK][:, :1], DATA[OTHER].shape)


def test_a_reshape_that_changes_the_rows_still_needs_their_sizes():
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    f = kt.function([x, m], kt.reshape(x[m], (-1, 2)), backend="dask")
    with pytest.raises(UnknownChunksError, match="reshape"):
        f(*_args())
