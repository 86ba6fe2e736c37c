"""Joining blocks along one axis while other axes have chunks of unknown size (``nan``:
a mask's rows): ``concatenate``, ``stack``, ``vstack``, ``hstack``, ``roll`` and
``tile`` along known axes, ``repeat`` and a constant ``pad`` block by block.

Dask's ``concatenate`` (and ``stack``, ``roll``, ``tile``, ``pad``, ``repeat``, which
use it or compare shapes) compares the sizes of the axes it does not join, which are
``nan``, and refuses ("Tried to concatenate arrays with unknown shape"). Its graph
needs no size of those axes, only that every input's blocks along them are alike:
here they are paired as :func:`.blockwise.aligned` pairs them, by one origin
(:meth:`.lower.Session.origin`: the blocks of one array, in order) or, where they are
not one array's blocks, by their sizes (computed only with ``compute_chunk_sizes=True``,
else UnknownChunksError), and the joined array is Dask's graph of ``concatenate``:
each block an alias of an input's block. Every axis not joined keeps its origin.
Where no axis but the joined one is unknown, Dask's own functions run as they are.
"""

from __future__ import annotations

from functools import partial
from itertools import product
from typing import Any

import dask.array as da
import numpy as np
from dask.array.core import common_blockdim
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph
from toolz import compose

from .blockwise import blockwise, typed
from .lower import NodeCall, known
from .reshaping import reshape

__all__ = ["aligned_off", "join", "join_node", "padded", "repeat_node", "repeated", "repeats_int",
           "roll_node", "rolled", "stack_node", "stacked", "tile_node", "tiled_join"]

_WHY = " and must be aligned with another input's"


def _unknown_off(arrays: list[Any], axis: int) -> bool:
    return any(not known(c) for x in arrays for a, c in enumerate(x.chunks) if a != axis)


def aligned_off(call: NodeCall, arrays: list[Any], axis: int) -> list[Any]:
    """``arrays`` (the node's inputs, in order) with every axis but ``axis`` chunked
    alike: known chunks unified as Dask unifies them; unknown ones left as they are
    where all are one origin's blocks, else all sizes resolved by the session (computed
    once with ``compute_chunk_sizes=True``, else UnknownChunksError)."""
    session = call.session
    for a in range(arrays[0].ndim):
        if a == axis:
            continue
        chunks = [x.chunks[a] for x in arrays]
        if all(known(c) for c in chunks):
            continue
        if all(not known(c) for c in chunks) and len({len(c) for c in chunks}) == 1 and \
                len({session.origin(x, a) for x in arrays}) == 1:
            continue
        arrays = [session.sizes(call, i, x, _WHY) for i, x in enumerate(arrays)]
    for a in range(arrays[0].ndim):
        chunks = [x.chunks[a] for x in arrays]
        if a == axis or not all(known(c) for c in chunks) or len(set(chunks)) == 1:
            continue
        common = common_blockdim(chunks)
        arrays = [x if x.chunks[a] == common else session.rechunked(x, a, common)
                  for x in arrays]
    return arrays


