"""Random graphs of catalogue Ops on the Dask backend, judged by the NumPy backend and by
the blocks Dask computes; a tool, not a test (``python tests/daskgraphs.py N SEED
[STEPS [EMPTY]]`` runs N graphs and prints what disagrees; EMPTY 0 draws no empty
chunks).

The graphs are tests/relgraphs.py's with known sizes (0..3). Each input gets random
values (tests/dask_cases.py's) and random chunks where a chunk may be empty or of one
element (cuts drawn with repeats, at the ends too); ``kt.function(..., backend="dask",
allow_rechunk=True)`` must predict the chunks Dask computes (``f.chunks``, the arrays'
own ``.chunks`` and the computed blocks' shapes agree) and give the NumPy backend's
values and dtypes; without ``allow_rechunk`` it gives the same or refuses with a
RechunkError the plan announced. A graph the NumPy backend refuses to run (a value
error: a singular matrix, an index out of bounds) is skipped.
"""

from __future__ import annotations

import random
import sys
import traceback
from collections import Counter

import dask.array as da
import numpy as np

import kantensor as kt
import relgraphs
from dask_cases import computed, values_for
from kantensor.backend.dask import RechunkError
from test_dask import agree, same_chunks


def chunks_with_empties(shape: tuple[int, ...], rng: random.Random,
                        empty: bool = True) -> tuple:
    """Every axis cut at up to 3 random places, repeats and ends allowed (so a chunk may
    have 0 or 1 elements); ``empty`` False: no empty chunk (but on an empty axis)."""
    out = []
    for n in shape:
        cuts = sorted(rng.randint(0, n) for _ in range(rng.randint(0, 3)))
        if not empty:
            cuts = sorted(set(cuts) - {0, n})
        edges = [0, *cuts, n]
        out.append(tuple(b - a for a, b in zip(edges, edges[1:], strict=False)))
    return tuple(out)


def check(g: relgraphs.Graph, rng: random.Random, nrng: np.random.Generator,
          stats: Counter, empty: bool = True) -> list[str]:
    """What disagrees on graph ``g`` (see the module)."""
    values_all = g.build()
    inputs = values_all[:len(g.inputs)]
    outputs = [v for v in values_all[len(g.inputs):]
               if all(isinstance(d, int) for d in v.type.shape)]
    if not outputs:
        return []
    values = values_for("graph", inputs, nrng)
    try:
        want = kt.function(inputs, outputs)(*values)
    except Exception:  # noqa: BLE001 - a value error: the graph does not run on them
        stats["numpy refuses"] += 1
        return []
    chunks = [chunks_with_empties(v.shape, rng, empty) for v in values]
    wrong = []
    try:
        f = kt.function(inputs, outputs, backend="dask", allow_rechunk=True)
        predicted = f.chunks(*chunks)
        arrays = f(*[da.from_array(v, chunks=c) for v, c in zip(values, chunks, strict=True)])
    except Exception as exc:  # noqa: BLE001 - a crash is a finding
        return [f"dask build: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3)}"]
    for i, (p, a, w) in enumerate(zip(predicted, arrays, want, strict=True)):
        try:
            got_chunks, got = computed(a)
        except Exception as exc:  # noqa: BLE001
            wrong.append(f"output {i} compute: {type(exc).__name__}: {exc}")
            continue
        if not same_chunks(p, got_chunks) or not same_chunks(p, a.chunks):
            wrong.append(f"output {i}: predicted {p}, array {a.chunks}, computed {got_chunks}")
        if not agree(got, w):
            wrong.append(f"output {i}: Dask {got.dtype}{got.shape} {got.ravel()[:6]}, "
                         f"NumPy {np.asarray(w).dtype}{np.shape(w)} {np.ravel(w)[:6]}")
    try:
        strict = kt.function(inputs, outputs, backend="dask")
        strict(*[da.from_array(v, chunks=c) for v, c in zip(values, chunks, strict=True)])
    except RechunkError:
        stats["refused without allow_rechunk"] += 1
    except Exception as exc:  # noqa: BLE001
        wrong.append(f"strict: {type(exc).__name__}: {exc}")
    if wrong:
        wrong.insert(0, f"chunks {chunks}")
    return wrong


def main(count: int, seed: int, steps: int = 4, empty: int = 1) -> None:
    """``empty`` 0: no empty chunks (to find what else disagrees)."""
    stats: Counter = Counter()
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    for i in range(count):
        g = relgraphs.random_graph(rng, rng.randint(1, steps), named=False)
        if not g.steps:
            continue
        stats["graphs"] += 1
        stats["nodes"] += len(g.steps)
        wrong = check(g, rng, nrng, stats, bool(empty))
        if wrong:
            stats["wrong"] += 1
            print(f"=== #{i}\n{g.text()}")
            for w in wrong[:4]:
                print("   ", w)
            sys.stdout.flush()
    print(dict(stats))


if __name__ == "__main__":
    main(*map(int, sys.argv[1:]))
