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
machine's load average (``uptime``'s) at the start, after each workload and at the end.

Besides the wall time (which the machine's load stretches: 2 cores shared by other
work), each run reports CPU seconds: on a cluster, the sum of every task's thread CPU
time from Dask's own worker metrics (:func:`_task_times`), which the load leaves as it
is; on threads, the process's CPU time. The last lines are a table of the ratios
(:func:`table`), as the docs print it.
``python benchmarks/dask_bench.py [--scale 1] [--only einsum,std] [--repeat 2]``;
``--graphs`` compares the two graphs without computing them (:func:`graph_section`);
``--tasks`` times every task on one thread (or ``--cluster``: on one LocalCluster), the
variants in turns (:func:`task_section`).
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
        # the workers' first tasks (imports, first allocations) on the smallest inputs:
        # not what is measured either (their metrics subtracted below)
        client.compute(build(workload, variant, 0.0), sync=True)
        warm = _task_times(client)
    with _Peak(client) as peak:
        cpu = time.process_time()
        start = time.perf_counter()
        outs = build(workload, variant, scale)
        built = time.perf_counter() - start
        tasks = len(HighLevelGraph.merge(*(o.__dask_graph__() for o in outs)))
        values = client.compute(outs, sync=True) if client else \
            dask.compute(*outs, scheduler="threads")
        total = time.perf_counter() - start
        cpu = time.process_time() - cpu
    found = {"workload": name, "variant": variant, "build": built, "total": total,
             "peak_mb": peak.peak / 2**20, "tasks": tasks, "cpu": cpu, "task_wall": None,
             "by_prefix": {},
             "check": [float(np.sum(np.asarray(v, dtype=float))) for v in values]}
    if client is not None:
        after = _task_times(client)
        found.update(cpu=after["cpu"] - warm["cpu"],
                     task_wall=after["task_wall"] - warm["task_wall"],
                     by_prefix={k: v - warm["by_prefix"].get(k, 0.0)
                                for k, v in after["by_prefix"].items()})
        client.close()
    return found


def _task_times(client) -> dict:
    """The seconds the workers' threads spent computing tasks, from Dask's own metrics
    (``Worker.digests_total``: ``("execute", span, prefix, "thread-cpu", "seconds")``, the
    thread's CPU time around each task, and ``"thread-noncpu"``, its wall time less that):
    their sums (``cpu``, ``task_wall``) and the CPU seconds per task prefix. A task's CPU
    time is its own whatever else runs on the machine, where its wall time waits for a
    core under load (a worker's BLAS is one thread: distributed's nanny sets
    OPENBLAS_NUM_THREADS=1)."""
    per_worker = client.run(lambda dask_worker: [
        (k[-3], k[-2], v) for k, v in dask_worker.digests_total.items()
        if isinstance(k, tuple) and k[0] == "execute" and k[-1] == "seconds"
        and k[-2] in ("thread-cpu", "thread-noncpu")])
    cpu = wall = 0.0
    by_prefix: dict[str, float] = {}
    for rows in per_worker.values():
        for prefix, kind, seconds in rows:
            wall += seconds
            if kind == "thread-cpu":
                cpu += seconds
                by_prefix[str(prefix)] = by_prefix.get(str(prefix), 0.0) + seconds
    return {"cpu": cpu, "task_wall": wall, "by_prefix": by_prefix}


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
                 worker_gb: float = 4.0, repeat: int = 1, detail: bool = False) -> None:
    """Print the comparison, one line per workload and variant, the ratios, and a table
    of them at the end (the docs' table)."""
    where = f"LocalCluster 2 x {worker_gb} GB" if cluster else "threads"
    runs = "one run each" if repeat == 1 else f"best of {repeat} runs each, interleaved"
    cpu_is = "task CPU (Dask's thread-cpu of every task)" if cluster else "process CPU"
    print(f"\nDask: kantensor's lowering vs dask.array, scale {scale}, {where}, {runs}; "
          f"{cpu_is}; load average {_load()}", flush=True)
    names = only.split(",") if only else list(WORKLOADS)
    rows = []
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
            task_wall = "" if r.get("task_wall") is None else \
                f" (task wall {r['task_wall']:6.1f} s)"
            print(f"  {name:<10} {r['variant']:<10} total {r['total']:7.2f} s (build "
                  f"{r['build'] * 1e3:6.0f} ms), CPU {r['cpu']:7.1f} s{task_wall}, peak "
                  f"{r['peak_mb']:7.0f} MB, {r['tasks']:6d} tasks")
            if detail:
                top = sorted(r.get("by_prefix", {}).items(), key=lambda kv: -kv[1])[:6]
                print("      " + ", ".join(f"{k} {v:.1f} s" for k, v in top))
        if "error" in ours or "error" in theirs:
            continue
        row = _ratios(name, ours, theirs)
        rows.append(row)
        control = "" if row["inputs"] is None else \
            f" (the inputs' own tasks {row['inputs']:.2f}x)"
        print(f"  {name:<10} kantensor / dask.array: CPU {row['cpu']:.2f}x{control}, time "
              f"{row['time']:.2f}x, peak memory {row['memory']:.2f}x (results "
              f"{'agree' if row['same'] else 'DISAGREE'}; load average {_load()})",
              flush=True)
    print(table(rows, cluster))
    print(f"  (load average {_load()} at the end)")