def join(call: NodeCall, arrays: list[Any], axis: int) -> Any:
    """``arrays`` (one dtype, aligned off ``axis``: :func:`aligned_off`) joined along
    ``axis``: Dask's ``concatenate`` where every other axis is known, else its graph
    (each block an alias of an input's), each axis but ``axis`` keeping the first
    input's origin; unknown chunks along ``axis`` are the inputs' one after the other
    (:meth:`.lower.Session.derive`)."""
    if len(arrays) == 1:
        return arrays[0]
    if not _unknown_off(arrays, axis):
        # the inputs Dask's concatenate keeps (it drops those of no elements; a size
        # nan is kept), so that the recorded parts are the joined blocks
        arrays = [x for x in arrays if x.size] or arrays
        if len(arrays) == 1:
            return arrays[0]
        y = da.concatenate(arrays, axis=axis)
        call.session.derive(y, axis, "join", [(x, axis) for x in arrays])
        return y
    first = arrays[0]
    called = getattr(call.op, "name", "concatenate")  # the user's call, not Dask's
    name = f"{called}-{tokenize(axis, *arrays)}"
    note = (f"its blocks joined as {called} joins them, one alias per block, the unknown "
            f"sizes off the joined axis aligned by origin (dask.array.{called} compares "
            "them, and refuses nan)")
    notes = call.session.notes.setdefault(call.node, [])
    if note not in notes:
        notes.append(note)
    chunks = tuple(sum((x.chunks[a] for x in arrays), ()) if a == axis else c
                   for a, c in enumerate(first.chunks))
    graph, offset = {}, 0
    for x in arrays:
        for index in product(*(range(n) for n in x.numblocks)):
            out = list(index)
            out[axis] += offset
            graph[(name, *out)] = (x.name, *index)
        offset += x.numblocks[axis]
    y = da.Array(HighLevelGraph.from_collections(name, graph, dependencies=arrays), name,
                 chunks, meta=first._meta)
    call.session.keeps(first, y, {a: a for a in range(first.ndim) if a != axis})
    call.session.derive(y, axis, "join", [(x, axis) for x in arrays])
    return y


def stacked(call: NodeCall, arrays: list[Any], axis: int) -> Any:
    """``stack`` along a new ``axis``: each input given a size-1 axis there (Dask's
    slicing by None, origins kept), then joined, one chunk per input (as Dask's
    ``stack``)."""
    if _unknown_off(arrays, -1):
        arrays = aligned_off(call, arrays, -1)
    if not _unknown_off(arrays, -1):  # (Dask's stack unifies known chunks itself)
        return da.stack(arrays, axis=axis)
    index = (slice(None),) * axis + (None,)
    expanded = []
    for x in arrays:
        e = x[index]
        call.session.keeps(x, e, {a: a + (a >= axis) for a in range(x.ndim)})
        expanded.append(e)
    return join(call, expanded, axis)


def _piece(call: NodeCall, x: Any, axis: int, start: int, stop: int) -> Any:
    """``x``'s slice ``start:stop`` along a known ``axis`` (Dask's slicing), the other
    axes' origins kept."""
    y = x[(slice(None),) * axis + (slice(start, stop),)]
    call.session.keeps(x, y, {a: a for a in range(x.ndim) if a != axis})
    return y


def rolled(call: NodeCall, x: Any, shifts: dict[int, int]) -> Any:
    """``np.roll`` by ``shifts`` (per known axis) as Dask's roll: along each axis the
    last ``shift`` entries joined before the rest."""
    y = x
    for axis, shift in shifts.items():
        n = int(y.shape[axis])
        s = shift % n if n else 0
        if s:
            y = join(call, [_piece(call, y, axis, n - s, n), _piece(call, y, axis, 0, n - s)],
                     axis)
    call.session.keeps(x, y, {a: a for a in range(x.ndim) if a not in shifts})
    return y


def tiled_join(call: NodeCall, x: Any, reps: tuple[int, ...]) -> Any:
    """``np.tile`` by ``reps`` (none 0) as Dask's tile: new leading axes, then each
    repeated axis's copies joined."""
    width = max(x.ndim, len(reps))
    reps = (1,) * (width - len(reps)) + tuple(reps)
    y = x[(None,) * (width - x.ndim)]
    call.session.keeps(x, y, {a: a + width - x.ndim for a in range(x.ndim)})
    for axis, r in enumerate(reps):
        if r != 1:
            y = join(call, [y] * r, axis)
    return y


