"""Time ``kantensor.onnx.contract`` (issue 33's target: under one second each) on the nine
light models of the onnx wheel (opset 17, their image input named ``(N, 3, H, W)``) and on
benchmarks/onnx_model.py's transformer (symbolic batch and sequence sizes; ``--layers``,
default 34: about 1,000 nodes). Each time is reading and typing the model and solving its
contract into boxes, in this process: cold (the first call) and best of ``--repeat``; the
model's conversion to opset 17 is done once before.

Run: python benchmarks/contracts_time.py [--layers 34] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import onnx
from onnx import version_converter
from onnx_model import transformer

import kantensor.onnx as ko
from kantensor.onnx.contract import data_inputs, with_input_dims

LIGHT = ["bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
         "shufflenet", "squeezenet", "vgg19", "zfnet512"]


def light(name: str) -> onnx.ModelProto:
    path = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / \
        f"light_{name}.onnx"
    model = version_converter.convert_version(onnx.load(path), 17)
    (data,) = data_inputs(model)
    return with_input_dims(model, {data: ("N", 3, "H", "W")})


def timed(model: onnx.ModelProto, repeat: int) -> tuple[float, float, object]:
    data = model.SerializeToString()
    times, contract = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        contract = ko.contract(onnx.load_from_string(data))
        assert contract.cells is not None  # solved into boxes
        times.append(time.perf_counter() - start)
    return times[0], min(times), contract


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=34)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rows = [(name, light(name)) for name in LIGHT]
    big = transformer(args.layers)
    rows.append((f"transformer, {len(big.graph.node)} nodes", big))
    worst = 0.0
    for name, model in rows:
        cold, best, contract = timed(model, args.repeat)
        worst = max(worst, cold)
        print(f"{name:32s} cold {1000 * cold:7.0f} ms  best {1000 * best:7.0f} ms  "
              f"{len(contract.atoms)} atoms, {len(contract.cells)} boxes, "
              f"{'exact' if contract.exact else 'approximate'}")
    print(f"slowest cold: {1000 * worst:.0f} ms (target: under 1,000 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
