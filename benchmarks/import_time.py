"""Start-up cost: ``import kantensor``, ``import kantensor.onnx`` and the ``kantensor onnx
MODEL`` command on a small model (MatMul, Add, Relu with a dynamic batch, built the way
exporters build it), each in a fresh interpreter, beside the floor of the libraries it
imports (NumPy, kanren, Lark, onnx).

Run ``python benchmarks/import_time.py [--runs N]``. Each figure is the best of N runs of
the child's CPU time (user + system: steadier than the wall clock on a shared machine);
the wall time of the best run is shown too. Bytecode is written before timing (a
first run compiles the sources; an installed package ships compiled). Issue 36's goal:
the command under 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def small_model(path: Path) -> None:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    w = numpy_helper.from_array(np.zeros((16, 8), np.float32), "w")
    b = numpy_helper.from_array(np.zeros((8,), np.float32), "b")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Add", ["h", "b"], ["h2"]),
             helper.make_node("Relu", ["h2"], ["y"])]
    graph = helper.make_graph(nodes, "small", [x], [y], [w, b])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              str(path))


def timed(argv: list[str], runs: int) -> tuple[float, float]:
    """(best CPU seconds, wall seconds of that run) of running ``argv``."""
    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    best = (float("inf"), 0.0)
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, (cpu, wall))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="runs of each (the best counts)")
    args = parser.parse_args()
    py = sys.executable
    # What the console script runs (pyproject.toml: cli.run; a tree before it has main).
    cli = [py, "-c", "import sys; from kantensor import cli; sys.argv[0] = 'kantensor'; "
                     "cli.run() if hasattr(cli, 'run') else sys.exit(cli.main())"]
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "small.onnx"
        small_model(model)
        cases = [
            ("python (nothing imported)", [py, "-c", "pass"]),
            ("numpy, kanren, lark, onnx (the floor)",
             [py, "-c", "import numpy, kanren, lark, onnx"]),
            ("import kantensor", [py, "-c", "import kantensor"]),
            ("import kantensor.onnx", [py, "-c", "import kantensor.onnx"]),
            ("kantensor onnx MODEL (3 nodes)", [*cli, "onnx", str(model)]),
        ]
        subprocess.run([py, "-c", "import kantensor.onnx"], check=True,  # write bytecode
                       env={k: v for k, v in os.environ.items()
                            if k != "PYTHONDONTWRITEBYTECODE"})
        print(f"best of {args.runs} runs, CPU seconds (user + system) and that run's wall; "
              f"load average {os.getloadavg()[0]:.1f}")
        for name, argv in cases:
            cpu, wall = timed(argv, args.runs)
            print(f"  {name:<40} {cpu:6.3f} s cpu  {wall:6.3f} s wall")


if __name__ == "__main__":
    main()