def repeated(call: NodeCall, x: Any, repeats: int, axis: int) -> Any:
    """``np.repeat`` by an int along ``axis``, block by block: each block's entries
    repeated in it (the concatenation of the blocks' repeats is the repeat of their
    concatenation). The chunks along ``axis`` are ``repeats`` times as large (unknown
    ones stay unknown: other blocks than ``x``'s, whose sizes are ``repeats`` times its,
    :meth:`.lower.Session.derive`); every other axis keeps its origin."""
    chunks = tuple(tuple(n * repeats for n in c) if a == axis else c
                   for a, c in enumerate(x.chunks))
    y = x.map_blocks(np.repeat, repeats, axis=axis, chunks=chunks, dtype=x.dtype,
                     meta=x._meta)
    call.session.keeps(x, y, {a: a for a in range(x.ndim) if a != axis})
    call.session.derive(y, axis, "repeat", [(x, axis)], repeats)
    return y


def padded(call: NodeCall, x: Any, widths: list[tuple[int, int]], value: Any) -> Any:
    """``np.pad`` with a constant ``value`` along known axes, axis by axis (as NumPy
    pads: a later axis's pad covers the corners): each pad a block of ``value`` per
    block of the other axes (made from ``x``'s first slab along the axis, so that
    unknown sizes stay unknown and keep their origin), joined at the edges (Dask's
    chunks: a new chunk at each edge)."""
    y = x
    for axis, (before, after) in enumerate(widths):
        if not (before or after):
            continue
        slab = _piece(call, y, axis, 0, 1)
        pads = [_full(call, slab, axis, w, value) for w in (before, after)]
        parts = [p for p, w in zip((pads[0], y, pads[1]), (before, 1, after), strict=True)
                 if w]
        y = join(call, parts, axis)
    call.session.keeps(x, y, {a: a for a, w in enumerate(widths) if w == (0, 0)})
    return y


def _full(call: NodeCall, slab: Any, axis: int, width: int, value: Any) -> Any:
    """A block of ``value`` per block of ``slab`` (of size 1 along ``axis``), ``width``
    wide along ``axis``."""
    chunks = tuple((width,) if a == axis else c for a, c in enumerate(slab.chunks))
    # NumPy's own functions composed (a worker unpickles them without kantensor, see
    # :mod:`.kernels`); full_like casts the value as NumPy's pad assigns it
    fill = compose(partial(np.repeat, repeats=width, axis=axis),
                   partial(np.full_like, fill_value=value))
    y = slab.map_blocks(fill, chunks=chunks, dtype=slab.dtype, meta=slab._meta,
                        name=f"pad-{tokenize(slab, axis, width, value)}")
    call.session.keeps(slab, y, {a: a for a in range(slab.ndim) if a != axis})
    return y


# -- the nodes ----------------------------------------------------------------------
def _typed_arrays(call: NodeCall, values: list[Any]) -> list[Any]:
    """The inputs as Dask arrays of the output's dtype (a cast keeps the origins)."""
    dtype = call.dtype()
    out = []
    for x in values:
        x = x if isinstance(x, da.Array) else da.from_array(np.asarray(x))
        y = x.astype(dtype)
        call.session.keeps(x, y, {a: a for a in range(x.ndim)})
        out.append(y)
    return out


def join_node(axis: int | None = None) -> Any:
    """concatenate (``axis`` None: its parameter), vstack (0), hstack (1): :func:`join`
    (Dask's concatenate where no axis but the joined one is unknown) of the inputs
    aligned by origin; vstack takes vectors as rows, hstack scalars as vectors (as
    NumPy's ``atleast_2d`` and ``atleast_1d``: Dask's slicing by None, origins kept)."""
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        arrays = _typed_arrays(call, values)
        if axis is not None:
            least = 2 if axis == 0 else 1
            if all(x.ndim == 0 for x in arrays):  # scalars: vstack's rows, hstack's
                # vector (Dask's hstack concatenates them: "zero-dimensional arrays
                # cannot be concatenated")
                return [{0: da.vstack, 1: da.stack}[axis](arrays)]
            arrays = [_at_least(call, x, least) for x in arrays]
        ndim = arrays[0].ndim
        along = (call.params.get("axis", 0) if axis is None else
                 axis if ndim >= 2 else 0) % ndim
        if _unknown_off(arrays, along):
            arrays = aligned_off(call, arrays, along)
        return [join(call, arrays, along)]
    return lower


