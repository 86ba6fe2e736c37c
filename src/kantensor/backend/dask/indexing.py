"""Indexing nodes on Dask (the kinds ``slice``, ``mask``, ``take`` and ``split``): which
index Dask's own slicing takes, and how each kind lowers.

* ``slice``: a basic index (ints, slices of int bounds, None, ``...``; its sizes read
  from the size inputs' lengths) is Dask's slicing, each slice written by its
  positions (:func:`within`: Dask reads a negative step's start differently);
* ``mask``: ``x[..., mask]`` with one boolean vector is Dask's boolean masking (a chunk
  of unknown size per block), ``x[..., idx, ...]`` with one integer array a take by
  chunks after Dask's slicing of the other axes (NumPy's fancy indexing: every index
  checked);
* ``take``: ``np.take`` chunk by chunk (:mod:`.taking`); from an ``x`` of no elements,
  NumPy's ``take`` on its one empty block per block of the indices (see
  :data:`.algorithms.ALGORITHMS`' ``numpy`` rule), which checks the indices exactly
  where NumPy does;
* ``split``: one of Dask's slices per part, read as NumPy's slices.
"""

from __future__ import annotations

import math
from typing import Any

import dask.array as da
import numpy as np

from ...ops.families.indexing import resolve
from ...ops.paramvalues import ArrayRef, SliceItem
from ...ops.sizes import map_entries, symbolic
from ...types.dim import Dim
from .blockwise import blockwise, typed
from .lower import NodeCall, known
from .reshaping import reshape
from .taking import take

__all__ = ["TAKE_WORDS", "array_axis", "basic", "basic_index", "cut", "indexing_words",
           "mask_axis", "mask_node", "masks", "python_index", "slice_node", "split_node",
           "take_node", "takes", "within"]


def split_node(call: NodeCall, values: list[Any]) -> list[Any]:
    """``np.split``'s parts as Dask's slices: for indices, part ``j`` is
    ``x[b[j]:b[j + 1]]`` with ``b = [0, *indices, n]`` as NumPy slices them (Python's
    slices: an index past the end clipped, a negative one from the end, so parts may
    overlap: ``[2, -1]`` of a length-1 axis gives the whole axis last); for a number of
    sections, consecutive parts of the inferred lengths."""
    x = values[0]
    axis = call.params["axis"] % max(x.ndim, 1)
    indices = call.params.get("indices_or_sections")
    if isinstance(indices, tuple | list):
        bounds = [0, *(int(i) for i in indices), None]
        cuts = [slice(a, b) for a, b in zip(bounds, bounds[1:], strict=False)]
    else:
        sizes = [t.shape[axis] for t in call.out_types]
        if None in sizes:  # (typed on unknown chunks, their sizes computed since)
            total, parts = int(x.shape[axis]), len(sizes)
            if total % parts:
                raise ValueError(f"{call.describe()}: an axis of {total} does not split "
                                 f"into {parts} equal parts (NumPy: array split does not "
                                 "result in an equal division)")
            sizes = [total // parts] * parts
        starts = [sum(sizes[:j]) for j in range(len(sizes))]
        cuts = [slice(a, a + n) for a, n in zip(starts, sizes, strict=True)]
    parts = [typed(call, x[(slice(None),) * axis + (cut,)], j) for j, cut in enumerate(cuts)]
    for y in parts:
        call.session.keeps(x, y, {a: a for a in range(x.ndim) if a != axis})
    return parts


def basic_index(op: Any, sizes: tuple = ()) -> tuple | None:
    """The Op's ``index`` as Python's (ints, slices, None, ``...``), its sizes read from
    the lengths of the size inputs ``sizes`` (a bound ``n - 5`` is an int of either
    sign, as NumPy reads it); None if it holds anything else."""
    index = dict(op.params).get("index")
    return python_index(resolve(index, sizes) if sizes else index)


def python_index(index: Any) -> tuple | None:
    """A normalised index as Python's; None unless it is made of ints, slices of int
    bounds, None and ``...``."""
    out: list[Any] = []
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, SliceItem):
            if not all(v is None or _int(v) for v in item[1:]):
                return None
            out.append(slice(*item[1:]))
        elif item is None or item is Ellipsis or _int(item):
            out.append(item)
        else:
            return None
    return tuple(out)


