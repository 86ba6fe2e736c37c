"""Each node of a graph as Dask arrays.

Lowering a node (:func:`.function.lower`) builds the Dask arrays of its outputs from
Dask arrays of its inputs, computing nothing. The Op's declared kind (``dask = "..."``
in its catalogue entry, :attr:`~kantensor.ops.op.SignatureOp.lowering`) picks one of Dask's own
algorithms (:data:`.algorithms.ALGORITHMS`); an Op with none is one
:func:`dask.array.blockwise` by its signature (:mod:`.blockwise`). Planning is the same
code on placeholder arrays of the given chunks (:func:`placeholder`): the chunks a plan
predicts are the chunks the call makes.

A :class:`Session` carries the options of the Function (``allow_rechunk``,
``compute_chunk_sizes``) through one call or one plan, and says no where an option does
not allow what a node needs: an axis split over several chunks that the node needs whole
(:class:`RechunkError`), chunk sizes nobody knows yet (:class:`UnknownChunksError`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import product
from typing import Any

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from ...graph.basic import Apply
from ...ops.op import under_built_rules
from ...ops.sizes import concrete, symbolic
from ...signature.forward import infer
from ...types.basic_ops import SpecifyShape
from ...types.type import TensorType
from .axes import NodeAxes, node_axes
from .kernels import count_nonzero

__all__ = ["Chunks", "NodeCall", "RechunkError", "Session", "UnknownChunksError",
           "concrete_type", "known", "node_call", "placeholder", "short",
           "without_empty"]

Chunks = tuple[tuple[float, ...], ...]

#: The kind (``dask = "arrange"``) of Ops whose axis parameters only place axes.
ARRANGE = "arrange"


class RechunkError(ValueError):
    """A node needs an axis in one chunk and the user did not allow the rechunk."""


class UnknownChunksError(ValueError):
    """A node needs chunk sizes that only computing would tell."""


def known(chunks: tuple) -> bool:
    return not any(math.isnan(c) for c in chunks)


def without_empty(x: Any) -> Any:
    """``x`` with the empty chunks of every axis of known chunks dropped (an empty axis
    kept as one empty chunk), by aliasing its blocks, and an array of no elements as one
    empty block: nothing moves. Dask's algorithms
    do not take them: a size-1 axis in chunks ``(0, 1, 0)`` is not broadcast by
    blockwise (``x % y`` gave 3 elements for 1), and reductions, concatenations,
    cumulative and reshaping algorithms fail on an empty block or an axis of several
    empty chunks. Every node's lowering starts here, so the chunks a plan predicts are
    the ones the call makes."""
    if not isinstance(x, da.Array):
        return x
    for a, chunks in enumerate(x.chunks):
        if len(chunks) > 1 and known(chunks) and 0 in chunks:
            keep = [i for i, n in enumerate(chunks) if n] or [0]
            x = x.blocks[(slice(None),) * a + (keep,)]
    if 0 in x.shape and x.npartitions > 1 and all(known(c) for c in x.chunks):
        return x.rechunk(-1)  # no elements: one empty block
    return x


def concrete_type(dtype: str, chunks: Chunks) -> TensorType:
    """The type of an array of ``dtype`` and ``chunks`` (an unknown size is None)."""
    return TensorType(dtype, tuple(int(math.fsum(c)) if known(c) else None for c in chunks))


def placeholder(chunks: Chunks, dtype: Any, key: Any = None) -> Any:
    """A Dask array of ``chunks`` (``nan`` allowed) and ``dtype`` that nobody computes:
    what planning lowers nodes on. Its blocks are tasks of their own, as the blocks of a
    user's ``from_array`` input are; Dask's linear fusion may fuse them into the tasks that
    read them, as it fuses ``from_array``'s, so a plan counts them as it counts those.
    ``key`` tells inputs apart: two inputs of one chunking are two arrays (two masks'
    rows of one unknown chunking are not one array's blocks)."""
    dtype = np.dtype(dtype)
    name = f"placeholder-{tokenize(chunks, dtype.str, key)}"
    tasks = {(name, *index): (np.empty, tuple(0 if math.isnan(cs[i]) else int(cs[i])
                                              for cs, i in zip(chunks, index, strict=True)),
                              dtype)
             for index in product(*(range(len(c)) for c in chunks))}
    graph = HighLevelGraph.from_collections(name, tasks, dependencies=())
    return da.Array(graph, name, chunks, meta=np.empty((0,) * len(chunks), dtype))


@dataclass
class Session:
    """One call (``run``) or one plan of a Function, with its options."""

    run: bool
    allow_rechunk: bool = False
    compute_chunk_sizes: bool = False
    #: chunk sizes computed in this call, by the origin (:meth:`origin`) of the axis
    #: they are of: computed once for every array whose blocks they are
    resolved: dict[tuple, tuple[int, ...]] = field(default_factory=dict)
    #: per node, what it asked for that the options allowed (for the plan's words)
    notes: dict[Apply, list[str]] = field(default_factory=dict)
    #: masked arrays by name: the mask (chunked as they are along the masked axis) and
    #: the axis, so that their sizes are the mask's counts per block
    masked: dict[str, tuple[Any, int]] = field(default_factory=dict)
    #: per (array name, axis) of unknown chunks that a node passed on from an input's
    #: axis, the array and axis that made those blocks (see :meth:`origin`), or the
    #: origins its blocks are made of (:meth:`derive`)
    origins: dict[tuple[str, int], tuple] = field(default_factory=dict)
    #: per node, the concrete types of its inputs and outputs (what the plan reads to
    #: say what runs on them: see :attr:`.algorithms.Algorithm.numpy`)
    types: dict[Apply, tuple[tuple, tuple]] = field(default_factory=dict)

    def origin(self, x: Any, axis: int) -> tuple:
        """The array and axis whose blocks ``x``'s unknown chunks on ``axis`` are: two
        axes of unknown chunks are aligned only where they have one origin (a mask's rows
        and the rows of ``2 * rows``); two masks' rows may split alike in count, not in
        sizes. (Or, see :meth:`derive`, how those blocks' sizes are made of origins'.)"""
        return self.origins.get((x.name, axis), (x.name, axis))

    def derive(self, y: Any, axis: int, how: str, parts: list[tuple[Any, int]],
               times: int = 1) -> None:
        """Record that ``y``'s unknown chunks on ``axis`` are made of blocks of the
        ``parts`` (array, axis): ``how`` "join", their chunks one after the other (a
        concatenation along them, ``tile``); "repeat", each of the one part's ``times``
        as large (``repeat`` by an int). Two axes so made of the same origins the same
        way have blocks of the same sizes (so they pair), and their sizes follow from
        those origins' (computed once, :meth:`_chunks`). A known part stands for its
        sizes. Nothing is recorded unless the parts' blocks are ``y``'s, one for one (a
        join's counts sum to ``y``'s, a repeat's one part has as many) and ``y`` is none
        of them: an input Dask dropped (its ``concatenate`` drops the empty ones) would
        put every size after it on the wrong block."""
        if not isinstance(y, da.Array) or known(y.chunks[axis]):
            return
        counts = [len(x.chunks[a]) for x, a in parts]
        made_of = sum(counts) if how == "join" else counts[0] if len(counts) == 1 else -1
        if made_of != len(y.chunks[axis]) or any(x.name == y.name for x, _ in parts):
            return
        made = tuple(self.origin(x, a) if not known(x.chunks[a]) else ("sizes", x.chunks[a])
                     for x, a in parts)
        self.origins[(y.name, axis)] = (how, times, made)

    def keeps(self, x: Any, y: Any, axes: dict[int, int]) -> None:
        """Record, for each ``a: b`` of ``axes``, that ``y``'s axis ``b`` is ``x``'s axis
        ``a`` block for block, in order: only what the lowering's algorithm is known to
        keep so (an axis it does not reduce, cut, scan or move blocks along; never a
        flip, roll, sort or concatenation along it), and only where both axes' chunks
        are unknown and alike in count (see :meth:`origin`)."""
        if not (isinstance(x, da.Array) and isinstance(y, da.Array)):
            return
        for a, b in axes.items():
            if not (known(x.chunks[a]) or known(y.chunks[b])) \
                    and len(x.chunks[a]) == len(y.chunks[b]):
                self.origins[(y.name, b)] = self.origin(x, a)

    def whole(self, call: NodeCall, i: int, axis: int, x: Any, why: str) -> Any:
        """Input ``i`` (``x``) with ``axis`` in one chunk, if it is split and the user
        allowed the rechunk; else RechunkError naming the node, the axis and why."""
        chunks = x.chunks[axis]
        if len(chunks) <= 1:
            return x
        self.allow(call, f"input {i} axis {axis} is split into {len(chunks)} chunks "
                         f"{short(chunks)}", f"{why}; that needs the whole axis in one task",
                   f"input {i} axis {axis} rechunked to one chunk")
        x = self.sizes(call, i, x) if not known(chunks) else x
        return self.rechunked(x, axis, -1)

    def rechunked(self, x: Any, axis: int, chunks: Any) -> Any:
        """``x`` rechunked along ``axis`` (of known sizes) only: Dask's rechunk leaves
        the blocks of the other axes as they are, so they keep their origins (an axis
        of unknown chunks is never rechunked)."""
        y = x.rechunk({axis: chunks})
        self.keeps(x, y, {a: a for a in range(x.ndim) if a != axis})
        return y

    def allow(self, call: NodeCall, what: str, why: str, done: str) -> None:
        """Let the lowering rechunk (``done``, noted for the plan) if the user allowed
        it; else RechunkError: ``what`` is so, and ``why`` it needs a rechunk."""
        if not self.allow_rechunk:
            raise RechunkError(f"{call.describe()}: {what}, and {why}. Rechunk it "
                               "yourself, or compile with allow_rechunk=True to let the "
                               "lowering do it")
        self.notes.setdefault(call.node, []).append(f"{done} (allow_rechunk=True)")

    def sizes(self, call: NodeCall, i: int, x: Any, why: str = "") -> Any:
        """Input ``i`` with its unknown chunk sizes computed (once per origin and call,
        see :meth:`_chunks`) if the user opted in; else UnknownChunksError naming
        the node and ``compute_chunk_sizes``."""
        if not isinstance(x, da.Array) or all(known(c) for c in x.chunks):
            return x
        if not self.compute_chunk_sizes:
            raise UnknownChunksError(
                f"{call.describe()}: input {i} has chunks of unknown size "
                f"{_short_all(x.chunks)} (sizes the data decides){why}, and this node needs "
                "them. Call .compute_chunk_sizes() on that array first, or compile with "
                "compute_chunk_sizes=True to compute them once during the call")
        if not self.run:
            raise UnknownChunksError(
                f"{call.describe()}: input {i} has chunks of unknown size; with "
                "compute_chunk_sizes=True they are computed during the call, so no plan "
                "can know them before it")
        self.notes.setdefault(call.node, []).append(
            f"input {i}'s unknown chunk sizes computed once (compute_chunk_sizes=True)")
        # (its empty chunks, known now, dropped as every node's are)
        return without_empty(da.Array(x.dask, x.name, self._chunks(x), meta=x._meta))

    def _chunks(self, x: Any) -> Chunks:
        """``x``'s chunks with every unknown axis's sizes, each computed once per origin:
        a masked axis's are its mask's counts per block (only the mask is computed);
        where one is not known so, Dask's ``compute_chunk_sizes`` on a copy gives all
        (it sets the chunks of the array it is called on: the user's input, or an array
        other nodes hold, is left as it is)."""
        origins = {a: self.origin(x, a) for a, c in enumerate(x.chunks) if not known(c)}
        found = {a: self._derived(o) for a, o in origins.items()}
        # (sizes of another count than x's blocks are never used: they are not x's)
        if not all(f is not None and len(f) == len(x.chunks[a]) for a, f in found.items()):
            computed = x.copy().compute_chunk_sizes().chunks
            for a, o in origins.items():
                if found[a] is None or len(found[a]) != len(computed[a]):
                    self.resolved[o] = computed[a]
                found[a] = computed[a]
        return tuple(found.get(a, c) for a, c in enumerate(x.chunks))

    def _derived(self, origin: tuple) -> tuple[int, ...] | None:
        """The sizes of ``origin``'s blocks where they are known without computing
        anything but masks' counts: computed already, a mask's (its counts per block),
        or made of such (:meth:`derive`); None where not."""
        if origin in self.resolved:
            return self.resolved[origin]
        found: tuple[int, ...] | None = None
        if origin[0] == "sizes":
            return tuple(int(n) for n in origin[1])
        if origin[0] in ("join", "repeat") and len(origin) == 3:
            parts = [self._derived(o) for o in origin[2]]
            if all(p is not None for p in parts):
                found = tuple(n * origin[1] for p in parts for n in p)
        elif self.masked.get(origin[0], (0, -1))[1] == origin[1]:
            found = _counts(self.masked[origin[0]][0])
        if found is not None:
            self.resolved[origin] = found
        return found


    def bounds(self) -> dict[str, dict[int, tuple[int, ...]]]:
        """Per array name, per axis of unknown chunks whose origin this session knows,
        sizes no block can exceed, computing nothing: those computed in the call, a
        mask's blocks of the array it masks (a mask keeps at most every row), a join's
        its parts' one after the other, a repeat's ``times`` its part's. What
        ``max_task_bytes`` bounds a masked graph's tasks by (:func:`.tasks.account`)."""
        out: dict[str, dict[int, tuple[int, ...]]] = {}
        axes = set(self.origins) | {(name, axis) for name, (_, axis) in self.masked.items()}
        for name, axis in axes:
            found = self._bound(self.origins.get((name, axis), (name, axis)))
            if found is not None:
                out.setdefault(name, {})[axis] = found
        return out

    def unknown(self) -> set[tuple[str, int]]:
        """Every (array name, axis) this session knows has chunks of unknown size: those
        whose origin it records and the masked axes. Dask records a masked array's
        layer with the chunks of the array it masks (it sets ``nan`` on the array only
        after building the layer), so these are what no layer's record is to be
        believed on (:func:`.tasks.account`)."""
        return set(self.origins) | {(name, axis) for name, (_, axis) in self.masked.items()}

    def _bound(self, origin: tuple) -> tuple[int, ...] | None:
        if origin in self.resolved:
            return self.resolved[origin]
        if origin[0] == "sizes":
            return tuple(int(n) for n in origin[1])
        if origin[0] in ("join", "repeat") and len(origin) == 3:
            parts = [self._bound(o) for o in origin[2]]
            return None if None in parts else tuple(n * origin[1] for p in parts for n in p)
        if self.masked.get(origin[0], (0, -1))[1] == origin[1]:
            chunks = self.masked[origin[0]][0].chunks[0]
            return tuple(int(n) for n in chunks) if known(chunks) else None
        return None


def _counts(mask: Any) -> tuple[int, ...]:
    """The count of true entries of each block of a Dask vector ``mask``."""
    counts = mask.map_blocks(count_nonzero, chunks=((1,) * mask.numblocks[0],), token="count",
                             dtype=np.int64).compute()
    return tuple(int(c) for c in counts)


def short(chunks: tuple) -> str:
    text = str(tuple(chunks))
    return text if len(text) <= 40 else text[:37] + "...)"


def _short_all(chunks: Chunks) -> str:
    return "(" + ", ".join(short(c) for c in chunks) + ")"


@dataclass
class NodeCall:
    """A node about to be lowered: its Op with parameters resolved for its inputs, the
    inputs' concrete types (an unknown size None) and the output types for them, the
    labels of its axes, its kind."""

    node: Apply
    op: Any
    in_types: tuple[TensorType, ...]
    out_types: tuple[TensorType, ...]
    axes: NodeAxes | None
    kind: str | None
    session: Session

    @property
    def params(self) -> dict[str, Any]:
        return dict(getattr(self.op, "params", ()))

    def describe(self) -> str:
        return f"{self.op} (Apply {self.node.op})" if str(self.op) != str(self.node.op) \
            else str(self.op)

    def dtype(self, j: int = 0) -> np.dtype:
        return self.out_types[j].numpy_dtype

    def size_params(self, *names: str) -> list[Any] | None:
        """The values of the size parameters ``names`` (all of the Op's, in its call's
        order: a diagonal or a shift that is a size among them) with their Dims read
        from the lengths of the node's size inputs, its last (their concrete types:
        never their data); None where one of those lengths is unknown."""
        values = [self.params.get(name) for name in names]
        count = len(symbolic(values))
        lengths = [t.shape[0] for t in self.in_types[len(self.in_types) - count:]]
        if None in lengths:
            return None
        return concrete(values, [range(n) for n in lengths])


def node_call(node: Apply, types: tuple[TensorType, ...], session: Session) -> NodeCall:
    """The :class:`NodeCall` of ``node`` for inputs of concrete ``types`` (an unknown
    size is None); TypeInferenceError if they do not fit its signature."""
    if isinstance(node.op, SpecifyShape):
        return NodeCall(node, node.op, types, (node.outputs[0].type,), None, "identity",
                        session)
    wrapped = tuple(v.wrapped for v in node.inputs)
    signature, op = node.op.signature_for(types)
    with under_built_rules(node):  # (eval_shape's nodes: NumPy's rules; a graph's default)
        out_types = tuple(infer(signature, types, wrapped, name=op))
        kind = getattr(op, "lowering", {}).get("dask")
        axes = node_axes(op, signature, types, wrapped, [t.ndim for t in out_types],
                         arranging=kind == ARRANGE)
    session.types[node] = (types, out_types)
    return NodeCall(node, op, types, out_types, axes, kind, session)
