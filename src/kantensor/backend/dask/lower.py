"""Each node of a graph as Dask arrays: its plan (chunks in, chunks out) and its lowering.

:func:`plan_node` decides, from the node's signature (see :mod:`.axes`) and the chunks of
its inputs, which input axes are rechunked and the chunks of every output, before
anything runs; :func:`lower_node` then builds the Dask arrays that plan describes:

* Dask's own algorithm where it has one: a tree reduction for sum, mean, max, argmax, ...
  (:data:`REDUCTIONS`); matmul's partial products summed in a tree (:data:`PRODUCTS`);
  cumulative sums along a chunked axis (:data:`CUMULATIVE`); reshape, which rechunks only
  the axes whose chunks cross the new rows (:data:`RESHAPES`); slicing, which keeps the
  chunks of a sliced axis (:data:`SLICES`); boolean masking, a chunk of unknown size per
  block (:data:`MASKS`); concatenate and stack, the inputs' chunks kept (:data:`JOINS`);
* otherwise one :func:`dask.array.blockwise` per output: shared labels are shared
  indices (their chunks kept, unified across inputs as Dask unifies them), every other
  input axis is one chunk in each task (made so by a rechunk of that axis only), and an
  axis new in an output gets its size from the inferred type (``nan`` when the size
  depends on the data). dtype and meta come from the inferred type, so Dask calls no
  function to guess them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import dask.array as da
import numpy as np
from dask.array.core import common_blockdim
from dask.array.reshape import reshape_rechunk
from dask.array.slicing import SlicingNoop, normalize_index, slice_array
from dask.base import tokenize

from ...graph.basic import Apply, Constant
from ...ops.op import exact_casts
from ...ops.params import ArrayRef, SliceItem
from ...ops.pyints import exact_operands
from ...signature.forward import infer
from ...types.basic_ops import SpecifyShape
from ...types.type import TensorType
from .axes import NodeAxes, node_axes
from .kernels import Block

__all__ = ["CUMULATIVE", "JOINS", "MASKS", "PRODUCTS", "REDUCTIONS", "RESHAPES", "SLICES",
           "NodePlan", "basic_index", "dask_algorithm", "lower_node", "mask_axis",
           "plan_node"]

Chunks = tuple[tuple[float, ...], ...]

#: Ops lowered to Dask's reductions (a tree reduction over the chunks of the axes).
REDUCTIONS = frozenset({"sum", "prod", "max", "min", "any", "all", "mean", "argmax",
                        "argmin"})
#: Ops lowered to Dask's matrix product: partial products of blocks summed in a tree
#: over the chunks of the contracted dim, never concatenated (not for bool, whose
#: product is logical).
PRODUCTS = frozenset({"matmul"})
#: Ops lowered to Dask's cumulative algorithms (chunks along the axis kept).
CUMULATIVE = frozenset({"cumsum", "cumprod"})
#: Ops lowered to Dask's slicing (chunks of a sliced axis kept, cut where it cuts).
SLICES = frozenset({"getitem"})
#: Ops lowered to Dask's concatenate and stack (the inputs' chunks along the axis kept,
#: one after the other; one chunk per input along a stacked axis).
JOINS = frozenset({"concatenate", "stack"})
#: Ops lowered to Dask's boolean masking (one chunk of unknown size per block).
MASKS = frozenset({"index"})
#: Ops lowered to Dask's reshape (it rechunks only the axes whose chunks cross the
#: boundaries of the new shape's rows).
RESHAPES = frozenset({"reshape", "flatten"})


@dataclass
class NodePlan:
    """How one node lowers: ``how`` is "blockwise", "reduction", "product", "cumulative",
    "reshape", "slice", "mask", "join" or "identity"; ``targets[i][a]`` the chunks
    input i gets along axis a ("whole": one chunk; None: kept as given); ``resolve`` the
    inputs whose unknown chunk sizes are computed first; ``out_chunks`` the chunks of
    every output."""

    node: Apply
    op: Any
    how: str
    axes: NodeAxes | None
    out_types: tuple[TensorType, ...]
    targets: list[list[Any]]
    out_chunks: list[Chunks]
    resolve: set[int] = field(default_factory=set)


def _size(chunks: tuple) -> float:
    return math.fsum(chunks) if chunks else 0


def _known(chunks: tuple) -> bool:
    return not any(math.isnan(c) for c in chunks)


def same_chunks(a: tuple, b: tuple) -> bool:
    """Equal chunks, ``nan`` equal to ``nan``."""
    return len(a) == len(b) and all(x == y or (math.isnan(x) and math.isnan(y))
                                    for x, y in zip(a, b, strict=True))


def concrete_type(dtype: str, chunks: Chunks) -> TensorType:
    """The type of an array of ``dtype`` and ``chunks`` (an unknown size is None)."""
    return TensorType(dtype, tuple(int(_size(c)) if _known(c) else None for c in chunks))


def dask_algorithm(op: Any, node: Apply) -> str | None:
    """Which of Dask's own algorithms computes the node of ``op`` (the Op with its
    parameters resolved) whatever its chunks: "product", "reduction" or "cumulative";
    None if none does."""
    params = dict(getattr(op, "params", ()))
    if op.name in PRODUCTS and node.outputs[0].type.dtype != "bool" and \
            all(v.type.ndim >= 1 for v in node.inputs):
        return "product"
    if op.name in REDUCTIONS and params.get("initial") is None and len(node.outputs) == 1:
        return "reduction"
    if op.name in CUMULATIVE and isinstance(params.get("axis"), int):
        return "cumulative"
    return None


def plan_node(node: Apply, types: tuple[TensorType, ...], chunks: list[Chunks]) -> NodePlan:
    """The plan of ``node`` for inputs of concrete ``types`` (an unknown size is None)
    and ``chunks``; TypeInferenceError if the inputs do not fit its signature."""
    if isinstance(node.op, SpecifyShape):
        return NodePlan(node, node.op, "identity", None, (node.outputs[0].type,),
                        [[None] * len(c) for c in chunks], [chunks[0]])
    wrapped = tuple(v.wrapped for v in node.inputs)
    signature, op = node.op.signature_for(types)
    out_types = tuple(infer(signature, types, wrapped, name=op))
    axes = node_axes(op, signature, types, wrapped, [t.ndim for t in out_types])
    how = dask_algorithm(op, node) or "blockwise"
    if op.name in RESHAPES:
        reshaped = _reshape_chunks(types[0], out_types[0], chunks[0])
        if reshaped is not None:
            return NodePlan(node, op, "reshape", axes, out_types, [[None] * len(chunks[0])],
                            [reshaped])
    if op.name in SLICES and len(chunks) == 1:
        sliced = _slice_chunks(basic_index(op), chunks[0])
        if sliced is not None:
            return NodePlan(node, op, "slice", axes, out_types, [[None] * len(chunks[0])],
                            [sliced])
    if op.name in JOINS and isinstance(dict(op.params).get("axis"), int):
        return _join_plan(node, op, axes, out_types, chunks)
    if op.name in MASKS:
        masked = _mask_chunks(mask_axis(op, types), chunks)
        if masked is not None:
            return NodePlan(node, op, "mask", axes, out_types,
                            [[None] * len(c) for c in chunks], [masked])
    whole = frozenset() if how != "blockwise" else axes.whole | axes.contracted
    unified, resolve = _unify(axes, chunks, whole)
    targets = []
    for i, (labels, cs) in enumerate(zip(axes.inputs, chunks, strict=True)):
        row: list[Any] = []
        for label, c in zip(labels, cs, strict=True):
            if label in whole:
                row.append("whole")
                if len(c) > 1 and not _known(c):
                    resolve.add(i)  # rechunking it needs its sizes
            elif _size(c) == 1 and _size(unified[label]) != 1:
                row.append(None)  # broadcast
            else:
                row.append(unified[label])
        targets.append(row)
    out_chunks = [tuple(unified[label] if label in unified
                        else ((math.nan,) if size is None else (size,))
                        for label, size in zip(labels, t.shape, strict=True))
                  for labels, t in zip(axes.outputs, out_types, strict=True)]
    return NodePlan(node, op, how, axes, out_types, targets, out_chunks, resolve)


def _join_plan(node: Apply, op: Any, axes: NodeAxes, out_types: tuple[TensorType, ...],
               chunks: list[Chunks]) -> NodePlan:
    """Dask's concatenate or stack: the other axes unified, the inputs' chunks along the
    axis one after the other (concatenate) or one chunk per input (stack)."""
    axis = dict(op.params)["axis"]
    own = frozenset(labels[axis] for labels in axes.inputs) if op.name == "concatenate" \
        else frozenset()
    unified, resolve = _unify(axes, chunks, own)
    targets = [[None if label in own else unified[label] for label in labels]
               for labels in axes.inputs]
    out = [unified.get(label) for label in axes.outputs[0]]
    out[axis] = tuple(c for cs in chunks for c in cs[axis]) if op.name == "concatenate" \
        else (1,) * len(chunks)
    return NodePlan(node, op, "join", axes, out_types, targets, [tuple(out)], resolve)


def _unify(axes: NodeAxes, chunks: list[Chunks], whole: frozenset
           ) -> tuple[dict[Any, tuple], set[int]]:
    """The chunks of every label not ``whole``, unified across the inputs as Dask
    unifies them (size-1 axes broadcast), and the inputs whose unknown chunk sizes must
    be computed to do so."""
    uses: dict[Any, list[tuple[int, tuple]]] = {}
    for i, (labels, cs) in enumerate(zip(axes.inputs, chunks, strict=True)):
        for label, c in zip(labels, cs, strict=True):
            if label not in whole:
                uses.setdefault(label, []).append((i, c))
    resolve: set[int] = set()
    unified: dict[Any, tuple] = {}
    for label, found in uses.items():
        if any(_size(c) != 1 for _, c in found):
            found = [(i, c) for i, c in found if _size(c) != 1]
        first = found[0][1]
        if all(same_chunks(c, first) for _, c in found):
            unified[label] = first
            continue
        resolve |= {i for i, c in found if not _known(c)}
        known = [c for _, c in found if _known(c)]
        unified[label] = common_blockdim(known) if known else (math.nan,)
    return unified, resolve


def _reshape_chunks(t: TensorType, out: TensorType, chunks: Chunks) -> Chunks | None:
    """The chunks ``dask.array.reshape`` gives (None where it cannot reshape: unknown
    sizes)."""
    if None in t.shape or None in out.shape or not all(_known(c) for c in chunks):
        return None
    if t.shape == out.shape:
        return chunks
    if math.prod(len(c) for c in chunks) == 1:
        return tuple((n,) for n in out.shape)
    try:
        return tuple(tuple(c) for c in reshape_rechunk(t.shape, out.shape, chunks)[1])
    except (ValueError, NotImplementedError):  # a reshape Dask's algorithm refuses
        return None


def basic_index(op: Any) -> tuple | None:
    """``op``'s index as Python's (ints, slices, None, ``...``); None if it holds
    anything else."""
    index = dict(op.params).get("index")
    out: list[Any] = []
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, SliceItem):
            if not all(v is None or isinstance(v, int) for v in item[1:]):
                return None
            out.append(slice(*item[1:]))
        elif item is None or item is Ellipsis or (isinstance(item, int)
                                                   and not isinstance(item, bool)):
            out.append(item)
        else:
            return None
    return tuple(out)


def mask_axis(op: Any, types: tuple[TensorType, ...]) -> int | None:
    """The axis a boolean vector (the second input) masks in ``x[:, ..., mask]``, the
    other index items being full slices; None for any other index."""
    index = dict(op.params).get("index")
    if not isinstance(index, tuple) or len(types) != 2 or types[1].dtype != "bool" \
            or types[1].ndim != 1:
        return None
    axis = None
    for k, item in enumerate(index):
        if isinstance(item, ArrayRef) and item.position == 0:
            axis = k
        elif item != SliceItem(None, None, None):
            return None
    return axis


def _mask_chunks(axis: int | None, chunks: list[Chunks]) -> Chunks | None:
    """The chunks of ``x[..., mask]`` by Dask's masking: along the masked axis, one
    chunk of unknown size per block of x and mask's common chunks."""
    if axis is None or not all(_known(c) for cs in chunks for c in cs):
        return None
    blocks = common_blockdim([chunks[0][axis], chunks[1][0]])
    return chunks[0][:axis] + ((math.nan,) * len(blocks),) + chunks[0][axis + 1:]


