"""Real-size array cases of ``make bench``: the memory plan's graphs on arrays of 10^6 and
10^7 elements and an MLP's forward pass, and the same graphs in the other engines a user
might run them with.

``real_size()`` gives the cases ``benchmarks/run.py`` times beside PyTensor and NumPy's own
expression (its table, and the peak memory of a call). ``peers_section()`` times each
case in every engine installed, taking turns round by round: kantensor's Function,
PyTensor's (its C backend), onnxruntime running an ONNX model of the same nodes, JAX's
``jit`` of the same function over ``jax.numpy`` (64-bit floats enabled for the float64
rows), and NumPy's expression; every engine's result is first compared with NumPy's.
Run alone: ``python benchmarks/real_size.py [--rounds 10] [--clock cpu]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import time
import tracemalloc
from collections.abc import Callable
from functools import partial

import numpy as np

import kantensor as kt
from kantensor.backend.mode import current, execution

try:
    import pytensor
    import pytensor.tensor as pt
except ImportError:  # the comparison is optional (the bench extra)
    pytensor = pt = None

try:  # onnxruntime comes with the bench extra, onnx with the onnx one
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    ort = None

try:  # make bench-jax installs it
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = jnp = None

Case = Callable[[], object]


def fourteen_ops(lib: object, x: object, y: object) -> object:
    """The 14-node elementwise graph of issue 26; ``lib`` is numpy, kantensor,
    pytensor.tensor or jax.numpy."""
    z = x * y + 1.0
    z = lib.tanh(z) * 2.0 - y
    z = lib.exp(-z * z) + x
    return lib.sqrt(z * z + 1.0) / (y + 2.0)


def mlp(lib: object, x: object, w1: object, b1: object, w2: object, b2: object) -> object:
    """A two-layer MLP's forward pass."""
    return lib.tanh(x @ w1 + b1) @ w2 + b2


def mlp_arrays() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal(s).astype("float32")
            for s in [(4096, 512), (512, 1024), (1024,), (1024, 512), (512,)]]


