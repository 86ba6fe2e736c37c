"""The same benchmarks on two source trees of kantensor in one run: a base (``--base``,
say the main branch's worktree) and this one. Each measurement runs in fresh processes
of this Python with ``PYTHONPATH`` set to the tree's ``src``, the two trees taking turns,
so both see the same load; the benchmark code is this tree's for both.

It prints: ``import kantensor`` and ``import kantensor.onnx``; run.py's first builds (at
a new rank for sum; matmul, add and sum beside PyTensor's when installed) and cached
builds; ``kantensor onnx`` on a small model; and the first (cold) and best later (warm)
``infer_shapes`` of each tree beside onnx's, each tool in processes of its own
(onnx_time.py), and kantensor's node by node (its model memo emptied before each call,
as for a model edited slightly), on the transformer of onnx_model.py and on
SqueezeNet-like ceil-mode pool stacks (tests/exported_models.py ``pool_stack``), median of
``--runs`` processes.

With ``--exports DIR`` it prints only the first (cold) ``infer_shapes`` of every .onnx
file of DIR (models exported from PyTorch, see onnx_exports.py) by each tree and by onnx,
the three taking turns, median of ``--runs`` processes, and their geometric means.

Run: ``python benchmarks/before_after.py --base /work/main [--layers 12] [--runs 3]
[--clock cpu] [--model PATH ...] [--exports DIR]`` (``cpu``: each process's CPU time,
steadier on a shared machine; ``--model``: more .onnx files to type, e.g. models exported
from PyTorch). With ``--clock cpu`` it prints :data:`ONNX_CPU_NOTE` beside onnx's rows:
compare kantensor with onnx on the wall clock (see docs/performance.rst). Each
tree's modules are compiled to bytecode first (in a folder of this run's), as an installed
package has them, so that no timed call compiles a module it imports on first use; and
each tree reads its own catalogue files (``signatures/``, see :data:`CATALOGUE`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent / "tests"

IMPORT = ("import time; t = time.perf_counter(); import {module}; "
          "print(f'{{(time.perf_counter() - t) * 1000:.0f}} ms')")

CLI = ("import subprocess, sys, time; t = time.perf_counter(); "
       "subprocess.run([sys.executable, '-m', 'kantensor', 'onnx', {model!r}], check=True, "
       "capture_output=True); print(f'{{(time.perf_counter() - t) * 1000:.0f}} ms')")

#: The models the cold/warm rows type, saved by this tree's builders (name -> code).
MODELS = {
    "transformer": "from onnx_model import transformer; m = transformer({layers})",
    "pool_stack(7)": "import exported_models as em; m, _ = em.pool_stack(pools=7)",
}


#: Where the processes keep the trees' bytecode (set by main: a folder of its own).
BYTECODE: dict[str, str] = {}

#: A ``sitecustomize`` that makes ``kantensor._catalogue`` (the catalogue's data package)
#: the tree's own ``signatures/``: an editable install maps that package to its own
#: tree's folder whatever ``PYTHONPATH`` says, so the other tree would read its data.
CATALOGUE = """import importlib.abc, importlib.util, sys
class _Catalogue(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != "kantensor._catalogue":
            return None
        return importlib.util.spec_from_file_location(
            name, {init!r}, submodule_search_locations=[{folder!r}])
sys.meta_path.insert(0, _Catalogue())
"""

#: Per tree, the folder of its ``sitecustomize`` (set by main: see :data:`CATALOGUE`).
SITES: dict[Path, str] = {}


def run(tree: Path | None, args: list[str]) -> str:
    """``python args`` in benchmarks/ with ``tree``'s source first on the path (None:
    no kantensor tree, for onnx's own rows), its modules' bytecode compiled beforehand
    (:func:`compiled`), as an installed package has it."""
    path = [SITES[tree], str(tree / "src")] if tree is not None else []
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(BYTECODE, PYTHONPATH=os.pathsep.join([*path, str(TESTS)]))
    done = subprocess.run([sys.executable, *args], env=env, cwd=HERE, text=True,
                          capture_output=True, timeout=1800)
    return done.stdout + (done.stderr[-2000:] if done.returncode else "")


def compiled(tree: Path) -> None:
    """Compile ``tree``'s modules into :data:`BYTECODE`'s folder: a module imported on
    first use (a kernel's, during a first ``infer_shapes``) is then loaded, not compiled
    in the timed call (where PYTHONDONTWRITEBYTECODE is set, or a checkout's sources are
    newer than their bytecode, it would be, in one tree and not the other)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "src")],
                   env={**os.environ, **BYTECODE}, check=True, capture_output=True)


