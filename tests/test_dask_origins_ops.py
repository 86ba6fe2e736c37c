"""Masked rows (chunks of unknown size) through every Op that keeps their blocks, then
paired with the rows themselves: judged by NumPy's values and by Dask's blocks (issue 37
item 3; origins25).

Two axes of unknown chunks are aligned block by block only where they have one origin
(:meth:`kantensor.backend.dask.lower.Session.origin`). A join along another axis
(concatenate, hstack, stack, tile), a roll, pad or repeat along another axis, the
triangles and diagonals of the last axes, a take of other axes, a matmul or contraction
over other axes, an outer product, ``zeros_like``, ``split`` of another axis keep the
rows' blocks as they are, in order: they pass the origin on, and nothing is computed in
the call. What changes the rows' blocks (a repeat, a join, a pad along them) never
passes it: pairing those with the rows is refused, naming ``compute_chunk_sizes``, or
with it NumPy's values. With ``compute_chunk_sizes=True`` every origin's sizes are
computed once: counted by a Dask callback, one computation for the mask however many
nodes need its sizes.
"""

from __future__ import annotations

import dask.array as da
import numpy as np
import pytest
from dask.callbacks import Callback
from distributed import Client, LocalCluster

import kantensor as kt
from kantensor.backend.dask import UnknownChunksError

#: row blocks (2 rows each) of 1, 0 and 2 rows kept: blocks of different sizes
KEEP = np.array([1, 0, 0, 0, 1, 1], bool)
DATA = np.arange(18.0).reshape(6, 3) * 0.5 - 2.0
W = np.arange(6.0).reshape(3, 2) - 2.0
IDX = np.array([2, 0, 2, 1])


class Computes(Callback):
    """Counts the graphs Dask computes while it is active."""

    def __init__(self):
        super().__init__()
        self.graphs = 0

    def _start(self, dsk):
        self.graphs += 1


def _square(y):
    return y[:, :, None] * y[:, None, :]


def _square_np(a):
    return a[:, :, None] * a[:, None, :]


#: name -> (kantensor's Op of the rows y, NumPy's of the rows a); each result's first
#: axis is the rows', and is added to y's first column (the pairing)
KEPT = {
    "concatenate_columns": (lambda y: kt.concatenate([y, 2 * y], axis=1),
                            lambda a: np.concatenate([a, 2 * a], axis=1)),
    "hstack": (lambda y: kt.hstack([y, y[:, :1]]), lambda a: np.hstack([a, a[:, :1]])),
    "concatenate_cast": (lambda y: kt.concatenate([y > 0, y], axis=1),
                         lambda a: np.concatenate([a > 0, a], axis=1)),
    "count_cast": (lambda y: kt.sum(y > 0, axis=1, keepdims=True) * y,
                   lambda a: np.sum(a > 0, axis=1, keepdims=True) * a),
    "stack_axis1": (lambda y: kt.stack([y, y + 1], axis=1)[:, 1],
                    lambda a: np.stack([a, a + 1], axis=1)[:, 1]),
    "stack_axis2": (lambda y: kt.sum(kt.stack([y, -y, y], axis=2), axis=2),
                    lambda a: np.stack([a, -a, a], axis=2).sum(2)),
    "roll_columns": (lambda y: kt.roll(y, 1, axis=1), lambda a: np.roll(a, 1, axis=1)),
    "roll_columns_twice": (lambda y: kt.roll(y, (1, -2), axis=(1, 1)),
                           lambda a: np.roll(a, (1, -2), axis=(1, 1))),
    "pad_columns": (lambda y: kt.pad(y, ((0, 0), (1, 2)), constant_values=7.0),
                    lambda a: np.pad(a, ((0, 0), (1, 2)), constant_values=7.0)),
    "repeat_columns": (lambda y: kt.repeat(y, 2, axis=1), lambda a: np.repeat(a, 2, axis=1)),
    "tile_columns": (lambda y: kt.tile(y, (1, 2)), lambda a: np.tile(a, (1, 2))),
    "tile_one_axis": (lambda y: kt.tile(y, 2), lambda a: np.tile(a, 2)),
    "tril_batch": (lambda y: kt.sum(kt.tril(_square(y)), axis=2),
                   lambda a: np.tril(_square_np(a)).sum(2)),
    "triu_batch": (lambda y: kt.sum(kt.triu(_square(y), 1), axis=1),
                   lambda a: np.triu(_square_np(a), 1).sum(1)),
    "diagonal_batch": (lambda y: kt.diagonal(_square(y), axis1=1, axis2=2),
                       lambda a: np.diagonal(_square_np(a), axis1=1, axis2=2)),
    "trace_batch": (lambda y: kt.trace(_square(y), 1, 1, 2)[:, None],
                    lambda a: np.trace(_square_np(a), 1, 1, 2)[:, None]),
    "take_columns": (lambda y: kt.take(y, IDX, axis=1), lambda a: np.take(a, IDX, axis=1)),
    "index_columns": (lambda y: y[:, IDX], lambda a: a[:, IDX]),
    "split_columns": (lambda y: kt.split(y, [1], axis=1)[1],
                      lambda a: np.split(a, [1], axis=1)[1]),
    "matmul": (lambda y: y @ W, lambda a: a @ W),
    "matmul_transposed": (lambda y: (W.T @ y.T).T, lambda a: (W.T @ a.T).T),
    "outer": (lambda y: kt.outer(y[:, 0], W[:, 1]), lambda a: np.outer(a[:, 0], W[:, 1])),
    "zeros_like": (lambda y: kt.zeros_like(y) + y, lambda a: a + 0),
    "ones_like": (lambda y: kt.ones_like(y) * y, lambda a: a * 1),
    "where": (lambda y: kt.where(y > 0, y, -y), lambda a: np.where(a > 0, a, -a)),
    "broadcast_add": (lambda y: y + W[:, 0], lambda a: a + W[:, 0]),
    "expand_squeeze": (lambda y: kt.squeeze(kt.expand_dims(y, 1), 1),
                       lambda a: np.squeeze(np.expand_dims(a, 1), 1)),
    "sort_columns": (lambda y: kt.sort(y, axis=1), lambda a: np.sort(a, axis=1)),
    "clip": (lambda y: kt.clip(y, -1.0, 1.0), lambda a: np.clip(a, -1.0, 1.0)),
}


