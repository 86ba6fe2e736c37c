"""``f.plan()``: how each node of a graph lowers to Dask, in words, one line per node.

Read from the graph's static types (ranks decide the labels, see :mod:`.axes`), so it
holds for any chunks; where chunks of unknown size meet an axis that needs them known,
the lowering computes them (``compute_chunk_sizes``) and the line says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...graph.basic import Apply
from ...graph.fgraph import FunctionGraph
from ...ops.sizes import SizeOp
from ...types.basic_ops import SpecifyShape
from .axes import node_axes
from .lower import JOINS, MASKS, RESHAPES, SLICES, basic_index, dask_algorithm, mask_axis

__all__ = ["describe"]


def describe(fgraph: FunctionGraph, nodes: Sequence[Apply]) -> str:
    """One line per node: what it lowers to, which axes keep their chunks, which are
    one chunk per task and why."""
    names = _names(fgraph, nodes)
    return "\n".join(_line(node, names) for node in nodes)


def _names(fgraph: FunctionGraph, nodes: Sequence[Apply]) -> dict:
    names = {v: v.name or f"in{i}" for i, v in enumerate(fgraph.inputs)}
    for k, node in enumerate(nodes):
        for j, v in enumerate(node.outputs):
            names[v] = f"v{k}" + (f".{j}" if len(node.outputs) > 1 else "")
    return names


def _line(node: Apply, names: dict) -> str:
    ins = ", ".join(names.get(v, str(getattr(v, "data", v))) for v in node.inputs)
    head = f"{', '.join(names[v] for v in node.outputs)} = {node.op}({ins}):"
    if isinstance(node.op, SizeOp):
        return f"{head} a size bound from the inputs' shapes"
    if isinstance(node.op, SpecifyShape):
        return f"{head} the input as it is"
    types = tuple(v.type for v in node.inputs)
    wrapped = tuple(v.wrapped for v in node.inputs)
    signature, op = node.op.signature_for(types)
    axes = node_axes(op, signature, types, wrapped, [v.type.ndim for v in node.outputs])
    where = _where(axes, node, names)
    kept = sorted(axes.shared, key=str)
    algorithm = dask_algorithm(op, node)
    if algorithm == "reduction":
        over = ", ".join(where[x] for x in sorted(axes.contracted, key=str)) or "no axis"
        return f"{head} dask.array.{op.name}, a tree reduction over the chunks of {over}" \
               + _kept(kept, where)
    if algorithm == "product":
        over = ", ".join(where[x] for x in sorted(axes.contracted, key=str))
        return f"{head} dask.array.matmul, partial products summed in a tree over the " \
               f"chunks of {over}" + _kept(kept, where)
    if algorithm == "cumulative":
        return f"{head} dask.array.{op.name} (Dask's cumulative algorithm, chunks kept)"
    if op.name in SLICES and len(node.inputs) == 1 and basic_index(op) is not None:
        return f"{head} Dask's slicing (the chunks of a sliced axis kept, cut where the " \
               "slice cuts; one blockwise chunk if a size is unknown)"
    if op.name in JOINS and isinstance(dict(op.params).get("axis"), int):
        return f"{head} dask.array.{op.name} (the inputs' chunks kept" + \
               (", one after the other along the axis)" if op.name == "concatenate"
                else ", one chunk per input along the new axis)")
    if op.name in MASKS and mask_axis(op, types) is not None:
        return f"{head} Dask's boolean masking (along the masked axis a chunk of unknown " \
               "size per block; computed only where a later node needs the sizes)"
    if op.name in RESHAPES:
        return f"{head} dask.array.reshape (rechunks only the axes whose chunks cross the " \
               "new shape's rows; one blockwise chunk if a size is unknown)"
    parts = [f"{head} blockwise" + _kept(kept, where)]
    contracted = sorted(axes.contracted, key=str)
    if contracted:
        parts.append("contracted " + ", ".join(where[x] for x in contracted)
                     + " (one chunk per task)")
    along = sorted(axes.whole - axes.contracted, key=str)
    if along:
        parts.append("rechunked to one chunk along " + ", ".join(where[x] for x in along)
                     + " (the Op works along it)")
    new = list(axes.new)
    if new:
        parts.append(f"{len(new)} new output axis" + "es" * (len(new) > 1)
                     + " (one chunk, size from the type)")
    return "; ".join(parts)


def _kept(kept: list, where: dict) -> str:
    if not kept:
        return ", no axis split"
    return ", chunks kept along " + ", ".join(where[x] for x in kept)


def _where(axes: Any, node: Apply, names: dict) -> dict:
    """Each label as the first input axis that has it: ``x axis 1``."""
    where: dict = {}
    for v, labels in zip(node.inputs, axes.inputs, strict=True):
        for a, label in enumerate(labels):
            where.setdefault(label, f"{names.get(v, 'constant')} axis {a}")
    return where
