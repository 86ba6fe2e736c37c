"""Random graphs on the Dask backend whose inputs are masked arrays (their rows' chunks
unknown, ``nan``), judged by the NumPy backend and by the blocks Dask computes (hunt30;
tests/daskgraphs.py draws the graphs' chunks known).

Each input of rank >= 1 is, more often than not, a larger array's rows picked by a mask,
both chunked at random (a block may be empty). Compiled with ``allow_rechunk=True``, and
again with ``compute_chunk_sizes=True``, a call either refuses (UnknownChunksError, or
another error: a refusal is no wrong answer) or gives arrays whose known chunks are the
blocks Dask computes and whose values are the NumPy backend's; the user's arrays keep
their chunks; a computed array fails only by kantensor's own check of a size the graph
was built with unknown. Cases whose masked input Dask itself computes wrong (its mask of
an array with an empty chunk on another axis) are skipped.

``KANTENSOR_DASK_MASKED_GRAPHS`` sets the graphs (quick 12, long 400: seed 12's 400 find
nothing wrong, only refusals), ``KANTENSOR_DASK_MASKED_SEED`` the seed (12).
"""

from __future__ import annotations

import math
import os
import random
import warnings

import dask.array as da
import numpy as np
from dask.callbacks import Callback

import kantensor as kt
import relgraphs
import sizing
from dask_cases import computed, values_for
from daskgraphs import chunks_with_empties
from kantensor.backend.dask import RechunkError, UnknownChunksError
from test_dask import agree

GRAPHS = sizing.size("DASK_MASKED_GRAPHS", 12, 400)
SEED = int(os.environ.get("KANTENSOR_DASK_MASKED_SEED", "12"))


def _consistent(said: tuple, got: tuple) -> bool:
    """Chunks a Dask array states (``nan``: unknown) against its computed blocks'."""
    return len(said) == len(got) and all(
        len(s) == len(g) and all(math.isnan(x) or x == y for x, y in zip(s, g, strict=True))
        for s, g in zip(said, got, strict=True))


def _specs(values: list, rng: random.Random) -> list | None:
    """Per input (array, chunks, mask, mask chunks): the rows of a larger array a mask
    picks, or the value itself (mask None); None where no input is masked."""
    specs = []
    for v in values:
        v = np.asarray(v)
        if v.ndim >= 1 and v.shape[0] and rng.random() < 0.7:
            n = v.shape[0] + rng.randint(0, 3)
            keep = np.zeros(n, bool)
            keep[sorted(rng.sample(range(n), v.shape[0]))] = True
            big = np.zeros((n, *v.shape[1:]), v.dtype)
            big[keep] = v
            chunks = chunks_with_empties((n,), rng) + chunks_with_empties(v.shape[1:], rng,
                                                                          False)
            specs.append((big, chunks, keep, chunks_with_empties((n,), rng)[0]))
        else:
            specs.append((v, chunks_with_empties(v.shape, rng), None, None))
    return specs if any(s[2] is not None for s in specs) else None


def _arrays(specs: list) -> list:
    return [da.from_array(b, chunks=c)[da.from_array(k, chunks=kc)] if k is not None
            else da.from_array(b, chunks=c if c else -1) for b, c, k, kc in specs]


def _sane(specs: list, values: list) -> bool:
    """Whether Dask's own masked inputs compute to the values, block by block."""
    for (_, _, keep, _), v, a in zip(specs, values, _arrays(specs), strict=True):
        if keep is None:
            continue
        try:
            _, got = computed(a)
            blocks = [b.compute() for b in a.to_delayed().ravel()]
        except Exception:  # noqa: BLE001 - Dask's own mask fails: no case
            return False
        if got.shape != np.shape(v) or not np.array_equal(got, v, equal_nan=True) or any(
                not isinstance(b, np.ndarray) or b.shape[1:] != np.shape(v)[1:]
                for b in blocks):
            return False
    return True


