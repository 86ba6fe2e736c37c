"""Dask's own algorithms, by the kind an Op declares (``dask = "..."`` in its catalogue
entry): never by the Op's name, so a user's Op named ``sum`` is computed by its own
signature and implementation.

Each kind is a promise about what the Op computes, and the algorithm keeps it chunk by
chunk:

* ``reduction``: ``impl(x, axis=, keepdims=, **params)`` applied to partial results gives
  the whole result (sum, prod, max, min, all, any): a tree reduction with the Op's own
  implementation at every level; ``count``: partial counts summed in a tree;
* ``mean``, ``var``, ``std``: Dask's tree reductions of moments (counts, sums, and sums
  of squared deviations combined pairwise); ``argmax``/``argmin``: Dask's arg-reductions;
  ``norm``: Dask's norm (a tree sum of squares); ``logsumexp``, ``softmax``,
  ``log_softmax``: a tree maximum, then a tree sum of the shifted exponentials;
* ``product``: Dask's matmul; ``contraction``: blockwise partial results summed in a
  tree over the contracted chunks (:func:`.blockwise.contraction`);
* ``cumsum``/``cumprod``: Dask's cumulative scan along a chunked axis;
* ``reshape``: Dask's reshape, which rechunks only the axes whose chunks cross the new
  rows and refuses (with its reason) what it cannot do chunk-wise; ``slice``: Dask's
  slicing; ``mask``: Dask's boolean masking (a chunk of unknown size per block);
* ``concatenate``, ``stack``, ``vstack``, ``hstack``, ``split``, ``diff`` (overlapping
  slices), ``diagonal`` and ``trace`` (diagonals of blocks), ``flip``, ``roll``,
  ``tril``, ``triu``, ``diag``, ``pad``, ``broadcast_to``, ``repeat``, ``tile``,
  ``zeros_like``-style creation: Dask's functions of those names, which work chunk by
  chunk;
* ``arrange``: no algorithm: the Op's axis parameters only place axes, and its
  signature's blockwise keeps every chunk.

Every algorithm returns the outputs in the inferred dtypes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import dask.array as da
import numpy as np
from dask.array.reshape import reshape_rechunk

from ...ops.params import ArrayRef, SliceItem
from .blockwise import blockwise, casts, contraction
from .lower import NodeCall, known

__all__ = ["ALGORITHMS", "Algorithm"]


@dataclass(frozen=True)
class Algorithm:
    """How a kind lowers (``lower(call, inputs) -> outputs``) and what the plan says."""

    lower: Callable[[NodeCall, list[Any]], list[Any]]
    says: str


def _typed(call: NodeCall, y: Any, j: int = 0) -> Any:
    dtype = call.dtype(j)
    return y if y.dtype == dtype else y.astype(dtype)


def _first(call: NodeCall, values: list[Any]) -> Any:
    """The first input as the Op's compute mode casts it."""
    values, kinds = casts(call, values)
    x = values[0]
    return x if kinds[0] is None or x.dtype == kinds[0] else x.astype(kinds[0])


def _axes(call: NodeCall, x: Any, key: str = "axis") -> tuple[int, ...]:
    axis = call.params.get(key)
    if axis is None:
        return tuple(range(x.ndim))
    items = axis if isinstance(axis, tuple | list) else (axis,)
    return tuple(sorted(a % x.ndim for a in items))


def _tree(x: Any, fn: Callable[..., Any], axis: tuple[int, ...], keepdims: bool,
          out_dtype: Any, aggregate: Callable[..., Any] | None = None, **kwargs: Any) -> Any:
    """A tree reduction: ``fn(block, axis=, keepdims=True, **kwargs)`` on every block,
    then ``aggregate`` (``fn`` by default) on groups of partial results."""
    chunk = partial(fn, **kwargs) if kwargs else fn
    return da.reduction(x, chunk, aggregate or chunk, axis=axis, keepdims=keepdims,
                        dtype=out_dtype, concatenate=True,
                        meta=np.empty((0,) * (x.ndim if keepdims else x.ndim - len(axis)),
                                      out_dtype))


