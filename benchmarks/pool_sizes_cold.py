"""``infer_shapes`` of SqueezeNet-like pool stacks (tests/exported_models.py
``pool_stack(7)``) with fresh size names at every call, in one process: the code and
the catalogue entries warm after the first call, the sizes cold (new names miss every
memo and every cache of sizes). What a model's first call costs in the builds
themselves (direct builds, the prover, the Dim algebra), without the first use of its
entries; the first call's time is printed too. For a tree other than this one, set
``PYTHONPATH`` to its ``src`` (the model builder is this tree's).

Run: python benchmarks/pool_sizes_cold.py [--models 80] [--pools 7]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import onnx  # noqa: E402

import exported_models as em  # noqa: E402
import kantensor.onnx as ko  # noqa: E402


def renamed(model: onnx.ModelProto, i: int) -> onnx.ModelProto:
    """``model`` with its inputs' size names suffixed by ``i``."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    for value in out.graph.input:
        for d in value.type.tensor_type.shape.dim:
            if d.dim_param:
                d.dim_param = f"{d.dim_param}{i}"
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=80)
    parser.add_argument("--pools", type=int, default=7)
    args = parser.parse_args()
    model, _ = em.pool_stack(pools=args.pools)
    models = [renamed(model, i) for i in range(args.models)]
    gc.disable()  # (each call's garbage is left to one collection after the timing)
    start = time.process_time()
    ko.infer_shapes(models[0])
    first = time.process_time() - start
    times = []
    for m in models[1:]:
        start = time.process_time()
        ko.infer_shapes(m)
        times.append(time.process_time() - start)
    gc.enable()
    print(f"first {first * 1000:.1f} ms; fresh sizes: median "
          f"{statistics.median(times) * 1000:.2f} ms, best {min(times) * 1000:.2f} ms "
          f"(cpu clock, {len(times)} calls)")


if __name__ == "__main__":
    main()