def _int(v: Any) -> bool:
    return isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_)


def mask_axis(op: Any, types: tuple) -> int | None:
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


def array_axis(op: Any, types: tuple) -> int | None:
    """The axis one integer array (the second input, of any number of axes) indexes in
    ``x[1:, ..., idx, ::2]``, the other index items being slices of int bounds (one per
    axis: no int, None or ``...``, which change where NumPy puts the taken axes); None
    for any other index."""
    index = dict(op.params).get("index")
    if not isinstance(index, tuple) or len(types) != 2 or types[1].dtype == "bool" \
            or len(index) > types[0].ndim:
        return None
    axis = None
    for k, item in enumerate(index):
        if isinstance(item, ArrayRef) and item.position == 0:
            axis = k
        elif not (isinstance(item, SliceItem) and all(v is None or _int(v)
                                                      for v in item[1:])):
            return None
    return axis


def _by_array(call: NodeCall, x: Any, indices: Any, axis: int) -> Any:
    """``x[..., idx, ...]`` (see :func:`array_axis`): Dask's slicing by the slices, then
    a take by chunks along the array's axis."""
    index = dict(call.op.params)["index"]
    sliced = tuple(slice(None) if isinstance(item, ArrayRef) else slice(*item[1:])
                   for item in index)
    if any(s != slice(None) for s in sliced):
        if any(not known(x.chunks[a]) for a, s in enumerate(sliced) if s != slice(None)):
            x = call.session.sizes(call, 0, x)
        y = x[within(sliced, x.shape)]
        call.session.keeps(x, y, whole(sliced, x.ndim))
        x = y
    return take(call, 0, x, indices, axis)


def take_node(call: NodeCall, values: list[Any]) -> list[Any]:
    """np.take chunk by chunk (:mod:`.taking`); axis None: from the flattened ``x``
    (reshaped by Dask's rules)."""
    x, indices = values
    axis = call.params.get("axis")
    if axis is None:
        x, axis = reshape(call, 0, x, (-1,)), 0
    return [take(call, 0, x, indices, axis)]


def slice_node(call: NodeCall, values: list[Any]) -> list[Any]:
    """Dask's slicing, the index's sizes read from the size inputs' lengths (known when
    the call or the plan binds the inputs' sizes)."""
    x = values[0]
    index = basic_index(call.op, tuple(values[1:])) if _sizes_known(values[1:]) else None
    if index is None or not isinstance(x, da.Array):
        return blockwise(call, values)
    if any(not known(x.chunks[a]) for a in cut(index, x.ndim)):
        x = call.session.sizes(call, 0, x)
    y = typed(call, x[within(index, x.shape)])
    call.session.keeps(x, y, whole(index, x.ndim))
    return [y]


def cut(index: tuple, ndim: int) -> set[int]:
    """The axes of an ``ndim``-d array that ``index`` (Python's) does not take whole:
    Dask's slicing needs their chunk sizes, not those of an axis taken whole (``x[:,
    :2]`` of a masked ``x``, whose rows' sizes the data decides)."""
    used = sum(i is not None and i is not Ellipsis for i in index)
    out, axis = set(), 0
    for item in index:
        if item is Ellipsis:
            axis += ndim - used
        elif item is not None:
            if not (isinstance(item, slice) and item == slice(None)):
                out.add(axis)
            axis += 1
    return out