def _reduction(call: NodeCall, values: list[Any]) -> list[Any]:
    x = _first(call, values)
    if x.ndim == 0:
        return blockwise(call, values)
    params = call.params
    keepdims = params.pop("keepdims", False)
    params.pop("axis", None)
    params = {k: v for k, v in params.items() if not (k == "initial" and v is None)}
    y = _tree(x, call.op.impl, _axes(call, x), keepdims, call.dtype(), **params)
    return [_typed(call, y)]


def _count(call: NodeCall, values: list[Any]) -> list[Any]:
    x = values[0]
    if x.ndim == 0:
        return blockwise(call, values)
    keepdims = call.params.get("keepdims", False)
    y = _tree(x, call.op.impl, _axes(call, x), keepdims, call.dtype(),
              aggregate=partial(np.sum, dtype=call.dtype()))
    return [_typed(call, y)]


def _moments(name: str) -> Callable[[NodeCall, list[Any]], list[Any]]:
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = _first(call, values)
        if x.ndim == 0:
            return blockwise(call, values)
        params = call.params
        kwargs: dict[str, Any] = {"axis": _axes(call, x),
                                  "keepdims": params.get("keepdims", False)}
        if name == "mean":
            kwargs["dtype"] = call.dtype()
        else:
            kwargs["ddof"] = params.get("ddof", 0)
        return [_typed(call, getattr(da, name)(x, **kwargs))]
    return lower


def _arg(name: str) -> Callable[[NodeCall, list[Any]], list[Any]]:
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = values[0]
        if x.ndim == 0:
            return blockwise(call, values)
        axis, keepdims = call.params.get("axis"), call.params.get("keepdims", False)
        fn = getattr(da, name)
        if axis is None and x.ndim > 1:
            # over the flat array: Dask's own axis=None breaks ties by block, not by index
            y = fn(_reshape(call, 0, x, (-1,)), axis=0)
            y = y.reshape((1,) * x.ndim) if keepdims else y
        else:
            y = fn(x, axis=axis, keepdims=keepdims)
        return [_typed(call, y)]
    return lower


def _norm(call: NodeCall, values: list[Any]) -> list[Any]:
    x = _first(call, values)
    if x.ndim == 0:
        return blockwise(call, values)
    axis = call.params.get("axis")
    y = da.linalg.norm(x, axis=axis, keepdims=call.params.get("keepdims", False))
    return [_typed(call, y)]


def _shifted(call: NodeCall, x: Any) -> tuple[Any, Any, tuple[int, ...]]:
    """``(m, sum(exp(x - m)))`` along the Op's axes, both kept as size-1 axes: ``m`` the
    maximum (0 where it is not finite), each a tree reduction."""
    axis = _axes(call, x)
    m = _tree(x, np.max, axis, True, x.dtype, initial=-np.inf)
    m = da.where(da.isfinite(m), m, 0).astype(x.dtype)
    e = da.exp(x - m)
    return m, e, axis


def _exponentials(name: str) -> Callable[[NodeCall, list[Any]], list[Any]]:
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = _first(call, values)
        if x.ndim == 0:
            return blockwise(call, values)
        m, e, axis = _shifted(call, x)
        s = da.sum(e, axis=axis, keepdims=True, dtype=x.dtype)
        if name == "softmax":
            return [_typed(call, e / s)]
        with np.errstate(divide="ignore"):
            lse = da.log(s) + m
        if name == "log_softmax":
            return [_typed(call, x - lse)]
        if not call.params.get("keepdims", False):
            lse = lse.squeeze(axis=axis)
        return [_typed(call, lse)]
    return lower


def _product(call: NodeCall, values: list[Any]) -> list[Any]:
    if call.out_types[0].dtype == "bool" or any(
            getattr(x, "ndim", 0) == 0 for x in values):
        return contraction(call, values)  # matmul's product of booleans is logical
    dtype = call.dtype()
    return [_typed(call, da.matmul(*(x.astype(dtype) for x in values)))]


