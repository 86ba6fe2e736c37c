"""The ``measure`` step of benchmarks/onnx_exports.py: every exported model's values
typed by each tool and judged against onnxruntime's runs (tests/shapejudge.py), the
values whose size the data decides found first (tests/dataprobe.py) and counted apart,
and every export the folder lacks named with the reason its exporter gave.

Needs kantensor and onnxruntime (sympy for onnxruntime's ``SymbolicShapeInference``).
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the judge and the probe

#: The exporters each model is exported by (``DIR/<model>.<exporter>.onnx``).
EXPORTERS = ("torchscript", "dynamo")


def tools() -> dict[str, tuple[Callable, Callable]]:
    """name -> (its inference call, the reader of its dim_param text)."""
    import onnx

    import shapejudge as sj
    from kantensor.onnx import infer_shapes

    out = {"kantensor": (infer_shapes, sj.kantensor_size),
           "onnx": (lambda m: onnx.shape_inference.infer_shapes(m, data_prop=True),
                    sj.sympy_size)}
    try:
        import sympy  # noqa: F401
        from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference
        out["onnxruntime"] = (lambda m: SymbolicShapeInference.infer_shapes(
            m, auto_merge=True), sj.sympy_size)
    except ImportError as exc:
        print(f"onnxruntime's symbolic shape inference is not available ({exc})")
    return out


def missing(folder: Path, only: list[str]) -> dict[str, str]:
    """``<model>.<exporter>`` -> why it is not in ``folder``, for each model with sizes
    (the reason the export step wrote in ``<model>.<exporter>.failed``, if any)."""
    out = {}
    for sizes in sorted(folder.glob("*.sizes.json")):
        model = sizes.name[: -len(".sizes.json")]
        if only and model not in only or (folder / f"{model}.pattern.onnx").exists():
            continue  # (a pattern model has no exporters)
        for exporter in EXPORTERS:
            name = f"{model}.{exporter}"
            if (folder / f"{name}.onnx").exists():
                continue
            failed = folder / f"{name}.failed"
            out[name] = (failed.read_text().strip().splitlines() or ["failed"])[0] \
                if failed.exists() else "no model file (its export failed or was not run)"
    return out


def _cell(counts: Counter, total: int) -> str:
    import shapejudge as sj

    data = counts[sj.DATA] + counts[sj.GUESSED]
    return (f"{counts[sj.EXACT]:>6}/{counts[sj.UNKNOWN]}/{counts[sj.WRONG]}/{data} "
            f"{100 * counts[sj.EXACT] / max(1, total):5.1f}%")


def measure(folder: Path, only: list[str], show: int, save: Path | None) -> None:
    import logging

    import onnx
    from onnx_time import stripped

    import dataprobe
    import shapejudge as sj

    logging.disable(logging.WARNING)  # onnxruntime's tool logs every merge
    inference = tools()
    paths = sorted(folder.glob("*.onnx"))
    if not paths:
        print(f"no models in {folder}: run `export {folder}` first (needs torch)")
        return
    results: dict[str, dict] = {}
    totals = {t: Counter() for t in inference}
    named = Counter()  # per tool: data-dependent values with every size written
    decided_total = 0
    print("per tool: exact/unknown/wrong/data-dependent values, and % exact; dd: values "
          "whose size the data decides (tests/dataprobe.py)")
    print(f"{'model':28} {'values':>6} {'dd':>4} " + " ".join(f"{t:>27}" for t in inference))
    for path in paths:
        name = path.name[:-5]
        if only and name.split(".")[0] not in only:
            continue
        sizes = json.loads((folder / f"{name.split('.')[0]}.sizes.json").read_text())
        model = stripped(onnx.load(str(path)))
        try:
            runs = sj.runtime_shapes(model, sizes)
        except RuntimeError as exc:
            print(f"{name}: {exc}")
            continue
        decided, probes = dataprobe.data_dependent(model, sizes[0])
        decided_total += len(decided)
        row, record = [], {"values": len(runs[0]), "data_dependent": len(decided)}
        for tool, (infer, read) in inference.items():
            start = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    typed = infer(stripped(model))
                judgement = sj.judge(typed, runs, sizes, read, decided, (probes, sizes[0]))
                counts = judgement.counts
                named[tool] += judgement.named
                record[f"{tool}_named"] = judgement.named
            except Exception as exc:  # a tool that refuses the model: every value unknown
                judgement = None
                counts = Counter({sj.UNKNOWN: len(runs[0])})
                record[f"{tool}_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            seconds = time.perf_counter() - start
            totals[tool] += counts
            record[tool] = dict(counts) | {"seconds": round(seconds, 3)}
            row.append(_cell(counts, len(runs[0])))
            if tool == "kantensor" and judgement is not None and show:
                record["kantensor_unknown"] = _listed(judgement, show)
        results[name] = record
        print(f"{name:28} {len(runs[0]):>6} {len(decided):>4} "
              + " ".join(f"{r:>27}" for r in row))
        for kind, items in record.get("kantensor_unknown", {}).items():
            for line in items:
                print(f"    {kind}: {line}")
        if "kantensor_error" in record:
            print(f"    kantensor refused: {record['kantensor_error']}")
    absent = missing(folder, only)
    for name, why in absent.items():
        print(f"{name:28} {'-':>6} {'-':>4}  not measured: {why}")
    print()
    for tool, counts in totals.items():
        n = sum(counts.values())
        sized = n - counts[sj.DATA] - counts[sj.GUESSED]
        print(f"{tool:12} {counts[sj.EXACT]} of {n} exact ({100 * counts[sj.EXACT] / max(1, n):.2f}"
              f"%), {counts[sj.UNKNOWN]} unknown, {counts[sj.WRONG]} wrong; "
              f"{counts[sj.DATA]} data-dependent ({named[tool]} of them with every size "
              f"written, the data's by names), {counts[sj.GUESSED]} guessed; "
              f"{counts[sj.EXACT]} of the {sized} values the sizes decide exact "
              f"({100 * counts[sj.EXACT] / max(1, sized):.2f}%)")
    print(f"{decided_total} values whose size the data decides; "
          f"{len(absent)} exports not measured"
          + (f" ({', '.join(absent)})" if absent else ""))
    if save:
        save.write_text(json.dumps({"models": results, "missing": absent,
                                    "totals": {t: dict(c) | {"named": named[t]}
                                               for t, c in totals.items()}},
                                   indent=1))


def _listed(judgement, show: int) -> dict[str, list[str]]:
    import shapejudge as sj

    out = {}
    for kind in (sj.WRONG, sj.GUESSED, sj.UNKNOWN):
        items = list(judgement.of(kind).items())[:show]
        if items:
            out[kind] = [f"{n}: typed {t} ran {s}" for n, (t, s) in items]
    return out
