"""ONNX signatures against onnxruntime, one input size changed at a time.

For each of ONNX's node test cases (``tests/onnx_cases.py``: small integer inputs made
initializers, as exporters have them) and each input axis, the size is set to one more
and to 1; the input's data keeps the case's values where they fit (zeros elsewhere).
onnxruntime (``tests/ortrun.py``, graph optimisations off) is the judge: where it refuses
the mutated model while kantensor types it at those concrete sizes with no condition
left, kantensor's relation is wider than the truth (a *gap*); where both accept and a
size kantensor states differs from onnxruntime's, the type is *wrong*. Refusals that are
no relation's business (data: an index out of range after a size shrank; kernels
onnxruntime lacks) are told apart by onnxruntime's message (:data:`CAUSES`, read by hand
first; docs/onnx.rst, "Sizes against onnxruntime").

Run ``python tests/size_mutations.py [OP ...]`` for the list and a table per op type
(mutants, onnxruntime's refusals, gaps of a relation, other gaps: see :func:`cause`).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import onnx

import ortrun
from kantensor.graph.walk import ancestors
from kantensor.onnx import from_onnx
from onnx_cases import cases, in_scope, op_types, prepared

#: Parts of onnxruntime's messages that say a refusal is no gap of a relation: a kernel
#: or a dtype onnxruntime lacks, an option its CPU kernels do not implement, or data (an
#: index out of range once a size shrank, which the sizes alone cannot decide).
CAUSES = {
    "no kernel": ("NOT_IMPLEMENTED", "can't be converted to MLDataType",
                  "No corresponding Numpy type", "Non per-tensor quantization",
                  "Exception during initialization", "mode only supports", "conv_integer.cc",
                  "is not defined for empty set with bool type"),
    "data": ("invalid indice", "invalid index", "out of data bounds", "Invalid sequence length",
             "gather_elements.cc", "tensorscatter.cc"),
}


def cause(why: str) -> str:
    """What a refusal of onnxruntime's is about: ``"no kernel"``, ``"data"`` or
    ``"sizes"`` (the relation's business)."""
    for name, marks in CAUSES.items():
        if any(mark in why for mark in marks):
            return name
    return "sizes"


@dataclass(frozen=True)
class Verdict:
    """One mutated model: the case, the input and axis changed, the new size, what
    onnxruntime said (its output shapes or its error) and kantensor's answer."""

    case: str
    op: str
    input: str
    axis: int
    size: int
    ort: object
    kantensor: object
    conditions: int

    @property
    def gap(self) -> bool:
        """onnxruntime refuses, kantensor types every output with no condition left."""
        return (isinstance(self.ort, ortrun.Refusal) and isinstance(self.kantensor, list)
                and not self.conditions)

    @property
    def wrong(self) -> bool:
        """Both run, and a size kantensor states differs from onnxruntime's."""
        if isinstance(self.ort, ortrun.Refusal) or not isinstance(self.kantensor, list):
            return False
        for got, ran in zip(self.kantensor, self.ort, strict=False):
            if got is None:
                continue
            if len(got) != len(ran) or any(isinstance(g, int) and g != r
                                            for g, r in zip(got, ran, strict=True)):
                return True
        return False


def _resized(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` cut or padded (zeros) to ``shape``."""
    out = np.zeros(shape, value.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(value.shape, shape, strict=True))
    out[common] = value[common]
    return out


def _typed(model: onnx.ModelProto) -> tuple[object, int]:
    """kantensor's output shapes of ``model`` (or its error) and how many conditions
    its nodes keep."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, outs = from_onnx(model)
    except Exception as exc:  # refused
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}", 0
    shapes = [getattr(o.type, "shape", None) for o in outs]
    nodes = {v.owner for v in ancestors(outs) if v.owner is not None}
    return shapes, sum(len(n.conditions) for n in nodes)


def mutants(case: object) -> Iterator[tuple[str, int, int, onnx.ModelProto, dict]]:
    """(input, axis, size, model, inputs) for each size of each input changed."""
    model, values, _ = prepared(case, symbolic=False)
    infos = list(model.graph.input)
    for k, (info, value) in enumerate(zip(infos, values, strict=False)):
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "biufc":
            continue
        for axis, size in enumerate(value.shape):
            for new in sorted({size + 1, 1} - {size}):
                shape = list(value.shape)
                shape[axis] = new
                m = onnx.ModelProto()
                m.CopyFrom(model)
                dims = m.graph.input[k].type.tensor_type.shape.dim
                del dims[:]
                for s in shape:
                    dims.add().dim_value = s
                feeds = {i.name: v for i, v in zip(infos, values, strict=False)}
                feeds[info.name] = _resized(value, tuple(shape))
                yield info.name, axis, new, m, feeds


def judge(case: object) -> list[Verdict]:
    """Every mutant of ``case`` judged by onnxruntime and typed by kantensor."""
    op = "+".join(sorted(op_types(case)))
    out = []
    for name, axis, size, model, feeds in mutants(case):
        ran = ortrun.run(model, feeds)
        typed, conditions = _typed(model)
        out.append(Verdict(case.name, op, name, axis, size, ran, typed, conditions))
    return out


def main(ops: list[str]) -> None:
    """Print each gap (with its cause) and wrong type, then per op type: mutants,
    onnxruntime's refusals, gaps of the relation ("sizes"), other gaps, wrong types."""
    counts: dict[str, list[int]] = {}
    for case in cases():
        kinds = op_types(case)
        if not in_scope(kinds) or (ops and not kinds & set(ops)):
            continue
        for v in judge(case):
            row = counts.setdefault(v.op, [0, 0, 0, 0, 0])
            row[0] += 1
            row[1] += isinstance(v.ort, ortrun.Refusal)
            if v.gap:
                why = v.ort.why.split("Status Message: ")[-1]
                row[2 if cause(why) == "sizes" else 3] += 1
                print(f"GAP  {v.op} {v.case} {v.input}[{v.axis}]={v.size} ({cause(why)}): "
                      f"{why[:160]}")
            elif v.wrong:
                row[4] += 1
                print(f"WRONG {v.op} {v.case} {v.input}[{v.axis}]={v.size}: ort {v.ort} "
                      f"kantensor {v.kantensor}")
        sys.stdout.flush()
    print(f"{'op':26} {'mutants':>8} {'refused':>8} {'gaps':>5} {'other':>6} {'wrong':>6}")
    for op, row in sorted(counts.items()):
        if row[2] or row[3] or row[4]:
            print(f"{op:26} {row[0]:8} {row[1]:8} {row[2]:5} {row[3]:6} {row[4]:6}")
    total = [sum(r[i] for r in counts.values()) for i in range(5)]
    print(f"{'all ' + str(len(counts)) + ' op types':26} {total[0]:8} {total[1]:8} "
          f"{total[2]:5} {total[3]:6} {total[4]:6}")


if __name__ == "__main__":
    main(sys.argv[1:])
