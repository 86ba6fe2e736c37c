"""Which values' sizes the data decides: onnxruntime runs the model at fixed input sizes
with the data of its data-dependent counts changed, and every value whose shape changes
is *data-dependent* (tests/shapejudge.py judges it apart: no tool can type it exactly
from the inputs' sizes).

The data changed is what each NonZero (and Compress) counts: its input is masked by a
seeded random draw that keeps a fraction ``keep`` of the elements, so the count becomes
about ``keep`` times what it was. A value's shape that changes under such a mask depends
on values, not sizes (the input sizes are the same in every run): onnxruntime shows it.
A value the probe does not find changing is not shown to be data-dependent and is judged
as before (the probe only ever moves a value out of "unknown" with evidence).

Why not change the model's inputs instead: a detector with random weights keeps every
anchor whatever the image (SSDlite's 3,234 scores all pass its 0.001 threshold), so runs
at different inputs show the same counts, which a tool could write as ints and be judged
exact by the data it happened to see.
"""

from __future__ import annotations

from collections.abc import Callable

import onnx
from onnx import TensorProto, helper

import ortrun
import shapejudge as sj

#: Fractions of each count's elements kept in the probe runs.
KEEP = (0.002, 0.05, 0.5)

#: op -> the index of the input whose values the op counts
COUNTED = {"NonZero": 0, "Compress": 1}


def masked(model: onnx.ModelProto, keep: float, seed: int = 0) -> onnx.ModelProto:
    """``model`` with the input of each NonZero (Compress's condition) of its main graph
    masked: an element counts only where a seeded uniform draw is below ``keep`` (one
    draw per value counted, however many nodes count it)."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    nodes, masks = [], {}  # one mask per value counted: two NonZeros of one
    # condition (the scores and the boxes a detector keeps) keep the same elements
    for node in out.graph.node:
        at = COUNTED.get(node.op_type)
        if at is None or node.domain not in ("", "ai.onnx") or len(node.input) <= at:
            nodes.append(node)
            continue
        given = node.input[at]
        if given not in masks:
            name = masks[given] = f"__probe_{len(masks)}"
            nodes += [
                helper.make_node("Cast", [given], [f"{name}_b"], to=TensorProto.BOOL),
                helper.make_node("RandomUniformLike", [f"{name}_b"], [f"{name}_r"],
                                 dtype=TensorProto.FLOAT, seed=float(seed + len(masks))),
                helper.make_node("Constant", [], [f"{name}_k"], value=helper.make_tensor(
                    f"{name}_k", TensorProto.FLOAT, [], [keep])),
                helper.make_node("Less", [f"{name}_r", f"{name}_k"], [f"{name}_m"]),
                helper.make_node("And", [f"{name}_b", f"{name}_m"], [f"{name}_y"]),
            ]
        node.input[at] = f"{masks[given]}_y"
        nodes.append(node)
    del out.graph.node[:]
    out.graph.node.extend(nodes)
    return out


def counted(model: onnx.ModelProto) -> int:
    """How many nodes of the main graph the probe masks."""
    return sum(n.op_type in COUNTED and n.domain in ("", "ai.onnx") for n in model.graph.node)


def data_dependent(model: onnx.ModelProto, sizes: dict[str, int],
                   fill: dict[str, Callable] | None = None,
                   keep: tuple[float, ...] = KEEP) -> tuple[dict[str, set[int]], list[dict]]:
    """The values of ``model`` whose shape onnxruntime computes differently when what its
    counts count changes (at the input sizes ``sizes``): each with the axes that change;
    and the probe runs (value -> shape), the unmasked one first."""
    if not counted(model):
        return {}, []
    names = sj.values_of(model)
    feeds = sj.concrete_inputs(model, sizes, fill)
    runs = []
    for k in (None, *keep):
        probe = sj.with_every_value(model if k is None else masked(model, k), names)
        got = ortrun.run(probe, feeds)
        if isinstance(got, ortrun.Refusal):  # a count the model cannot take: no evidence
            continue
        runs.append(dict(zip(names, got, strict=True)))
    out: dict[str, set[int]] = {}
    for name in names:
        shapes = {run[name] for run in runs}
        if len(shapes) > 1:
            if len({len(s) for s in shapes}) > 1:  # the rank changes: every axis does
                out[name] = set(range(max(map(len, shapes))))
            else:
                out[name] = {a for a in range(len(next(iter(shapes))))
                             if len({s[a] for s in shapes}) > 1}
    return out, runs
