"""The symbolic types of ONNX's node cases hold at other sizes: the harness of
tests/onnx_cases.py checks a typed expression such as ``(d6+2)//3`` only at the case's
own sizes, where a wrong expression (or a size typed as a constant) may agree by chance.
Here each symbolised case that kantensor types is run again by
``onnx.reference.ReferenceEvaluator`` with every symbol given other sizes and random
inputs; wherever kantensor accepts those sizes (the relation refuses sizes the op's
constraints exclude, which onnx's reference does not check), the typed sizes must be
the sizes computed (or, where the two disagree, onnxruntime's).

The first draw makes every symbol 1 (where a chunk or a window is most often negative or
empty), the others draw each symbol's size from 0 to 9. ``KANTENSOR_ONNX_SIZE_DRAWS``
(default 2) sets the draws per case and ``KANTENSOR_ONNX_SIZE_SEED`` (default 23) the
seed."""

from __future__ import annotations

import os
import warnings

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

import ortrun
import sizing
from kantensor.onnx import infer_shapes
from kantensor.types.dim import Dim
from kantensor.types.symbols import substitute
from onnx_cases import cases, prepared, written_dims

DRAWS = sizing.size("ONNX_SIZE_DRAWS", 2, 20)
SEED = int(os.environ.get("KANTENSOR_ONNX_SIZE_SEED", "23"))


def typed(model: onnx.ModelProto) -> list | None:
    """The outputs' dims as infer_shapes writes them (None: refused or unknown)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = infer_shapes(model).graph.output
    except Exception:  # refused (a dtype kantensor lacks, sizes the relation excludes)
        return None
    return [written_dims(info) if info.type.HasField("tensor_type") else None
            for info in outputs]


def symbolic(model: onnx.ModelProto) -> bool:
    """Whether an input of the model has a named size."""
    return any(d.HasField("dim_param") for info in model.graph.input
               for d in info.type.tensor_type.shape.dim)


def resized(model: onnx.ModelProto, values: list, rng: np.random.Generator, ones: bool
            ) -> tuple[onnx.ModelProto, dict, dict] | None:
    """The model with each symbol a random size (1 if ``ones``), those sizes, and random
    inputs of them (None if an input is no array)."""
    sizes: dict[str, int] = {}
    concrete = onnx.ModelProto()
    concrete.CopyFrom(model)
    feeds = {}
    for info, value in zip(concrete.graph.input, values, strict=True):
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "biuf":
            return None
        shape = []
        for d in info.type.tensor_type.shape.dim:
            if d.HasField("dim_param"):
                size = sizes.setdefault(d.dim_param, 1 if ones else int(rng.integers(0, 10)))
                d.dim_value = size
            shape.append(d.dim_value)
        kind = value.dtype.kind
        feeds[info.name] = (rng.standard_normal(shape) if kind == "f" else
                            rng.random(shape) < 0.5 if kind == "b" else
                            np.zeros(shape)).astype(value.dtype)  # index 0 fits any axis
    return concrete, sizes, feeds


def runs_as_typed(model: onnx.ModelProto, feeds: dict, want: list) -> bool:
    """Whether onnxruntime runs ``model`` and gives some output the shape ``want``: the
    second judge where onnx's reference follows the spec's words and onnxruntime and
    onnx's own shape inference another rule (a SAME-padded ConvTranspose whose full
    output is shorter than in*stride: the reference pads it, they do not)."""
    got = ortrun.run(model, feeds)
    return not isinstance(got, ortrun.Refusal) and tuple(want) in [tuple(g) for g in got]


def test_symbolic_types_of_the_node_cases_hold_at_other_sizes():
    checked, wrong = 0, []
    for case in cases():
        model, values, _ = prepared(case, True)
        types = typed(model)
        if not types or not symbolic(model):
            continue
        for draw in range(DRAWS):
            made = resized(model, values, np.random.default_rng((SEED, draw, checked)),
                           draw == 0)
            if made is None:
                break
            concrete, sizes, feeds = made
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    got = ReferenceEvaluator(model).run(None, feeds)
            except Exception:  # sizes onnx's reference cannot run
                continue
            checked += 1
            for dims, value in zip(types, got, strict=False):
                if dims is None or not isinstance(value, np.ndarray):  # untyped, or a
                    continue  # sequence or an optional
                shape = np.shape(value)
                want = [substitute(d, sizes) if isinstance(d, Dim) else d for d in dims]
                if len(want) == len(shape):  # a size the data decides (NonZero's count):
                    for w, s in zip(want, shape, strict=True):  # one name, one size
                        if isinstance(w, Dim) and w.name is not None:
                            sizes.setdefault(w.name, s)
                    want = [substitute(d, sizes) if isinstance(d, Dim) else d for d in dims]
                if len(want) == len(shape) and all(
                        w is None or w == s for w, s in zip(want, shape, strict=True)):
                    continue
                if typed(concrete) is not None and not runs_as_typed(concrete, feeds,
                                                                    want):
                    wrong.append((case.name, sizes, dims, shape))
    assert wrong == []
    assert checked >= 800 * DRAWS
