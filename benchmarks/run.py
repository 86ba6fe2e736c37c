"""kantensor benchmarks: graph building, type inference, compiled calls, memory.

Run ``make bench`` (or ``python benchmarks/run.py``). Every case is timed in one
run beside PyTensor 3.0.7 (the optional ``bench`` extra installs it) and, where a
floor makes sense, beside NumPy's own calls or a pure-Python floor, as the best of
interleaved rounds, and as ratios. Absolute times move with the machine's load; the
ratios are what count. ``--clock cpu`` times the rounds by this process's CPU time
(steadier on a shared machine). The real-size array cases (benchmarks/real_size.py) are
then timed once more in every engine installed: PyTensor, onnxruntime (an ONNX model of the
same nodes), JAX (``make bench-jax`` installs it) and NumPy.
Speed is never asserted in the test suite: this script only reports.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import os
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import kantensor as kt
from kantensor.backend.mode import current
from kantensor.graph.basic import Apply
from kantensor.types.variable import TensorVariable

try:  # the Dask section is optional too (the dask extra)
    import dask  # noqa: F401
    from dask_bench import dask_section
except ImportError:
    dask_section = None

try:  # the ONNX section is optional too (the onnx extra; onnxruntime from the bench one)
    from onnx_compare import report as onnx_section
except ImportError:
    onnx_section = None

try:
    import pytensor
    import pytensor.tensor as pt
except ImportError:  # the comparison is optional
    pytensor = pt = None

from real_size import peak_memory, peers_section, real_size  # noqa: E402

Case = Callable[[], object]

#: The clock of the rounds: wall time, or with ``--clock cpu`` this process's CPU time
#: (``time.process_time``: other processes on a shared machine do not count in it).
CLOCK = time.perf_counter


def best_times(fns: list[Case | None], rounds: int, number: int) -> list[float | None]:
    """Seconds per call of each of ``fns``: the best of ``rounds`` rounds of ``number``
    calls, the functions taking turns round by round, so that they see the same load
    (the machine is shared; the best round is the one least disturbed)."""
    best: list[float | None] = [None if fn is None else float("inf") for fn in fns]
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            if fn is None:
                continue
            start = CLOCK()
            for _ in range(number):
                fn()
            best[i] = min(best[i], (CLOCK() - start) / number)
    return best


@dataclass
class Row:
    """One measured case: kantensor, PyTensor and an optional floor."""

    name: str
    ours: Case
    theirs: Case | None = None
    floor: Case | None = None
    floor_name: str = ""
    number: int = 50  # calls per round
    slow: bool = False  # one call per round, fewer rounds


# -- the pure-Python floor of a cached build ---------------------------------------
# One Variable + one Apply + one dict lookup: what a build costs if inference is a
# memo hit and nothing else happens.

def build_floor(op: object, types: dict, x: object, y: object | None = None) -> Case:
    inputs = [x] if y is None else [x, y]
    key = (x.type,) if y is None else (x.type, y.type)

    def floor() -> object:
        out_type = types[key]
        return Apply(op, list(inputs), [TensorVariable(out_type)]).outputs[0]
    return floor


# -- cached builds ------------------------------------------------------------------

def cached_builds() -> list[Row]:
    x, y = kt.tensor("x", "float64", (None, 3)), kt.tensor("y", "float64", (3, None))
    a, b = kt.fmatrix("a"), kt.fmatrix("b")
    s = kt.tensor("s", "float64", (None, 3, 4))
    m = kt.tensor("m", "float64", (6, 4))
    m2 = kt.tensor("m2", "float64", (2, 4))
    memo = {(x.type, y.type): (x @ y).type, (a.type, b.type): (a + b).type}
    rows = [
        Row("cached build matmul(x, y), x (?,3), y (3,?)", lambda: x @ y,
            floor=build_floor(kt.matmul, memo, x, y), floor_name="floor"),
        Row("cached build a + b, float32 matrices", lambda: a + b,
            floor=build_floor(kt.add, memo, a, b), floor_name="floor"),
        Row("cached build sum(x, axis=-1)", lambda: kt.sum(s, axis=-1),
            floor=build_floor(kt.add, memo, a, b), floor_name="floor"),
        Row("cached build x.reshape(3, -1)", lambda: m.reshape(3, -1),
            floor=build_floor(kt.add, memo, a, b), floor_name="floor"),
        Row("cached build concatenate([x, x2], axis=0)",
            lambda: kt.concatenate([m, m2], axis=0),
            floor=build_floor(kt.add, memo, a, b), floor_name="floor"),
        Row("cached build x[1:, ::2]", lambda: m[1:, ::2],
            floor=build_floor(kt.add, memo, a, b), floor_name="floor"),
    ]
    if pt is not None:
        px, py = pt.tensor("x", dtype="float64", shape=(None, 3)), \
            pt.tensor("y", dtype="float64", shape=(3, None))
        pa, pb = pt.fmatrix("a"), pt.fmatrix("b")
        ps = pt.tensor("s", dtype="float64", shape=(None, 3, 4))
        pm = pt.tensor("m", dtype="float64", shape=(6, 4))
        pm2 = pt.tensor("m2", dtype="float64", shape=(2, 4))
        theirs = [lambda: pt.matmul(px, py), lambda: pa + pb, lambda: pt.sum(ps, axis=-1),
                  lambda: pm.reshape((3, -1)), lambda: pt.concatenate([pm, pm2], axis=0),
                  lambda: pm[1:, ::2]]
        for row, fn in zip(rows, theirs, strict=True):
            row.theirs = fn
    return rows


# -- first builds: input types never seen before (a memo miss) ----------------------

def forget_renders(family: object) -> None:
    """Forget every signature an Op family rendered (its Ops, their renders at each rank
    and any cache of rendered text), as if its input ranks were new; the parsed template
    itself, once per process, is kept."""
    from kantensor.ops import op as op_module
    for name in ("_render_ranks", "_render", "_parse"):
        cache = getattr(op_module, name, None)
        if cache is not None:
            cache.cache_clear()
    family._ops.clear()
    family.forget_calls()


SEQ = kt.Dim("seq")


def first_builds() -> list[Row]:
    """Builds whose input types are new (a new static size per call); ``a + b`` in the
    cases of NumPy broadcasting: one that holds under a condition (an unknown or named
    size against an int) and one that needs none (PyTensor's side: the same with
    None for the named size)."""
    sizes = itertools.count(1000)  # a new static size per call: a new input type

    def ours_matmul() -> object:
        n = next(sizes)
        return kt.tensor(None, "float64", (n, 3)) @ kt.tensor(None, "float64", (3, None))

    def ours_add() -> object:
        n = next(sizes)
        return kt.tensor(None, "float32", (n, None)) + kt.tensor(None, "float32", (None, 1))

    def ours_sum() -> object:
        return kt.sum(kt.tensor(None, "float64", (next(sizes), 3, 4)), axis=-1)

    x4 = kt.tensor(None, "float64", (2, 3, 4, 5))

    def ours_sum_new_rank() -> object:
        forget_renders(kt.sum)
        return kt.sum(x4, axis=(1, 2))

    def ours_add_unknown() -> object:  # an unknown size against an int: a condition
        return kt.tensor(None, "float32", (None, 3)) + \
            kt.tensor(None, "float32", (next(sizes), 3))

    def ours_add_named() -> object:  # a named size against an int: a condition
        return kt.tensor(None, "float32", (SEQ, 3)) + \
            kt.tensor(None, "float32", (next(sizes), 3))

    def ours_add_equal() -> object:  # equal sizes, or 1: no condition
        n = next(sizes)
        return kt.tensor(None, "float32", (n, SEQ, 1)) + \
            kt.tensor(None, "float32", (n, SEQ, 4))

    rows = [Row("first build matmul (memo miss)", ours_matmul, number=5),
            Row("first build a + b (memo miss)", ours_add, number=5),
            Row("first build a + b, ? against an int", ours_add_unknown, number=5),
            Row("first build a + b, a named size against an int", ours_add_named, number=5),
            Row("first build a + b, equal sizes and 1", ours_add_equal, number=5),
            Row("first build sum(axis=-1) (memo miss)", ours_sum, number=5),
            Row("first build sum(axis=(1,2)) at a new rank", ours_sum_new_rank, number=5)]
    if pt is not None:
        def theirs_matmul() -> object:
            n = next(sizes)
            return pt.matmul(pt.tensor(dtype="float64", shape=(n, 3)),
                             pt.tensor(dtype="float64", shape=(3, None)))

        def theirs_add() -> object:
            n = next(sizes)
            return pt.tensor(dtype="float32", shape=(n, None)) + \
                pt.tensor(dtype="float32", shape=(None, 1))

        def theirs_sum() -> object:
            return pt.sum(pt.tensor(dtype="float64", shape=(next(sizes), 3, 4)), axis=-1)

        def theirs_add_unknown() -> object:
            return pt.tensor(dtype="float32", shape=(None, 3)) + \
                pt.tensor(dtype="float32", shape=(next(sizes), 3))

        def theirs_add_equal() -> object:  # PyTensor has no named sizes: None for seq
            n = next(sizes)
            return pt.tensor(dtype="float32", shape=(n, None, 1)) + \
                pt.tensor(dtype="float32", shape=(n, None, 4))

        theirs = [theirs_matmul, theirs_add, theirs_add_unknown, theirs_add_unknown,
                  theirs_add_equal, theirs_sum]
        for row, fn in zip(rows[:6], theirs, strict=True):
            row.theirs = fn
    return rows


# -- chains ---------------------------------------------------------------------------

def kt_chain(n: int) -> object:
    z = kt.dscalar("z")
    for _ in range(n):
        z = z + 1.0
    return z


def pt_chain(n: int) -> object:
    z = pt.dscalar("z")
    for _ in range(n):
        z = z + 1.0
    return z


def chains(with_pytensor_100k: bool) -> list[Row]:
    rows = [Row("10,000 chained z = z + 1.0 (build)", lambda: kt_chain(10_000), slow=True)]
    if pt is not None:
        rows[0].theirs = lambda: pt_chain(10_000)
    if with_pytensor_100k:  # otherwise the 100,000 chain is measured by chain_pipeline
        rows.append(Row("100,000 chained z = z + 1.0 (build)", lambda: kt_chain(100_000),
                        theirs=(lambda: pt_chain(100_000)) if pt is not None else None,
                        slow=True))
    return rows


def chain_pipeline(n: int) -> tuple[float, float, float]:
    """Seconds to build, compile and run an ``n``-node chain (one of each, after
    collecting what earlier cases left)."""
    gc.collect()
    start = time.perf_counter()
    z0 = kt.dscalar("z")
    z = z0
    for _ in range(n):
        z = z + 1.0
    built = time.perf_counter()
    f = kt.function([z0], z)
    compiled = time.perf_counter()
    out = f(0.0)
    ran = time.perf_counter()
    assert float(out) == n, out
    return built - start, compiled - built, ran - compiled


def memory_per_node(make: Callable[[int], object], n: int = 10_000) -> float:
    """Bytes held per node of an ``n``-node chain (tracemalloc, after a warm-up)."""
    make(100)  # fill caches and memos first: they are not per-node costs
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    z = make(n)
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del z
    return (after - before) / n


# -- refine ----------------------------------------------------------------------------

def refine_graphs(n: int) -> list[tuple[str, Callable[[], object]]]:
    """Graphs of about ``n`` nodes whose sizes refine needs the whole graph for: a chain
    of additions whose length is given at the end, and layers tanh(h @ W + b) whose
    batch size is given at the output and reaches the input."""
    def chain() -> object:
        z0 = kt.tensor("z", "float64", shape=(None,))
        z = z0
        for _ in range(n):
            z = z + 1.0
        return lambda: kt.refine(z, given={z: "float64[7]"})

    def layers() -> object:
        h = kt.tensor("x", "float32", shape=(None, None))
        for _ in range(n // 3):
            W = kt.tensor("W", "float32", shape=(16, 16))
            b = kt.tensor("b", "float32", shape=(16,))
            h = kt.tanh(h @ W + b)
        return lambda: kt.refine(h, given={h: "float32[B,16]"})

    return [("chain of additions", chain), ("tanh(h @ W + b) layers", layers)]


def refine_scaling() -> None:
    print("\nrefine: seconds per graph (and per node); 10x the nodes should cost <= 12x")
    for index, name in enumerate(("chain of additions", "tanh(h @ W + b) layers")):
        times = []
        for n in (1_000, 10_000, 100_000):
            run = refine_graphs(n)[index][1]()
            gc.collect()
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        print(f"  {name:<24} " + ", ".join(
            f"{n:,} nodes {t:.3f} s ({t / n * 1e6:.1f} us/node)"
            for n, t in zip((1_000, 10_000, 100_000), times, strict=True)))
        print(f"  {'':<24} time ratios: 10k/1k {times[1] / times[0]:.1f}x, "
              f"100k/10k {times[2] / times[1]:.1f}x")


# -- answers of relational queries -----------------------------------------------------

def _first(n: int, stream: object) -> float:
    start = time.perf_counter()
    for _ in itertools.islice(stream, n):
        pass
    return time.perf_counter() - start


def query_latency() -> None:
    """Seconds to the first answers of large answer sets (issue 21): they come lazily,
    and a kanren run asks the relation once per ground state of the goals before it."""
    from kanren import membero, run
    from unification import var

    from kantensor.types.dtypes import DTYPE_TABLE
    # NumPy's 14 numeric dtypes, as docs/queries.rst says: after six generators over all
    # 26 dtypes (the ml_dtypes ones too) kanren's breadth-first search takes minutes.
    numpy_dtypes = tuple(d.name for d in DTYPE_TABLE if d.package == "numpy" and d.bits)
    print("\nrelational queries: seconds to the first answers")
    names = [var(n) for n in "ABC"]
    sols = kt.query("+(),(),()->()", names, [var("Z")])
    print(f"  query +(),(),()->() with all 3 inputs unknown: first 5 answers "
          f"{_first(5, iter(sols)):.3f} s, the next 195 {_first(195, iter(sols)):.3f} s")
    rel = kt.relation(kt.Signature.parse("+(),(),()->()"))
    for dtypes in (("int8", "uint8", "float32"), numpy_dtypes):
        ds = [var() for _ in range(6)]
        goal = rel(*(kt.pattern(d, (2,)) for d in ds[:3]), kt.pattern(ds[3], (2,)))
        generators = [membero(d, dtypes) for d in ds]
        for order, goals in (("before", [goal, *generators]), ("after", [*generators, goal]),
                             ("after, in relations_first", [kt.relations_first(
                                 *generators, goal)])):
            start = time.perf_counter()
            run(5, tuple(ds), *goals, kt.labelo())
            print(f"  relation {order} six memberos over {len(dtypes)} dtypes: first 5 "
                  f"answers {time.perf_counter() - start:.3f} s")

        def promotes(S: object, ds: list = ds) -> object:  # the floor: kanren's own search
            d = [S.get(v, v) for v in ds[:4]]  # type: ignore[attr-defined]
            try:  # all three at once (promotion does not fold pairwise); some never promote
                promoted = kt.result_type(d[0], d[1], d[2])
            except TypeError:  # kantensor.types.dtypes.PromotionError
                return
            if promoted == d[3]:
                yield S
        start = time.perf_counter()
        run(5, tuple(ds), *generators, promotes)
        print(f"    floor: a Python predicate after them {time.perf_counter() - start:.3f} s")


# -- compiled calls -------------------------------------------------------------------

def ten_ops(lib: object, x: object, y: object) -> object:
    """Ten elementwise operations; ``lib`` is numpy, kantensor or pytensor.tensor."""
    z = x + y
    z = z * x
    z = z - y
    z = z / y
    z = lib.exp(z)
    z = lib.sin(z)
    z = z * z
    z = z + x
    z = lib.abs(z)
    return lib.sqrt(z)


def compiled_calls() -> list[Row]:
    p, q = kt.dmatrix("p"), kt.dmatrix("q")
    f = kt.function([p, q], p @ q)
    ft = kt.function([p, q], p @ q, trust_input=True)
    m = np.ones((2, 2))
    x, y = kt.dvector("x"), kt.dvector("y")
    g = kt.function([x, y], ten_ops(kt, x, y))
    gt = kt.function([x, y], ten_ops(kt, x, y), trust_input=True)
    rng = np.random.default_rng(0)
    u, v = rng.uniform(0.5, 1.5, 10), rng.uniform(0.5, 1.5, 10)
    assert np.allclose(g(u, v), ten_ops(np, u, v))
    rows = [
        Row("compiled 2x2 matmul call", lambda: f(m, m),
            floor=lambda: m @ m, floor_name="NumPy a @ b", number=500),
        Row("compiled 2x2 matmul call, trust_input", lambda: ft(m, m),
            floor=lambda: m @ m, floor_name="NumPy a @ b", number=500),
        Row("compiled 10-op elementwise, 10-element vectors", lambda: g(u, v),
            floor=lambda: ten_ops(np, u, v), floor_name="NumPy's 10 calls", number=500),
        Row("compiled 10-op elementwise, trust_input", lambda: gt(u, v),
            floor=lambda: ten_ops(np, u, v), floor_name="NumPy's 10 calls", number=500),
    ]
    if pt is not None:
        pp, pq = pt.dmatrix("p"), pt.dmatrix("q")
        pf = pytensor.function([pp, pq], pt.matmul(pp, pq))
        pft = pytensor.function([pp, pq], pt.matmul(pp, pq))
        pft.trust_input = True
        px, py = pt.dvector("x"), pt.dvector("y")
        pg = pytensor.function([px, py], ten_ops(pt, px, py))
        pgt = pytensor.function([px, py], ten_ops(pt, px, py))
        pgt.trust_input = True
        assert np.allclose(pg(u, v), ten_ops(np, u, v))
        for row, fn in zip(rows, [lambda: pf(m, m), lambda: pft(m, m), lambda: pg(u, v),
                                  lambda: pgt(u, v)], strict=True):
            row.theirs = fn
    return rows


# -- real-size arrays: the memory plan (benchmarks/real_size.py) ---------------------------

def real_size_rows() -> list[Row]:
    return [Row(name, ours, theirs, floor, "NumPy's own expression", number)
            for name, ours, theirs, floor, number in real_size()]


# -- report ---------------------------------------------------------------------------

def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 0.1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} us"


def ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None else f"{a / b:.2f}x"


def measure(row: Row, rounds: int) -> list[float | None]:
    fns = [row.ours, row.theirs, row.floor]
    if row.slow:
        return best_times(fns, max(1, rounds // 10), 1)
    for fn in fns:
        if fn is not None:
            fn()  # warm-up: fills caches, like a real session
    # What is alive now (the graphs and compiled functions of every case) is moved out of
    # the collector's sight: a full collection then scans only what the rounds made.
    # Otherwise its cost, set by everything the script holds, lands in whichever round
    # crosses the threshold, and rounds repeat the same allocations, so the same one:
    # a floor of 7 us beside others of 2.5 us, in every round.
    gc.collect()
    gc.freeze()
    try:
        return best_times(fns, rounds, row.number)
    finally:
        gc.unfreeze()  # the next row collects what this one left


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--pytensor-100k", action="store_true",
                        help="also build PyTensor's 100,000-node chain (about two minutes)")
    parser.add_argument("--only", default="",
                        help="only the cases whose name contains this ('dask': the Dask "
                             "section only; 'onnx': the ONNX section only)")
    parser.add_argument("--dask-scale", type=float, default=1.0,
                        help="scale of the Dask section's nine workloads (1: full size, "
                             "0: skip that section)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time the rows' rounds by the wall clock or by this process's "
                             "CPU time (time.process_time: steadier on a shared machine; "
                             "it adds up every thread's time)")
    args = parser.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    rounds = 10 if args.quick else 30
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))  # PyTensor's chains
    versions = f"kantensor {kt.__version__}, NumPy {np.__version__}, " \
               f"Python {platform.python_version()}"
    versions += f", PyTensor {pytensor.__version__}" if pytensor else " (PyTensor not installed)"
    print(versions)
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}, {platform.system()} "
          f"{platform.machine()}; load average {os.getloadavg()[0]:.1f} at the start; "
          f"block runs on up to {current().threads} threads")
    rows = cached_builds() + first_builds() + chains(args.pytensor_100k) + compiled_calls()
    rows += real_size_rows()
    head = f"{'case':<50} {'kantensor':>10} {'PyTensor':>10} {'PT/kt':>8}  " \
           f"{'floor':>10} {'kt/floor':>8}  floor is"
    print(head)
    print("-" * len(head))
    for row in rows:
        if args.only not in row.name:
            continue
        ours, theirs, floor = measure(row, rounds)
        print(f"{row.name:<50} {fmt(ours):>10} {fmt(theirs):>10} {ratio(theirs, ours):>8}  "
              f"{fmt(floor):>10} {ratio(ours, floor):>8}  {row.floor_name}", flush=True)
    if "compiled" in args.only or not args.only:
        peak_memory(args.only)
        peers_section(rounds // 3, CLOCK)
    if args.only:
        if args.only == "dask" and dask_section is not None:  # --only dask: that section
            dask_section(args.dask_scale)
        if args.only == "onnx" and onnx_section is not None:
            onnx_section()
        return
    small = chain_pipeline(10_000)
    large = chain_pipeline(100_000)
    print("\nchain of z = z + 1.0: build / compile / run, seconds (and per node)")
    for n, times in ((10_000, small), (100_000, large)):
        parts = ", ".join(f"{what} {t:.2f} s ({t / n * 1e6:.1f} us/node)"
                          for what, t in zip(("build", "compile", "run"), times, strict=True))
        print(f"  {n:>7,} nodes: {parts}")
    print("  100,000 / 10,000 per-node ratio: " + ", ".join(
        f"{what} {b / 10 / a:.2f}" for what, a, b in zip(("build", "compile", "run"), small,
                                                            large, strict=True)))
    refine_scaling()
    query_latency()
    ours_mem = memory_per_node(kt_chain)
    theirs_mem = memory_per_node(pt_chain) if pt is not None else None
    print(f"\nmemory held per chain node (tracemalloc, 10,000 nodes): kantensor "
          f"{ours_mem:,.0f} bytes" + (f", PyTensor {theirs_mem:,.0f} bytes "
                                      f"({theirs_mem / ours_mem:.2f}x)" if theirs_mem else ""))
    if dask_section is not None and args.dask_scale > 0:
        dask_section(args.dask_scale)
    elif dask_section is None:
        print("\n(dask not installed: pip install -e '.[dask]' for the Dask section)")
    if onnx_section is not None:
        onnx_section()
    else:
        print("\n(onnx not installed: pip install -e '.[onnx,bench]' for the ONNX section)")
    if pt is None:
        print("\n(PyTensor not installed: pip install -e '.[bench]' to compare)")


if __name__ == "__main__":
    main()
