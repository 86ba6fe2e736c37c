"""The Dask lowering beside the same code written with dask.array directly.

A 10-Op graph (:func:`ten_ops`: matmul, tanh, mul, neg, exp, add, sum, max, abs, mean)
over a float64 array of ``--gigabytes`` (2 by default), generated chunk by chunk, run on
Dask's threaded scheduler: once as ``kt.function(..., backend="dask")`` and once as the
same NumPy calls on the Dask array (Dask's own implementations). Each variant runs in a
fresh process, so that its peak memory (Dask's ResourceProfiler, resident memory of the
process sampled every 50 ms) is its own. One run each: the ratio is from that run.

``python benchmarks/dask_bench.py [--gigabytes 2]`` prints the comparison; ``run.py``
calls :func:`dask_section` when dask is installed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

COLUMNS = 64
CHUNK_ROWS = 2**15  # 16 MiB chunks of 64 float64 columns


def ten_ops(x, w):
    """Ten Ops: the same code for kantensor tensors and Dask arrays."""
    h = np.tanh(x @ w)
    z = np.exp(-(h * h)) + h
    return np.sum(z, axis=0), np.max(x, axis=0), np.mean(np.abs(x), axis=0)


def run_variant(variant: str, gigabytes: float) -> dict:
    """Build and compute one variant in this process: seconds, peak memory, result."""
    import dask
    import dask.array as da
    from dask.diagnostics import ResourceProfiler

    import kantensor as kt

    rows = int(gigabytes * 2**30) // (COLUMNS * 8)
    X = da.random.default_rng(0).standard_normal((rows, COLUMNS), chunks=(CHUNK_ROWS, COLUMNS))
    W = np.random.default_rng(1).normal(size=(COLUMNS, 16))
    start = time.perf_counter()
    if variant == "kantensor":
        x = kt.matrix("x", "float64")
        w = kt.matrix("w", "float64")
        outs = kt.function([x, w], list(ten_ops(x, w)), backend="dask")(X, W, chunks=[None, -1])
    else:
        outs = list(ten_ops(X, W))
    build = time.perf_counter() - start
    with ResourceProfiler(dt=0.05) as rprof:
        start = time.perf_counter()
        values = dask.compute(*outs, scheduler="threads")
        run = time.perf_counter() - start
    peak = max((r.mem for r in rprof.results), default=float("nan"))
    return {"variant": variant, "build": build, "run": run, "peak_mb": peak,
            "tasks": sum(len(o.__dask_graph__()) for o in outs),
            "gigabytes": X.nbytes / 2**30,
            "check": [float(np.sum(v)) for v in values]}


def measure(variant: str, gigabytes: float) -> dict:
    """:func:`run_variant` in a fresh Python process."""
    out = subprocess.run([sys.executable, __file__, "--variant", variant, "--gigabytes",
                          str(gigabytes)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def dask_section(gigabytes: float = 2.0) -> None:
    """Print the comparison (one run of each variant)."""
    ours, theirs = measure("kantensor", gigabytes), measure("dask.array", gigabytes)
    print(f"\nDask: a 10-Op graph over a {ours['gigabytes']:.2f} GB float64 array "
          f"({COLUMNS} columns, chunks of {CHUNK_ROWS} rows), threaded scheduler, one run")
    for r in (ours, theirs):
        print(f"  {r['variant']:<10} build {r['build'] * 1e3:7.1f} ms, compute "
              f"{r['run']:6.2f} s, peak memory {r['peak_mb']:7.0f} MB, {r['tasks']} tasks")
    same = np.allclose(ours["check"], theirs["check"], rtol=1e-9)
    print(f"  compute time dask.array / kantensor: {theirs['run'] / ours['run']:.2f} "
          f"(results {'agree' if same else 'DISAGREE'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gigabytes", type=float, default=2.0)
    parser.add_argument("--variant", choices=("kantensor", "dask.array"))
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(run_variant(args.variant, args.gigabytes)))
    else:
        dask_section(args.gigabytes)


if __name__ == "__main__":
    main()
