"""The Dask lowering beside the same work written with dask.array (or xarray) directly.

Nine workloads (:data:`dask_workloads.WORKLOADS`), each a kantensor graph compiled with
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

Each variant runs in a fresh process (its peak memory its own: the kernel's high-water
mark of resident memory, reset after a warm-up run; on a cluster, the largest of the
workers'). ``--scale`` multiplies
the sizes (1: full size, about 1-3 GB of input per workload); ``--cluster`` runs on a
LocalCluster of 2 worker processes x ``--worker-gb`` GB. One run each (``--repeat N``:
the best of N, the variants interleaved, both runs of a turn with the turn's number as
``PYTHONHASHSEED``, so that ``dask.order`` breaks ties alike in both): ratios are from
those runs, printed with the
machine's load average (``uptime``'s) at the start, after each workload and at the end.

Besides the wall time (which the machine's load stretches: 2 cores shared by other
work), each run reports CPU seconds: on a cluster, the sum of every task's thread CPU
time from Dask's own worker metrics (:func:`dask_runs.task_times`), which the load leaves as it
is, and the worker processes' CPU in all (tasks, transfers, (de)serialisation: what
scheduling the graph costs beside the tasks); on threads, the process's CPU time. With
``--repeat``, every run's wall time is printed: their spread within one variant is the
load's, and a difference between the variants below it is no measurement. The last lines
are a table of the ratios (:func:`table`), as the docs print it.
``python benchmarks/dask_bench.py [--scale 1] [--only einsum,std] [--repeat 2]``;
``--graphs`` compares the two graphs without computing them (:func:`graph_section`);
``--tasks`` times every task on one thread (or ``--cluster``: on one LocalCluster), the
variants in turns (:func:`task_section`).

Three modules, one job each: :mod:`dask_workloads` (the workloads and both variants'
graphs), :mod:`dask_runs` (one variant measured in a fresh process, which runs this
script with ``--variant``) and this one (the comparisons printed, the command line).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np
from dask_runs import best, load, measure, run_variant, task_times
from dask_workloads import WORKLOADS, build


def dask_section(scale: float = 1.0, only: str = "", cluster: bool = False,
                 worker_gb: float = 4.0, repeat: int = 1, detail: bool = False) -> None:
    """Print the comparison, one line per workload and variant, the ratios, and a table
    of them at the end (the docs' table)."""
    where = f"LocalCluster 2 x {worker_gb} GB" if cluster else "threads"
    runs = "one run each" if repeat == 1 else \
        f"best of {repeat} runs each, interleaved, who goes first alternating"
    cpu_is = "task CPU (Dask's thread-cpu of every task)" if cluster else "process CPU"
    print(f"\nDask: kantensor's lowering vs dask.array, scale {scale}, {where}, {runs}; "
          f"{cpu_is}; load average {load()}", flush=True)
    names = only.split(",") if only else list(WORKLOADS)
    rows = []
    for name in names:
        found: dict[str, list[dict]] = {"kantensor": [], "dask.array": []}
        # who goes first alternates: in a full run kantensor's went first in every turn,
        # and its wall times were the higher in 7 of 9 workloads (docs/dask.rst); both
        # runs of a turn have the turn's hash seed, so that dask.order breaks ties alike
        # in both (:func:`dask_runs.measure`)
        for turn in range(repeat):
            for v in list(found)[::1 if turn % 2 == 0 else -1]:
                found[v].append(measure(name, v, scale, cluster, worker_gb, seed=turn))
        ours, theirs = (best(found[v]) for v in found)
        for r in (ours, theirs):
            if "error" in r:
                print(f"  {name:<10} {r['variant']:<10} FAILED: {r['error']}")
                continue
            task_wall = "" if r.get("task_wall") is None else \
                f" (task wall {r['task_wall']:6.1f} s)"
            runs = "" if len(r.get("totals", ())) < 2 else \
                " (runs " + ", ".join(f"{t:.1f}" for t in r["totals"]) + ")"
            peaks = "" if len(r.get("peaks", ())) < 2 else \
                " (runs " + ", ".join(f"{p:.0f}" for p in r["peaks"]) + ")"
            print(f"  {name:<10} {r['variant']:<10} total {r['total']:7.2f} s{runs} (build "
                  f"{r['build'] * 1e3:6.0f} ms), CPU {r['cpu']:7.1f} s{task_wall}, peak "
                  f"{r['peak_mb']:7.0f} MB{peaks}, {r['tasks']:6d} tasks")
            if detail:
                top = sorted((r.get("by_prefix") or {}).items(), key=lambda kv: -kv[1])[:6]
                print("      " + ", ".join(f"{k} {v:.1f} s" for k, v in top))
                if r.get("workers_cpu") is not None:
                    print(f"      workers' processes {r['workers_cpu']:.1f} s CPU in all, "
                          f"{r['transfers']} results sent between them "
                          f"({r['transfer_mb']:.0f} MB)")
        if "error" in ours or "error" in theirs:
            continue
        row = _ratios(name, ours, theirs)
        rows.append(row)
        control = "" if row["inputs"] is None else \
            f" (the inputs' own tasks {row['inputs']:.2f}x)"
        spread = "" if row["spread"] is None else \
            f" (one variant's runs differ by up to {row['spread']:.2f}x)"
        print(f"  {name:<10} kantensor / dask.array: CPU {row['cpu']:.2f}x{control}, time "
              f"{row['time']:.2f}x{spread}, peak memory {row['memory']:.2f}x (results "
              f"{'agree' if row['same'] else 'DISAGREE'}; load average {load()})",
              flush=True)
    print(table(rows, cluster))
    print(f"  (load average {load()} at the end)")


#: The task prefix of the inputs' blocks (:func:`dask_workloads.inputs`): the same tasks in both
#: variants, their CPU ratio the measurement's own spread (where neither variant fuses
#: them into the tasks that read them).
INPUT_PREFIX = "standard_normal"


def _ratios(name: str, ours: dict, theirs: dict) -> dict:
    """One row of the table: kantensor's figures over dask.array's."""
    a, b = ((r.get("by_prefix") or {}).get(INPUT_PREFIX) for r in (ours, theirs))
    c, d = (r.get("workers_cpu") for r in (ours, theirs))
    spreads = [max(r["totals"]) / min(r["totals"]) for r in (ours, theirs)
               if len(r.get("totals", ())) > 1]
    return {"workload": name, "cpu": ours["cpu"] / theirs["cpu"],
            "inputs": a / b if a and b else None,
            "workers": c / d if c and d else None,
            "time": ours["total"] / theirs["total"],
            "spread": max(spreads, default=None),
            "memory": ours["peak_mb"] / theirs["peak_mb"],
            "peaks": (ours["peak_mb"], theirs["peak_mb"]),
            "cpus": (ours["cpu"], theirs["cpu"]),
            "tasks": (ours["tasks"], theirs["tasks"]),
            "same": bool(np.allclose(ours["check"], theirs["check"], rtol=1e-6))}


def table(rows: list[dict], cluster: bool) -> str:
    """The ratios as the docs' table (reST, ``kantensor / dask.array`` per column), and
    the worst of each; a column no run measured (the workers' CPU on threads, the
    spread of one run) left out."""
    cpu = "task CPU" if cluster else "CPU"
    head = ("workload", f"{cpu} (s)", f"{cpu}", "inputs' CPU", "workers' CPU", "wall",
            "wall spread", "peak/worker (MB)", "peak", "tasks")

    def ratio(x):
        return "" if x is None else f"{x:.2f}x"
    body = [(r["workload"], f"{r['cpus'][0]:.1f} / {r['cpus'][1]:.1f}", f"{r['cpu']:.2f}x",
             ratio(r.get("inputs")), ratio(r.get("workers")), f"{r['time']:.2f}x",
             ratio(r.get("spread")), f"{r['peaks'][0]:.0f} / {r['peaks'][1]:.0f}",
             f"{r['memory']:.2f}x", "{} / {}".format(*r["tasks"])
             if r["tasks"][0] != r["tasks"][1] else str(r["tasks"][0]))
            for r in rows]
    if rows:
        workers = [r["workers"] for r in rows if r.get("workers") is not None]
        body.append(("worst", "", f"{max(r['cpu'] for r in rows):.2f}x", "",
                     ratio(max(workers, default=None)), f"{max(r['time'] for r in rows):.2f}x",
                     "", "", f"{max(r['memory'] for r in rows):.2f}x", ""))
    keep = [j for j in range(len(head)) if j == 0 or any(r[j] for r in body)]
    head, body = tuple(head[j] for j in keep), [tuple(r[j] for j in keep) for r in body]
    widths = [max(len(c) for c in col) for col in zip(head, *body, strict=True)]
    rule = "  " + "  ".join("=" * w for w in widths)
    lines = [("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True))).rstrip()
             for r in (head, *body)]
    lines = [rule, lines[0], rule, *lines[1:]]
    return "\n".join([*lines, rule])


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
          f"least of {repeat} runs each in turns, load average {load()}", flush=True)
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
                before = task_times(client)
                client.compute(build(WORKLOADS[name], variant, scale), sync=True)
                after = task_times(client)
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
