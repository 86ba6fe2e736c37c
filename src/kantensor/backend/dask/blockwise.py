"""A node as one :func:`dask.array.blockwise` over its inputs, by the labels of its axes.

Shared labels are shared indices: their chunks are kept, unified across the inputs as
Dask unifies them (a size-1 axis broadcasts). A label the Op needs whole (see
:mod:`.axes`) must be one chunk in every task: if it is split the user must allow the
rechunk (:meth:`.lower.Session.whole`). An axis new in an output gets its size from the
inferred type (``nan`` when the data decides it). dtype and meta come from the inferred
types, so Dask calls no function to guess them.

:func:`contraction` is the same with the contracted labels kept as indices of their own:
each task computes the Op on one block of every input (a partial result over one chunk
of each contracted label), and the partial results are summed by a tree reduction over
those indices, as ``dask.array.tensordot`` does. It is right for an Op that is a sum
over its contracted labels of a product that is independent along every other label
(einsum, tensordot, dot, vecdot: ``dask = "contraction"``).
"""

from __future__ import annotations

import math
from itertools import count
from typing import Any

import dask.array as da
import numpy as np
from dask.array.core import common_blockdim
from dask.base import tokenize

from ...graph.basic import Constant
from ...ops.op import exact_casts
from ...ops.pyints import exact_operands
from ...types.basic_ops import cast_array
from ...types.numpy_dtypes import numpy_dtype
from ...types.type import TensorType
from .kernels import Block, Partial
from .lower import NodeCall, known

__all__ = ["axes_of", "blockwise", "casts", "contraction", "first", "meta", "typed"]


def meta(t: TensorType) -> np.ndarray:
    return np.empty((0,) * t.ndim, dtype=t.numpy_dtype)


def _why(call: NodeCall, label: Any) -> str:
    if label in call.axes.contracted:
        if call.kind is None:
            return (f"{call.op.name} reduces it and declares no algorithm that combines "
                    "partial results over chunks (no dask kind in its catalogue entry)")
        return (f"{call.op.name} reduces it, and its algorithm ({call.kind}) does not "
                "combine partial results over chunks for these parameters")
    return f"{call.op.name} computes along it (a core dim of its signature or an axis " \
           "its parameters name)"


def aligned(call: NodeCall, values: list[Any], whole: frozenset) -> list[Any]:
    """The inputs with every ``whole`` label in one chunk (as the session allows) and
    the chunks of every other label unified across them (computing unknown sizes only
    where the session allows)."""
    values = list(values)
    for i, (labels, x) in enumerate(zip(call.axes.inputs, values, strict=True)):
        if not isinstance(x, da.Array):
            continue
        for a, label in enumerate(labels):
            if label in whole:
                x = call.session.whole(call, i, a, x, _why(call, label))
        values[i] = x
    uses: dict[Any, list[tuple[int, int]]] = {}
    for i, (labels, x) in enumerate(zip(call.axes.inputs, values, strict=True)):
        if isinstance(x, da.Array):
            for a, label in enumerate(labels):
                if label not in whole and x.shape[a] != 1:
                    uses.setdefault(label, []).append((i, a))
    for found in uses.values():
        chunks = [values[i].chunks[a] for i, a in found]
        if all(_same(c, chunks[0]) for c in chunks) and (all(known(c) for c in chunks) or len(
                {call.session.origin(values[i], a) for i, a in found}) == 1):
            continue
        if not all(known(c) for c in chunks):  # (known chunks are rechunked alike with
            # the other axes' unknown ones as they are)
            for i, _ in found:
                values[i] = call.session.sizes(call, i, values[i],
                                               " and must be aligned with another input's")
        found = [(i, a) for i, a in found if values[i].shape[a] != 1]  # (an unknown size
        # computed 1 broadcasts: no chunks to align)
        chunks = [values[i].chunks[a] for i, a in found]
        common = common_blockdim(chunks)
        for i, a in found:
            if not _same(values[i].chunks[a], common):
                values[i] = call.session.rechunked(values[i], a, common)
    return values


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x == y or (math.isnan(x) and math.isnan(y))
                                    for x, y in zip(a, b, strict=True))


