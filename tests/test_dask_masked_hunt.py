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

import kantensor as kt
import relgraphs
import sizing
from dask_cases import computed, values_for
from daskgraphs import chunks_with_empties
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

