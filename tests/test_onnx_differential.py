"""The ONNX differential harness (issue 38): random chain models (tests/onnx_chains.py)
with named sizes, typed by kantensor and run by onnxruntime at random all-distinct size
assignments.

At each assignment:

* kantensor's forward build at those sizes types the model exactly when onnxruntime runs
  it, and every node's output has the stated shape; where kantensor refuses a pool whose
  map would be empty (PyTorch's rule, output sizes >= 1), onnxruntime may compute that
  empty map instead, and that is counted apart;
* ``kt.refine`` of the symbolic model, given the input's concrete type, accepts exactly
  what the forward build accepts, with the same output types;
* wherever onnxruntime runs the model, the symbolic types (named sizes replaced by the
  assignment) are its shapes, or unknown: never another size.

onnxruntime runs in a worker process (tests/ortrun.py: it dies with SIGFPE on some empty
maps). ``KANTENSOR_ONNX_DIFF_MODELS`` (default 40) sets the number of models,
``KANTENSOR_ONNX_DIFF_SIZES`` (default 4) the assignments per model and
``KANTENSOR_ONNX_DIFF_SEED`` (default 38) the seed; the figures go to the summary.
"""

from __future__ import annotations

import math
import os
import random
import re
import warnings

import numpy as np
from onnx import helper

import kantensor as kt
import ortrun
import sizing
from kantensor.onnx import from_onnx
from kantensor.types.dim import Dim
from kantensor.types.symbols import free_symbols, substitute
from onnx_chains import assignments, fixed, random_model

MODELS = sizing.size("ONNX_DIFF_MODELS", 40, 1500)
SIZES = sizing.size("ONNX_DIFF_SIZES", 4, 6)
SEED = int(os.environ.get("KANTENSOR_ONNX_DIFF_SEED", "38"))

#: Figures for the summary (tests/conftest.py).
STATS: dict[str, int] = {}


def _typed(model):
    """The outputs' shapes kantensor states for ``model`` (None: refused), and why not."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [v.type.shape for v in from_onnx(model)[1]], ""
    except (TypeError, ValueError) as exc:  # TypeInferenceError, ParamError, OnnxImportError
        return None, str(exc)


def _refined(ins, outs, sizes, names):
    given = kt.TensorType("float32", tuple(sizes[n] for n in names))
    try:
        refined = kt.refine(outs, given={ins[0]: given})
    except kt.RefinementError:
        return None
    return [refined[v].shape for v in outs]


def describe(model) -> str:
    """The chain in one line: each node with its attributes and its weights' shapes."""
    shapes = {t.name: tuple(t.dims) for t in model.graph.initializer}
    parts = []
    for node in model.graph.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        weights = [shapes[i] for i in node.input[1:] if i in shapes]
        parts.append(f"{node.op_type}{attrs or ''}{weights or ''}")
    return " -> ".join(parts)


def _empty_by_the_spec(model, why: str, ran: list) -> bool:
    """Whether kantensor refused ``model`` at a pool or Conv whose window is larger than
    its padded input by ONNX's own formula, ``floor((n + pads - window) / stride) + 1``
    <= 0, on the input shape onnxruntime computed for that node. onnxruntime (and
    onnx.shape_inference) divide a negative numerator with C's truncation and give one
    position there (onnx.reference gives an empty map, PyTorch refuses)."""
    match = re.search(r"node '([^']+)'", why)
    if match is None or "window does not fit" not in why:
        return False
    shapes = {"x": [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]}
    shapes.update({o.name: s for o, s in zip(model.graph.output, ran, strict=True)})
    node = next(n for n in model.graph.node if n.name == match.group(1))
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    spatial = shapes[node.input[0]][2:]
    k = len(spatial)
    if "kernel_shape" in attrs:
        kernel = attrs["kernel_shape"]
    else:
        kernel = [d.dims for d in model.graph.initializer if d.name == node.input[1]][0][2:]
    strides = attrs.get("strides", [1] * k)
    pads = attrs.get("pads", [0] * 2 * k)
    dilations = attrs.get("dilations", [1] * k)
    if attrs.get("auto_pad", "NOTSET") != "NOTSET":
        return False
    for i, n in enumerate(spatial):
        window = (kernel[i] - 1) * dilations[i] + 1
        span = n + pads[i] + pads[i + k] - window
        if attrs.get("ceil_mode"):
            size = math.ceil(span / strides[i]) + 1
        else:
            size = math.floor(span / strides[i]) + 1
        if size <= 0:
            return True
    return False


def _at(shape, sizes):
    """A symbolic shape at the assignment: ints, or None where unknown."""
    out = []
    for e in shape:
        if isinstance(e, Dim) and free_symbols(e) <= sizes.keys():
            out.append(substitute(e, sizes))
        else:
            out.append(e if isinstance(e, int) else None)
    return out


def test_onnxruntime_runs_exactly_what_kantensor_types():
    rng = random.Random(SEED)
    stats = dict.fromkeys(("models", "assignments", "typed and ran", "refused and failed",
                           "refused, an empty pool map in onnxruntime",
                           "refused, a window onnxruntime truncates to one position",
                           "refine agreed", "symbolic sizes checked"), 0)
    problems = []
    while stats["models"] < MODELS:
        model, names, ties = random_model(rng)
        symbolic, _ = _typed(model)
        if symbolic is None:  # refused at every size (a rank or an attribute): no sizes
            continue
        stats["models"] += 1
        ins, outs = from_onnx(model)
        for sizes in assignments(rng, names, ties, SIZES):
            stats["assignments"] += 1
            m = fixed(model, sizes)
            typed, why = _typed(m)
            x = np.random.default_rng(0).random([sizes[n] for n in names]).astype(np.float32)
            ran = ortrun.run(m, {"x": x})
            refused = isinstance(ran, ortrun.Refusal)
            where = f"model {stats['models']} at {sizes}: {describe(m)}"
            if typed is None:
                if refused:
                    stats["refused and failed"] += 1
                elif any(0 in shape for shape in ran):
                    stats["refused, an empty pool map in onnxruntime"] += 1
                elif _empty_by_the_spec(m, why, ran):
                    stats["refused, a window onnxruntime truncates to one position"] += 1
                else:
                    problems.append(f"refused ({why}) but onnxruntime ran {ran}: {where}")
            elif refused:
                problems.append(f"typed {typed} but onnxruntime refused ({ran.why}): {where}")
            elif [tuple(s) for s in ran] != [tuple(s) for s in typed]:
                problems.append(f"typed {typed} but onnxruntime computed {ran}: {where}")
            else:
                stats["typed and ran"] += 1
            if _refined(ins, outs, sizes, names) == typed:
                stats["refine agreed"] += 1
            else:
                problems.append(f"refine gave {_refined(ins, outs, sizes, names)}, the "
                                f"forward build {typed}: {where}")
            if typed is not None and not refused:  # within the model's conditions
                for shape, got in zip(symbolic, ran, strict=True):
                    stated = _at(shape, sizes)
                    if any(s is not None and s != n for s, n in zip(stated, got, strict=True)):
                        problems.append(f"the symbolic type {shape} is {stated} at {sizes}, "
                                        f"onnxruntime computed {got}: {where}")
                    stats["symbolic sizes checked"] += 1
    for key, value in stats.items():
        STATS[key] = STATS.get(key, 0) + value
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:10])
    # neither side of the oracle is vacuous
    assert stats["typed and ran"] >= stats["assignments"] // 5
    assert stats["refused and failed"] >= stats["assignments"] // 10