def casts(call: NodeCall, values: list[Any]) -> tuple[list[Any], tuple[str | None, ...]]:
    """The inputs as the Op's compute mode takes them (see SignatureOp.perform), and the
    dtype each block is cast to in the task (None: as it is; a low-precision integer in
    the NumPy integer that holds it, as :func:`~kantensor.ops.op.exact_casts` says)."""
    op, node = call.op, call.node
    n = len(values)
    if op.compute == "output":
        return _changing(values, exact_casts(node, (call.out_types[0].dtype,) * n))
    if op.compute == "select":
        return _changing(values, (None,) + (call.out_types[0].dtype,) * (n - 1))
    dtype = op._compute_dtype(node) if op.compute == "promote" else None
    if dtype is not None:  # (None: compared as given, NumPy's exact mixed-int loops)
        out, kinds = [], []
        for v, x in zip(node.inputs, values, strict=True):
            if isinstance(v, Constant) and v.type.ndim == 0:
                out.append(exact_operands([v], [v.data], dtype)[0])  # a Python int stays
                kinds.append(None)
            else:
                out.append(x)
                kinds.append(dtype)
        return _changing(out, tuple(kinds))
    return _changing(values, exact_casts(node, (None,) * n))


def _changing(values: list[Any], kinds: tuple[str | None, ...]
              ) -> tuple[list[Any], tuple[str | None, ...]]:
    """The casts left to the tasks: none for a Dask array that has that dtype already
    (its blocks have its dtype: the cast would return each as it is), and none for a
    value that is not a Dask array (a constant: cast here, once, by the same function a
    task would call). A task with no cast left ships NumPy's own function where its Op
    has one (:meth:`.kernels.Block.numpy_form`)."""
    out, left = [], []
    for x, k in zip(values, kinds, strict=True):
        if k is not None and not isinstance(x, da.Array):
            x, k = cast_array(x, k), None
        elif k is not None and x.dtype == numpy_dtype(k):
            k = None
        out.append(x)
        left.append(k)
    return out, tuple(left)


class _Letters:
    """Fresh blockwise index names, and one per label."""

    def __init__(self) -> None:
        self.of: dict[Any, str] = {}
        self._n = count()

    def fresh(self) -> str:
        return f"k{next(self._n)}"

    def __call__(self, label: Any) -> str:
        if label not in self.of:
            self.of[label] = self.fresh()
        return self.of[label]


def blockwise(call: NodeCall, values: list[Any]) -> list[Any]:
    """Every output of the node as one blockwise over its inputs."""
    axes = call.axes
    whole = axes.whole | axes.contracted
    lined = aligned(call, values, whole)
    values, kinds = casts(call, lined)
    outs = []
    for j, t in enumerate(call.out_types):
        letters = _Letters()
        args = _arguments(axes.inputs, values, letters, whole)
        out_ind, new_axes, unknown = [], {}, []
        for b, (label, size) in enumerate(zip(axes.outputs[j], t.shape, strict=True)):
            if label in letters.of:
                out_ind.append(letters.of[label])
            else:
                k = letters.fresh()
                out_ind.append(k)
                new_axes[k] = 1 if size is None else size
                if size is None:
                    unknown.append(b)
        kernel = Block(call.op.impl, call.params, kinds, t.dtype,
                       j if len(call.out_types) > 1 else None, _exact(call))
        y = da.blockwise(kernel, tuple(out_ind), *args, new_axes=new_axes, concatenate=True,
                         dtype=t.numpy_dtype, meta=meta(t),
                         name=f"{call.op.name}-{tokenize(kernel, out_ind, new_axes, *args)}")
        if unknown:
            chunks = tuple((math.nan,) * len(c) if b in unknown else c
                           for b, c in enumerate(y.chunks))
            y = da.Array(y.dask, y.name, chunks, meta=meta(t))
        _pass_origins(call, lined, y, out_ind, args[1::2])
        outs.append(y)
    return outs