def _at_least(call: NodeCall, x: Any, ndim: int) -> Any:
    """``x`` with leading axes of 1 up to ``ndim`` axes (NumPy's ``atleast_2d`` of a
    vector is its row), its origins kept."""
    if x.ndim >= ndim:
        return x
    y = x[(None,) * (ndim - x.ndim)]
    call.session.keeps(x, y, {a: a + ndim - x.ndim for a in range(x.ndim)})
    return y


def stack_node(call: NodeCall, values: list[Any]) -> list[Any]:
    arrays = _typed_arrays(call, values)
    return [stacked(call, arrays, call.params.get("axis", 0) % (arrays[0].ndim + 1))]


def repeat_node(call: NodeCall, values: list[Any]) -> list[Any]:
    """``dask.array.repeat``; of an array with unknown sizes, by an int along an axis,
    block by block (:func:`repeated`)."""
    x, axis, repeats = values[0], call.params.get("axis"), call.params["repeats"]
    if axis is None:
        x, axis = reshape(call, 0, x, (-1,)), 0
    if any(not known(c) for c in x.chunks):
        return [typed(call, repeated(call, x, repeats, axis % x.ndim))]
    return [typed(call, da.repeat(x, repeats, axis=axis))]


def repeats_int(call: NodeCall, axes: frozenset[int]) -> bool:
    """repeat by an int along an axis takes unknown sizes (:func:`repeated`)."""
    repeats = call.params.get("repeats")
    return call.params.get("axis") is not None and isinstance(repeats, int) and \
        not isinstance(repeats, bool)


def roll_node(call: NodeCall, values: list[Any]) -> list[Any]:
    """``dask.array.roll`` by the shift (sizes among it read from the size inputs);
    several shifts of the flattened tensor (``axis=None``) by their sum, as NumPy rolls
    by each in turn (Dask takes one there); shifts and axes broadcast against each other,
    each axis rolled by the sum of its shifts, as NumPy does (Dask needs as many of
    each)."""
    shift = call.size_params("shift")
    if shift is None:
        return blockwise(call, values)
    axis, by = call.params.get("axis"), shift[0]
    if axis is None:
        by = sum(by) if isinstance(by, tuple) else by
    elif isinstance(by, tuple) or isinstance(axis, tuple):
        ndim, summed = values[0].ndim, {}
        for s, a in np.broadcast(np.asarray(by, dtype=object), np.asarray(axis)):
            summed[int(a) % ndim] = summed.get(int(a) % ndim, 0) + s
        by, axis = tuple(summed.values()), tuple(summed)
    x = values[0]
    if axis is not None and any(not known(c) for c in x.chunks):
        by, axis = (by, axis) if isinstance(axis, tuple) else ((by,), (axis,))
        return [typed(call, rolled(call, x, {a % x.ndim: s for a, s in zip(axis, by,
                                                                           strict=True)}))]
    return [typed(call, da.roll(x, by, axis=axis))]


def tile_node(call: NodeCall, values: list[Any]) -> list[Any]:
    """``dask.array.tile``; of an array with unknown sizes, the copies of each repeated
    axis joined by :func:`tiled_join` (Dask's compares the unknown sizes)."""
    x, reps = values[0], call.params["reps"]
    reps = tuple(reps) if isinstance(reps, tuple | list) else (reps,)
    width = max(x.ndim, len(reps))
    full = (1,) * (width - len(reps)) + reps
    if any(not known(c) for c in x.chunks) and any(r != 1 for r in full):
        return [typed(call, tiled_join(call, x, reps))]
    return [typed(call, da.tile(x, reps))]