def vectors(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The two float64 vectors of the 14-node rows at ``n`` elements."""
    rng = np.random.default_rng(n)
    return rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)


SIZES = ((10**6, "10^6"), (10**7, "10^7"))
MLP_NAME = "compiled MLP forward, 4096x512-1024-512 float32"


def real_size() -> list[tuple[str, Case, Case | None, Case, int]]:
    """(name, kantensor, PyTensor, NumPy, calls per round) of the real-size cases."""
    x, y = kt.dvector("x"), kt.dvector("y")
    f = kt.function([x, y], fourteen_ops(kt, x, y))
    with execution(threads=1):  # the block runs in the calling thread alone
        f1 = kt.function([x, y], fourteen_ops(kt, x, y))
    mv = [kt.fmatrix("x"), kt.fmatrix("w1"), kt.fvector("b1"), kt.fmatrix("w2"),
          kt.fvector("b2")]
    g = kt.function(mv, mlp(kt, *mv))
    if pt is not None:
        px, py = pt.dvector("x"), pt.dvector("y")
        pf = pytensor.function([px, py], fourteen_ops(pt, px, py))
        pv = [pt.fmatrix("x"), pt.fmatrix("w1"), pt.fvector("b1"), pt.fmatrix("w2"),
              pt.fvector("b2")]
        pg = pytensor.function(pv, mlp(pt, *pv))
    cases = []
    for n, power in SIZES:  # one call per round: a round of several is rarely left
        # alone by the scheduler on a shared machine
        a, b = vectors(n)
        assert np.array_equal(f(a, b), fourteen_ops(np, a, b))
        theirs = None
        if pt is not None:
            assert np.allclose(pf(a, b), fourteen_ops(np, a, b))
            theirs = partial(pf, a, b)
        cases.append((f"compiled 14-op elementwise, {power} float64",
                      partial(f, a, b), theirs, partial(fourteen_ops, np, a, b), 1))
        cases.append((f"compiled 14-op elementwise, {power}, one thread",
                      partial(f1, a, b), theirs, partial(fourteen_ops, np, a, b), 1))
    arrays = mlp_arrays()
    assert np.array_equal(g(*arrays), mlp(np, *arrays))
    cases.append((MLP_NAME, lambda: g(*arrays),
                  (lambda: pg(*arrays)) if pt is not None else None,
                  lambda: mlp(np, *arrays), 1))
    return cases


def traced_peak(fn: Case) -> int:
    """Bytes allocated at most at one time during ``fn()`` (tracemalloc)."""
    fn()  # warm-up
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = fn()
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    del result
    return peak


def peak_memory(only: str) -> None:
    print("\npeak memory of a call (tracemalloc, outputs included, inputs not), MB")
    print(f"  {'case':<50} {'kantensor':>10} {'PyTensor':>10} {'NumPy':>10} {'kt/NumPy':>9}")
    for name, ours, theirs, floor, _ in real_size():
        if only not in name:
            continue
        mine, numpy = traced_peak(ours), traced_peak(floor)
        other = f"{traced_peak(theirs) / 1e6:.1f}" if theirs is not None else "-"
        print(f"  {name:<50} {mine / 1e6:>10.1f} {other:>10} {numpy / 1e6:>10.1f} "
              f"{mine / numpy:>8.2f}x", flush=True)


# -- the other engines ------------------------------------------------------------------

def _onnx_session(graph: object) -> object:
    """An onnxruntime session of ``graph`` (default options: every optimisation, its own
    intra-op thread pool)."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10  # what onnxruntime 1.20 and later read
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def onnx_fourteen_ops() -> object:
    """The 14 nodes of :func:`fourteen_ops` as an ONNX model over float64[n] inputs."""
    D = TensorProto.DOUBLE
    steps = [("Mul", ["x", "y"]), ("Add", ["t0", "one"]), ("Tanh", ["t1"]),
             ("Mul", ["t2", "two"]), ("Sub", ["t3", "y"]), ("Neg", ["t4"]),
             ("Mul", ["t5", "t4"]), ("Exp", ["t6"]), ("Add", ["t7", "x"]),
             ("Mul", ["t8", "t8"]), ("Add", ["t9", "one"]), ("Sqrt", ["t10"]),
             ("Add", ["y", "two"]), ("Div", ["t11", "t12"])]
    nodes = [helper.make_node(op, ins, [f"t{k}" if k < len(steps) - 1 else "out"])
             for k, (op, ins) in enumerate(steps)]
    graph = helper.make_graph(
        nodes, "fourteen_ops",
        [helper.make_tensor_value_info(v, D, ["n"]) for v in "xy"],
        [helper.make_tensor_value_info("out", D, ["n"])],
        [numpy_helper.from_array(np.array(1.0), "one"),
         numpy_helper.from_array(np.array(2.0), "two")])
    return _onnx_session(graph)


def onnx_mlp() -> object:
    """:func:`mlp` as an ONNX model (MatMul, Add, Tanh, MatMul, Add) over float32."""
    F = TensorProto.FLOAT
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h0"]),
             helper.make_node("Add", ["h0", "b1"], ["h1"]),
             helper.make_node("Tanh", ["h1"], ["h2"]),
             helper.make_node("MatMul", ["h2", "w2"], ["h3"]),
             helper.make_node("Add", ["h3", "b2"], ["out"])]
    shapes = {"x": ["batch", 512], "w1": [512, 1024], "b1": [1024], "w2": [1024, 512],
              "b2": [512]}
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info(k, F, s) for k, s in shapes.items()],
        [helper.make_tensor_value_info("out", F, ["batch", 512])])
    return _onnx_session(graph)


def _ort_case(session: object, names: str, arrays: list[np.ndarray]) -> Case:
    feeds = dict(zip(names, arrays, strict=True))
    return partial(session.run, None, feeds)


def _jax_case(fn: Callable, arrays: list[np.ndarray]) -> Case:
    """A call of ``jax.jit(fn)`` on device copies of ``arrays`` that waits for its result
    (JAX dispatches asynchronously)."""
    jitted = jax.jit(fn)
    args = [jax.device_put(a) for a in arrays]
    return lambda: jitted(*args).block_until_ready()


