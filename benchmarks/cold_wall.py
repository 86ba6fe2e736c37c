"""Where a first ``infer_shapes``'s wall time goes beyond its instructions, kantensor
against onnx, in fresh processes: the resources the one call uses, read around it.

cold_instructions.py counts instructions, which leave out what the kernel does for the
process (a minor page fault per new page of memory touched, zeroed by the kernel; file
reads), what the garbage collector's passes cost in cache misses, and the time an import
spends finding and reading files. This reads, around the first call only (the model
read, the tool's module imported before it, as onnx_time.py sets a process up): the
wall clock, the process's user and system CPU time (``resource.getrusage``), its minor
and major page faults, its peak resident size's growth, the collections the cycle
collector ran during the call and their thread time (``gc.callbacks``), and the modules
the call imported and their thread time (``importlib._bootstrap._find_and_load`` timed,
which ``import`` statements and ``importlib.import_module`` both go through; ``-X
importtime`` misses the latter). Then the thread time of a second call, on the model
with its size names renamed (as pool_sizes_cold.py renames them): the work on a model's
sizes without the first use of the code and the catalogue entries (onnx keeps nothing
between calls: its second call is its work on the model alone). Each tree runs as
before_after.py runs one (its bytecode compiled first, its own catalogue); onnx runs
with no tree. It prints the median over ``--runs`` processes of each figure, the tools
taking turns.

Run: PYTHONPATH=tests python benchmarks/cold_wall.py [--runs 7] [--model PATH]
     [--onnx] [--layers 12] TREE [TREE ...]
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

#: The measured process: the tool imported, the model read, then one call measured.
CALL = """import gc, json, resource, sys, time, warnings
import onnx
TOOL = sys.argv[2]
if TOOL == "onnx":
    import onnx.shape_inference as si
    infer = lambda m: si.infer_shapes(m, data_prop=True)
else:
    import kantensor.onnx as ko
    infer = ko.infer_shapes
data = open(sys.argv[1], "rb").read()
collections = []
started = []
def collected(phase, info):
    if phase == "start":
        started.append(time.thread_time())
    else:
        collections.append((info["generation"], time.thread_time() - started.pop()))
importing = []
import importlib._bootstrap as bootstrap
find_and_load = bootstrap._find_and_load
def timed_import(name, import_):
    if importing:  # (a nested import: counted in the outermost)
        return find_and_load(name, import_)
    importing.append(time.thread_time())
    try:
        return find_and_load(name, import_)
    finally:
        importing.append(time.thread_time() - importing.pop())
        spent_importing.append(importing.pop())
spent_importing = []
bootstrap._find_and_load = timed_import
modules = len(sys.modules)
gc.callbacks.append(collected)
before = resource.getrusage(resource.RUSAGE_SELF)
thread = time.thread_time()
wall = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    infer(onnx.load_from_string(data))
wall = time.perf_counter() - wall
thread = time.thread_time() - thread
after = resource.getrusage(resource.RUSAGE_SELF)
gc.callbacks.remove(collected)
bootstrap._find_and_load = find_and_load
renamed = onnx.load_from_string(data)
for value in renamed.graph.input:
    for dim in value.type.tensor_type.shape.dim:
        if dim.dim_param:
            dim.dim_param += "_2"
second = time.thread_time()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    infer(renamed)
second = time.thread_time() - second
print(json.dumps({
    "wall": wall * 1000,
    "thread CPU": thread * 1000,
    "user": (after.ru_utime - before.ru_utime) * 1000,
    "system": (after.ru_stime - before.ru_stime) * 1000,
    "minor faults": after.ru_minflt - before.ru_minflt,
    "major faults": after.ru_majflt - before.ru_majflt,
    "peak RSS growth, kB": after.ru_maxrss - before.ru_maxrss,
    "collections": len(collections),
    "collections, gen 2": sum(1 for g, _ in collections if g == 2),
    "collecting, thread CPU": sum(t for _, t in collections) * 1000,
    "modules imported": len(sys.modules) - modules,
    "importing, thread CPU": sum(spent_importing) * 1000,
    "second call, new size names, thread CPU": second * 1000,
}))
"""


def measured(tree: Path | None, tool: str, model: Path) -> dict[str, float]:
    """One fresh process's figures (see the module's doc)."""
    path = [ba.SITES[tree], str(tree / "src")] if tree is not None else []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(ba.BYTECODE, PYTHONPATH=os.pathsep.join([*path, str(ba.TESTS)]))
    done = subprocess.run([sys.executable, "-c", CALL, str(model),
                           tool], env=env, text=True, capture_output=True, timeout=600)
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trees", type=Path, nargs="+")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--onnx", action="store_true", help="onnx's first call too")
    model_options(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        model = model_file(args, Path(folder))  # (it sets the run's bytecode folder)
        tools: dict[str, Path | None] = {}
        for number, tree in enumerate(args.trees):
            tree = tree.resolve()
            ba.compiled(tree)
            site = Path(folder) / f"site-{number}"
            site.mkdir()
            signatures = tree / "signatures"
            (site / "sitecustomize.py").write_text(ba.CATALOGUE.format(
                init=str(signatures / "__init__.py"), folder=str(signatures)))
            ba.SITES[tree] = str(site)
            tools[f"{number}: {tree}"] = tree
        if args.onnx:
            tools["onnx"] = None
        runs: dict[str, list[dict[str, float]]] = {label: [] for label in tools}
        for _ in range(args.runs):  # (the tools take turns: the same load for each)
            for label, tree in tools.items():
                runs[label].append(measured(tree, "kantensor" if tree else "onnx", model))
        keys = list(next(iter(runs.values()))[0])
        print(f"first call of {model.name}, median of {args.runs} fresh processes")
        print(f"{'':40}" + "".join(f"{label[:14]:>16}" for label in tools))
        for key in keys:
            print(f"{key[:40]:40}" + "".join(
                f"{statistics.median(r[key] for r in runs[label]):16.2f}" for label in tools))
        for label in tools:
            print(label)


if __name__ == "__main__":
    main()