def _slice_chunks(index: tuple | None, chunks: Chunks) -> Chunks | None:
    """The chunks of ``x[index]`` by Dask's slicing (None where it needs known sizes it
    does not have)."""
    if index is None or not all(_known(c) for c in chunks):
        return None
    shape = tuple(int(_size(c)) for c in chunks)
    normal = normalize_index(index, shape)
    if all(isinstance(i, slice) and i == slice(None) for i in normal):
        return chunks
    try:
        return tuple(tuple(c) for c in slice_array("plan", "x", chunks, normal)[1])
    except SlicingNoop:
        return chunks


def lower_node(plan: NodePlan, values: list[Any]) -> list[Any]:
    """The Dask arrays of the node's outputs, given its inputs as Dask arrays (a 0-d
    input may be a NumPy value)."""
    if plan.how == "identity":
        return [values[0]]
    arrays = [_prepare(plan, i, x) for i, x in enumerate(values)]
    if plan.how == "reduction":
        return [_reduction(plan, arrays[0])]
    if plan.how == "cumulative":
        return [_cumulative(plan, arrays[0])]
    if plan.how == "product":
        dtype = plan.out_types[0].numpy_dtype
        return [da.matmul(*(x.astype(dtype) for x in arrays))]
    if plan.how == "join":
        dtype = plan.out_types[0].numpy_dtype
        join = da.concatenate if plan.op.name == "concatenate" else da.stack
        return [join([x.astype(dtype) for x in arrays], axis=dict(plan.op.params)["axis"])]
    if plan.how == "mask":
        axis = mask_axis(plan.op, tuple(v.type for v in plan.node.inputs))
        return [arrays[0][(slice(None),) * axis + (arrays[1],)]]
    if plan.how == "slice":
        return [arrays[0][basic_index(plan.op)]]
    if plan.how == "reshape":
        return [da.reshape(arrays[0], plan.out_types[0].shape)]
    return [_blockwise(plan, arrays, j) for j in range(len(plan.out_types))]


