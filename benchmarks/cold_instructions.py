"""The instructions the first ``infer_shapes`` of a model executes, counted by valgrind's
callgrind, for each of several source trees of kantensor: a deterministic measure (two
runs of one tree agree to about 0.02%) for bisecting a change of the first call's cost
on a loaded machine, where the CPU clock's spread is larger than the change.

Only the call is counted (collection is switched on inside a ``functools.reduce`` that
makes it), in a fresh process per tree set up as before_after.py sets one up: the tree's
modules byte-compiled first, its own catalogue. Instructions are not time: a copy of
many bytes counts each byte (``rep movsb``), so compare trees, not tools. Needs
valgrind on the PATH; about a minute a tree. With ``--node-by-node N`` it counts instead
N warm calls node by node (after five, each parsing the model's bytes and with the model
memo emptied first, as ``onnx_time.py --node-by-node`` times them) and prints the count
per call. With ``--onnx`` it counts onnx's own first ``onnx.shape_inference.infer_shapes``
(``data_prop=True``, as onnx_time.py runs it) of the same saved model too, after
``import onnx.shape_inference`` (its schema registry is filled by that first call, as
in onnx_time.py's process), so the gap to onnx is an instruction ratio as well as a
clock one (onnx's work is C++: the ratio says how many more instructions, not time).
With ``--second`` it counts, instead of the first call, a call after one on the
model with other size names (:data:`SECOND`): the work on a model's sizes alone.
With ``--simulate`` it prints instead, per tree (and for onnx), what callgrind's cache
and branch simulation gives of the first call (first-level cache misses, mispredicted
branches): what separates equal instruction counts in time (cold_wall.py reads the
rest, the kernel's part and the collector's).

Run: python benchmarks/cold_instructions.py [--layers 12] [--model PATH]
     [--node-by-node N | --second] [--onnx] [--simulate] TREE [TREE ...]
(TREE: a source tree, a worktree or a ``git archive`` of one with its signatures/).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import before_after as ba
import onnx
from onnx_model import transformer
from onnx_time import stripped

#: The timed process: the model read, kantensor.onnx imported, then one call counted.
CALL = """import functools, sys, warnings
import onnx
import kantensor.onnx as ko
model = onnx.load(sys.argv[1])
def call(_a, _b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ko.infer_shapes(model)
functools.reduce(call, [0, 1])
"""

#: The process for ``--node-by-node N``: five warm calls, then N counted.
WARM = """import functools, sys, warnings
import onnx
import kantensor.onnx as ko
from kantensor.onnx.modelmemo import MODELS
data = open(sys.argv[1], "rb").read()
def once():
    MODELS.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ko.infer_shapes(onnx.load_from_string(data))
for _ in range(5):
    once()
def call(_a, _b):
    for _ in range(int(sys.argv[2])):
        once()
functools.reduce(call, [0, 1])
"""


#: The process for ``--second``: one call on the model with its size names renamed, then
#: a call on it with other names counted: the work on a model's sizes without the first
#: use of the code and the entries (as cold_wall.py's second call, and
#: pool_sizes_cold.py's calls, rename them).
SECOND = """import functools, sys, warnings
import onnx
import kantensor.onnx as ko
data = open(sys.argv[1], "rb").read()
def renamed(suffix):
    out = onnx.load_from_string(data)
    for value in out.graph.input:
        for dim in value.type.tensor_type.shape.dim:
            if dim.dim_param:
                dim.dim_param += suffix
    return out
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    ko.infer_shapes(renamed("_1"))
model = renamed("_2")
def call(_a, _b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ko.infer_shapes(model)
functools.reduce(call, [0, 1])
"""


#: ``--onnx``'s process: onnx's inference imported, the model read, one call counted.
ONNX = """import functools, sys
import onnx
import onnx.shape_inference as si
model = onnx.load(sys.argv[1])
def call(_a, _b):
    si.infer_shapes(model, data_prop=True)
functools.reduce(call, [0, 1])
"""


def count(tree: Path, model: Path, folder: Path, warm: int = 0, second: bool = False
          ) -> int:
    """The instructions of the first ``infer_shapes`` of ``model`` by ``tree`` (with
    ``warm``, of that many node-by-node warm calls)."""
    if warm:
        return callgrind(tree, folder, WARM, str(model), str(warm))[0]
    if second:
        return callgrind(tree, folder, SECOND, str(model))[0]
    return callgrind(tree, folder, CALL, str(model))[0]


def callgrind(tree: Path, folder: Path, call: str, *args: str) -> tuple[int, Path]:
    """Run the script ``call`` (its arguments ``args``) with ``tree``'s kantensor and
    catalogue under callgrind, counting from the first ``functools.reduce``: the
    instructions collected and callgrind's output file (cold_parts.py reads it by
    function)."""
    events, out = _valgrind(tree, folder, call, args, ())
    return events["Ir"], out


#: What ``--simulate`` prints of callgrind's cache and branch simulation, by its event
#: names: instruction (I1) and data (D1: reads and writes) misses of the first-level
#: caches, last-level misses, and mispredicted conditional and indirect branches.
SIMULATED = {"I1 misses": ("I1mr",), "D1 misses": ("D1mr", "D1mw"),
             "LL misses": ("ILmr", "DLmr", "DLmw"), "branches": ("Bc", "Bi"),
             "mispredicted conditional": ("Bcm",), "mispredicted indirect": ("Bim",)}


def simulated(tree: Path, folder: Path, call: str, *args: str) -> dict[str, int]:
    """As :func:`callgrind`, with callgrind's cache and branch simulation: the
    instructions and each figure of :data:`SIMULATED`. The simulation is a model
    (valgrind's caches are the machine's sizes, its branch predictor a simple one that
    modern processors beat on an interpreter's dispatch), so compare two processes by
    it, not a process with its time."""
    events, _ = _valgrind(tree, folder, call, args, ("--cache-sim=yes", "--branch-sim=yes"))
    return {"instructions": events["Ir"], **{name: sum(events[e] for e in names)
                                             for name, names in SIMULATED.items()}}


def _valgrind(tree: Path, folder: Path, call: str, args: tuple[str, ...],
              options: tuple[str, ...]) -> tuple[dict[str, int], Path]:
    """Callgrind's run of ``call`` (see :func:`callgrind`) with ``options``: its events
    collected, by name, and its output file."""
    ba.compiled(tree)
    site = folder / f"site-{abs(hash(tree))}"
    site.mkdir(exist_ok=True)
    signatures = tree / "signatures"
    (site / "sitecustomize.py").write_text(ba.CATALOGUE.format(
        init=str(signatures / "__init__.py"), folder=str(signatures)))
    script = folder / "call.py"
    script.write_text(call)
    out = folder / "out"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(ba.BYTECODE, PYTHONPATH=os.pathsep.join([str(site), str(tree / "src")]))
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *options,
         "--collect-atstart=no", "--toggle-collect=functools_reduce", sys.executable,
         str(script), *args], env=env, text=True, capture_output=True, timeout=3600)
    names = re.search(r"Events\s*: ([\w ]+)", done.stderr)
    found = re.search(r"Collected : ([\d ]+)", done.stderr)
    if names is None or found is None or int(found.group(1).split()[0]) == 0:
        raise SystemExit(f"{tree}: the call under valgrind failed: {done.stderr[-2000:]}")
    return dict(zip(names.group(1).split(), map(int, found.group(1).split()),
                     strict=True)), out


def model_options(parser: argparse.ArgumentParser) -> None:
    """The options saying which model is read (cold_parts.py takes them too)."""
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--model", type=Path, help="an .onnx file instead of the "
                        "transformer of onnx_model.py (its value_info and output shapes "
                        "removed, as onnx_time.py does)")


def model_file(args: argparse.Namespace, folder: Path) -> Path:
    """The model of ``args`` saved in ``folder`` (a file's value_info and output shapes
    removed), the run's bytecode kept in ``folder`` too."""
    ba.BYTECODE["PYTHONPYCACHEPREFIX"] = str(folder / "pyc")
    model = folder / "model.onnx"
    onnx.save(stripped(onnx.load(args.model)) if args.model else
              transformer(args.layers), str(model))
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trees", type=Path, nargs="+")
    model_options(parser)
    parser.add_argument("--onnx", action="store_true", help="count onnx's first "
                        "infer_shapes of the model too (with the first tree's PYTHONPATH, "
                        "which onnx does not read)")
    parser.add_argument("--node-by-node", type=int, default=0, metavar="N",
                        help="count N warm calls node by node (the model memo emptied "
                        "before each) instead of the first call")
    parser.add_argument("--second", action="store_true", help="count, instead of the "
                        "first call, a second one on the model with new size names (see "
                        "SECOND)")
    parser.add_argument("--simulate", action="store_true", help="the first call's "
                        "cache and branch figures too, by callgrind's simulation (see "
                        "simulated; slower)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as made:
        folder = Path(made)
        model = model_file(args, folder)
        if args.simulate:
            return simulate(args, model, folder)
        for tree in args.trees:
            found = count(tree.resolve(), model, folder, args.node_by_node, args.second)
            print(f"{str(tree):40} {found // max(1, args.node_by_node):>14,}"
                  + (" a call" if args.node_by_node else ""), flush=True)
        if args.onnx:
            found = callgrind(args.trees[0].resolve(), folder, ONNX, str(model))[0]
            print(f"{'onnx ' + onnx.__version__:40} {found:>14,}", flush=True)


def simulate(args: argparse.Namespace, model: Path, folder: Path) -> None:
    """``--simulate``: the first call's figures of :func:`simulated` per tree (and onnx's)
    side by side."""
    columns = {str(tree): simulated(tree.resolve(), folder, CALL, str(model))
               for tree in args.trees}
    if args.onnx:
        columns["onnx " + onnx.__version__] = simulated(args.trees[0].resolve(), folder,
                                                       ONNX, str(model))
    print(f"{'first call':26}" + "".join(f"{name[-18:]:>20}" for name in columns))
    for row in next(iter(columns.values())):
        print(f"{row:26}" + "".join(f"{found[row]:>20,}" for found in columns.values()))


if __name__ == "__main__":
    main()
