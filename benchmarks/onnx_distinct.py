"""Typing a long ONNX model whose blocks are all typed differently (no memo hit): a chain
of ``--blocks`` blocks MatMul -> Add -> Relu, block i mapping width i+2 to i+3 (every
block typed differently), batch a symbolic ``batch``. Each tool in a process of its own (as
onnx_time.py does): kantensor.onnx.infer_shapes and onnx.shape_inference.infer_shapes,
best of ``--repeat`` runs after one warm-up, and kantensor's first (cold) run; CPU
time of the tool's process (``time.process_time``: steady on a shared machine).

``python benchmarks/onnx_distinct.py [--blocks 6667] [--repeat 3]`` (20,000 nodes);
``--src DIR`` times another checkout's ``src`` (``PYTHONPATH``) too, ``--runs N`` processes
of each tool, taking turns (each row: the best and the worst run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import onnx
from onnx import TensorProto, helper


def model(blocks: int) -> onnx.ModelProto:
    """The chain; block i's weight [i+2, i+3] and bias [i+3] are graph inputs (typed,
    no data), so that no two blocks have the same types and the model stays small."""
    nodes, inputs = [], [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])]
    x = "x"
    for i in range(blocks):
        a, b = i + 2, i + 3
        w, c = f"w{i}", f"c{i}"
        inputs.append(helper.make_tensor_value_info(w, TensorProto.FLOAT, [a, b]))
        inputs.append(helper.make_tensor_value_info(c, TensorProto.FLOAT, [b]))
        nodes.append(helper.make_node("MatMul", [x, w], [f"m{i}"], name=f"m{i}"))
        nodes.append(helper.make_node("Add", [f"m{i}", c], [f"a{i}"], name=f"a{i}"))
        nodes.append(helper.make_node("Relu", [f"a{i}"], [f"r{i}"], name=f"r{i}"))
        x = f"r{i}"
    graph = helper.make_graph(nodes, "distinct", inputs,
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def time_tool(tool: str, blocks: int, repeat: int) -> dict:
    m = model(blocks)
    if tool == "kantensor":
        from kantensor.onnx import infer_shapes
    else:
        from onnx.shape_inference import infer_shapes
    start = time.process_time()
    infer_shapes(m)
    cold = time.process_time() - start
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        infer_shapes(m)
        best = min(best, time.process_time() - start)
    return {"tool": tool, "cold": cold, "best": best, "nodes": len(m.graph.node)}


def one(tool: str, src: str | None, blocks: int, repeat: int) -> dict:
    """A run of ``tool`` in a process of its own (kantensor from ``src`` when given)."""
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    out = subprocess.run([sys.executable, __file__, "--tool", tool, "--blocks", str(blocks),
                          "--repeat", str(repeat)], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blocks", type=int, default=6667)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--src", action="append", default=[],
                        help="another checkout's src directory to time in turn")
    parser.add_argument("--tool", choices=("kantensor", "onnx"))
    args = parser.parse_args()
    if args.tool:
        print(json.dumps(time_tool(args.tool, args.blocks, args.repeat)))
        return
    rows: dict[str, list[dict]] = {}
    tools = [("kantensor", None, "kantensor"),
             *((f"kantensor {s}", s, "kantensor") for s in args.src), ("onnx", None, "onnx")]
    for _ in range(args.runs):
        for label, src, tool in tools:
            rows.setdefault(label, []).append(one(tool, src, args.blocks, args.repeat))
    for label, runs in rows.items():
        cold = sorted(r["cold"] for r in runs)
        best = sorted(r["best"] for r in runs)
        print(f"  {label:<30} {runs[0]['nodes']} nodes: cold {cold[0]:.2f}-{cold[-1]:.2f} s, "
              f"best {best[0]:.2f}-{best[-1]:.2f} s")
    ours, onnx_best = rows["kantensor"], min(r["best"] for r in rows["onnx"])
    onnx_cold = min(r["cold"] for r in rows["onnx"])
    print(f"  kantensor / onnx: cold {min(r['cold'] for r in ours) / onnx_cold:.2f}x, "
          f"best {min(r['best'] for r in ours) / onnx_best:.2f}x")


if __name__ == "__main__":
    main()
