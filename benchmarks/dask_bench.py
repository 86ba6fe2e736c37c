"""The Dask lowering beside the same work written with dask.array (or xarray) directly.

Nine workloads (:data:`WORKLOADS`), each a kantensor graph compiled with
``backend="dask"`` and its dask.array counterpart, on the same generated inputs:

* ``ten_ops``: matmul, tanh, mul, neg, exp, add, sum, max, abs, mean over a tall array;
* ``einsum``, ``tensordot``, ``dot``: ``X.T @ Y`` over the rows (contracted, chunked);
* ``std``: a square array standardised along its columns (mean, std), summed by rows;
* ``diff_trace``: ``diff`` along the rows (overlapping chunks) and ``trace``;
* ``reshape``: ``reshape(concatenate([x[::2], x[1::2]], 1), (-1, C))``, which Dask
  refuses in one pass: kantensor with ``allow_rechunk=True``, dask.array as its error
  message suggests (two passes);
* ``mask``: rows kept by a mask, then flattened (which needs their sizes): kantensor
  with ``compute_chunk_sizes=True``, dask.array with ``compute_chunk_sizes()``;
* ``xarray``: a dask-backed DataArray standardised along time (xarray's own methods).

Each variant runs in a fresh process (its peak memory its own: resident memory sampled
every 50 ms; on a cluster, the largest of the workers' peaks). ``--scale`` multiplies
the sizes (1: full size, about 1-3 GB of input per workload); ``--cluster`` runs on a
LocalCluster of 2 worker processes x ``--worker-gb`` GB. One run each (``--repeat N``:
the best of N, the variants interleaved): ratios are from those runs, printed with the
machine's load average at the start and the end.
``python benchmarks/dask_bench.py [--scale 1] [--only einsum,std] [--repeat 2]``;
``--graphs`` compares the two graphs without computing them (:func:`graph_section`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


def ten_ops(x, w):
    """Ten Ops: the same code for kantensor tensors and Dask arrays."""
    h = np.tanh(x @ w)
    z = np.exp(-(h * h)) + h
    return np.sum(z, axis=0), np.max(x, axis=0), np.mean(np.abs(x), axis=0)


def standardised(x):
    return np.sum((x - np.mean(x, axis=0)) / np.std(x, axis=0), axis=1)


@dataclass(frozen=True)
class Workload:
    """Inputs (shapes at scale 1, row chunks), the kantensor graph and the dask.array code."""

    name: str
    shapes: tuple[tuple[int, ...], ...]
    chunks: tuple[tuple[int, ...], ...]
    kantensor: Callable  # (kt, *tensor inputs) -> outputs, options for kt.function
    dask_array: Callable  # (da, *dask inputs) -> outputs

    def sized(self, scale: float) -> tuple[tuple[int, ...], ...]:
        """The shapes at ``scale``: the rows of every input that has chunks of rows
        (a small weight matrix stays as it is)."""
        return tuple((max(int(s[0] * scale), 2 * c[0]),) + s[1:] if c[0] < s[0] else s
                     for s, c in zip(self.shapes, self.chunks, strict=True))


def _xt_y(how):
    def build(kt, x, y):
        if how == "einsum":
            return [kt.einsum("ij,ik->jk", x, y)], {}
        if how == "tensordot":
            return [kt.tensordot(x, y, axes=([0], [0]))], {}
        return [kt.dot(kt.matrix_transpose(x), y)], {}

    def theirs(da, x, y):
        if how == "einsum":
            return [da.einsum("ij,ik->jk", x, y)]
        if how == "tensordot":
            return [da.tensordot(x, y, axes=([0], [0]))]
        return [da.dot(x.T, y)]
    return build, theirs


def _reshape_kt(kt, x):
    y = kt.reshape(kt.concatenate([x[::2], x[1::2]], axis=1), (-1, 50))
    return [kt.sum(y * y, axis=0)], {"allow_rechunk": True}


def _reshape_da(da, x):
    y = da.concatenate([x[::2], x[1::2]], axis=1)
    y = y.reshape((y.shape[0], 2, 50)).reshape((-1, 50))  # Dask's two passes
    return [(y * y).sum(axis=0)]


def _mask_kt(kt, x):
    kept = x[x[:, 0] > 0]
    return [kt.sum(kt.reshape(kept, (-1,)) ** 2)], {"compute_chunk_sizes": True}


def _mask_da(da, x):
    kept = x[x[:, 0] > 0]
    kept.compute_chunk_sizes()
    return [(kept.reshape((-1,)) ** 2).sum()]


_E, _ET = _xt_y("einsum")
_T, _TT = _xt_y("tensordot")
_D, _DT = _xt_y("dot")

WORKLOADS = {w.name: w for w in [
    Workload("ten_ops", ((4_000_000, 64), (64, 16)), ((32768, 64), (64, 16)),
             lambda kt, x, w: (list(ten_ops(x, w)), {}),
             lambda da, x, w: list(ten_ops(x, w))),
    Workload("einsum", ((2_000_000, 64), (2_000_000, 32)), ((32768, 64), (32768, 32)), _E, _ET),
    Workload("tensordot", ((2_000_000, 64), (2_000_000, 32)), ((32768, 64), (32768, 32)),
             _T, _TT),
    Workload("dot", ((2_000_000, 64), (2_000_000, 32)), ((32768, 64), (32768, 32)), _D, _DT),
    Workload("std", ((20_000, 20_000),), ((2_000, 2_000),),
             lambda kt, x: ([standardised(x)], {}), lambda da, x: [standardised(x)]),
    Workload("diff_trace", ((20_000, 20_000),), ((2_000, 2_000),),
             lambda kt, x: ([kt.sum(kt.diff(x, axis=0), axis=1), kt.trace(x)], {}),
             lambda da, x: [da.diff(x, axis=0).sum(axis=1), da.trace(x)]),
    Workload("reshape", ((6_000_000, 50),), ((100_000, 50),), _reshape_kt, _reshape_da),
    Workload("mask", ((6_000_000, 50),), ((100_000, 50),), _mask_kt, _mask_da),
    Workload("xarray", ((10_000, 20_000),), ((1_000, 20_000),), None, None),
]}


def _inputs(workload: Workload, scale: float) -> list:
    import dask.array as da

    rng = da.random.default_rng(0)
    shapes = workload.sized(scale)
    chunks = [(min(c[0], s[0]),) + tuple(min(a, b) for a, b in zip(c[1:], s[1:], strict=True))
              for s, c in zip(shapes, workload.chunks, strict=True)]
    return [rng.standard_normal(s, chunks=c) for s, c in zip(shapes, chunks, strict=True)]


def build(workload: Workload, variant: str, scale: float) -> list:
    """The lazy outputs of one variant of a workload (nothing computed but what the
    variant itself asks for while building: dask.array's compute_chunk_sizes)."""
    import dask.array as da
    import xarray as xr

    import kantensor as kt

    inputs = _inputs(workload, scale)
    if workload.name == "xarray":
        arr = xr.DataArray(inputs[0], dims=("time", "lat"))
        if variant == "dask.array":
            return [((arr - arr.mean("time")) / arr.std("time")).sum("lat").data]
        x = kt.TensorType.parse("float64[time,lat]")("x")
        f = kt.function([x], standardised(x), backend="dask")
        return [f(arr).data]
    if variant == "dask.array":
        return workload.dask_array(da, *inputs)
    tensors = [kt.TensorType("float64", (None,) * len(s))(f"x{i}")
               for i, s in enumerate(workload.shapes)]
    outs, options = workload.kantensor(kt, *tensors)
    return kt.function(tensors, outs, backend="dask", **options)(*inputs)


class _Peak:
    """The largest resident memory of this process, or of any worker of a client."""

    def __init__(self, client=None):
        self.client, self.peak, self._stop = client, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> int:
        import psutil

        if self.client is None:
            return psutil.Process().memory_info().rss
        return max(self.client.run(lambda: __import__("psutil").Process().memory_info().rss
                                   ).values())

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self._sample())
            time.sleep(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def run_variant(name: str, variant: str, scale: float, cluster: bool, worker_gb: float) -> dict:
    """Build and compute one variant in this process: seconds, peak memory, tasks."""
    import dask
    from dask.highlevelgraph import HighLevelGraph

    workload = WORKLOADS[name]
    build(workload, variant, 0.0)  # imports and first builds: not what is measured
    client = None
    if cluster:
        from distributed import Client, LocalCluster

        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     memory_limit=f"{worker_gb}GB", dashboard_address=None))
    with _Peak(client) as peak:
        start = time.perf_counter()
        outs = build(workload, variant, scale)
        built = time.perf_counter() - start
        tasks = len(HighLevelGraph.merge(*(o.__dask_graph__() for o in outs)))
        values = client.compute(outs, sync=True) if client else \
            dask.compute(*outs, scheduler="threads")
        total = time.perf_counter() - start
    if client is not None:
        client.close()
    return {"workload": name, "variant": variant, "build": built, "total": total,
            "peak_mb": peak.peak / 2**20, "tasks": tasks,
            "check": [float(np.sum(np.asarray(v, dtype=float))) for v in values]}


