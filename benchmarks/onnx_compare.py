"""kantensor.onnx.infer_shapes beside onnx's C++ shape inference (data_prop) and
onnxruntime's symbolic shape inference (auto_merge), when they are installed:

1. ONNX's node test cases, symbolised as tests/onnx_cases.py does it (every input size
   > 1 a named dim_param, small integer and shape-value inputs made initializers), the
   outputs' declared types removed, typed by each tool and compared with the expected
   outputs: cases with every output typed exactly, op types exact in every case, wrong
   (not just unknown) outputs; over all cases and over the cases in kantensor.onnx's scope.
2. The time each takes to type benchmarks/onnx_model.py's transformer (symbolic batch
   and sequence sizes; ``--width``, default 64), protobuf reading included: cold (the
   first call in a fresh process, after the imports) and best (the best of the calls
   after it), each tool in processes of its own running benchmarks/onnx_time.py, which
   imports only that tool (one tool's run or imports can change another's time in the
   same process: importing onnx.reference fills onnx's schema registry, which onnx's
   first inference call otherwise fills itself), the tools' processes taking turns;
   the best and the median over the processes.
   Before the timings kantensor's package is byte-compiled (``compileall``), as pip
   does when it installs a package: the environment may set PYTHONDONTWRITEBYTECODE
   (an editable install then has no .pyc files), and a cold call that imports a kernel
   module lazily would otherwise time Python compiling its source, which a user's
   install never does. onnx and onnxruntime are installed packages with their .pyc.

Run: python benchmarks/onnx_compare.py [--layers 34] [--width 64] [--processes 3]
     [--repeat 10] [--no-cases] [--no-times]
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import io
import logging
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from statistics import median

import numpy as np
import onnx
from onnx import helper

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))  # tests/onnx_cases.py: the cases' oracle

from onnx_model import WIDTH, transformer  # noqa: E402
from onnx_time import TOOLS, Tool  # noqa: E402
from onnx_time import tool as load_tool  # noqa: E402

import kantensor  # noqa: E402
from onnx_cases import _dim_value as dim_value  # noqa: E402
from onnx_cases import cases, compare_type, in_scope, op_types, prepared  # noqa: E402


def tools() -> dict[str, Tool]:
    """The shape inferences installed, by name (onnxruntime, and the sympy it needs, are
    in the bench extra)."""
    out: dict[str, Tool] = {}
    for name in TOOLS:
        try:
            out[name] = load_tool(name)
        except ImportError:
            continue
    return out


def untyped(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model without the types of its outputs and values (what is to be inferred)."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    out.graph.ClearField("value_info")
    for o in out.graph.output:
        o.ClearField("type")
    return out


def verdict(info: onnx.ValueInfoProto | None, expected: object) -> str:
    """exact, unknown or wrong: the typed output against the expected value, judged as
    tests/onnx_cases.py judges it (:func:`onnx_cases.compare_type`: a sequence's element
    type against every element, an optional's against the value it holds, or exact when
    it holds none), each tensor by :func:`_verdict_tensor`."""
    if info is None:
        return "unknown"
    return compare_type(info.type, expected, _verdict_tensor)


def _verdict_tensor(proto: onnx.TypeProto, expected: object) -> str:
    """A tensor's element type as ONNX names the expected array's (NumPy's and
    ml_dtypes' types), and each size as tests/onnx_cases.py reads it (a text kantensor
    cannot read, such as a sympy expression, is unknown)."""
    if not isinstance(expected, np.ndarray) or not proto.HasField("tensor_type"):
        return "unknown"
    t = proto.tensor_type
    try:
        want = helper.np_dtype_to_tensor_dtype(expected.dtype)
    except Exception:  # a type ONNX does not name: not comparable
        return "unknown"
    if t.elem_type == 0:
        return "unknown"
    if t.elem_type != want:
        return "wrong"
    if not t.HasField("shape"):
        return "unknown"
    if len(t.shape.dim) != expected.ndim:
        return "wrong"
    result = "exact"
    for dim, size in zip(t.shape.dim, expected.shape, strict=True):
        try:
            value = dim_value(dim)
        except Exception:  # an expression outside kantensor's syntax: not a size read
            value = None
        if value is None:
            result = "unknown"
        elif value != size:
            return "wrong"
    return result


def score(tool: Tool, case: object) -> list[str]:
    """The verdicts of the case's outputs typed by ``tool`` (all unknown if it fails)."""
    model, _, expected = prepared(case, True)
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            typed = tool(untyped(model))
    except Exception:
        typed = None
    if typed is None:  # refused (onnxruntime returns None for what it does not take)
        return ["unknown"] * len(expected)
    infos = {o.name: o for o in typed.graph.output}
    return [verdict(infos.get(o.name), e)
            for o, e in zip(model.graph.output, expected, strict=False)]


def _count(case: object, found: dict[str, Tool], stats: dict[str, dict]) -> None:
    """Score the case with every tool into ``stats``."""
    ops = op_types(case)
    for name, tool in found.items():
        s = stats[name]
        got = score(tool, case)
        exact = bool(got) and all(v == "exact" for v in got)
        s["exact"] += exact
        s["scope exact"] += exact and in_scope(ops)
        wrong = got.count("wrong")
        s["wrong"] += wrong
        s["wrong cases"] += wrong > 0
        if wrong and len(s["wrong examples"]) < 5:
            s["wrong examples"].append(case.name)
        for op in ops:
            s["ops"][op] = s["ops"].get(op, True) and exact


