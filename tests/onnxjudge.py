"""onnxruntime as the judge of tests/onnxprograms.py's graphs: each output's shape and
dtype from a worker process (onnxruntime may die on a model), and :func:`judge`, which
compares them with what kantensor states (see tests/onnxprograms.py).

A graph onnxruntime has no kernel for (``NOT_IMPLEMENTED``: Where on bool, float64 Elu,
HardSigmoid or Gelu) is one it cannot run at any size: counted apart ("onnxruntime cannot
run this"), not judged, nor is a point onnxruntime refuses by the data's values (an
integer Mod by a 0). A point is valid only where the spec and onnxruntime both run it
(docs/contracts.rst), as tests/onnx_size_chains.py judges: a run whose pool window went
outside ONNX's formula (tests/ortwindows.py: an empty map where the window does not fit)
counts as refused, one whose window onnxruntime computes otherwise and onnx.reference as
the formula is not judged, and a point kantensor calls invalid where onnxruntime runs
and onnx.reference refuses (onnxruntime skips Concat's check of empty inputs) is no
disagreement."""

from __future__ import annotations

import warnings

import numpy as np
from onnx import helper
from onnx.reference import ReferenceEvaluator

import kantensor.onnx as ko
import ortrun
import ortwindows
from kantensor.onnx import from_onnx
from kantensor.types.dim import Dim
from kantensor.types.symbols import free_symbols, substitute

NAMES = ("N", "M", "K")

#: How onnxruntime says it has no kernel for a node (at every size): not a refusal of
#: the sizes, so no judgement of the contract.
NO_KERNEL = "NOT_IMPLEMENTED"

#: How onnxruntime refuses a run by the data's values (an integer Mod or Div of a random
#: 0): the data's business, not the sizes' (docs/contracts.rst), so the point is not
#: judged.
BY_VALUES = ("Integer modulo by zero", "Integer division by zero")


def ort_run(model: bytes, inputs: dict) -> list | str:
    """onnxruntime's (shape, dtype) per output (tests/ortrun.py's worker), or why it
    refused or died."""
    answer = ortrun.ask(model, inputs, typed=True)
    return answer.why if isinstance(answer, ortrun.Refusal) else answer


