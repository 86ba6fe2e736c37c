"""What a first ``infer_shapes`` would save if each part of its one-time work were done
before it: the floor each part of the first use leaves, in fresh processes.

cold_wall.py reads a first call and a second one on renamed sizes (the work on a model's
sizes without the first use); their difference is the first use, and cold_times.py and
cold_parts.py split it by function. This reads what taking a part out of the first call
saves, which a split by function cannot say (a part's own time leaves out what it makes
the rest pay: the interpreter's first run of code, the caches it fills). Each process
does some parts before the timed call, cumulatively, by level:

0. nothing;
1. ``modules``: the modules a first call of the model imports (found once, by a probe
   process that runs the call), imported in the order it imported them;
2. ``index``: the ONNX registry's index of the catalogue tables too (``_tables``);
3. ``entries``: every node's entry looked up too (``registry.lookup`` at the model's
   opset: the tables read, the entries built and checked, their code resolved).

It prints, per level, the medians over ``--runs`` processes (the levels taking turns) of
the first call's and the second call's thread CPU time, and their difference: the part
of the first use each level still leaves. Each tree runs as cold_wall.py runs one (its
bytecode compiled first, its own catalogue).

Run: PYTHONPATH=tests python benchmarks/cold_floor.py [--runs 7] --model PATH TREE
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import before_after as ba
from cold_instructions import model_file, model_options

#: The levels, cumulative: what each process does before its timed call.
LEVELS = ("nothing", "+ modules", "+ index", "+ entries")

#: The probe: the modules a first call imports, in the order it imports them.
PROBE = """import sys, warnings
import onnx
import kantensor.onnx as ko
model = onnx.load(sys.argv[1])
before = list(sys.modules)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    ko.infer_shapes(model)
seen = set(before)
print(",".join(name for name in sys.modules if name not in seen))
"""

#: The measured process: the parts of its level done, then the two calls timed.
CALL = """import importlib, json, sys, time, warnings
import onnx
import kantensor.onnx as ko
from kantensor.onnx import registry
level, modules = int(sys.argv[2]), [m for m in sys.argv[3].split(",") if m]
data = open(sys.argv[1], "rb").read()
first = onnx.load_from_string(data)
if level >= 1:
    for name in modules:
        importlib.import_module(name)
if level >= 2:
    registry._tables()
if level >= 3:
    opsets = {o.domain or "ai.onnx": o.version for o in first.opset_import}
    for node in first.graph.node:
        try:
            registry.lookup(node.op_type, node.domain, opsets.get(node.domain or "ai.onnx"),
                            node.name)
        except registry.UnsupportedOp:
            pass
renamed = onnx.load_from_string(data)
for value in renamed.graph.input:
    for dim in value.type.tensor_type.shape.dim:
        if dim.dim_param:
            dim.dim_param += "_2"
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    thread = time.thread_time()
    ko.infer_shapes(first)
    middle = time.thread_time()
    ko.infer_shapes(renamed)
    last = time.thread_time()
print(json.dumps([(middle - thread) * 1000, (last - middle) * 1000]))
"""


def _run(tree: Path, script: str, *args: str) -> str:
    """The last line ``script`` prints, run in a fresh process on ``tree``."""
    path = [ba.SITES[tree], str(tree / "src")]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(ba.BYTECODE, PYTHONPATH=os.pathsep.join([*path, str(ba.TESTS)]))
    done = subprocess.run([sys.executable, "-c", script, *args], env=env, text=True,
                          capture_output=True, timeout=600)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return done.stdout.splitlines()[-1] if done.stdout.strip() else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tree", type=Path)
    parser.add_argument("--runs", type=int, default=7)
    model_options(parser)
    args = parser.parse_args()
    tree = args.tree.resolve()
    with tempfile.TemporaryDirectory() as folder:
        model = model_file(args, Path(folder))  # (it sets the run's bytecode folder)
        ba.compiled(tree)
        site = Path(folder) / "site"
        site.mkdir()
        signatures = tree / "signatures"
        (site / "sitecustomize.py").write_text(ba.CATALOGUE.format(
            init=str(signatures / "__init__.py"), folder=str(signatures)))
        ba.SITES[tree] = str(site)
        modules = _run(tree, PROBE, str(model))
        runs: list[list[tuple[float, float]]] = [[] for _ in LEVELS]
        for _ in range(args.runs):  # (the levels take turns: the same load for each)
            for level in range(len(LEVELS)):
                runs[level].append(tuple(json.loads(_run(tree, CALL, str(model), str(level),
                                                         modules))))
    print(f"{args.model.name if args.model else 'transformer'}: the call imports "
          f"{len(modules.split(',')) if modules else 0} modules ({modules or 'none'})")
    print(f"thread CPU, ms, median of {args.runs} fresh processes (load "
          f"{os.getloadavg()[0]:.1f})")
    print(f"{'done before the call':24}{'first call':>12}{'second':>10}{'first use':>11}")
    for name, done in zip(LEVELS, runs, strict=True):
        first = statistics.median(f for f, _ in done)
        second = statistics.median(s for _, s in done)
        print(f"{name:24}{first:12.2f}{second:10.2f}{first - second:11.2f}")


if __name__ == "__main__":
    main()
