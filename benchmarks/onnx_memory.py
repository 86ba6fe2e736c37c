"""Memory of ``infer_shapes`` over many distinct models: the resident size of one process
typing N models that differ in their named sizes, element counts and shapes (so no
memo entry of one serves another), printed every N/10 models with the time taken.

Every cache the typing fills is bounded by a number of entries, so the memory grows
until they are full and then stays flat; this script shows where that is.

    .venv/bin/python benchmarks/onnx_memory.py --models 30000

It only reports (no assertion): tests/test_onnx_hostile.py checks that the ONNX caches
hold at most their bounds.
"""

from __future__ import annotations

import argparse
import gc
import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from kantensor.onnx import infer_shapes


def model(i: int) -> bytes:
    """A small model of its own: MatMul, Relu, Reshape, with sizes named after ``i``."""
    w = numpy_helper.from_array(np.ones((i % 97 + 1, 8), np.float32), "w")
    shape = numpy_helper.from_array(np.array([-1, 4 + i % 13], np.int64), "s")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Reshape", ["r", "s"], ["y"])]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                      [f"batch{i}", f"seq{i % 1000}", i % 97 + 1])
    graph = helper.make_graph(nodes, f"g{i}", [x],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [w, shape])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]
                             ).SerializeToString()


def resident_mb() -> float:
    """The resident size of this process (Linux ``/proc``)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=30_000)
    args = parser.parse_args()
    step = max(1, args.models // 10)
    start = time.perf_counter()
    infer_shapes(model(0))
    gc.collect()
    first = resident_mb()
    print(f"{'models':>8} {'resident MB':>12} {'above the first':>16} {'seconds':>8}")
    for i in range(1, args.models + 1):
        infer_shapes(model(i))
        if i % step == 0:
            gc.collect()
            now = resident_mb()
            print(f"{i:>8} {now:>12.1f} {now - first:>16.1f} "
                  f"{time.perf_counter() - start:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
