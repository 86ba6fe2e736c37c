"""eval_shape on published NumPy model code that the project does not ship.

The code is not in this repository: fetch each project (the table's first column,
``owner/name`` on GitHub) into a folder of its own under ``--corpus`` (default
/work/helpers/corpus), named ``owner+name``. benchmarks/published_corpus.py holds only
how each function is called: its input types (named sizes), keyword arguments, and a
lambda that builds the objects it needs (a layer from symbolic weights) in the
function's own module.

For every function it measures, each in a worker process (so a crash of the interpreter
is counted, not fatal): **typed right** (eval_shape's output types are NumPy's outputs'
at two size assignments where every size differs, drawn like tests/mutation.py does),
**wrong** (eval_shape gives a type NumPy's outputs do not have), **raised** (eval_shape
refuses it, the first line of its message printed, or types it only under an assumption
those assignments break, as tests/shape_judge.py reads a result: a loop over
``range`` of a size typed where the size is 0, refused past it), **crashed**. Functions NumPy
itself cannot run at any tried assignment are listed apart. Then the bug-finding
figures of tests/mutation.py on the functions typed right: shape bugs seeded into each
plain function's code and into the weights' shapes, judged by NumPy.

Run: ``python benchmarks/eval_shape_published.py [--corpus DIR] [--project NAME]
[--no-mutants] [--verbose]``; autograd's examples need ``pip install autograd``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.util
import json
import linecache
import os
import random
import subprocess
import sys
import types
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from published_corpus import PROJECTS, Fn  # noqa: E402

import mutation  # noqa: E402 - beside the tests, found through the path above
import shape_judge  # noqa: E402

#: Optional libraries the projects import for plotting, tables or progress bars only.
_STUBBED = ("progressbar", "matplotlib", "mpl_toolkits", "tqdm", "terminaltables")


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Empty modules for :data:`_STUBBED` (and their submodules) when not installed."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name.partition(".")[0] not in _STUBBED:
            return None
        for finder in sys.meta_path:
            if finder is not self and finder.find_spec(name, path, target) is not None:
                return None
        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec: Any) -> Any:
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = _stub_attribute  # type: ignore[attr-defined]
        return module

    def exec_module(self, module: Any) -> None:
        pass


class _Anything:
    """What a stubbed library's names are: any attribute, call or subclass gives one."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Anything()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _Anything()

    def __mro_entries__(self, bases: tuple) -> tuple:
        return (object,)


def _stub_attribute(attr: str) -> Any:
    if attr.startswith("__"):
        raise AttributeError(attr)
    return _Anything()


def _stub_missing() -> None:
    sys.meta_path.append(_Stubs())


def _module(root: Path, aliases: dict[str, str], name: str) -> Any:
    if name in aliases:
        spec = importlib.util.spec_from_file_location(name, root / aliases[name])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return importlib.import_module(name)


def _ranges(fn: Fn) -> dict:
    return {i: (lambda s, v=v: (0, s[v] if not v.isdigit() else int(v)))
            for i, v in fn.ranges.items()}


def _lambda(fn: Fn, module: Any) -> Any:
    """The lambda of ``fn`` in ``module``'s namespace, its text registered as a source
    file (so that the harness reads which lines a weight it is given reaches)."""
    filename = f"<published_corpus {fn.name}>"
    linecache.cache[filename] = (len(fn.target), None, [fn.target + "\n"], filename)
    code = compile(fn.target, filename, "eval")
    return eval(code, vars(module))  # noqa: S307 - this file's own lambdas


def measure_one(fn: Fn, module: Any, rng: random.Random, mutate: bool) -> dict[str, Any]:
    target = _lambda(fn, module) if fn.target.startswith("lambda") \
        else getattr(module, fn.target)
    case = mutation.Case(target, list(fn.types), dict(fn.kwargs), _ranges(fn))
    out: dict[str, Any] = {"name": fn.name}
    sizes = shape_judge.assignments(case, case.types, rng, count=2)
    if len(sizes) < 2:
        out["verdict"] = "numpy fails"
        return out
    try:
        result = shape_judge.eval_shape(target, case.types, case.kwargs)
    except Exception as exc:  # noqa: BLE001
        out["verdict"] = "raised"
        out["message"] = f"{type(exc).__name__}: {str(exc).splitlines()[-1][:300]}"
        out["where"] = str(exc).splitlines()[0][:300]
        return out
    broken = [s for s in sizes if shape_judge._assumption_broken(result, s)]
    if broken:  # typed only under assumptions these sizes break: refused there, not typed
        out["verdict"] = "raised"
        out["message"] = f"assumed: {shape_judge._first_broken(result, broken[0])}"[:300]
        return out
    ok = all(shape_judge._types_match(result, shape_judge.run_numpy(target, case, case.types, s), s)
             for s in sizes)
    out["verdict"] = "right" if ok else "wrong"
    out["type"] = str(result.type)
    types_ = result.type if isinstance(result.type, tuple) else (result.type,)
    out["exact"] = result.type is not None and all(d is not None for t in types_
                                                   for d in t.shape)
    if not ok or not mutate:
        return out
    plain = not fn.target.startswith("lambda")
    muts = (mutation.mutants(case, rng) if plain else
            [m for m in mutation.weight_mutants(case)][:3])
    verdicts = [shape_judge.judge(m, case.types, sizes) for m in muts]
    out["mutants"] = [{"kind": v.mutant.kind, "bug": v.bug, "symbolic": v.symbolic,
                       "line_first": v.line_first, "coded": v.mutant.line is not None,
                       "concrete": v.concrete, "equal": v.equal_sizes, "what": str(v.mutant)}
                      for v in verdicts]
    return out


