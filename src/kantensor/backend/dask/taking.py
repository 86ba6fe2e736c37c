"""Taking along an axis by an integer array, chunk by chunk (``take``, ``x[:, idx]``).

Dask's own algorithm for ``x[:, idx]`` with a Dask array of ints
(``dask.array.slicing.slice_with_int_dask_array_on_axis``), made general and checked:

* for every block of the indices, a task sorts its positions (checked, negative ones
  counted from the end: :func:`_checked`);
* for every chunk of ``x`` along the axis and every block of the indices, a task takes
  the sorted positions that fall in that chunk (a slice of them: :func:`_within`);
* for every block of the indices, one task concatenates those pieces (``x`` at the
  block's sorted positions) and takes from them each index's place there (the first,
  by ``searchsorted``): the result's chunks along the taken axis are the indices'
  chunks, every other axis keeps ``x``'s.

Every task is NumPy's own functions composed (``functools.partial``,
``operator.methodcaller``, ``toolz.compose``, calls nested in the task), each chunk's
bounds written into its tasks: a cluster's worker unpickles them, as it unpickles
dask.array's, without importing kantensor (about 12 MiB a worker, see
:mod:`.kernels`). Dask's own has an array of every chunk's offset where this has the
sorted positions of every index block, and its pieces each pass over their whole index
block where these slice the sorted one.

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

from functools import partial
from operator import itemgetter, methodcaller
from typing import Any

import dask.array as da
import numpy as np
from dask._task_spec import List, Task, TaskRef
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph
from toolz import compose

from .blockwise import typed
from .lower import NodeCall, known

__all__ = ["take"]


def take(call: NodeCall, i: int, x: Any, indices: Any, axis: int) -> Any:
    """``np.take(x, indices, axis)`` (``x`` input ``i``, a Dask array) chunk by chunk;
    the axes of ``x`` other than ``axis`` keep their blocks, so their origins."""
    y = _taken(call, i, x, indices, axis)
    ndim = np.ndim(indices)
    call.session.keeps(x, y, {a: a if a < axis else a + ndim - 1
                              for a in range(x.ndim) if a != axis})
    return y


def _taken(call: NodeCall, i: int, x: Any, indices: Any, axis: int) -> Any:
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
    """The sorted positions of every block of the indices, the pieces of every chunk of
    ``x`` for every block, then one gather per block (see the module doc): tasks of
    NumPy's functions alone, each chunk's bounds written into its pieces' tasks."""
    n = x.shape[axis]
    sizes = tuple(int(c) for c in x.chunks[axis])
    ends = np.cumsum(sizes, dtype=np.int64)
    token = tokenize(x, indices, axis)
    sorted_, named, name = (f"{s}-{token}" for s in ("take-sorted", "take-pieces", "take"))
    by_block = {(sorted_, *j): Task((sorted_, *j), partial(np.sort, axis=None),
                                    _checked(TaskRef((indices.name, *j)), n, axis))
                for j in np.ndindex(*indices.numblocks)}
    positions = da.Array(HighLevelGraph.from_collections(sorted_, by_block,
                                                         dependencies=[indices]),
                         sorted_, indices.chunks, meta=np.empty((0,) * indices.ndim, np.int64))
    pieces: dict = {}
    for b in np.ndindex(*x.numblocks):
        start, stop = int(ends[b[axis]] - sizes[b[axis]]), int(ends[b[axis]])
        for j in np.ndindex(*indices.numblocks):
            key = (named, *b[:axis + 1], *j, *b[axis + 1:])
            pieces[key] = Task(key, partial(np.take, axis=axis), TaskRef((x.name, *b)),
                               _within(TaskRef((sorted_, *j)), start, stop))
    chunks = x.chunks[:axis + 1] + indices.chunks + x.chunks[axis + 1:]
    made = da.Array(HighLevelGraph.from_collections(named, pieces,
                                                    dependencies=[x, positions]),
                    named, chunks, meta=np.empty((0,) * len(chunks), x.dtype))
    _record_shares(made, axis, n)
    gathered: dict = {}
    rest = x.numblocks[:axis] + x.numblocks[axis + 1:]
    for b in np.ndindex(*rest):
        for j in np.ndindex(*indices.numblocks):
            key = (name, *b[:axis], *j, *b[axis:])
            parts = List(*(TaskRef((named, *b[:axis], k, *j, *b[axis:]))
                           for k in range(len(sizes))))
            places = Task(None, np.searchsorted, TaskRef((sorted_, *j)),
                          _checked(TaskRef((indices.name, *j)), n, axis))
            gathered[key] = Task(key, partial(np.take, axis=axis),
                                 Task(None, partial(np.concatenate, axis=axis), parts), places)
    chunks = x.chunks[:axis] + indices.chunks + x.chunks[axis + 1:]
    return da.Array(HighLevelGraph.from_collections(name, gathered,
                                                    dependencies=[made, positions, indices]),
                    name, chunks, meta=np.empty((0,) * len(chunks), x.dtype))


def _checked(indices: TaskRef, n: int, axis: int) -> Task:
    """The indices as positions 0 .. n - 1 (a negative one counted from the end), in
    their block's shape; NumPy's IndexError (its words, the axis of ``x``) for one out of
    bounds: ``np.take`` along that axis of an array of ``n`` rows and no bytes (shape
    ``(1, ..., 1, n, 0)``: NumPy checks every index even so, where an axis of 0 before
    it would skip the check), whose zeros are added so that the check runs wherever the
    positions are used."""
    rows = np.empty((1,) * axis + (n, 0), np.int64)
    zeros = compose(methodcaller("sum", axis=(*range(axis), -1)),
                    partial(np.take, rows, axis=axis))
    wrapped = compose(methodcaller("__mod__", max(n, 1)), methodcaller("astype", np.int64))
    return Task(None, np.add, Task(None, wrapped, indices), Task(None, zeros, indices))


def _within(positions: TaskRef, start: int, stop: int) -> Task:
    """The sorted positions from ``start`` to ``stop`` (a chunk of ``x``), relative to
    ``start``: where they begin and end in the sorted block (``searchsorted``), the
    slice between (``np.split``), ``start`` subtracted. The pieces of every chunk,
    concatenated in chunk order, are ``x`` at the block's sorted positions."""
    bounds = Task(None, partial(np.searchsorted, v=np.array([start, stop], np.int64)),
                  positions)
    return Task(None, compose(partial(np.add, -start), itemgetter(1), np.split),
                positions, bounds)


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