def _prepare(plan: NodePlan, i: int, x: Any) -> Any:
    """Input ``i`` with its unknown chunk sizes computed where the plan needs them, and
    rechunked to the plan's chunks (only the axes whose chunks change)."""
    if not isinstance(x, da.Array):
        return x
    if i in plan.resolve:
        x = x.compute_chunk_sizes()
    spec = {}
    for a, (target, c) in enumerate(zip(plan.targets[i], x.chunks, strict=True)):
        if target == "whole":
            if len(c) > 1:
                spec[a] = -1
        elif target is not None and _known(target) and not same_chunks(target, c):
            spec[a] = target
    return x.rechunk(spec) if spec else x


def _meta(t: TensorType) -> np.ndarray:
    return np.empty((0,) * t.ndim, dtype=t.numpy_dtype)


def _casts(plan: NodePlan, values: list[Any]) -> tuple[list[Any], tuple[str | None, ...]]:
    """The inputs as the Op's compute mode takes them (see SignatureOp.perform), and the
    dtype each block is cast to in the task (None: as it is; a low-precision integer in
    the NumPy integer that holds it, as :func:`~kantensor.ops.op.exact_casts` says)."""
    values, casts = _mode_casts(plan, values)
    if plan.op.compute in ("promote", "select"):
        return values, casts
    return values, exact_casts(plan.node, casts)