def worker(folder: str, corpus: Path, start: int, mutate: bool) -> None:
    warnings.simplefilter("ignore")
    _stub_missing()
    root = corpus / folder
    aliases, fns = PROJECTS[folder]
    base = root / aliases.get("", "")
    sys.path.insert(0, str(base))
    rng = random.Random(34)
    for i, fn in enumerate(fns):
        if i < start:
            continue
        print(json.dumps({"start": i}), flush=True)
        try:
            module = _module(root, aliases, fn.module)
            if folder == "eriklindernoren+ML-From-Scratch" and not hasattr(module, "Adam"):
                module.Adam = importlib.import_module(
                    "mlfromscratch.deep_learning.optimizers").Adam
            result = measure_one(fn, module, rng, mutate)
        except Exception as exc:  # noqa: BLE001 - the harness's own failure, reported
            result = {"name": fn.name, "verdict": "harness",
                      "message": f"{type(exc).__name__}: {exc}"[:300]}
        result["index"] = i
        print(json.dumps(result), flush=True)


# -- the parent: workers, crashes, the table ----------------------------------------------

def run_project(folder: str, corpus: Path, mutate: bool, verbose: bool) -> list[dict]:
    results: list[dict] = []
    start = 0
    total = len(PROJECTS[folder][1])
    while start < total:
        cmd = [sys.executable, __file__, "--worker", folder, "--corpus", str(corpus),
               "--start", str(start)] + ([] if mutate else ["--no-mutants"])
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600,
                              env={**os.environ, "PYTHONHASHSEED": "0"})
        current = start
        for line in done.stdout.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "start" in record and len(record) == 1:
                current = record["start"]
                continue
            results.append(record)
            current = record["index"] + 1
        if current >= total:
            break
        if done.returncode != 0:  # the worker died inside function `current`
            fn = PROJECTS[folder][1][current]
            verdict = "crashed" if done.returncode < 0 else "harness"  # a signal: a crash
            results.append({"name": fn.name, "verdict": verdict, "index": current,
                            "message": f"exit {done.returncode}: {done.stderr[-300:]}"})
            current += 1
        start = current
    if verbose:
        for r in results:
            extra = r.get("type") or r.get("message", "")
            print(f"  {r['verdict']:12s} {r['name'][:70]:70s} {extra[:160]}")
    return results


def table(results: list[dict]) -> str:
    verdicts = Counter(r["verdict"] for r in results)
    judged = sum(verdicts[v] for v in ("right", "wrong", "raised", "crashed"))
    exact = sum(1 for r in results if r.get("exact") and r["verdict"] == "right")
    lines = [f"functions {len(results)}: typed right {verdicts['right']} of {judged} "
             f"({100 * verdicts['right'] / max(judged, 1):.0f}%; with every size known "
             f"{exact}), wrong {verdicts['wrong']}, "
             f"raised {verdicts['raised']}, crashed {verdicts['crashed']}; NumPy fails at "
             f"every tried size {verdicts['numpy fails']}, harness {verdicts['harness']}"]
    muts = [m for r in results for m in r.get("mutants", [])]
    bugs = [m for m in muts if m["bug"]]
    caught = [m for m in bugs if m["symbolic"] != "accepted"]
    coded = [m for m in caught if m["coded"]]
    alarms = [m for m in muts if not m["bug"] and m["symbolic"] != "accepted"]
    if muts:
        lines.append(
            f"mutants {len(muts)}: real shape bugs {len(bugs)}; caught symbolically "
            f"{len(caught)} ({100 * len(caught) / max(len(bugs), 1):.0f}%), the mutated line "
            f"(for a swapped weight, a line using it) named first in "
            f"{sum(m['line_first'] for m in caught)} of {len(caught)} "
            f"({100 * sum(m['line_first'] for m in caught) / max(len(caught), 1):.0f}%; "
            f"{sum(m['line_first'] for m in coded)} of {len(coded)} code edits); "
            f"false alarms {len(alarms)}; at distinct concrete sizes "
            f"{sum(m['concrete'] == 'raised' for m in bugs)}; NumPy at equal sizes "
            f"{sum(m['equal'] != 'accepted' for m in bugs)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/helpers/corpus"))
    parser.add_argument("--project", action="append")
    parser.add_argument("--no-mutants", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--worker")
    parser.add_argument("--start", type=int, default=0)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.corpus, args.start, not args.no_mutants)
        return
    everything = []
    for folder in args.project or list(PROJECTS):
        if not (args.corpus / folder).is_dir():
            print(f"{folder}: not in {args.corpus} (fetch it), skipped")
            continue
        results = run_project(folder, args.corpus, not args.no_mutants, args.verbose)
        print(f"{folder}: {table(results)}")
        everything.extend(results)
    print(f"all: {table(everything)}")


if __name__ == "__main__":
    main()
