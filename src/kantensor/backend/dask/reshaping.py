"""Reshapes by Dask's rules (``dask = "reshape"``: reshape, flatten, ravel).

Dask's reshape rechunks only the axes whose chunks cross the new shape's rows. Where it
cannot reshape chunk by chunk, its reason is the error, unless the user allowed a
rechunk: then the reshape Dask's reason advises (two passes, a split then a merge), or,
where no two passes do, through the flat array with the leading axis still split.
"""

from __future__ import annotations

import math
from functools import partial
from itertools import product
from typing import Any

import dask.array as da
import numpy as np
from dask.array.reshape import reshape_rechunk
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from ...ops.op import under_built_rules
from ...ops.sizes import symbolic
from ...signature.forward import infer
from ...types.dim import Dim
from .blockwise import typed
from .kernels import broadcast_block
from .lower import NodeCall, concrete_type, known

__all__ = ["kept_broadcast", "reshape", "reshape_node"]


def reshape(call: NodeCall, i: int, x: Any, shape: tuple) -> Any:
    """``x`` reshaped by Dask's rules: the axes whose chunks cross the new rows are
    rechunked; where Dask cannot reshape chunk-wise, its reason is the error, unless the
    user allowed the rechunk: then through the flat array (the trailing axes made
    whole, the flat chunks cut at whole rows of the new shape), the leading axis still
    split."""
    if any(not known(c) for c in x.chunks):
        x = call.session.sizes(call, i, x)
    shape = _full_shape(x.shape, shape)
    if x.shape == shape or x.npartitions == 1:
        return x.reshape(shape)
    try:
        reshape_rechunk(x.shape, shape, x.chunks)
    except (ValueError, NotImplementedError) as exc:
        reason = " ".join(str(exc).split()).split(" For example")[0] or type(exc).__name__
        why = f"Dask cannot reshape {x.shape} to {shape} chunk by chunk ({reason})"
        passes = _two_passes(x, shape)
        if passes is not None:
            call.session.allow(call, f"{x.shape} cannot become {shape} in one pass",
                               f"{why}; two passes through {passes} would do it",
                               f"reshaped in two passes, through {passes}")
            return x.reshape(passes).reshape(shape)
        for a in range(1, x.ndim):
            x = call.session.whole(call, i, a, x, why)
        flat = x.reshape((-1,)) if x.ndim != 1 else x
        rows = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        if rows > 1 and any(c % rows for c in flat.chunks[0][:-1]):
            call.session.allow(call, f"the flat array's chunks {flat.chunks[0][:3]}... cut "
                               f"rows of {rows}", why, f"flat chunks cut at rows of {rows}")
            flat = flat.rechunk(max(rows, flat.chunksize[0] // rows * rows))
        return flat.reshape(shape)
    return x.reshape(shape)


def _two_passes(x: Any, shape: tuple) -> tuple | None:
    """The shape between ``x.shape`` and ``shape`` that makes the reshape a split of
    old axes then a merge of those parts (Dask's advice: "call reshape in multiple
    passes"), if there is one and Dask can do both passes chunk-wise; else None."""
    old, new = [n for n in x.shape if n != 1], [n for n in shape if n != 1]
    if not old or not new or 0 in old or 0 in new:
        return None
    parts, i, j, a, b = [], 0, 0, old[0], new[0]
    while True:
        g = math.gcd(a, b)
        if g == 1:
            return None
        parts.append(g)
        a, b = a // g, b // g
        if a == 1:
            i += 1
            a = old[i] if i < len(old) else 1
        if b == 1:
            j += 1
            b = new[j] if j < len(new) else 1
        if i == len(old) and j == len(new):
            break
        if i == len(old) or j == len(new):
            return None
    between = tuple(parts)
    try:
        _, middle, _, _ = reshape_rechunk(x.shape, between, x.chunks)
        reshape_rechunk(between, shape, middle)
    except (ValueError, NotImplementedError):
        return None
    return between


def _full_shape(shape: tuple, new: tuple) -> tuple:
    new = tuple(int(n) for n in new)
    if -1 in new:
        rest = int(np.prod([n for n in new if n != -1]))
        size = int(np.prod(shape))
        new = tuple(size // rest if n == -1 and rest else (0 if n == -1 else n) for n in new)
    return new


def reshape_node(call: NodeCall, values: list[Any]) -> list[Any]:
    shape = call.out_types[0].shape
    kept = _rows_reshaped(call, values[0], shape)
    if kept is not None:
        return [typed(call, kept)]
    if shape.count(None) > 1:  # sizes the data decides: from the input's, once known
        values = [call.session.sizes(call, 0, values[0])]
        shape = _resolved_shape(call, values[0])
    shape = tuple(-1 if n is None else n for n in shape)
    return [typed(call, reshape(call, 0, values[0], shape))]


def _resolved_shape(call: NodeCall, x: Any) -> tuple:
    """The output shape of the reshape for ``x`` of known sizes (re-typed)."""
    types = (concrete_type(x.dtype.name, x.chunks),)
    signature, op = call.node.op.signature_for(types)
    with under_built_rules(call.node):  # (as the node was typed: eval_shape's NumPy rules)
        return infer(signature, types, tuple(v.wrapped for v in call.node.inputs),
                     name=op)[0].shape


def _rows_reshaped(call: NodeCall, x: Any, shape: tuple) -> Any:
    """A reshape of the trailing axes only, where ``x``'s leading axis alone has chunks
    of unknown size (a mask's rows) and the trailing ones are one chunk each: every
    block reshaped to its own rows of the new trailing shape (NumPy's reshape with -1
    for them), the leading axis kept block for block, so its origin passed; None where
    that is not the case (the sizes are then needed, :meth:`.lower.Session.sizes`)."""
    if not isinstance(x, da.Array) or x.ndim == 0 or known(x.chunks[0]) or \
            any(not known(c) or len(c) != 1 for c in x.chunks[1:]):
        return None
    rest = shape[1:]
    if shape[0] is not None or not all(isinstance(n, int) for n in rest) or \
            math.prod(rest) != math.prod(int(n) for n in x.shape[1:]) or \
            math.prod(rest) == 0:
        return None  # (the leading axis changes, or -1 is ambiguous: sizes needed)
    new = (-1, *rest)
    name = f"reshape-{tokenize(x, new)}"
    graph = {(name, i, *(0,) * len(rest)): (partial(np.reshape, shape=new),
                                            (x.name, i, *(0,) * (x.ndim - 1)))
             for i in range(x.numblocks[0])}
    y = da.Array(HighLevelGraph.from_collections(name, graph, dependencies=[x]), name,
                 (x.chunks[0], *((n,) for n in rest)), meta=np.empty((0,) * len(shape),
                                                                    x.dtype))
    call.session.keeps(x, y, {0: 0})
    _note(call, "each block reshaped on its own rows, the leading axis of unknown sizes "
                "kept block for block (dask.array.reshape needs its sizes)")
    return y


def _note(call: NodeCall, text: str) -> None:
    notes = call.session.notes.setdefault(call.node, [])
    if text not in notes:
        notes.append(text)


def kept_broadcast(call: NodeCall, values: list[Any]) -> Any:
    """``broadcast_to`` where every axis of ``x`` with chunks of unknown size (a mask's
    rows) is kept: its target size is a size input (``x.shape[0]``, ``rows.shape``) of
    that axis's origin, so each block keeps its own rows (:func:`.kernels.
    broadcast_block`), the origin passed; the other axes as Dask's ``broadcast_to``
    makes them (new axes and axes of 1 one chunk of the target size, the others kept).
    None where an unknown size is not kept so (the sizes are then needed)."""
    x = values[0]
    if not isinstance(x, da.Array) or all(known(c) for c in x.chunks):
        return None
    param = call.params.get("shape")
    entries = tuple(param) if isinstance(param, tuple | list) else (param,)
    out = call.out_types[0].shape
    dims = symbolic([param])
    sizes = values[len(values) - len(dims):]
    lead = len(out) - x.ndim
    if len(entries) != len(out) or lead < 0:
        return None
    chunks, target, kept = [], [], {}
    for o, n in enumerate(out):
        a = o - lead
        if a >= 0 and not known(x.chunks[a]):
            k = next((j for j, d in enumerate(dims) if isinstance(entries[o], Dim)
                      and d == entries[o]), None)
            size = sizes[k] if k is not None else None
            if not (isinstance(size, da.Array) and not known(size.chunks[0])
                    and len(size.chunks[0]) == len(x.chunks[a])
                    and call.session.origin(size, 0) == call.session.origin(x, a)):
                return None
            chunks.append(x.chunks[a])
            target.append(None)
            kept[a] = o
        elif n is None:
            return None  # another size the data decides, not x's own
        elif a >= 0 and x.shape[a] == n:
            chunks.append(x.chunks[a])
            target.append(None)
        else:
            chunks.append((n,))
            target.append(n)
    kernel = partial(broadcast_block, shape=tuple(target))
    name = f"broadcast_to-{tokenize(x, tuple(target))}"
    graph = {(name, *index): (kernel, (x.name, *(0 if x.numblocks[a] == 1 else
                                                  index[a + lead] for a in range(x.ndim))))
             for index in product(*(range(len(c)) for c in chunks))}
    y = da.Array(HighLevelGraph.from_collections(name, graph, dependencies=[x]), name,
                 tuple(chunks), meta=np.empty((0,) * len(out), x.dtype))
    call.session.keeps(x, y, kept)
    _note(call, "each block broadcast on its own rows, the axes of unknown sizes kept "
                "block for block (dask.array.broadcast_to needs their sizes)")
    return y