def _cumulative(name: str) -> Callable[[NodeCall, list[Any]], list[Any]]:
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = values[0]
        axis = call.params.get("axis")
        if axis is None:
            x, axis = _reshape(call, 0, x, (-1,)), 0
        if x.ndim == 0:
            return blockwise(call, values)
        return [_typed(call, getattr(da, name)(x, axis=axis, dtype=call.dtype()))]
    return lower


def _reshape(call: NodeCall, i: int, x: Any, shape: tuple) -> Any:
    """``x`` reshaped by Dask's rules: the axes whose chunks cross the new rows are
    rechunked; where Dask cannot reshape chunk-wise, its reason is the error, unless the
    user allowed the rechunk, which then makes one chunk of the fewest trailing axes
    that let Dask do it."""
    if any(not known(c) for c in x.chunks):
        x = call.session.sizes(call, i, x)
    shape = _full_shape(x.shape, shape)
    if x.shape == shape:
        return x
    if x.npartitions == 1:
        return x.reshape(shape)
    try:
        reshape_rechunk(x.shape, shape, x.chunks)
    except (ValueError, NotImplementedError) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        for a in range(x.ndim - 1, -1, -1):
            x = call.session.whole(call, i, a, x, f"Dask cannot reshape {x.shape} to {shape} "
                                   f"chunk by chunk ({reason.split(' For example')[0]})")
            try:
                reshape_rechunk(x.shape, shape, x.chunks)
            except (ValueError, NotImplementedError):
                continue
            break
    return x.reshape(shape)