def reference_refuses(model, inputs: dict) -> bool:
    """Whether onnx.reference (the spec's implementation) refuses ``model`` on
    ``inputs``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ReferenceEvaluator(model).run(None, inputs)
    except Exception:  # noqa: BLE001 - any refusal of the spec's implementation
        return True
    return False


def run(model, watched: ortwindows.Watched, inputs: dict) -> list | str | None:
    """onnxruntime's run of ``model`` as :func:`judge` counts it: :func:`ort_run`'s
    answer, or why it is refused (a window outside ONNX's formula), or None where the
    point is not judged (a window onnxruntime computes otherwise where onnx.reference,
    or onnx's inference where onnx.reference cannot run it, follows the formula)."""
    got = ort_run(model.SerializeToString(), inputs)
    if isinstance(got, str) or not watched.windows:
        return got
    window = ortwindows.judge(watched, inputs)
    if not isinstance(window, ortwindows.Window):
        return got
    if window.why == "truncated" and (window.agreed or window.reference is None and
                                      window.inference_agrees):
        return None
    return f"{window.op} {window.node!r} ran outside ONNX's window formula: {window.shape}" \
        f" ({window.why}; the formula's {window.spec})"


def feed(g, sizes: dict) -> dict:
    """Inputs of ``g`` at ``sizes`` (random values of each input's dtype)."""
    out = {}
    for name, dtype, dims in g.inputs:
        shape = [sizes[d] if isinstance(d, str) else d for d in dims]
        rng = np.random.default_rng(0)
        out[name] = (rng.random(shape) * 4 - 1).astype(dtype) if dtype != "bool" else \
            rng.random(shape) < 0.5
    return out


def at(shape, sizes):
    """A symbolic shape at the assignment: ints, or None where unknown."""
    out = []
    for e in shape:
        if isinstance(e, Dim) and free_symbols(e) <= sizes.keys():
            out.append(int(substitute(e, sizes)))
        else:
            out.append(e if isinstance(e, int) else None)
    return out


def assignments(names) -> list[dict]:
    """Sizes that all differ, one with a 1, one with a 0, and all 1."""
    sets = [(2, 3, 5), (1, 4, 2), (3, 1, 4), (0, 2, 3), (1, 1, 1), (4, 0, 1), (5, 2, 1)]
    return [dict(zip(names, s, strict=False)) for s in sets]


def judge(g) -> tuple[dict, list[str]]:
    """Counts, and each disagreement with onnxruntime, of graph ``g``."""
    stats: dict[str, int] = {}
    problems: list[str] = []

    def count(key):
        stats[key] = stats.get(key, 0) + 1

    model = g.model()
    watched = ortwindows.Watched(model)
    names = [n for n in NAMES if any(n in dims for _, _, dims in g.inputs)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outs = from_onnx(model)[1]
            typed = ko.infer_shapes(model)
    except (TypeError, ValueError) as exc:
        count("refused")
        refused = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        for sizes in assignments(names):
            got = run(model, watched, feed(g, sizes))
            if isinstance(got, str) and NO_KERNEL in got:
                count("onnxruntime cannot run this")
                return stats, problems
            if isinstance(got, list) and reference_refuses(model, feed(g, sizes)):
                count("spec refuses, onnxruntime runs")
            elif isinstance(got, list):
                problems.append(f"refused ({refused}) but onnxruntime ran at {sizes}")
        return stats, problems
    except Exception as exc:  # noqa: BLE001
        problems.append(f"crashed: {type(exc).__name__}: {exc}")
        return stats, problems
    declared = {v.name: v for v in typed.graph.output}
    try:
        contract = ko.contract(model)
    except (TypeError, ValueError) as exc:
        contract = None
        problems.append(f"contract raised {exc!r}")
    for sizes in assignments(names):
        count("assignments")
        got = run(model, watched, feed(g, sizes))
        if got is None:
            count("windows onnxruntime departs from")
            continue
        refused = isinstance(got, str)
        if refused and NO_KERNEL in got:
            count("onnxruntime cannot run this")
            return stats, problems
        if refused and any(w in got for w in BY_VALUES):
            count("refused by the data's values")
            continue
        count("onnxruntime refused" if refused else "onnxruntime ran")
        verdict = contract.holds(**sizes) if contract is not None else None
        if verdict is not None and verdict.value is False and not refused and \
                reference_refuses(model, feed(g, sizes)):
            count("spec refuses, onnxruntime runs")
            continue
        if verdict is not None and verdict.value is not None and verdict.value == refused:
            problems.append(f"contract says {verdict.value} ({verdict!r:.200}), onnxruntime "
                            f"{got[:200] if refused else 'ran'} at {sizes}")
        if refused or verdict is not None and verdict.value is False:
            continue  # (no type is stated where the contract fails: a value is no answer)
        if verdict is not None and verdict.value is None:
            count("contract undecided")
            if verdict.atom is not None and verdict.atom.chosen:
                continue
        for out, v, (shape, dtype) in zip(model.graph.output, outs, got, strict=True):
            count("values")
            vt = getattr(v, "type", None)
            if vt is None or not hasattr(vt, "shape"):
                count("values untyped")
                continue
            if vt.dtype != dtype:
                problems.append(f"{out.name}: typed {vt}, onnxruntime {dtype} at {sizes}")
            stated = at(vt.shape, sizes)
            if len(stated) != len(shape) or any(s is not None and s != n
                                                for s, n in zip(stated, shape, strict=True)):
                problems.append(f"{out.name}: typed {vt} = {stated}, onnxruntime {shape} at "
                                f"{sizes}")
            d = declared[out.name].type.tensor_type
            if d.elem_type and str(helper.tensor_dtype_to_np_dtype(d.elem_type)) != dtype:
                problems.append(f"{out.name}: infer_shapes says elem {d.elem_type}, "
                                f"onnxruntime {dtype}")
            if d.HasField("shape"):
                dims = d.shape.dim
                if len(dims) != len(shape):
                    problems.append(f"{out.name}: infer_shapes rank {len(dims)}, onnxruntime "
                                    f"{shape}")
                for x, n in zip(dims, shape, strict=False):
                    if x.HasField("dim_value") and x.dim_value != n:
                        problems.append(f"{out.name}: infer_shapes {x.dim_value}, "
                                        f"onnxruntime {shape} at {sizes}")
    return stats, problems
