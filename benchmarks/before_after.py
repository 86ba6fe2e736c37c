"""The same benchmarks on two source trees of kantensor in one run: a base (``--base``,
say the main branch's worktree) and this one. Each measurement runs in fresh processes
of this Python with ``PYTHONPATH`` set to the tree's ``src``, the two trees taking turns,
so both see the same load; the benchmark code is this tree's for both.

Run: ``python benchmarks/before_after.py --base /work/main``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

IMPORT = ("import time; t = time.perf_counter(); import {module}; "
          "print(f'{{(time.perf_counter() - t) * 1000:.0f}} ms')")


CLI = ("import subprocess, sys, time; t = time.perf_counter(); "
       "subprocess.run([sys.executable, '-m', 'kantensor', 'onnx', {model!r}], check=True, "
       "capture_output=True); print(f'{{(time.perf_counter() - t) * 1000:.0f}} ms')")


def run(tree: Path, args: list[str]) -> str:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    done = subprocess.run([sys.executable, *args], env=env, cwd=HERE, text=True,
                          capture_output=True, timeout=1800)
    return done.stdout + (done.stderr[-2000:] if done.returncode else "")


def best_import(tree: Path, module: str, times: int = 5) -> str:
    made = [run(tree, ["-c", IMPORT.format(module=module)]).strip() for _ in range(times)]
    return min(made, key=lambda t: float(t.split()[0]) if t.split()[0].isdigit() else 1e9)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--layers", type=int, default=12)
    args = parser.parse_args()
    trees = {"base": args.base.resolve(), "this": HERE.parent}
    for label, tree in trees.items():
        print(f"== {label}: {tree}")
    for module in ("kantensor", "kantensor.onnx"):
        for label, tree in trees.items():
            print(f"import {module} ({label}): {best_import(tree, module)}", flush=True)
    for only in ("first build", "cached build"):
        for label, tree in trees.items():
            print(f"\n== {only} ({label})")
            out = run(tree, ["run.py", "--quick", "--only", only, "--dask-gigabytes", "0"])
            print("\n".join(line for line in out.splitlines()
                            if only in line or line.startswith(("case", "Traceback", "  "))
                            or "Error" in line))
    model = Path("/tmp") / f"kantensor_bench_{os.getpid()}.onnx"
    run(trees["this"], ["-c", "import onnx; from onnx_model import transformer; "
                        f"onnx.save(transformer(1), {str(model)!r})"])
    for label, tree in trees.items():
        made = [run(tree, ["-c", CLI.format(model=str(model))]).strip() for _ in range(3)]
        print(f"`kantensor onnx` on a 1-layer transformer ({label}): best of 3 "
              f"{min(made, key=lambda t: float(t.split()[0]) if t[:1].isdigit() else 1e9)}")
    model.unlink(missing_ok=True)
    for label, tree in trees.items():
        print(f"\n== ONNX transformer, {args.layers} layers ({label})")
        print(run(tree, ["onnx_transformer.py", str(args.layers)]).strip())


if __name__ == "__main__":
    main()