def _judge(g: relgraphs.Graph, rng: random.Random, nrng: np.random.Generator) -> list[str]:
    built = g.build()
    inputs = built[:len(g.inputs)]
    outputs = [v for v in built[len(g.inputs):] if all(isinstance(d, int) for d in v.type.shape)]
    if not outputs:
        return []
    values = values_for("graph", inputs, nrng)
    try:
        want = kt.function(inputs, outputs)(*values)
    except Exception:  # noqa: BLE001 - a value error: the graph does not run on them
        return []
    specs = _specs(values, rng)
    if specs is None or not _sane(specs, values):
        return []
    wrong = []
    for options in ({}, {"compute_chunk_sizes": True}):
        arrays = _arrays(specs)
        try:
            outs = kt.function(inputs, outputs, backend="dask", allow_rechunk=True,
                               **options)(*arrays)
        except Exception:  # noqa: BLE001 - UnknownChunksError, or another refusal
            continue
        if [a.chunks for a in arrays] != [a.chunks for a in _arrays(specs)]:
            wrong.append(f"{options}: the user's arrays' chunks changed")
        for i, (y, w) in enumerate(zip(outs, want, strict=True)):
            try:
                chunks, got = computed(y)
            except ValueError as exc:
                if "the graph was built with" not in str(exc):
                    wrong.append(f"{options} output {i}: {type(exc).__name__}: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001 - a crash is a finding
                wrong.append(f"{options} output {i}: {type(exc).__name__}: {exc}")
                continue
            if not _consistent(y.chunks, chunks):
                wrong.append(f"{options} output {i}: chunks {y.chunks}, blocks {chunks}")
            if not agree(got, w):
                wrong.append(f"{options} output {i}: Dask {got.dtype}{got.shape} "
                             f"{got.ravel()[:6]}, NumPy {np.asarray(w).dtype}{np.shape(w)}")
    return wrong


def test_masked_inputs_through_random_graphs():
    warnings.simplefilter("ignore")
    rng, nrng = random.Random(SEED), np.random.default_rng(SEED)
    found = []
    for i in range(GRAPHS):
        g = relgraphs.random_graph(rng, rng.randint(1, 4), named=False)
        if g.steps:
            found += [f"#{i} {g.text()}\n  {w}" for w in _judge(g, rng, nrng)]
    assert found == []


# -- origins: one mask's rows through many Ops, then paired with each other -----------
#
# Each graph takes the rows of ``x`` (of 3 columns) a mask picks, sends them through
# 1 to 3 branches of 1 to 3 random Ops each (a branch may start from a second mask's
# rows of the same ``x``, or from an earlier branch), and adds every branch's row sums
# (``sum(b, axis=1, keepdims=True)``) to the rows' first column: rows of one origin are
# paired block by block, others only by their sizes. Some Ops join rows with inputs of
# no rows (which Dask's concatenate drops), some masks keep nothing. Judged by NumPy,
# with and without ``compute_chunk_sizes=True``: a refusal (UnknownChunksError,
# RechunkError) is no wrong answer; a value other than NumPy's is, and so are chunks
# other than the blocks Dask computes (from a pickled copy of the graph: its tasks
# unpickled). Where every Op keeps the rows' blocks and no second mask is read, the
# sizes are computed at most once (a Dask callback counts the graphs computed in the
# call).
# ``KANTENSOR_DASK_ORIGINS_GRAPHS`` sets the graphs (quick 120, long 1000),
# ``KANTENSOR_DASK_ORIGINS_SEED`` the seed (25).

ORIGIN_GRAPHS = sizing.size("DASK_ORIGINS_GRAPHS", 120, 1000)
ORIGIN_SEED = int(os.environ.get("KANTENSOR_DASK_ORIGINS_SEED", "25"))


def _cols(y) -> int:
    return y.shape[1] if isinstance(y, np.ndarray) else y.type.shape[1]


def _w(y) -> np.ndarray:
    return np.arange(2.0 * _cols(y)).reshape(_cols(y), 2) - 1.5


#: (name, kantensor's Op of the rows y, NumPy's of a (same code where both take it),
#: whether it keeps the rows' blocks); each takes and gives a matrix of rows first
ROW_OPS = [
    ("double", lambda y, k: 2 * y, lambda a: 2 * a, True),
    ("where", lambda y, k: kt.where(y > 0, y, -y), lambda a: np.where(a > 0, a, -a), True),
    ("cumsum_columns", lambda y, k: kt.cumsum(y, axis=1), lambda a: np.cumsum(a, 1), True),
    ("flip_columns", lambda y, k: kt.flip(y, axis=1), lambda a: a[:, ::-1], True),
    ("roll_columns", lambda y, k: kt.roll(y, 1, axis=1), lambda a: np.roll(a, 1, 1), True),
    ("sort_columns", lambda y, k: kt.sort(y, axis=1), lambda a: np.sort(a, 1), True),
    ("concatenate_columns", lambda y, k: kt.concatenate([y, k * y], axis=1),
     lambda a, k=2.0: np.concatenate([a, k * a], 1), True),
    ("stack_sum", lambda y, k: kt.sum(kt.stack([y, k * y], axis=2), axis=2),
     lambda a, k=2.0: np.stack([a, k * a], 2).sum(2), True),
    ("pad_columns", lambda y, k: kt.pad(y, ((0, 0), (1, 0)), constant_values=1.0),
     lambda a: np.pad(a, ((0, 0), (1, 0)), constant_values=1.0), True),
    ("repeat_columns", lambda y, k: kt.repeat(y, 2, axis=1), lambda a: np.repeat(a, 2, 1),
     True),
    ("tile_columns", lambda y, k: kt.tile(y, (1, 2)), lambda a: np.tile(a, (1, 2)), True),
    ("take_columns", lambda y, k: kt.take(y, [0, 0], axis=1), lambda a: np.take(a, [0, 0], 1),
     True),
    ("split_columns", lambda y, k: kt.split(y, [1], axis=1)[0],
     lambda a: np.split(a, [1], 1)[0], True),
    ("tril_sum", lambda y, k: kt.sum(kt.tril(y[:, :, None] * y[:, None, :]), axis=2),
     lambda a: np.tril(a[:, :, None] * a[:, None, :]).sum(2), True),
    ("diagonal", lambda y, k: kt.diagonal(y[:, :, None] * y[:, None, :], axis1=1, axis2=2),
     lambda a: np.diagonal(a[:, :, None] * a[:, None, :], axis1=1, axis2=2), True),
    ("matmul", lambda y, k: y @ _w(y), lambda a: a @ _w(a), True),
    ("einsum", lambda y, k: kt.einsum("ij,jk->ik", y, _w(y)),
     lambda a: np.einsum("ij,jk->ik", a, _w(a)), True),
    ("outer_sum", lambda y, k: kt.sum(kt.outer(y[:, 0], y[:, 0]), axis=1, keepdims=True),
     lambda a: np.outer(a[:, 0], a[:, 0]).sum(1, keepdims=True), True),
    ("zeros_like", lambda y, k: kt.zeros_like(y) + y, lambda a: np.zeros_like(a) + a, True),
    ("softmax", lambda y, k: kt.softmax(y, axis=1),
     lambda a: np.exp(a - a.max(1, keepdims=True))
     / np.exp(a - a.max(1, keepdims=True)).sum(1, keepdims=True), True),
    ("flip_rows", lambda y, k: kt.flip(y, axis=0), lambda a: a[::-1], False),
    ("roll_rows", lambda y, k: kt.roll(y, 1, axis=0), lambda a: np.roll(a, 1, 0), False),
    ("cumsum_rows", lambda y, k: kt.cumsum(y, axis=0), lambda a: np.cumsum(a, 0), False),
    ("repeat_rows_halved", lambda y, k: kt.repeat(y, 2, axis=0)[::2],
     lambda a: np.repeat(a, 2, 0)[::2], False),
    ("concatenate_rows_half", lambda y, k: kt.concatenate([y, y], axis=0)[1:],
     lambda a: np.concatenate([a, a])[1:], False),
    ("tile_rows", lambda y, k: kt.tile(y, (2, 1)), lambda a: np.tile(a, (2, 1)), False),
    ("pad_rows", lambda y, k: kt.pad(y, ((0, 1), (0, 0)))[1:],
     lambda a: np.pad(a, ((0, 1), (0, 0)))[1:], False),
    # joins with inputs of no rows (Dask's concatenate drops them), then Ops that need
    # the joined rows' sizes
    ("concatenate_empty_first", lambda y, k: kt.concatenate([_none(y), y])[:2],
     lambda a: np.concatenate([_none(a), a])[:2], False),
    ("concatenate_empty_between", lambda y, k: kt.flip(kt.concatenate([y, _none(y), y]),
                                                       axis=0),
     lambda a: np.flip(np.concatenate([a, _none(a), a]), axis=0), False),
    ("concatenate_empty_last", lambda y, k: kt.concatenate([y, _none(y)])[1:],
     lambda a: np.concatenate([a, _none(a)])[1:], False),
]


def _none(y) -> np.ndarray:
    """No rows of ``y``'s columns (a known empty input of a join)."""
    return np.zeros((0, _cols(y)))


def _origins_graph(rng: random.Random) -> tuple[list, bool, bool]:
    """Branches as (start, [op indices]): start -1 the rows, -2 the second mask's rows,
    j >= 0 branch j's result; whether every Op keeps the rows' blocks, whether the second
    mask is read."""
    branches = []
    for j in range(rng.randint(1, 3)):
        r = rng.random()
        start = -2 if r < 0.15 else rng.randrange(j) if j and r < 0.4 else -1
        branches.append((start, [rng.randrange(len(ROW_OPS))
                                 for _ in range(rng.randint(1, 3))]))
    keeping = all(ROW_OPS[k][3] for _, ops in branches for k in ops)
    return branches, keeping, any(s == -2 for s, _ in branches)


def _origins_build(branches: list, y, z, numpy: bool):
    made = []
    for start, ops in branches:
        b = y if start == -1 else z if start == -2 else made[start]
        for k in ops:
            b = ROW_OPS[k][2](b) if numpy else ROW_OPS[k][1](b, 2.0)
        made.append(b)
    total = y[:, :1]
    for b in made:
        total = total + (b.sum(1, keepdims=True) if numpy else kt.sum(b, axis=1,
                                                                      keepdims=True))
    return total


def test_one_masks_rows_through_random_ops_paired_by_origin():
    warnings.simplefilter("ignore")
    rng, nrng = random.Random(ORIGIN_SEED), np.random.default_rng(ORIGIN_SEED)
    found, stats = [], {"graphs": 0, "run": 0, "refused": 0, "once": 0}
    for i in range(ORIGIN_GRAPHS):
        branches, keeping, second = _origins_graph(rng)
        n = rng.randint(4, 9)
        big = np.round(nrng.normal(size=(n, 3)), 2)
        keep, keep2 = nrng.random(n) < 0.6, nrng.random(n) < 0.6
        if rng.random() < 0.1:  # a mask keeping nothing
            keep[:] = False
        try:
            want = _origins_build(branches, big[keep], big[keep2], True)
        except ValueError:  # NumPy's shapes do not meet: no case
            continue
        x, m, m2 = kt.tensor("x", "float64", (None, 3)), kt.vector("m", "bool"), \
            kt.vector("m2", "bool")
        try:
            out = _origins_build(branches, x[m], x[m2], False)
        except (TypeError, ValueError):  # refused by the types (rows that cannot meet)
            continue
        stats["graphs"] += 1
        chunks = chunks_with_empties((n,), rng) + chunks_with_empties((3,), rng, False)
        args = [da.from_array(big, chunks=chunks)]
        args += [da.from_array(k, chunks=chunks_with_empties((n,), rng)[0])
                 for k in (keep, keep2)]
        for options in ({}, {"compute_chunk_sizes": True}):
            f = kt.function([x, m, m2], out, backend="dask", allow_rechunk=True, **options)
            seen = _Graphs()
            try:
                with seen:
                    y = f(*args)
                chunks, got = computed(y, pickled=True)  # (its tasks unpickled)
            except (UnknownChunksError, RechunkError):
                stats["refused"] += 1
                continue
            except Exception as exc:  # noqa: BLE001 - a crash is a finding
                found.append(f"#{i} {branches} {options}: {type(exc).__name__}: {exc}")
                continue
            stats["run"] += 1
            if not _consistent(y.chunks, chunks):
                found.append(f"#{i} {branches} {options}: chunks {y.chunks}, blocks {chunks}")
            if got.shape != want.shape or not np.allclose(got, want, rtol=1e-9, atol=1e-9):
                found.append(f"#{i} {branches} {options}: Dask {got.ravel()[:4]}, "
                             f"NumPy {want.ravel()[:4]}")
            if options and keeping and not second:
                stats["once"] += 1
                if seen.graphs > 1:
                    found.append(f"#{i} {branches}: sizes of one origin computed "
                                 f"{seen.graphs} times")
    print(f"origins hunt (seed {ORIGIN_SEED}): {stats}")
    print("\n".join(found))
    assert found == []
    assert stats["run"] > 0 and stats["once"] > 0


class _Graphs(Callback):
    """Counts the graphs Dask computes while it is active."""

    def __init__(self):
        super().__init__()
        self.graphs = 0

    def _start(self, dsk):
        self.graphs += 1
