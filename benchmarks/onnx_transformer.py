"""Time kantensor.onnx.infer_shapes against onnx.shape_inference.infer_shapes on a
transformer-style model built with onnx.helper (symbolic batch and sequence sizes; each
layer splits heads with a Shape -> Gather -> Concat -> Reshape chain, as exported
models do). Run: python benchmarks/onnx_transformer.py [LAYERS]; this is a quick check in
one process (where one tool's run can change the other's time: onnx's was seen to slow
down after kantensor's had run); benchmarks/onnx_compare.py times each tool in fresh
processes of its own, beside onnxruntime's."""

from __future__ import annotations

import sys
import time

import onnx
from onnx_model import transformer

from kantensor.onnx import infer_shapes


def timed(fn, repeat: int = 3) -> tuple[float, float]:
    """The first run's time (kantensor's memos cold) and the best of ``repeat``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times[0], min(times)


def main(layers: int = 50) -> None:
    model = transformer(layers)
    data = model.SerializeToString()
    print(f"{layers} layers, {len(model.graph.node)} nodes")
    kt = timed(lambda: infer_shapes(onnx.load_from_string(data)))
    ref = timed(lambda: onnx.shape_inference.infer_shapes(onnx.load_from_string(data),
                                                          data_prop=True))
    out = infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    print(f"kantensor infer_shapes: first {1000 * kt[0]:.0f} ms, best {1000 * kt[1]:.0f} ms;"
          f" output {[d.dim_param or d.dim_value for d in out]}")
    print(f"onnx infer_shapes (data_prop): first {1000 * ref[0]:.0f} ms, best "
          f"{1000 * ref[1]:.0f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