def _full_shape(shape: tuple, new: tuple) -> tuple:
    new = tuple(int(n) for n in new)
    if -1 in new:
        rest = int(np.prod([n for n in new if n != -1]))
        size = int(np.prod(shape))
        new = tuple(size // rest if n == -1 and rest else (0 if n == -1 else n) for n in new)
    return new


def _reshape_node(call: NodeCall, values: list[Any]) -> list[Any]:
    return [_typed(call, _reshape(call, 0, values[0], call.out_types[0].shape))]


def _dask_function(fn: Callable[..., Any], *names: str, many: bool = False
                   ) -> Callable[[NodeCall, list[Any]], list[Any]]:
    """An Op computed by a Dask function of the same call: the tensors (a sequence of
    them with ``many``) and the parameters ``names`` by keyword."""
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        params = call.params
        kwargs = {n: params[n] for n in names if n in params}
        arrays = [x if isinstance(x, da.Array) else da.from_array(np.asarray(x))
                  for x in values]
        if many:
            dtype = call.dtype()
            y = fn([x.astype(dtype) for x in arrays], **kwargs)
        else:
            y = fn(*arrays, **kwargs)
        return [_typed(call, y)]
    return lower


def _repeat(call: NodeCall, values: list[Any]) -> list[Any]:
    x, axis = values[0], call.params.get("axis")
    if axis is None:
        x, axis = _reshape(call, 0, x, (-1,)), 0
    return [_typed(call, da.repeat(x, call.params["repeats"], axis=axis))]


def _split(call: NodeCall, values: list[Any]) -> list[Any]:
    x = values[0]
    axis = call.params["axis"] % max(x.ndim, 1)
    outs, start = [], 0
    for j, t in enumerate(call.out_types):
        n = t.shape[axis]
        index = (slice(None),) * axis + (slice(start, start + n),)
        outs.append(_typed(call, x[index], j))
        start += n
    return outs


def basic_index(call: NodeCall) -> tuple | None:
    """The Op's ``index`` as Python's (ints, slices, None, ``...``); None if it holds
    anything else."""
    index = call.params.get("index")
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


def mask_axis(call: NodeCall) -> int | None:
    """The axis a boolean vector (the second input) masks in ``x[:, ..., mask]``, the
    other index items being full slices; None for any other index."""
    index = call.params.get("index")
    types = [v.type for v in call.node.inputs]
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


def _slice(call: NodeCall, values: list[Any]) -> list[Any]:
    index = basic_index(call) if len(values) == 1 else None
    x = values[0]
    if index is None or not isinstance(x, da.Array):
        return blockwise(call, values)
    if any(not known(c) for c in x.chunks) and any(
            not (isinstance(i, slice) and i == slice(None)) for i in index):
        x = call.session.sizes(call, 0, x)
    return [_typed(call, x[index])]


def _mask(call: NodeCall, values: list[Any]) -> list[Any]:
    axis = mask_axis(call)
    x, mask = values[0], values[1]
    if axis is None or not isinstance(x, da.Array):
        return blockwise(call, values)
    if not isinstance(mask, da.Array):
        mask = da.from_array(np.asarray(mask), chunks=x.chunks[axis])
    if not (known(x.chunks[axis]) and known(mask.chunks[0])):
        x, mask = call.session.sizes(call, 0, x), call.session.sizes(call, 1, mask)
    return [_typed(call, x[(slice(None),) * axis + (mask,)])]


def _creation(fn: Callable[..., Any], *names: str) -> Callable[[NodeCall, list[Any]], list[Any]]:
    """A creation Op of sizes known from its type: Dask's function, chunks by Dask's
    "auto" rule; with a size the data decides, the Op's blockwise."""
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        t = call.out_types[0]
        if None in t.shape or values:
            return blockwise(call, values)
        params = call.params
        kwargs = {n: params[n] for n in names if n in params}
        return [_typed(call, fn(t.shape, dtype=t.numpy_dtype, chunks="auto", **kwargs))]
    return lower


def _like(fn: Callable[..., Any]) -> Callable[[NodeCall, list[Any]], list[Any]]:
    """``zeros_like``-style: the chunks of the first input kept; a fill value (the
    second input) must be a constant of the graph, else the Op's blockwise."""
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = values[0]
        if not isinstance(x, da.Array) or any(isinstance(v, da.Array) for v in values[1:]):
            return blockwise(call, values)
        return [fn(x, *values[1:], dtype=call.dtype())]
    return lower


def _triangle(fn: Callable[..., Any]) -> Callable[[NodeCall, list[Any]], list[Any]]:
    """tril/triu: Dask's, block by block, on 2-d and more; a vector (which NumPy makes
    a matrix of) by the Op's blockwise."""
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = values[0]
        if x.ndim < 2:
            return blockwise(call, values)
        return [_typed(call, fn(x, k=call.params.get("k", 0)))]
    return lower


ALGORITHMS: dict[str, Algorithm] = {
    "reduction": Algorithm(_reduction, "a tree reduction with its own implementation over "
                                       "the chunks of the reduced axes"),
    "count": Algorithm(_count, "counts per chunk summed in a tree"),
    "mean": Algorithm(_moments("mean"), "dask.array.mean (sums and counts in a tree)"),
    "var": Algorithm(_moments("var"), "dask.array.var (moments combined in a tree)"),
    "std": Algorithm(_moments("std"), "dask.array.std (moments combined in a tree)"),
    "argmax": Algorithm(_arg("argmax"), "dask.array.argmax (a tree arg-reduction)"),
    "argmin": Algorithm(_arg("argmin"), "dask.array.argmin (a tree arg-reduction)"),
    "norm": Algorithm(_norm, "dask.array.linalg.norm (a tree sum of squares)"),
    "logsumexp": Algorithm(_exponentials("logsumexp"), "a tree maximum, then a tree sum "
                                                       "of the shifted exponentials"),
    "softmax": Algorithm(_exponentials("softmax"), "a tree maximum and a tree sum of the "
                                                   "shifted exponentials, then blockwise"),
    "log_softmax": Algorithm(_exponentials("log_softmax"), "a tree maximum and a tree sum "
                             "of the shifted exponentials, then blockwise"),
    "product": Algorithm(_product, "dask.array.matmul (partial products summed in a tree "
                                   "over the chunks of the contracted axis)"),
    "contraction": Algorithm(contraction, "blockwise partial products summed in a tree "
                                          "over the chunks of the contracted axes"),
    "cumsum": Algorithm(_cumulative("cumsum"), "dask.array.cumsum (a scan over the chunks)"),
    "cumprod": Algorithm(_cumulative("cumprod"), "dask.array.cumprod (a scan over the "
                                                 "chunks)"),
    "reshape": Algorithm(_reshape_node, "dask.array.reshape (rechunks only the axes whose "
                                        "chunks cross the new rows; refuses what it cannot "
                                        "do chunk-wise)"),
    "concatenate": Algorithm(_dask_function(da.concatenate, "axis", many=True),
                             "dask.array.concatenate (the inputs' chunks kept)"),
    "stack": Algorithm(_dask_function(da.stack, "axis", many=True),
                       "dask.array.stack (one chunk per input along the new axis)"),
    "vstack": Algorithm(_dask_function(da.vstack, many=True), "dask.array.vstack"),
    "hstack": Algorithm(_dask_function(da.hstack, many=True), "dask.array.hstack"),
    "slice": Algorithm(_slice, "Dask's slicing (the chunks of a sliced axis kept, cut "
                               "where the slice cuts)"),
    "mask": Algorithm(_mask, "Dask's boolean masking (a chunk of unknown size per block "
                             "along the masked axis)"),
    "split": Algorithm(_split, "Dask's slicing, one slice per part"),
    "diff": Algorithm(_dask_function(da.diff, "n", "axis"),
                      "dask.array.diff (overlapping slices of neighbouring chunks)"),
    "diagonal": Algorithm(_dask_function(da.diagonal, "offset", "axis1", "axis2"),
                          "dask.array.diagonal (the diagonals of the blocks)"),
    "trace": Algorithm(lambda call, values: [_typed(call, da.trace(
        values[0], **{k: call.params[k] for k in ("offset", "axis1", "axis2")
                      if k in call.params}, dtype=call.dtype()))],
        "dask.array.trace (the diagonals of the blocks summed in a tree)"),
    "flip": Algorithm(_dask_function(da.flip, "axis"), "dask.array.flip (chunks reversed)"),
    "roll": Algorithm(_dask_function(da.roll, "shift", "axis"),
                      "dask.array.roll (slices concatenated)"),
    "tril": Algorithm(_triangle(da.tril), "dask.array.tril (block by block)"),
    "triu": Algorithm(_triangle(da.triu), "dask.array.triu (block by block)"),
    "diag": Algorithm(_dask_function(da.diag, "k"), "dask.array.diag (block by block)"),
    "pad": Algorithm(_dask_function(da.pad, "pad_width", "mode", "constant_values"),
                     "dask.array.pad (new chunks at the edges)"),
    "broadcast_to": Algorithm(_dask_function(da.broadcast_to, "shape"),
                              "dask.array.broadcast_to (chunks kept)"),
    "repeat": Algorithm(_repeat,
                        "dask.array.repeat (block by block)"),
    "tile": Algorithm(_dask_function(da.tile, "reps"), "dask.array.tile (chunks repeated)"),
    "zeros": Algorithm(_creation(da.zeros), "dask.array.zeros (Dask's automatic chunks)"),
    "ones": Algorithm(_creation(da.ones), "dask.array.ones (Dask's automatic chunks)"),
    "full": Algorithm(_creation(da.full, "fill_value"),
                      "dask.array.full (Dask's automatic chunks)"),
    "zeros_like": Algorithm(_like(da.zeros_like), "dask.array.zeros_like (chunks kept)"),
    "ones_like": Algorithm(_like(da.ones_like), "dask.array.ones_like (chunks kept)"),
    "full_like": Algorithm(_like(da.full_like), "dask.array.full_like (chunks kept)"),
}