def measure(name: str, variant: str, scale: float, cluster: bool, worker_gb: float) -> dict:
    """:func:`run_variant` in a fresh Python process."""
    command = [sys.executable, __file__, "--variant", variant, "--only", name,
               "--scale", str(scale), "--worker-gb", str(worker_gb)]
    if cluster:
        command.append("--cluster")
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        return {"workload": name, "variant": variant, "error": out.stderr.strip()[-400:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def dask_section(scale: float = 1.0, only: str = "", cluster: bool = False,
                 worker_gb: float = 4.0, repeat: int = 1) -> None:
    """Print the comparison, one line per workload and variant, and the ratios."""
    where = f"LocalCluster 2 x {worker_gb} GB" if cluster else "threads"
    runs = "one run each" if repeat == 1 else f"best of {repeat} runs each, interleaved"
    print(f"\nDask: kantensor's lowering vs dask.array, scale {scale}, {where}, {runs}, "
          f"load average {_load()}", flush=True)
    names = only.split(",") if only else list(WORKLOADS)
    worst_time = worst_memory = 0.0
    for name in names:
        found: dict[str, list[dict]] = {"kantensor": [], "dask.array": []}
        for _ in range(repeat):
            for v in found:
                found[v].append(measure(name, v, scale, cluster, worker_gb))
        ours, theirs = (_best(found[v]) for v in found)
        for r in (ours, theirs):
            if "error" in r:
                print(f"  {name:<10} {r['variant']:<10} FAILED: {r['error']}")
                continue
            print(f"  {name:<10} {r['variant']:<10} total {r['total']:7.2f} s (build "
                  f"{r['build'] * 1e3:6.0f} ms), peak {r['peak_mb']:7.0f} MB, "
                  f"{r['tasks']:6d} tasks")
        if "error" in ours or "error" in theirs:
            continue
        same = np.allclose(ours["check"], theirs["check"], rtol=1e-6)
        t, m = ours["total"] / theirs["total"], ours["peak_mb"] / theirs["peak_mb"]
        worst_time, worst_memory = max(worst_time, t), max(worst_memory, m)
        print(f"  {name:<10} kantensor / dask.array: time {t:.2f}x, peak memory {m:.2f}x "
              f"(results {'agree' if same else 'DISAGREE'})", flush=True)
    print(f"  worst ratios: time {worst_time:.2f}x, peak memory {worst_memory:.2f}x "
          f"(load average {_load()} at the end)")


def _load() -> str:
    """The machine's load averages over 1, 5 and 15 minutes (the times are the load's as
    much as the code's on a shared machine)."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def graph_section(scale: float = 0.01, only: str = "") -> None:
    """Compare the two variants' graphs, computing nothing but what a variant computes
    while building (``mask``'s chunk sizes): cheap, and the same on every run. Tasks as
    built and as ``compute`` optimises them, the most results
    ``dask.order``'s order holds at once (``dask.order.diagnostics``: a task's result
    held until its last reader has run, as one thread runs them) and the largest block."""
    import dask.order
    from dask.base import collections_to_expr
    from dask.highlevelgraph import HighLevelGraph

    print(f"\nDask graphs: kantensor's lowering / dask.array, scale {scale}", flush=True)
    for name in only.split(",") if only else list(WORKLOADS):
        found = []
        for variant in ("kantensor", "dask.array"):
            outs = build(WORKLOADS[name], variant, scale)
            graph = HighLevelGraph.merge(*(o.__dask_graph__() for o in outs))
            tasks = dict(collections_to_expr(outs, optimize_graph=True).__dask_graph__())
            _, held = dask.order.diagnostics(tasks)
            blocks = [math.prod(max(c, default=0) for c in notes["chunks"])
                      * np.dtype(notes["dtype"]).itemsize
                      for notes in (layer.collection_annotations or {}
                                    for layer in graph.layers.values())
                      if "chunks" in notes and "dtype" in notes]
            found.append((len(graph), len(tasks), max(held, default=0),
                          max(blocks, default=0) / 2**20))
        (a, b, c, d), (e, f, g, h) = found
        print(f"  {name:<10} tasks {a}/{e}, optimised {b}/{f}, most results held {c}/{g}, "
              f"largest block {d:.1f}/{h:.1f} MiB", flush=True)


def _best(runs: list[dict]) -> dict:
    """The run of least total time (peak memory: the least too, each a run's own)."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return runs[0]
    best = dict(min(good, key=lambda r: r["total"]))
    best["peak_mb"] = min(r["peak_mb"] for r in good)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", default="", help="workloads, comma-separated")
    parser.add_argument("--cluster", action="store_true")
    parser.add_argument("--worker-gb", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=1, help="best of this many runs")
    parser.add_argument("--variant", choices=("kantensor", "dask.array"))
    parser.add_argument("--graphs", action="store_true",
                        help="compare the graphs only (nothing computed but mask's "
                             "chunk sizes)")
    args = parser.parse_args()
    if args.graphs:
        graph_section(args.scale, args.only)
    elif args.variant:
        print(json.dumps(run_variant(args.only, args.variant, args.scale, args.cluster,
                                     args.worker_gb)))
    else:
        dask_section(args.scale, args.only, args.cluster, args.worker_gb, args.repeat)


if __name__ == "__main__":
    main()