#: The task prefix of the inputs' blocks (:func:`_inputs`): the same tasks in both
#: variants, their CPU ratio the measurement's own spread (where neither variant fuses
#: them into the tasks that read them).
INPUT_PREFIX = "standard_normal"


def _ratios(name: str, ours: dict, theirs: dict) -> dict:
    """One row of the table: kantensor's figures over dask.array's."""
    a, b = (r.get("by_prefix", {}).get(INPUT_PREFIX) for r in (ours, theirs))
    return {"workload": name, "cpu": ours["cpu"] / theirs["cpu"],
            "inputs": a / b if a and b else None,
            "time": ours["total"] / theirs["total"],
            "memory": ours["peak_mb"] / theirs["peak_mb"],
            "peaks": (ours["peak_mb"], theirs["peak_mb"]),
            "cpus": (ours["cpu"], theirs["cpu"]),
            "tasks": (ours["tasks"], theirs["tasks"]),
            "same": bool(np.allclose(ours["check"], theirs["check"], rtol=1e-6))}


def table(rows: list[dict], cluster: bool) -> str:
    """The ratios as the docs' table (reST, ``kantensor / dask.array`` per column), and
    the worst of each."""
    cpu = "task CPU" if cluster else "CPU"
    head = ("workload", f"{cpu} (s)", f"{cpu}", "inputs' CPU", "wall", "peak/worker (MB)",
            "peak", "tasks")
    body = [(r["workload"], f"{r['cpus'][0]:.1f} / {r['cpus'][1]:.1f}", f"{r['cpu']:.2f}x",
             "" if r.get("inputs") is None else f"{r['inputs']:.2f}x",
             f"{r['time']:.2f}x", f"{r['peaks'][0]:.0f} / {r['peaks'][1]:.0f}",
             f"{r['memory']:.2f}x", "{} / {}".format(*r["tasks"])
             if r["tasks"][0] != r["tasks"][1] else str(r["tasks"][0]))
            for r in rows]
    if rows:
        body.append(("worst", "", f"{max(r['cpu'] for r in rows):.2f}x", "",
                     f"{max(r['time'] for r in rows):.2f}x", "",
                     f"{max(r['memory'] for r in rows):.2f}x", ""))
    widths = [max(len(c) for c in col) for col in zip(head, *body, strict=True)]
    rule = "  " + "  ".join("=" * w for w in widths)
    lines = [("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))).rstrip()
             for r in (head, *body)]
    lines = [rule, lines[0], rule, *lines[1:]]
    return "\n".join([*lines, rule])


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


def task_section(scale: float = 0.1, only: str = "", repeat: int = 3,
                 cluster: bool = False) -> None:
    """Where a workload's CPU differs, which tasks: both variants computed ``repeat``
    times in turns, on the synchronous scheduler in this process (one thread, so each
    task's ``time.thread_time`` is its own) or with ``cluster`` on one LocalCluster of
    two workers (Dask's metrics, as :func:`dask_section` reads them, but the same
    processes for both variants: fresh workers' runs differ by 10-20% in CPU under
    load); per variant the run of least CPU, its total and its costliest task prefixes
    (the graphs' key names: the steps Dask fused into a task)."""
    import dask

    client = None
    if cluster:
        from distributed import Client, LocalCluster

        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None))
    where = "one LocalCluster" if cluster else "one thread"
    print(f"\nDask tasks on {where}: kantensor's lowering / dask.array, scale {scale}, "
          f"least of {repeat} runs each in turns, load average {_load()}", flush=True)
    for name in only.split(",") if only else list(WORKLOADS):
        runs: dict[str, list[tuple[float, dict]]] = {"kantensor": [], "dask.array": []}
        if client is not None:  # the workers' first tasks, for both variants
            for variant in runs:
                client.compute(build(WORKLOADS[name], variant, 0.0), sync=True)
        for _ in range(repeat):
            for variant, found in runs.items():
                if client is None:
                    outs = build(WORKLOADS[name], variant, scale)
                    with _TaskClock() as clock:
                        dask.compute(*outs, scheduler="sync")
                    found.append((clock.total, clock.by_prefix))
                    continue
                before = _task_times(client)
                client.compute(build(WORKLOADS[name], variant, scale), sync=True)
                after = _task_times(client)
                found.append((after["cpu"] - before["cpu"],
                              {k: v - before["by_prefix"].get(k, 0.0)
                               for k, v in after["by_prefix"].items()}))
        (a, pa), (b, pb) = (min(found, key=lambda r: r[0]) for found in runs.values())
        print(f"  {name:<10} CPU {a:.3f} / {b:.3f} s = {a / b:.2f}x", flush=True)
        for label, per in (("kantensor", pa), ("dask.array", pb)):
            top = sorted(per.items(), key=lambda kv: -kv[1])[:5]
            print(f"      {label:<10} " + ", ".join(f"{k} {v:.3f}" for k, v in top))
    if client is not None:
        client.close()