def _pass_origins(call: NodeCall, inputs: list[Any], y: Any, out_ind: list, indices: list
                  ) -> None:
    """Record the origin of each axis of ``y`` whose unknown chunks are the blocks of an
    input's axis (``inputs`` before their casts, ``indices`` their blockwise indices; see
    :meth:`.lower.Session.origin`)."""
    for b, letter in enumerate(out_ind):
        for x, ind in zip(inputs, indices, strict=True):
            if (y.name, b) in call.session.origins:
                break
            if isinstance(x, da.Array) and ind and letter in ind:
                call.session.keeps(x, y, {ind.index(letter): b})


def _arguments(labels: tuple, values: list[Any], letters: _Letters, whole: frozenset
               ) -> list[Any]:
    args: list[Any] = []
    for row, x in zip(labels, values, strict=True):
        if isinstance(x, da.Array):
            args += [x, tuple(letters.fresh() if lab in whole else letters(lab)
                              for lab in row)]
        else:
            args += [x, None]
    return args


def contraction(call: NodeCall, values: list[Any]) -> list[Any]:
    """Blockwise partial results over one chunk of every contracted label, summed in a
    tree over those chunks (see the module doc)."""
    axes = call.axes
    repeated = frozenset(x for row in (*axes.inputs, *axes.outputs) for x in row
                         if row.count(x) > 1)
    contracted = sorted(axes.contracted - repeated, key=str)
    lined = aligned(call, values, repeated)
    values, kinds = casts(call, lined)
    t = call.out_types[0]
    letters = _Letters()
    args = _arguments(axes.inputs, values, letters, repeated)
    out_ind = [letters(label) for label in axes.outputs[0]]
    summed = [letters.of[label] for label in contracted if label in letters.of]
    split = {label for row, x in zip(axes.inputs, values, strict=True)
             if isinstance(x, da.Array)
             for label, c in zip(row, x.chunks, strict=True) if len(c) > 1}
    if not split & set(contracted):  # every contracted label in one chunk: one product
        return blockwise(call, values)
    kernel = Partial(Block(call.op.impl, call.params, kinds, t.dtype, exact=_exact(call)),
                     len(summed))
    partial = da.blockwise(kernel, tuple(out_ind + summed), *args, concatenate=True,
                           adjust_chunks=dict.fromkeys(summed, 1), dtype=t.numpy_dtype,
                           meta=np.empty((0,) * (t.ndim + len(summed)), t.numpy_dtype),
                           name=f"{call.op.name}-partial-"
                                f"{tokenize(kernel, out_ind, summed, *args)}")
    over = tuple(range(t.ndim, t.ndim + len(summed)))
    total = da.sum(partial, axis=over, dtype=t.numpy_dtype)
    total = total if total.dtype == t.numpy_dtype else total.astype(t.numpy_dtype)
    _pass_origins(call, lined, total, out_ind, args[1::2])  # (the tree sums over the
    # contracted indices only: every output index keeps its input's blocks)
    return [total]


def _exact(call: NodeCall) -> bool:
    """Whether the Op's implementation gives its results in the inferred dtypes: every
    compute mode but "wider" (see ``kantensor.ops.op.COMPUTE_MODES``)."""
    return getattr(call.op, "compute", "none") != "wider"


def typed(call: NodeCall, y: Any, j: int = 0) -> Any:
    """``y`` in output ``j``'s dtype (a cast keeps every block: origins passed)."""
    dtype = call.dtype(j)
    if y.dtype == dtype:
        return y
    z = y.astype(dtype)
    call.session.keeps(y, z, {a: a for a in range(y.ndim)})
    return z


def first(call: NodeCall, values: list[Any]) -> Any:
    """The first input as the Op's compute mode casts it."""
    values, kinds = casts(call, values)
    x = values[0]
    return x if kinds[0] is None or x.dtype == kinds[0] else x.astype(kinds[0])


def axes_of(call: NodeCall, x: Any, key: str = "axis") -> tuple[int, ...]:
    axis = call.params.get(key)
    if axis is None:
        return tuple(range(x.ndim))
    items = axis if isinstance(axis, tuple | list) else (axis,)
    return tuple(sorted(a % x.ndim for a in items))