def node_cases(names: list[str]) -> dict[str, dict[str, object]]:
    """Per tool: exact cases, op types exact in every case and wrong outputs, over all
    cases and over those in scope."""
    every = cases()
    logging.disable(logging.WARNING)  # onnxruntime logs each op it cannot type
    found = {name: tool for name, tool in tools().items() if name in names}
    stats = {name: {"exact": 0, "scope exact": 0, "wrong": 0, "wrong cases": 0,
                    "ops": {}, "wrong examples": []} for name in found}
    scope = 0
    with tempfile.TemporaryDirectory() as tmp, contextlib.chdir(tmp):
        # onnxruntime saves a model it could not type whole into the current directory
        for case in every:
            _count(case, found, stats)
            scope += in_scope(op_types(case))
    for s in stats.values():
        ops = s.pop("ops")
        s["op types"] = sum(ops.values())
        s["scope op types"] = sum(v for op, v in ops.items() if in_scope({op}))
        s["all op types"] = len(ops)
        s["all scope op types"] = sum(in_scope({op}) for op in ops)
    for s in stats.values():
        s["cases"], s["scope cases"] = len(every), scope
    return stats


def byte_compile() -> None:
    """Write the .pyc files of kantensor's package, as pip does when it installs it (the
    timed processes then import what a user's install imports)."""
    compileall.compile_dir(Path(kantensor.__file__).parent, quiet=1)


def timings(names: list[str], layers: int, processes: int, repeat: int, width: int
            ) -> dict[str, tuple[list[float], list[float]]]:
    """Per tool, the cold and best times of ``processes`` fresh processes each (running
    onnx_time.py, which imports only the tool it times), sorted (the tools taking turns,
    so that they see the same load)."""
    out: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in names}
    script = str(Path(__file__).resolve().with_name("onnx_time.py"))
    byte_compile()
    for _ in range(processes):
        for name in names:
            with tempfile.TemporaryDirectory() as tmp:  # for onnxruntime's saved models
                result = subprocess.run(
                    [sys.executable, script, name, "--layers", str(layers), "--width",
                     str(width), "--repeat", str(repeat)], capture_output=True, text=True,
                    check=True, cwd=tmp)
            cold, best = map(float, result.stdout.split())
            out[name][0].append(cold)
            out[name][1].append(best)
    return {name: (sorted(c), sorted(b)) for name, (c, b) in out.items()}


def report(layers: int = 34, processes: int = 3, repeat: int = 10,
           with_cases: bool = True, with_times: bool = True, width: int = WIDTH) -> None:
    names = list(tools())
    missing = "" if "onnxruntime" in names else \
        " (onnxruntime not installed: pip install -e '.[bench]' to compare)"
    print(f"\nONNX shape inference: kantensor, onnx {onnx.__version__}" +
          (f", onnxruntime {_ort_version()}" if "onnxruntime" in names else "") + missing)
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    if with_cases:
        stats = node_cases(names)
        first = next(iter(stats.values()))
        print(f"node cases, symbolised: {first['cases']} cases of {first['all op types']} "
              f"op types; in scope {first['scope cases']} cases of "
              f"{first['all scope op types']} op types")
        print(f"  {'':<12} {'every output exact':>22} {'op types exact':>15} "
              f"{'in scope: exact':>18} {'op types':>9} {'wrong outputs (cases)':>22}")
        for name, s in stats.items():
            print(f"  {name:<12} {s['exact']:>7} ({100 * s['exact'] / s['cases']:5.1f}%)"
                  f"{'':>6} {s['op types']:>15} {s['scope exact']:>8} "
                  f"({100 * s['scope exact'] / s['scope cases']:5.1f}%) "
                  f"{s['scope op types']:>9} {s['wrong']:>13} ({s['wrong cases']})")
        for name, s in stats.items():
            if s["wrong examples"]:
                print(f"  {name} wrong in: {', '.join(s['wrong examples'])}, ...")
    if not with_times:
        return
    model = transformer(layers, width)
    print(f"typing a {layers}-layer transformer ({len(model.graph.node)} nodes, width "
          f"{width}, {model.ByteSize() / 1e6:.0f} MB; symbolic batch and seq), protobuf "
          f"reading included; each tool in {processes} fresh processes importing only "
          f"itself: cold = first call, best = best of {repeat} more; the best and the "
          f"median over the processes")
    print(f"  {'ms':<12} {'cold: best':>11} {'median':>7} {'best: best':>11} {'median':>7}")
    for name, (cold, best) in timings(names, layers, processes, repeat, width).items():
        print(f"  {name:<12} {1000 * cold[0]:>11.1f} {1000 * median(cold):>7.1f} "
              f"{1000 * best[0]:>11.1f} {1000 * median(best):>7.1f}")


def _ort_version() -> str:
    import onnxruntime

    return onnxruntime.__version__


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=34)
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--no-cases", action="store_true", help="only the timings")
    parser.add_argument("--no-times", action="store_true", help="only the node cases")
    parser.add_argument("--width", type=int, default=WIDTH, help="the model's width")
    args = parser.parse_args()
    report(args.layers, args.processes, args.repeat, not args.no_cases, not args.no_times,
           args.width)


if __name__ == "__main__":
    main()