def _f(build):
    """The Op's result and its sum with the rows' first column; the columns are split
    in two chunks, rechunked whole where an Op needs them so (the rows' blocks kept)."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    y = x[m]
    return kt.function([x, m], [build(y), build(y) + y[:, :1]], backend="dask",
                       allow_rechunk=True)


def _inputs():
    return da.from_array(DATA, chunks=(2, 2)), da.from_array(KEEP, chunks=2)


@pytest.mark.parametrize("name", list(KEPT))
def test_rows_through_an_op_that_keeps_their_blocks_pair_with_the_rows(name):
    """Each was refused (UnknownChunksError: the Op needed the rows' sizes, or its
    result's rows had no origin in common with the rows). Now nothing is computed in the
    call; NumPy's values; the result's rows still the mask's blocks (one per block of
    the input, each NumPy's result on that block's rows)."""
    build, numpy = KEPT[name]
    with Computes() as seen:
        y, paired = _f(build)(*_inputs())
    assert seen.graphs == 0
    want = numpy(DATA[KEEP])
    got = y.compute()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(paired.compute(), want + DATA[KEEP][:, :1], rtol=1e-12)
    assert len(y.chunks[0]) == 3 and all(np.isnan(c) for c in y.chunks[0])
    for b in range(3):
        rows = DATA[2 * b:2 * b + 2][KEEP[2 * b:2 * b + 2]]
        np.testing.assert_allclose(y.blocks[b].compute(), numpy(rows), rtol=1e-12)


#: Ops that change the rows' blocks: never paired with the rows as they are
CHANGED = {
    "repeat_rows": (lambda y: kt.repeat(y, 2, axis=0)[::2], lambda a: np.repeat(a, 2, 0)[::2]),
    "concatenate_rows": (lambda y: kt.concatenate([y, y], axis=0)[:3],
                         lambda a: np.concatenate([a, a])[:3]),
    "vstack_halves": (lambda y: kt.vstack([y[:, :1], y[:, 1:2]])[:3],
                      lambda a: np.vstack([a[:, :1], a[:, 1:2]])[:3]),
    "tile_rows": (lambda y: kt.tile(y, (2, 1))[1:4], lambda a: np.tile(a, (2, 1))[1:4]),
    "roll_rows": (lambda y: kt.roll(y, 1, axis=0), lambda a: np.roll(a, 1, axis=0)),
    "pad_rows": (lambda y: kt.pad(y, ((1, 0), (0, 0)))[:-1],
                 lambda a: np.pad(a, ((1, 0), (0, 0)))[:-1]),
    "flip_rows": (lambda y: kt.flip(y, axis=0), lambda a: a[::-1]),
}


@pytest.mark.parametrize("name", list(CHANGED))
def test_rows_whose_blocks_an_op_changed_are_never_paired_as_they_are(name):
    """A repeat, join, tile, roll, pad or flip along the rows makes other blocks
    (three rows of ``repeat``'s first two blocks are the first row twice and none...):
    pairing them with the rows block by block would add rows of other blocks. Refused
    naming compute_chunk_sizes; with it, NumPy's values."""
    build, numpy = CHANGED[name]
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    with pytest.raises(UnknownChunksError, match="compute_chunk_sizes"):
        kt.function([x, m], build(x[m]) + x[m], backend="dask")(*_inputs())
    f = kt.function([x, m], build(x[m]) + x[m], backend="dask", compute_chunk_sizes=True)
    want = numpy(DATA[KEEP]) + DATA[KEEP]
    got = f(*_inputs()).compute()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


#: joins of two masks' rows (of one block count and one total, other sizes per block)
KEEP2 = np.array([0, 0, 1, 1, 1, 0], bool)

TWO_MASKS = {
    "concatenate_columns": (lambda y, z: kt.concatenate([y, z], axis=1),
                            lambda a, b: np.concatenate([a, b], axis=1)),
    "stack": (lambda y, z: kt.stack([y, z]), lambda a, b: np.stack([a, b])),
    "hstack": (lambda y, z: kt.hstack([y, z]), lambda a, b: np.hstack([a, b])),
    "tile_of_sum": (lambda y, z: kt.tile(y, (1, 2)) + kt.tile(z, (1, 2)),
                    lambda a, b: np.tile(a, (1, 2)) + np.tile(b, (1, 2))),
}


@pytest.mark.parametrize("name", list(TWO_MASKS))
def test_two_masks_rows_are_joined_only_by_their_sizes(name):
    """Two masks' rows, 3 blocks each and 3 rows in all but of sizes (1, 0, 2) and
    (0, 2, 1): joined block by block as they are, a block of one row would meet one of
    none. Refused naming compute_chunk_sizes, and with it NumPy's values."""
    build, numpy = TWO_MASKS[name]
    x, m, n = kt.matrix("x", "float64"), kt.vector("m", "bool"), kt.vector("n", "bool")
    args = (*_inputs(), da.from_array(KEEP2, chunks=2))
    with pytest.raises(UnknownChunksError, match="aligned.*compute_chunk_sizes"):
        kt.function([x, m, n], build(x[m], x[n]), backend="dask")(*args)
    f = kt.function([x, m, n], build(x[m], x[n]), backend="dask", compute_chunk_sizes=True)
    want = numpy(DATA[KEEP], DATA[KEEP2])
    got = f(*args).compute()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


def _needs_sizes(y):
    """Nodes that each need the rows' sizes (a slice, flip, reshape, scan along them),
    each after an Op that keeps the rows' blocks."""
    return [(y @ W)[1:], kt.flip(kt.outer(y[:, 0], y[:, 1]), 0),
            kt.cumsum(kt.zeros_like(y) + y, 0), kt.take(y, IDX, 1)[::-1],
            kt.reshape(kt.concatenate([y, y], 1), (-1,)),
            kt.argmax(kt.pad(y, ((0, 0), (1, 0))), axis=0),
            kt.roll(kt.tril(_square(y)), 1, axis=0)]


def _needs_sizes_np(a):
    return [(a @ W)[1:], np.outer(a[:, 0], a[:, 1])[::-1], np.cumsum(a, 0),
            np.take(a, IDX, 1)[::-1], np.concatenate([a, a], 1).reshape(-1),
            np.pad(a, ((0, 0), (1, 0))).argmax(0), np.roll(np.tril(_square_np(a)), 1, 0)]


def test_compute_chunk_sizes_computes_one_origins_sizes_once():
    """Seven nodes need the rows' sizes, each after an Op that kept the rows' blocks:
    with compute_chunk_sizes=True the sizes were computed again for each node whose
    input had lost the rows' origin (Dask's compute_chunk_sizes of the whole upstream
    each time: 5 graphs computed in the call at 5d837268). Now once for the one origin,
    the mask's counts: one graph; NumPy's values."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    f = kt.function([x, m], _needs_sizes(x[m]), backend="dask", compute_chunk_sizes=True)
    with Computes() as seen:
        outs = f(*_inputs())
    assert seen.graphs == 1
    for got, want in zip(da.compute(*outs), _needs_sizes_np(DATA[KEEP]), strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_rows_kept_through_ops_on_a_cluster_of_worker_processes():
    """The same graphs on a LocalCluster of one worker process (its tasks unpickled
    there: the joins' aliases, the pads' NumPy compositions): NumPy's values, and with
    compute_chunk_sizes=True the sizes computed once on the cluster."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    y = x[m]
    f = kt.function([x, m], [build(y) + y[:, :1] for build, _ in KEPT.values()],
                    backend="dask", allow_rechunk=True)
    g = kt.function([x, m], _needs_sizes(y), backend="dask", compute_chunk_sizes=True)
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    try:
        with Client(cluster) as client:
            got = client.gather(client.compute(f(*_inputs())))
            sized = client.gather(client.compute(g(*_inputs())))
    finally:
        cluster.close()
    a = DATA[KEEP]
    for value, (_, numpy) in zip(got, KEPT.values(), strict=True):
        np.testing.assert_allclose(value, numpy(a) + a[:, :1], rtol=1e-12)
    for value, want in zip(sized, _needs_sizes_np(a), strict=True):
        np.testing.assert_allclose(value, want, rtol=1e-12)


#: Joins and repeats along the rows: other blocks than the rows', whose sizes are made
#: of the rows' (one after the other, or each k times as large)
DERIVED = {
    "repeat_of_one_origin": (lambda y: kt.repeat(y, 2, axis=0) + kt.repeat(2 * y, 2, axis=0),
                             lambda a: np.repeat(a, 2, 0) * 3),
    "joins_of_one_origin": (lambda y: kt.concatenate([y, y]) + kt.concatenate([y, 2 * y]),
                            lambda a: np.concatenate([a, a]) + np.concatenate([a, 2 * a])),
    "tile_and_join": (lambda y: kt.tile(y, (2, 1)) + kt.vstack([y, -y]),
                      lambda a: np.tile(a, (2, 1)) + np.vstack([a, -a])),
}


@pytest.mark.parametrize("name", list(DERIVED))
def test_rows_made_alike_of_one_origin_pair_block_by_block(name):
    """``concatenate([y, y]) + concatenate([y, 2 * y])``, ``repeat(y, 2) + repeat(2 * y,
    2)``: each side's blocks are made of the rows' the same way, so of the same sizes.
    Refused before (each join a new origin); now paired block by block, nothing computed,
    NumPy's values."""
    build, numpy = DERIVED[name]
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    with Computes() as seen:
        y = kt.function([x, m], build(x[m]), backend="dask")(*_inputs())
    assert seen.graphs == 0 and all(np.isnan(c) for c in y.chunks[0])
    np.testing.assert_allclose(y.compute(), numpy(DATA[KEEP]), rtol=1e-12)


def test_sizes_of_joins_and_repeats_follow_from_the_masks_counts():
    """Nodes that need the sizes of rows repeated, joined or tiled: each such array was
    an origin of its own, whose sizes Dask's compute_chunk_sizes computed from the whole
    upstream (4 graphs in the call). Now they follow from the mask's counts (the rows'
    chunks one after the other, or twice as large): one graph; NumPy's values."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    y = x[m]
    outs = [kt.repeat(y, 2, 0)[1:], kt.concatenate([y, y])[::-1], kt.tile(y, (3, 1))[2:],
            kt.roll(kt.concatenate([kt.repeat(y, 2, 0), y]), 1, 0)]
    f = kt.function([x, m], outs, backend="dask", compute_chunk_sizes=True)
    with Computes() as seen:
        outs = f(*_inputs())
    assert seen.graphs == 1
    got = da.compute(*outs)
    a = DATA[KEEP]
    wants = [np.repeat(a, 2, 0)[1:], np.concatenate([a, a])[::-1], np.tile(a, (3, 1))[2:],
             np.roll(np.concatenate([np.repeat(a, 2, 0), a]), 1, 0)]
    for value, want in zip(got, wants, strict=True):
        assert value.shape == want.shape
        np.testing.assert_allclose(value, want, rtol=1e-12)


@pytest.mark.parametrize("name, build, numpy", [
    ("pad", lambda y: kt.pad(y, ((0, 1), (0, 0))), lambda a: np.pad(a, ((0, 1), (0, 0)))),
    ("repeat", lambda y: kt.repeat(y, 2, axis=0), lambda a: np.repeat(a, 2, 0))])
def test_sizes_computed_in_the_call_that_show_no_rows(name, build, numpy):
    """A mask that keeps no row, then an Op that needs the rows' sizes, compiled with
    compute_chunk_sizes=True: the sizes computed showed an empty array, which Dask's pad
    divides by ("ZeroDivisionError: integer division or modulo by zero", found by the
    origins hunt, seed 7) and Dask's repeat finds nothing to concatenate in; NumPy's own
    Op runs on arrays known empty, now on those computed empty too: NumPy's result."""
    x, m = kt.matrix("x", "float64"), kt.vector("m", "bool")
    f = kt.function([x, m], build(x[m]), backend="dask", compute_chunk_sizes=True)
    none = np.zeros(6, bool)
    got = f(da.from_array(DATA, chunks=(2, 2)), da.from_array(none, chunks=2)).compute()
    want = numpy(DATA[none])
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_hstack_of_scalars():
    """hstack of 0-d arrays on Dask: Dask's hstack concatenates them and fails ("zero-
    dimensional arrays cannot be concatenated"), NumPy's makes a vector of them. Now
    NumPy's (found routing the joins through one lowering)."""
    s = kt.scalar("s", "float64")
    got = kt.function([s], kt.hstack([s, 2 * s]), backend="dask")(np.float64(1.5))
    np.testing.assert_array_equal(got.compute(), np.hstack([1.5, 3.0]))
