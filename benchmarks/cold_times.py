"""The thread CPU time each part of a first ``infer_shapes`` takes, in fresh processes:
cold_parts.py's split of the first call, weighed by time instead of by instructions.

Instructions weigh some parts far from their time: SHA-256 runs under valgrind without
the processor's own instructions for it (the catalogue index's digests are about 3% of
a pool stack's first call by instructions, a few hundredths of a millisecond in time),
while importing a module (files opened and read, bytecode unmarshalled into memory the
process has not touched yet) takes a larger share of the time than of the
instructions. This times the same parts with ``time.thread_time`` (the calling
thread's CPU time: a loaded machine's other processes are not counted, though they
still slow this one through the shared caches, so compare shares, not milliseconds
across loads). Each function named (``module:qualname``, a method as
``module:Class.name``) is wrapped before the call, wherever a module holds it, and its
outermost calls are timed (a recursive call is counted once); the process is set up as
cold_instructions.py sets one up (the tree's bytecode compiled first, its own
catalogue). It prints, per part, the median and least over ``--runs`` processes, and the
share of the median call.

Run: python benchmarks/cold_times.py [--runs 7] [--layers 12] [--model PATH] TREE
     FUNCTION ...  (e.g. ``kantensor.onnx.registry:_tables kantensor.ops.trust:_import``)
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

#: The timed process: each function wrapped, then the model read and one call timed.
CALL = """import functools, importlib, json, sys, time, warnings
import onnx
import kantensor.onnx as ko
spent = {}

def wrap(name):
    module_name, _, qualname = name.partition(":")
    module = importlib.import_module(module_name)
    *path, attr = qualname.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    raw = owner.__dict__[attr]
    fn = raw.__func__ if isinstance(raw, staticmethod | classmethod) else raw
    busy = []
    @functools.wraps(fn)
    def timed(*args, **kwargs):
        if busy:  # (a recursive call: counted in the outermost)
            return fn(*args, **kwargs)
        busy.append(True)
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.thread_time() - start
            busy.pop()
    setattr(owner, attr, type(raw)(timed) if isinstance(raw, staticmethod | classmethod)
            else timed)
    for other in list(sys.modules.values()):
        held = getattr(other, "__dict__", None)
        if isinstance(held, dict) and other is not module and other.__name__ != "__main__":
            for key, value in list(held.items()):
                if value is fn:
                    held[key] = timed

names = json.loads(sys.argv[2])
for name in names:
    wrap(name)
model = onnx.load(sys.argv[1])
start = time.thread_time()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    ko.infer_shapes(model)
spent["the first call"] = time.thread_time() - start
print(json.dumps(spent))
"""


def times(tree: Path, model: Path, names: list[str], folder: Path) -> dict[str, float]:
    """The thread time (s) of the first ``infer_shapes`` of ``model`` by ``tree`` in a
    fresh process, and of each function of ``names`` within it."""
    ba.compiled(tree)
    site = folder / f"site-{abs(hash(tree))}"
    site.mkdir(exist_ok=True)
    signatures = tree / "signatures"
    (site / "sitecustomize.py").write_text(ba.CATALOGUE.format(
        init=str(signatures / "__init__.py"), folder=str(signatures)))
    script = folder / "call.py"
    script.write_text(CALL)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(ba.BYTECODE, PYTHONPATH=os.pathsep.join([str(site), str(tree / "src")]))
    done = subprocess.run([sys.executable, str(script), str(model), json.dumps(names)],
                          env=env, text=True, capture_output=True, check=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("tree", type=Path)
    parser.add_argument("functions", nargs="+", help="module:qualname")
    parser.add_argument("--runs", type=int, default=7)
    model_options(parser)
    args = parser.parse_args()
    names = ["the first call", *args.functions]
    found: dict[str, list[float]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory() as made:
        folder = Path(made)
        model = model_file(args, folder)
        for _ in range(args.runs):
            spent = times(args.tree.resolve(), model, args.functions, folder)
            for name in names:
                found[name].append(spent.get(name, 0.0) * 1000)
    total = statistics.median(found["the first call"])
    print(f"{'ms, median':>10} {'least':>7} {'share':>6}  ({args.runs} processes)")
    for name in names:
        middle = statistics.median(found[name])
        print(f"{middle:>10.2f} {min(found[name]):>7.2f} {middle / total:>6.1%}  {name}")


if __name__ == "__main__":
    main()
