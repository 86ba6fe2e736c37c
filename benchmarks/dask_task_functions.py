"""One fused task of a Dask workload, kantensor's and dask.array's, timed on the same
blocks: where the graphs are the same task for task but the CPU seconds differ, whether
the tasks' own functions do.

Each variant's graph (:mod:`dask_workloads`, at the shapes of :data:`SHAPES`) is
optimised as ``compute`` optimises it; the first task whose key's prefix is the one
asked for (a fused task is named after its last step: ``sum``) is pickled and unpickled
as a worker receives it (kantensor's kernels then are NumPy's own functions composed,
:mod:`kantensor.backend.dask.kernels`), and its inputs computed once. Both variants'
tasks then run in turns, ``--calls`` calls a round, ``--rounds`` rounds, on one thread
(``time.thread_time``, BLAS on one thread); per variant the least seconds per call. The
turns run twice, kantensor's first and then dask.array's first: the one that runs first
in a turn may be the slower, whichever it is, and that spread is the measurement's.
``big`` blocks are the benchmark's; ``tiny`` ones (a few elements) leave only what a
task costs besides NumPy's work on its data.

``python benchmarks/dask_task_functions.py [--only std,reshape,einsum,tensordot,dot]
[--size big|tiny]``
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pickle
import sys
import time

#: Per workload: the task prefix to time, and per size its input shapes and chunks.
SHAPES = {
    "std": ("sum", {"big": (((4000, 4000),), ((2000, 2000),)),
                    "tiny": (((4, 4),), ((2, 2),))}),
    "reshape": ("rechunk-merge-reshape-sum", {"big": (((400_000, 50),), ((100_000, 50),)),
                                              "tiny": (((16, 50),), ((4, 50),))}),
    **{name: ("sum", {"big": (((65536, 64), (65536, 32)), ((32768, 64), (32768, 32))),
                      "tiny": (((8, 4), (8, 2)), ((4, 4), (4, 2)))})
       for name in ("einsum", "tensordot", "dot")},
}

#: What distributed's nanny sets for its workers (a task's BLAS on its own thread).
ONE_THREAD = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def task_of(name: str, variant: str, size: str):
    """The task to time of a variant's optimised graph, as a worker unpickles it, and
    the values of its inputs. (Dask and NumPy load here, after :func:`main` has set
    BLAS to one thread, which NumPy reads as it loads.)"""
    import dask
    from dask.base import collections_to_expr
    from dask_workloads import WORKLOADS, build

    prefix, sizes = SHAPES[name]
    shapes, chunks = sizes[size]
    workload = dataclasses.replace(WORKLOADS[name], shapes=shapes, chunks=chunks)
    tasks = dict(collections_to_expr(build(workload, variant, 1.0),
                                     optimize_graph=True).__dask_graph__())
    key = next(k for k in sorted(tasks, key=str)
               if str(k[0] if isinstance(k, tuple) else k).rsplit("-", 1)[0] == prefix)
    task = tasks[key]
    inputs = list(task.dependencies)
    values = dict(zip(inputs, dask.get(tasks, inputs), strict=True))
    return pickle.loads(pickle.dumps(task, protocol=5)), values


def timed(runs: dict, calls: int, rounds: int) -> dict[str, float]:
    """The least thread CPU seconds per call of each variant's task, in turns in the
    order of ``runs``."""
    least = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for variant, (task, values) in runs.items():
            start = time.thread_time()
            for _ in range(calls):
                task(values)
            least[variant] = min(least[variant], (time.thread_time() - start) / calls)
    return least


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=",".join(SHAPES))
    parser.add_argument("--size", choices=("big", "tiny"), default="big")
    parser.add_argument("--calls", type=int, default=0, help="calls a round (0: by size)")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  {**os.environ, **dict.fromkeys(ONE_THREAD, "1")})
    calls = args.calls or (2 if args.size == "big" else 2000)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"One fused task per variant, {args.size} blocks, least of {args.rounds} rounds "
          f"of {calls} calls, load average {load}")
    for name in args.only.split(","):
        runs = {v: task_of(name, v, args.size) for v in ("kantensor", "dask.array")}
        for first in ("kantensor", "dask.array"):
            order = dict(sorted(runs.items(), key=lambda kv: kv[0] != first))
            least = timed(order, calls, args.rounds)
            a, b = least["kantensor"], least["dask.array"]
            print(f"  {name:<8} {first:<10} first: kantensor {a * 1e6:9.1f} us, dask.array "
                  f"{b * 1e6:9.1f} us a task, {a / b:.3f}x", flush=True)


if __name__ == "__main__":
    main()
