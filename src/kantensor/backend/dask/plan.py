"""``f.plan()``: how each node of a graph lowers to Dask, in words, one line per node.

Read from the graph's static types and each Op's declared kind, so it holds for any
chunks: which of Dask's algorithms computes the node, which axes keep their chunks, and
which axes the node needs whole (refused when split, unless ``allow_rechunk=True``).
Given the inputs' chunks (``f.plan(*chunks)``), every line also says how many tasks the
node makes and what its largest task holds, and what the options made it do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...graph.basic import Apply
from ...graph.fgraph import FunctionGraph
from ...ops.op import under_built_rules
from ...ops.sizes import SizeOp
from ...types.basic_ops import SpecifyShape
from .algorithms import ALGORITHMS
from .axes import node_axes
from .lower import ARRANGE
from .memory import mb

__all__ = ["DaskPlan", "describe"]


class DaskPlan:
    """The plan of a Dask Function: ``str()`` is one line per node; ``memory`` the bytes
    per task when it was made for given chunks (else None)."""

    def __init__(self, lines: list[str], memory: Any = None, notes: Any = None,
                 nodes: Sequence[Apply] = ()):
        self.lines = lines
        self.memory = memory
        self.notes = notes or {}
        self.nodes = list(nodes)

    def __str__(self) -> str:
        if self.memory is None:
            return "\n".join(self.lines)
        tasks = dict(self.memory.nodes)
        out = []
        for node, line in zip(self.nodes, self.lines, strict=True):
            extra = [f"; {note}" for note in self.notes.get(node, [])]
            t = tasks.get(node)
            if t is not None and t.largest is not None:
                inside = t.largest.inside or 0
                extra.append(f" [{t.tasks} tasks, largest {'at most ' * t.largest.at_most}"
                             f"{mb(t.largest.inputs)} in + "
                             f"{mb(t.largest.output)} out"
                             + (f", {mb(inside)} at once inside" if inside > t.largest.output
                                else "") + "]")
            out.append(line + "".join(extra))
        out.append(str(self.memory).splitlines()[0])
        return "\n".join(out)

    def __repr__(self) -> str:
        return str(self)


def describe(fgraph: FunctionGraph, nodes: Sequence[Apply], allow_rechunk: bool,
             bound: dict | None = None) -> list[str]:
    """One line per node: what it lowers to, which axes keep their chunks, which it
    needs whole and why. ``bound``: per node, the concrete types of its inputs and
    outputs for given chunks (else the graph's types say where sizes are 0)."""
    names = _names(fgraph, nodes)
    return [_line(node, names, allow_rechunk, (bound or {}).get(node)) for node in nodes]


def _names(fgraph: FunctionGraph, nodes: Sequence[Apply]) -> dict:
    names = {v: v.name or f"in{i}" for i, v in enumerate(fgraph.inputs)}
    for k, node in enumerate(nodes):
        for j, v in enumerate(node.outputs):
            names[v] = f"v{k}" + (f".{j}" if len(node.outputs) > 1 else "")
    return names


def _line(node: Apply, names: dict, allow_rechunk: bool, bound: tuple | None) -> str:
    ins = ", ".join(names.get(v, str(getattr(v, "data", v))) for v in node.inputs)
    head = f"{', '.join(names[v] for v in node.outputs)} = {node.op}({ins}):"
    if isinstance(node.op, SizeOp):
        return f"{head} a size bound from the inputs' shapes"
    if isinstance(node.op, SpecifyShape):
        return f"{head} the input as it is"
    types = tuple(v.type for v in node.inputs)
    wrapped = tuple(v.wrapped for v in node.inputs)
    signature, op = node.op.signature_for(types)
    kind = getattr(op, "lowering", {}).get("dask")
    with under_built_rules(node):  # (as the node was typed: eval_shape's NumPy rules)
        axes = node_axes(op, signature, types, wrapped, [v.type.ndim for v in node.outputs],
                         arranging=kind == ARRANGE)
    where = _where(axes, node, names)
    kept = sorted(axes.shared, key=str)
    algorithm = ALGORITHMS.get(kind) if kind is not None else None
    ins, outs = bound or (types, tuple(v.type for v in node.outputs))
    if algorithm is not None and algorithm.applies(op, types) and algorithm.numpy(ins, outs):
        return (f"{head} blockwise by its own implementation, an input of no elements "
                f"being one empty block (not {algorithm.words(op, types)}: that is for "
                f"arrays with elements)" + _kept(kept, where))
    if algorithm is not None and algorithm.applies(op, types):
        if kind == "contraction":
            over = ", ".join(where[x] for x in sorted(axes.contracted, key=str))
            line = f"{head} {algorithm.words(op, types)} ({over}), chunks kept along the other axes"
            repeated = sorted({x for row in (*axes.inputs, *axes.outputs) for x in row
                               if row.count(x) > 1}, key=str)
            if repeated:
                line += f"; needs {', '.join(where[x] for x in repeated if x in where)} " \
                        f"whole in each task (a diagonal within one operand): " \
                        f"{_rule(allow_rechunk)}"
            return line
        return f"{head} {algorithm.words(op, types)}"
    parts = [f"{head} blockwise" + _kept(kept, where)]
    whole = sorted(axes.whole | axes.contracted, key=str)
    if whole:
        what = ", ".join(where[x] for x in whole if x in where)
        if what:
            parts.append(f"needs {what} whole in each task ({op.name} computes along it "
                         f"with no chunk-wise algorithm): {_rule(allow_rechunk)}")
    new = list(axes.new)
    if new:
        parts.append(f"{len(new)} new output axis" + "es" * (len(new) > 1)
                     + " (one chunk, size from the type)")
    return "; ".join(parts)


def _rule(allow_rechunk: bool) -> str:
    return "rechunked to one chunk where split (allow_rechunk=True)" if allow_rechunk \
        else "refused where split unless allow_rechunk=True"


def _kept(kept: list, where: dict) -> str:
    if not kept:
        return ", no axis split"
    return ", chunks kept along " + ", ".join(where[x] for x in kept if x in where)


def _where(axes: Any, node: Apply, names: dict) -> dict:
    """Each label as the first input axis that has it: ``x axis 1`` (a size's length
    is one chunk, whose data nobody reads: an axis kept along it is one chunk too)."""
    where: dict = {}
    for v, labels in zip(node.inputs, axes.inputs, strict=True):
        size = v.owner is not None and isinstance(v.owner.op, SizeOp)
        for a, label in enumerate(labels):
            where.setdefault(label, f"{names.get(v, 'constant')} axis {a}"
                             + (" (a size's length: one chunk)" if size else ""))
    return where