#: What distributed's nanny sets for its workers (a task's BLAS runs on its own thread,
#: whose CPU time ``time.thread_time`` then counts).
_ONE_THREAD = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


class _TaskClock:
    """The thread CPU seconds of every task the synchronous scheduler runs, by prefix
    (Dask's callbacks before and after each task run in its one thread)."""

    def __init__(self):
        from dask.callbacks import Callback

        self.total, self.by_prefix, self._start = 0.0, {}, {}
        self._callback = Callback(pretask=self._pre, posttask=self._post)

    def _pre(self, key, dsk, state) -> None:
        self._start[key] = time.thread_time()

    def _post(self, key, result, dsk, state, worker_id) -> None:
        seconds = time.thread_time() - self._start.pop(key)
        name = key[0] if isinstance(key, tuple) else key
        prefix = str(name).rsplit("-", 1)[0]
        self.by_prefix[prefix] = self.by_prefix.get(prefix, 0.0) + seconds
        self.total += seconds

    def __enter__(self):
        self._callback.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._callback.__exit__(*exc)


def _best(runs: list[dict]) -> dict:
    """The run of least total time; its CPU and peak memory the least of the runs
    (each a run's own: the load adds to all three, never takes away)."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return runs[0]
    best = dict(min(good, key=lambda r: r["total"]))
    best["peak_mb"] = min(r["peak_mb"] for r in good)
    least = min(good, key=lambda r: r["cpu"])
    best["cpu"], best["task_wall"] = least["cpu"], least.get("task_wall")
    best["by_prefix"] = least.get("by_prefix", {})
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
    parser.add_argument("--detail", action="store_true",
                        help="the CPU seconds of each variant's six costliest task prefixes")
    parser.add_argument("--tasks", action="store_true",
                        help="each task's thread CPU on the synchronous scheduler, the "
                             "variants in turns (where the CPU differs, which tasks)")
    parser.add_argument("--graphs", action="store_true",
                        help="compare the graphs only (nothing computed but mask's "
                             "chunk sizes)")
    args = parser.parse_args()
    if args.graphs:
        graph_section(args.scale, args.only)
    elif args.tasks:
        if os.environ.get("OPENBLAS_NUM_THREADS") != "1":  # BLAS on the task's own thread
            os.execve(sys.executable, [sys.executable, *sys.argv],
                      {**os.environ, **dict.fromkeys(_ONE_THREAD, "1")})
        task_section(args.scale, args.only, max(args.repeat, 1), args.cluster)
    elif args.variant:
        print(json.dumps(run_variant(args.only, args.variant, args.scale, args.cluster,
                                     args.worker_gb)))
    else:
        dask_section(args.scale, args.only, args.cluster, args.worker_gb, args.repeat,
                     args.detail)


if __name__ == "__main__":
    main()