def _ms(text: str) -> float:
    head = text.split()[0] if text.split() else ""
    return float(head) if head.replace(".", "", 1).isdigit() else 1e9


def best_import(tree: Path, module: str, times: int = 5) -> str:
    made = [run(tree, ["-c", IMPORT.format(module=module)]).strip() for _ in range(times)]
    return min(made, key=_ms)


def cold_warm(tree: Path | None, tool: str, model: Path, runs: int, clock: str,
              *flags: str) -> str:
    """The median over ``runs`` fresh processes of the first call and of the best later
    call (onnx_time.py, given ``flags`` too), in ms."""
    firsts, bests = [], []
    for _ in range(runs):
        out = run(tree, ["onnx_time.py", tool, "--model", str(model), "--repeat", "10",
                         "--clock", clock, *flags]).split()
        try:
            first, best = float(out[-2]), float(out[-1])
        except (IndexError, ValueError):
            return "failed: " + " ".join(out)[-300:]
        firsts.append(first)
        bests.append(best)
    return f"cold {statistics.median(firsts) * 1000:7.1f} ms   warm " \
           f"{statistics.median(bests) * 1000:7.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    parser.add_argument("--model", type=Path, action="append", default=[],
                        help="an .onnx file to time too (its value_info and output "
                        "shapes removed), e.g. a model exported from PyTorch")
    parser.add_argument("--exports", type=Path, help="a folder of .onnx files: time the "
                        "first infer_shapes of each (both trees and onnx) and nothing else")
    args = parser.parse_args()
    trees = {"base": args.base.resolve(), "this": HERE.parent}
    with tempfile.TemporaryDirectory() as bytecode:
        BYTECODE["PYTHONPYCACHEPREFIX"] = bytecode
        for label, tree in trees.items():
            commit = subprocess.run(["git", "-C", str(tree), "log", "--oneline", "-1"],
                                    text=True, capture_output=True).stdout.strip()
            print(f"== {label}: {tree} ({commit})")
            compiled(tree)
            site = Path(bytecode) / f"site-{label}"
            site.mkdir()
            folder = tree / "signatures"
            (site / "sitecustomize.py").write_text(CATALOGUE.format(
                init=str(folder / "__init__.py"), folder=str(folder)))
            SITES[tree] = str(site)
        if args.exports is not None:
            exports(args, trees)
        else:
            measure(args, trees)


#: Printed where onnx is timed on the CPU clock: a process's CPU time counts every thread
#: of it, and onnx's first call has been seen to run on two (its cold CPU time about
#: twice its wall time), so a ratio with onnx is taken from a run on the wall clock.
ONNX_CPU_NOTE = ("note: onnx's times are its process's CPU time, which counts all its "
                 "threads (its first call has been seen on two: twice its wall time); "
                 "compare with onnx on the wall clock (--clock wall, the trees taking turns "
                 "with it in one run)")


def first_call(tree: Path | None, tool: str, model: Path, clock: str) -> float:
    """The first ``infer_shapes`` of ``model`` in a fresh process, in ms (NaN: failed)."""
    out = run(tree, ["onnx_time.py", tool, "--model", str(model), "--repeat", "1",
                     "--clock", clock]).split()
    try:
        return float(out[-2]) * 1000
    except (IndexError, ValueError):
        print(f"  {tool} failed on {model.name}: {' '.join(out)[-300:]}", flush=True)
        return float("nan")


