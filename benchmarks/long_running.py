"""Figures of long-running use (issue 27): memory of many Dim names after release, memory
while iterating many query answers, and the pickle round trip of a long graph.

Run ``python benchmarks/long_running.py`` (``--help`` for the sizes; the defaults are the
issue's: 10^6 names, 10^6 answers, a 100,000-node graph). Only reports, never asserts.
"""

from __future__ import annotations

import argparse
import gc
import pickle
import resource
import time
import tracemalloc

import numpy as np

import kantensor as kt
from kantensor.graph.basic import Constant
from kantensor.graph.walk import graph_inputs
from kantensor.query import var


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    return float("nan")


def dim_names(n: int) -> None:
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    held = [kt.Dim(f"n{i}") for i in range(n)]
    holding = tracemalloc.get_traced_memory()[0] - base
    del held
    gc.collect()
    after = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    print(f"{n} Dim names: {holding / 2**20:.1f} MB while held, {after / 2**20:.2f} MB "
          f"after release (traced by tracemalloc)")


def query_answers(n: int) -> None:
    start = time.perf_counter()
    rss = _rss_mb()
    count = 0
    for _ in kt.query(kt.add, [var("A"), var("B")], [var("C")]):
        count += 1
        if count >= n:
            break
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{count} answers of query(add, [A, B], [C]) iterated in "
          f"{time.perf_counter() - start:.0f} s: peak RSS {peak:.0f} MB (was {rss:.0f} MB "
          f"before)")


def pickle_round_trip(n: int) -> None:
    x = kt.vector("x", "float64")
    y = x
    for i in range(n):
        y = y + 1.0 if i % 2 else y * 0.5
    start = time.perf_counter()
    data = pickle.dumps(y)
    dumped = time.perf_counter()
    y2 = pickle.loads(data)
    loaded = time.perf_counter()
    (x2,) = [v for v in graph_inputs([y2]) if not isinstance(v, Constant)]
    v = np.linspace(-1, 1, 5)
    same = np.array_equal(kt.function([x], y)(v), kt.function([x2], y2)(v))
    print(f"{n}-node graph: pickle.dumps {dumped - start:.2f} s, pickle.loads "
          f"{loaded - dumped:.2f} s, {len(data) / 2**20:.1f} MB; runs the same: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--names", type=int, default=10**6)
    parser.add_argument("--answers", type=int, default=10**6)
    parser.add_argument("--nodes", type=int, default=100_000)
    args = parser.parse_args()
    pickle_round_trip(args.nodes)
    dim_names(args.names)
    query_answers(args.answers)


if __name__ == "__main__":
    main()