def _mode_casts(plan: NodePlan, values: list[Any]) -> tuple[list[Any], tuple[str | None, ...]]:
    """:func:`_casts` by the compute mode alone."""
    op, node = plan.op, plan.node
    n = len(values)
    if op.compute == "output":
        return values, (plan.out_types[0].dtype,) * n
    if op.compute == "select":
        return values, (None,) + (plan.out_types[0].dtype,) * (n - 1)
    if op.compute == "promote":
        dtype = op._compute_dtype(node)
        casts: list[str | None] = []
        out = []
        for v, x in zip(node.inputs, values, strict=True):
            if isinstance(v, Constant) and v.type.ndim == 0:
                out.append(exact_operands([v], [v.data], dtype)[0])  # a Python int stays
                casts.append(None)
            else:
                out.append(x)
                casts.append(dtype)
        return out, tuple(casts)
    return values, (None,) * n


def _blockwise(plan: NodePlan, values: list[Any], j: int) -> Any:
    """Output ``j`` as one blockwise over the inputs."""
    axes, t = plan.axes, plan.out_types[j]
    whole = axes.whole | axes.contracted
    letters: dict[Any, str] = {}
    counter = iter(range(1 << 30))

    def fresh() -> str:
        return f"k{next(counter)}"

    def letter(label: Any) -> str:
        if label not in letters:
            letters[label] = fresh()
        return letters[label]

    values, casts = _casts(plan, values)
    args: list[Any] = []
    for labels, x in zip(axes.inputs, values, strict=True):
        if isinstance(x, da.Array):
            args += [x, tuple(fresh() if lab in whole else letter(lab) for lab in labels)]
        else:
            args += [x, None]
    out_ind, new_axes, unknown = [], {}, []
    for b, (label, size) in enumerate(zip(axes.outputs[j], t.shape, strict=True)):
        if label in letters:
            out_ind.append(letters[label])
        else:
            k = fresh()
            out_ind.append(k)
            new_axes[k] = 1 if size is None else size
            if size is None:
                unknown.append(b)
    kernel = Block(plan.op.impl, dict(plan.op.params), casts, t.dtype,
                   j if len(plan.out_types) > 1 else None)
    y = da.blockwise(kernel, tuple(out_ind), *args, new_axes=new_axes, concatenate=True,
                     dtype=t.numpy_dtype, meta=_meta(t),
                     name=f"{plan.op.name}-{tokenize(kernel, out_ind, new_axes, *args)}")
    if unknown:
        chunks = tuple((math.nan,) * len(c) if b in unknown else c
                       for b, c in enumerate(y.chunks))
        y = da.Array(y.dask, y.name, chunks, meta=_meta(t))
    return y


def _reduction(plan: NodePlan, x: Any) -> Any:
    op, t = plan.op, plan.out_types[0]
    params = dict(op.params)
    axis, keepdims = params.get("axis"), params.get("keepdims", False)
    if op.name in ("argmax", "argmin") and axis is None and x.ndim > 1:
        # over the flat array: Dask's own axis=None breaks ties by block, not by index
        y = getattr(da, op.name)(da.reshape(x, (-1,)), axis=0)
        y = y.reshape((1,) * x.ndim) if keepdims else y
    else:
        kwargs: dict[str, Any] = {"axis": axis, "keepdims": keepdims}
        if op.name in ("sum", "prod", "mean"):
            kwargs["dtype"] = t.numpy_dtype
        y = getattr(da, op.name)(x, **kwargs)
    return y if y.dtype == t.numpy_dtype else y.astype(t.numpy_dtype)


def _cumulative(plan: NodePlan, x: Any) -> Any:
    op, t = plan.op, plan.out_types[0]
    y = getattr(da, op.name)(x, axis=dict(op.params)["axis"], dtype=t.numpy_dtype)
    return y if y.dtype == t.numpy_dtype else y.astype(t.numpy_dtype)
