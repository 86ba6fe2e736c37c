"""Typing a long ONNX model whose blocks are all typed differently (no memo hit): a chain
of ``--blocks`` blocks MatMul -> Add -> Relu, block i mapping width i+2 to i+3 (every
block typed differently), batch a symbolic ``batch``. Each tool in a process of its own (as
onnx_time.py does): kantensor.onnx.infer_shapes and onnx.shape_inference.infer_shapes,
best of ``--repeat`` runs after one warm-up, and kantensor's first (cold) run; CPU
time of the tool's process (``time.process_time``: steady on a shared machine). Each
tree's modules are compiled beforehand into a bytecode folder of the run's own (as
before_after.py's ``compiled``), as an installed package has them: where
PYTHONDONTWRITEBYTECODE is set, a module first imported inside the cold call (a kernel
family's) was compiled from source there, about 2.7 ms of it. Ratios print to three
decimals: a change of a few percent shows.

``python benchmarks/onnx_distinct.py [--blocks 6667] [--repeat 3]`` (20,000 nodes);
``--src DIR`` times another checkout's ``src`` (``PYTHONPATH``) too, ``--runs N`` processes
of each tool, taking turns (each row: the best and the worst run).

``--save DIR`` writes the chain of ``--blocks`` blocks as ``DIR/chain<blocks>.onnx`` (and
nothing else) for callgrind, deterministic where the clock is not: the instructions of a
first call per block are the slope between two chains, so that a first call's fixed cost
is left out (a few minutes a tree at load 8)::

    python benchmarks/onnx_distinct.py --blocks 200 --save DIR
    python benchmarks/onnx_distinct.py --blocks 1000 --save DIR
    PYTHONHASHSEED=0 PYTHONPATH=tests:benchmarks python benchmarks/cold_instructions.py
        --model DIR/chain200.onnx TREE [TREE ...]     (then --model DIR/chain1000.onnx)
    a block: (count at 1,000 - count at 200) / 800; --onnx counts onnx's call too
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


#: The processes' bytecode folder (``PYTHONPYCACHEPREFIX``), set by main.
BYTECODE: dict[str, str] = {}


def compiled(src: str) -> None:
    """Compile the modules of the source folder ``src`` into :data:`BYTECODE`'s folder."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", src],
                   env={**os.environ, **BYTECODE}, check=True, capture_output=True)


def one(tool: str, src: str | None, blocks: int, repeat: int) -> dict:
    """A run of ``tool`` in a process of its own (kantensor from ``src`` when given), its
    modules' bytecode compiled beforehand (:func:`compiled`)."""
    env = {**os.environ, **BYTECODE}
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
    parser.add_argument("--save", type=Path, help="write the chain into this folder")
    args = parser.parse_args()
    if args.tool:
        print(json.dumps(time_tool(args.tool, args.blocks, args.repeat)))
        return
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        onnx.save(model(args.blocks), str(args.save / f"chain{args.blocks}.onnx"))
        return
    with tempfile.TemporaryDirectory() as folder:
        BYTECODE["PYTHONPYCACHEPREFIX"] = folder
        for src in (_own_src(), *args.src):
            compiled(src)
        timed(args)


def _own_src() -> str:
    """The folder holding the kantensor package this Python imports (its ``src``)."""
    spec = importlib.util.find_spec("kantensor")
    return str(Path(spec.submodule_search_locations[0]).parent)


def timed(args: argparse.Namespace) -> None:
    """The runs of each tool, taking turns, and their rows."""
    rows: dict[str, list[dict]] = {}
    tools = [("kantensor", None, "kantensor"),
             *((f"kantensor {s}", s, "kantensor") for s in args.src), ("onnx", None, "onnx")]
    for _ in range(args.runs):
        for label, src, tool in tools:
            rows.setdefault(label, []).append(one(tool, src, args.blocks, args.repeat))
    for label, runs in rows.items():
        cold = sorted(r["cold"] for r in runs)
        best = sorted(r["best"] for r in runs)
        print(f"  {label:<30} {runs[0]['nodes']} nodes: cold {cold[0]:.3f}-{cold[-1]:.3f} s, "
              f"best {best[0]:.3f}-{best[-1]:.3f} s")
    ours, onnx_best = rows["kantensor"], min(r["best"] for r in rows["onnx"])
    onnx_cold = min(r["cold"] for r in rows["onnx"])
    print(f"  kantensor / onnx: cold {min(r['cold'] for r in ours) / onnx_cold:.3f}x, "
          f"best {min(r['best'] for r in ours) / onnx_best:.3f}x")


if __name__ == "__main__":
    main()