def exports(args: argparse.Namespace, trees: dict[str, Path]) -> None:
    """The cold rows of every model of ``args.exports`` (see the module's doc)."""
    models = sorted(args.exports.glob("*.onnx"))
    print(f"\n== first infer_shapes, ms: median of {args.runs} processes ({args.clock} "
          f"clock)\n{'model':34} {'base':>8} {'this':>8} {'onnx':>8} {'this/onnx':>10} "
          f"{'base/onnx':>10}")
    rows = []
    for model in models:
        times: dict[str, list[float]] = {"base": [], "this": [], "onnx": []}
        for _ in range(args.runs):  # (the three take turns: they see the same load)
            for label, tree in trees.items():
                times[label].append(first_call(tree, "kantensor", model, args.clock))
            times["onnx"].append(first_call(None, "onnx", model, args.clock))
        row = {k: statistics.median(v) for k, v in times.items()}
        rows.append(row)
        print(f"{model.name:34} {row['base']:8.1f} {row['this']:8.1f} {row['onnx']:8.1f} "
              f"{row['this'] / row['onnx']:10.2f} {row['base'] / row['onnx']:10.2f}",
              flush=True)
    mean = {k: statistics.geometric_mean([r[k] for r in rows]) for k in ("base", "this",
                                                                         "onnx")}
    print(f"{'geometric mean':34} {mean['base']:8.1f} {mean['this']:8.1f} "
          f"{mean['onnx']:8.1f} {mean['this'] / mean['onnx']:10.2f} "
          f"{mean['base'] / mean['onnx']:10.2f}")
    if args.clock == "cpu":
        print(ONNX_CPU_NOTE)


def measure(args: argparse.Namespace, trees: dict[str, Path]) -> None:
    for module in ("kantensor", "kantensor.onnx"):
        for label, tree in trees.items():
            print(f"import {module} ({label}): {best_import(tree, module)}", flush=True)
    for only in ("first build", "cached build"):
        for label, tree in trees.items():
            print(f"\n== {only} ({label})")
            out = run(tree, ["run.py", "--quick", "--only", only, "--dask-scale", "0",
                             "--clock", args.clock])
            print("\n".join(line for line in out.splitlines()
                            if only in line or line.startswith(("case", "Traceback", "  "))
                            or "Error" in line), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        small = Path(folder) / "transformer1.onnx"
        run(trees["this"], ["-c", "import onnx; from onnx_model import transformer; "
                            f"onnx.save(transformer(1), {str(small)!r})"])
        print()
        for label, tree in trees.items():
            made = [run(tree, ["-c", CLI.format(model=str(small))]).strip() for _ in range(3)]
            print(f"`kantensor onnx` on a 1-layer transformer ({label}): best of 3 "
                  f"{min(made, key=_ms)}", flush=True)
        models = [*MODELS.items(), *((str(p), None) for p in args.model)]
        for name, code in models:
            path = Path(folder) / "model.onnx"
            if code is None:
                path = Path(name)
            else:
                run(trees["this"], ["-c", "import onnx; " + code.format(layers=args.layers)
                                    + f"; onnx.save(m, {str(path)!r})"])
            shown = f"transformer, {args.layers} layers" if name == "transformer" else name
            print(f"\n== infer_shapes on {shown}: median of {args.runs} processes "
                  f"({args.clock} clock)")
            for label, tree in trees.items():
                print(f"  kantensor ({label}): "
                      f"{cold_warm(tree, 'kantensor', path, args.runs, args.clock)}",
                      flush=True)
            for label, tree in trees.items():  # (the model memo emptied before each call)
                found = cold_warm(tree, 'kantensor', path, args.runs, args.clock,
                                  "--node-by-node")
                print(f"  kantensor ({label}), node by node: {found}", flush=True)
            print(f"  onnx:             {cold_warm(None, 'onnx', path, args.runs, args.clock)}",
                  flush=True)
            if args.clock == "cpu":
                print(f"  ({ONNX_CPU_NOTE})", flush=True)


if __name__ == "__main__":
    main()