ENGINES = ("kantensor", "PyTensor", "onnxruntime", "JAX", "NumPy")
#: The ratio columns' names: each engine's time over kantensor's.
SHORT = {"PyTensor": "PT", "onnxruntime": "ORT", "JAX": "JAX", "NumPy": "NumPy"}


def peer_cases() -> list[tuple[str, dict[str, Case | None]]]:
    """Each real-size case in every engine installed (None where one is not), every
    engine's result checked against NumPy's first."""
    if jax is not None:
        jax.config.update("jax_enable_x64", True)  # the float64 rows stay float64
    rows = []
    for name, ours, theirs, floor, _ in real_size():
        if "one thread" in name:
            continue
        engines: dict[str, Case | None] = {"kantensor": ours, "PyTensor": theirs,
                                           "onnxruntime": None, "JAX": None,
                                           "NumPy": floor}
        if name == MLP_NAME:
            arrays = mlp_arrays()
            if ort is not None:
                engines["onnxruntime"] = _ort_case(onnx_mlp(), ["x", "w1", "b1", "w2", "b2"],
                                                   arrays)
            if jax is not None:
                engines["JAX"] = _jax_case(partial(mlp, jnp), arrays)
            # float32 sums of 1,024 products in another order: values up to about
            # 100 differ by 1e-4 (onnxruntime's MLAS)
            expected, rtol, atol = mlp(np, *arrays), 1e-4, 1e-3
        else:
            n = next(n for n, power in SIZES if power in name)
            arrays = list(vectors(n))
            if ort is not None:
                engines["onnxruntime"] = _ort_case(onnx_fourteen_ops(), ["x", "y"], arrays)
            if jax is not None:
                engines["JAX"] = _jax_case(partial(fourteen_ops, jnp), arrays)
            expected, rtol, atol = fourteen_ops(np, *arrays), 1e-9, 1e-12
        for engine, case in engines.items():
            if case is None:
                continue
            got = case()
            got = got[0] if isinstance(got, list) else got  # onnxruntime: the outputs
            np.testing.assert_allclose(np.asarray(got), expected, rtol=rtol, atol=atol,
                                       err_msg=f"{engine} disagrees with NumPy on {name}")
        rows.append((name, engines))
    return rows


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.2f} s" if seconds >= 0.1 else f"{seconds * 1e3:.1f} ms"


def peers_section(rounds: int = 10, clock: Callable[[], float] = time.perf_counter) -> None:
    """The real-size cases in every engine installed: the best of ``rounds`` single calls,
    the engines taking turns round by round (they see the same load), then each engine's
    time over kantensor's."""
    missing = [name for name, module in (("PyTensor", pt), ("onnxruntime", ort),
                                         ("JAX", jax)) if module is None]
    print(f"\nreal-size arrays in every engine: best of {rounds} rounds of one call each; "
          f"kantensor blocks on up to {current().threads} threads, onnxruntime's and "
          f"XLA's own thread pools; load average {os.getloadavg()[0]:.1f}")
    if missing:
        print(f"  (not installed: {', '.join(missing)}; make bench installs PyTensor and "
              "onnxruntime, make bench-jax JAX)")
    head = f"  {'case':<48}" + "".join(f"{e:>12}" for e in ENGINES) + \
        "".join(f"{SHORT[e] + '/kt':>9}" for e in ENGINES[1:])
    print(head)
    for name, engines in peer_cases():
        best = {e: (None if c is None else float("inf")) for e, c in engines.items()}
        for _ in range(rounds):
            for engine, case in engines.items():
                if case is None:
                    continue
                start = clock()
                case()
                best[engine] = min(best[engine], clock() - start)
        ours = best["kantensor"]
        ratios = ["-" if best[e] is None else f"{best[e] / ours:.2f}x" for e in ENGINES[1:]]
        print(f"  {name.removeprefix('compiled '):<48}"
              + "".join(f"{_fmt(best[e]):>12}" for e in ENGINES)
              + "".join(f"{r:>9}" for r in ratios), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall time, or this process's CPU time (every thread's)")
    args = parser.parse_args()
    peers_section(args.rounds, time.process_time if args.clock == "cpu" else time.perf_counter)


if __name__ == "__main__":
    main()
