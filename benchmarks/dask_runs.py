"""One variant of one workload of ``benchmarks/dask_bench.py``, measured in a fresh
process: wall time, CPU seconds, peak memory and task count (:func:`measure` runs
:func:`run_variant` in a new interpreter, through ``dask_bench.py --variant``).

Its peak memory is its own: the kernel's high-water mark of resident memory
(``VmHWM``), reset after the warm-up run (``/proc/self/clear_refs``), of this process
or on a cluster the largest of the workers'; where that reset is refused, resident
memory sampled every 50 ms. Its CPU seconds are, on a cluster, the sum of every task's
thread CPU time from Dask's own worker metrics (:func:`task_times`) and, beside them,
everything the worker processes did (:func:`worker_cpu`: tasks, transfers between
workers, (de)serialisation, the event loop), both of which the machine's load leaves as
they are; on threads, the process's CPU time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
from dask_workloads import WORKLOADS, build

#: The script :func:`measure` runs (its ``--variant`` option calls :func:`run_variant`).
SCRIPT = Path(__file__).with_name("dask_bench.py")


def _high_water(reset: bool) -> int:
    """This process's peak resident bytes (the kernel's ``VmHWM``), after resetting it
    to the current resident memory if ``reset``; -1 where Linux's ``/proc`` does not
    allow it."""
    try:
        if reset:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f
                        if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return -1


class _Peak:
    """The largest resident memory of this process, or of any worker of a client:
    the kernel's high-water mark, reset on entering (exact, nothing sampled: no call
    to the workers while the graph runs), else sampled every 50 ms."""

    def __init__(self, client=None):
        self.client, self.peak, self._stop = client, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.exact = False

    def _marks(self, reset: bool) -> list[int]:
        if self.client is None:
            return [_high_water(reset)]
        return list(self.client.run(_high_water, reset).values())

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
        self.exact = min(self._marks(reset=True)) >= 0
        if not self.exact:
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.exact:
            self.peak = max(self._marks(reset=False))
            return
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
        warm = task_times(client)
        warm_cpu = worker_cpu(client)
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
        after, after_cpu = task_times(client), worker_cpu(client)
        found.update(cpu=after["cpu"] - warm["cpu"],
                     task_wall=after["task_wall"] - warm["task_wall"],
                     workers_cpu=after_cpu["cpu"] - warm_cpu["cpu"],
                     transfers=after_cpu["transfers"] - warm_cpu["transfers"],
                     transfer_mb=(after_cpu["bytes"] - warm_cpu["bytes"]) / 2**20,
                     by_prefix={k: v - warm["by_prefix"].get(k, 0.0)
                                for k, v in after["by_prefix"].items()})
        client.close()
    return found


def task_times(client) -> dict:
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


def worker_cpu(client) -> dict:
    """What the worker processes did, all of it (tasks, transfers between workers,
    (de)serialisation, the event loop): their CPU seconds (user and system, every
    thread), and the results they sent each other (how many, bytes). The tasks' own CPU is
    :func:`task_times`'; what is left is what the scheduling of the graph costs them
    (where two graphs' tasks take the same CPU yet their wall times differ, this says
    whether the workers did more beside them), and it too is the load's to stretch,
    not to add to."""
    def own(dask_worker):
        import psutil

        times = psutil.Process().cpu_times()
        return (times.user + times.system, dask_worker.transfer_outgoing_count_total,
                dask_worker.transfer_outgoing_bytes_total)
    found = list(client.run(own).values())
    return {"cpu": sum(f[0] for f in found), "transfers": sum(f[1] for f in found),
            "bytes": sum(f[2] for f in found)}


def measure(name: str, variant: str, scale: float, cluster: bool, worker_gb: float,
            seed: int | None = None) -> dict:
    """:func:`run_variant` in a fresh Python process, with ``PYTHONHASHSEED=seed`` where
    one is given. The scheduler (in that process, on a LocalCluster) orders the graph
    with ``dask.order``, which breaks ties among keys in an order the hash seed decides:
    the same graph, key for key, is ordered alike in two processes of one seed (and the
    results it holds at once with it), otherwise one process's order is one draw."""
    command = [sys.executable, str(SCRIPT), "--variant", variant, "--only", name,
               "--scale", str(scale), "--worker-gb", str(worker_gb)]
    if cluster:
        command.append("--cluster")
    env = None if seed is None else {**os.environ, "PYTHONHASHSEED": str(seed)}
    out = subprocess.run(command, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"workload": name, "variant": variant, "error": out.stderr.strip()[-400:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def best(runs: list[dict]) -> dict:
    """The run of least total time; its CPU and peak memory the least of the runs
    (each a run's own: the load adds to all three, never takes away); ``totals``
    and ``peaks`` every run's wall time and peak memory, in the order they ran (their
    spread is the load's and the run's: a difference between two variants smaller than
    it is no measurement)."""
    good = [r for r in runs if "error" not in r]
    if not good:
        return runs[0]
    best = dict(min(good, key=lambda r: r["total"]))
    best["totals"] = [r["total"] for r in good]
    best["peaks"] = [r["peak_mb"] for r in good]
    best["peak_mb"] = min(r["peak_mb"] for r in good)
    least = min(good, key=lambda r: r["cpu"])
    for k in ("cpu", "task_wall", "by_prefix", "workers_cpu", "transfers", "transfer_mb"):
        best[k] = least.get(k)
    best["workers_cpu"] = min((r["workers_cpu"] for r in good if "workers_cpu" in r),
                              default=None)
    return best


def load() -> str:
    """The machine's load averages over 1, 5 and 15 minutes (the times are the load's as
    much as the code's on a shared machine)."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())
