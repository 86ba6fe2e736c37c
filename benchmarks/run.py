"""kantensor benchmarks: graph building, type inference, compiled calls.

Run ``make bench`` (or ``python benchmarks/run.py``). Prints a table of
medians; with PyTensor installed (``pip install pytensor``) the same
workloads run there too for comparison.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np


def median_time(fn: Callable[[], object], repeat: int, number: int = 1) -> float:
    """Median seconds per call over ``repeat`` rounds of ``number`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times)


def kantensor_cases() -> dict[str, Callable[[], object]]:
    import kantensor as kt
    from kantensor.signature import solve

    a = kt.tensor("a", "float64", (None, 3, 4))
    b = kt.tensor("b", "float64", (4, 2))
    x, y = kt.dvector("x"), kt.dvector("y")

    def chain() -> object:
        z = kt.dscalar("z")
        for _ in range(10_000):
            z = z + 1.0
        return z

    def uncached_matmul() -> object:
        solve._infer_cached.cache_clear()
        return a @ b

    def uncached_sum() -> object:
        from kantensor.ops.op import _render

        _render.cache_clear()
        solve._infer_cached.cache_clear()
        return kt.sum(a, axis=-1)

    p, q = kt.dmatrix("p"), kt.dmatrix("q")
    f = kt.function([p, q], p @ q)
    ft = kt.function([p, q], p @ q, trust_input=True)
    m = np.ones((2, 2))
    return {
        "matmul graph build (cached inference)": lambda: a @ b,
        "matmul graph build (uncached inference)": uncached_matmul,
        "sum(axis=-1) graph build (cached)": lambda: kt.sum(a, axis=-1),
        "sum(axis=-1) graph build (uncached render + inference)": uncached_sum,
        "a + b graph build (cached)": lambda: x + y,
        "10,000 chained additions (build)": chain,
        "compiled 2x2 matmul call": lambda: f(m, m),
        "compiled 2x2 matmul call (trust_input)": lambda: ft(m, m),
        "numpy 2x2 matmul (reference)": lambda: m @ m,
    }


def pytensor_cases() -> dict[str, Callable[[], object]] | None:
    try:
        import pytensor
        import pytensor.tensor as pt
    except ImportError:
        return None
    a = pt.tensor("a", dtype="float64", shape=(None, 3, 4))
    b = pt.tensor("b", dtype="float64", shape=(4, 2))
    x, y = pt.dvector("x"), pt.dvector("y")

    def chain() -> object:
        z = pt.dscalar("z")
        for _ in range(10_000):
            z = z + 1.0
        return z

    p, q = pt.dmatrix("p"), pt.dmatrix("q")
    f = pytensor.function([p, q], pt.matmul(p, q))
    m = np.ones((2, 2))
    return {
        "matmul graph build (cached inference)": lambda: pt.matmul(a, b),
        "sum(axis=-1) graph build (cached)": lambda: pt.sum(a, axis=-1),
        "a + b graph build (cached)": lambda: x + y,
        "10,000 chained additions (build)": chain,
        "compiled 2x2 matmul call": lambda: f(m, m),
    }


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 0.1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-4:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    repeat = 3 if args.quick else 7
    ours = kantensor_cases()
    theirs = pytensor_cases() or {}
    rows = []
    for name, fn in ours.items():
        slow = "10,000" in name
        number = 1 if slow else 200
        fn()  # warm-up (fills caches, like a real session)
        t_ours = median_time(fn, repeat, number)
        t_theirs = None
        if name in theirs:
            theirs[name]()
            t_theirs = median_time(theirs[name], repeat if not slow else 1, number)
        rows.append((name, fmt(t_ours), fmt(t_theirs)))
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'kantensor':>12}  {'pytensor':>12}")
    for name, a, b in rows:
        print(f"{name:<{width}}  {a:>12}  {b:>12}")
    if not theirs:
        print("\n(pytensor not installed: pip install pytensor to compare)")


if __name__ == "__main__":
    main()