def whole(index: tuple, ndim: int) -> dict[int, int]:
    """Per axis of an ``ndim``-d array that ``index`` (Python's) takes whole (a full
    slice, or no item), the output's axis it becomes: Dask's slicing keeps that axis's
    blocks as they are, in order."""
    used = sum(i is not None and i is not Ellipsis for i in index)
    out: dict[int, int] = {}
    axis = b = 0
    for item in (*index, *(slice(None),) * (ndim - used if Ellipsis not in index else 0)):
        if item is Ellipsis:
            out.update({axis + k: b + k for k in range(ndim - used)})
            axis, b = axis + ndim - used, b + ndim - used
        elif item is None:
            b += 1
        else:
            if isinstance(item, slice) and item == slice(None):
                out[axis] = b
            b += not isinstance(item, int | np.integer)
            axis += 1
    return out


def within(index: tuple, shape: tuple) -> tuple:
    """``index`` with each slice of a known axis length written by its positions
    (``slice.indices``): Dask's slicing takes a negative step's start past the axis'
    start as the first element (``x[-6::-3]`` of 5 elements gave two where NumPy gives
    none, Dask 2026.8)."""
    used = sum(i is not None and i is not Ellipsis for i in index)
    out, axis = [], 0
    for item in index:
        if item is Ellipsis:
            axis += len(shape) - used
        elif item is not None:
            n = shape[axis]
            axis += 1
            if isinstance(item, slice) and not math.isnan(n):
                r = range(*item.indices(int(n)))
                item = slice(r.start, r.stop if r.stop >= 0 else None, r.step) if r \
                    else slice(0, 0)
        out.append(item)
    return tuple(out)


def _sizes_known(sizes: list[Any]) -> bool:
    return all(not math.isnan(s.shape[0]) for s in sizes)


def mask_node(call: NodeCall, values: list[Any]) -> list[Any]:
    types = tuple(v.type for v in call.node.inputs)
    axis = mask_axis(call.op, types)
    x, mask = values[0], values[1]
    if axis is None and array_axis(call.op, types) is not None:
        return [_by_array(call, x, mask, array_axis(call.op, types))]
    if axis is None or not isinstance(x, da.Array):
        return blockwise(call, values)
    if not isinstance(mask, da.Array):
        mask = da.from_array(np.asarray(mask), chunks=x.chunks[axis])
    if not (known(x.chunks[axis]) and known(mask.chunks[0])):
        x, mask = call.session.sizes(call, 0, x), call.session.sizes(call, 1, mask)
    if mask.chunks[0] != x.chunks[axis]:  # one block of the result per block of x
        mask = mask.rechunk({0: x.chunks[axis]})
    y = typed(call, x[(slice(None),) * axis + (mask,)])
    call.session.masked[y.name] = (mask, axis)
    call.session.keeps(x, y, {a: a for a in range(x.ndim) if a != axis})
    return [y]


def basic(op: Any, types: tuple) -> bool:
    """A basic index, whose sizes (if any) are the lengths of the inputs after ``x``."""
    index = dict(op.params).get("index")
    plain = map_entries(index, lambda e: 0 if isinstance(e, Dim) else e)
    return all(t.dtype == "bool" and t.ndim == 1 for t in types[1:]) and \
        len(types) == 1 + len(symbolic([index])) and python_index(plain) is not None


def masks(op: Any, types: tuple) -> bool:
    return mask_axis(op, types) is not None or array_axis(op, types) is not None


def takes(op: Any, types: tuple) -> bool:
    return types[0].ndim > 0


TAKE_WORDS = ("a take by chunks (the pieces of every chunk gathered in the indices' order: the "
         "indices' chunks along the taken axis, the other axes' kept)")


def indexing_words(op: Any, types: tuple) -> str:
    if mask_axis(op, types) is not None:
        return "Dask's boolean masking (a chunk of unknown size per block along the " \
               "masked axis)"
    index = dict(op.params)["index"]
    full = SliceItem(None, None, None)
    return ("Dask's slicing, then " if any(isinstance(i, SliceItem) and i != full
                                          for i in index) else "") + TAKE_WORDS
