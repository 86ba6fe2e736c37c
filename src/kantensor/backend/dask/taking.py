"""Taking along an axis by an integer array, chunk by chunk (``take``, ``x[:, idx]``).

Dask's own algorithm for ``x[:, idx]`` with a Dask array of ints
(``dask.array.slicing.slice_with_int_dask_array_on_axis``), made general and checked:

* for every chunk of ``x`` along the axis and every block of the indices, a task takes
  the indices that fall in that chunk (:func:`~.kernels.partial_take`);
* for every block of the indices, one task gathers those pieces in the indices' order
  (:func:`~.kernels.gather`; the tasks' functions live in the module of what tasks
  run): the result's chunks along the taken axis are the indices' chunks, every other
  axis keeps ``x``'s.

Dask's takes 1-d indices only and, for an index out of bounds that shares its block
with one in bounds, silently returns an element of the axis (Dask 2026.8); here the
indices may have any number of axes (the taken axis is replaced by all of them, as
``np.take`` does), and an index out of bounds raises NumPy's IndexError. Indices that are
NumPy arrays (constants of the graph) of one axis go through Dask's slicing by a NumPy
array (chunks decided from their values, which the plan sees too); others become one
block of a Dask array.

Bytes per task: a piece holds the indices of its index block that fall in its chunk of
``x``, which only the values tell; the graph records each piece as the share of its index
block that ``x``'s chunk has of the axis (what indices spread over the axis give), so
the pieces of one gather add up to exactly its result.
"""

from __future__ import annotations

from typing import Any

import dask.array as da
import numpy as np
from dask.base import tokenize

from .blockwise import typed
from .kernels import gather, partial_take
from .lower import NodeCall, known

__all__ = ["take"]


def take(call: NodeCall, i: int, x: Any, indices: Any, axis: int) -> Any:
    """``np.take(x, indices, axis)`` (``x`` input ``i``, a Dask array) chunk by chunk."""
    if not known(x.chunks[axis]):
        x = call.session.sizes(call, i, x)
    if not isinstance(indices, da.Array):
        indices = np.asarray(indices)
        if indices.dtype == bool:
            indices = indices.astype(np.intp)
        if indices.ndim == 1:  # Dask's slicing by a NumPy array
            return typed(call, x[(slice(None),) * axis + (indices,)])
        indices = da.from_array(indices, chunks=-1)
    elif indices.dtype == bool:
        indices = indices.astype(np.intp)
    return typed(call, _by_dask_indices(x, indices, axis))


def _by_dask_indices(x: Any, indices: Any, axis: int) -> Any:
    n = x.shape[axis]
    starts = np.concatenate([[0], np.cumsum(x.chunks[axis])[:-1]]).astype(np.int64)
    offsets = da.from_array(starts, chunks=1)
    offsets = da.Array(offsets.dask, offsets.name, (x.chunks[axis],), dtype=np.int64,
                       meta=np.empty((0,), np.int64))  # aligned with x's chunks
    _record(offsets, ((1,) * len(starts),))  # what its blocks hold: one int each
    x_ind = tuple(range(x.ndim))
    i_ind = tuple(range(x.ndim, x.ndim + indices.ndim))
    p_ind = x_ind[:axis + 1] + i_ind + x_ind[axis + 1:]
    y_ind = x_ind[:axis] + i_ind + x_ind[axis + 1:]
    meta = np.empty((0,) * x.ndim, x.dtype)
    pieces = da.blockwise(partial_take, p_ind, x, x_ind, indices, i_ind, offsets, (axis,),
                          size=n, axis=axis, dtype=x.dtype, meta=meta,
                          name=f"take-pieces-{tokenize(x, indices, axis)}")
    _record_shares(pieces, axis, n)
    return da.blockwise(gather, y_ind, indices, i_ind, pieces, p_ind, concatenate=True,
                        sizes=tuple(int(c) for c in x.chunks[axis]), axis=axis,
                        dtype=x.dtype, meta=np.empty((0,) * (x.ndim - 1 + indices.ndim),
                                                     x.dtype),
                        name=f"take-{tokenize(pieces, indices, axis)}")


def _record_shares(pieces: Any, axis: int, n: int) -> None:
    """Record on the pieces' graph layer the share of the indices each chunk of ``x``
    takes (see the module doc): the chunk's length over the axis' length."""
    if n:
        chunks = list(pieces.chunks)
        chunks[axis] = tuple(c / n for c in chunks[axis])
        _record(pieces, tuple(chunks))


def _record(array: Any, chunks: tuple) -> None:
    """The chunks the bytes per task read (:mod:`.tasks`) for ``array``'s graph layer:
    the blocks its tasks return, where they are not its declared chunks."""
    notes = array.dask.layers[array.name].collection_annotations
    if notes is not None and "chunks" in notes:
        notes["chunks"] = chunks
