"""Bytes per task of a Dask graph, read before anything runs.

Every array Dask builds records its chunks and dtype on its graph layer, so the bytes of
each block of each array are known from the chunks alone; a rechunk's pieces are slices
of known blocks, and an alias is its target. A task holds the results it reads (its
inputs) and its own result (its output) while it runs: :func:`account` gives both for
every task of the graph as Dask runs it (optimised as ``compute`` optimises it: chains
of blockwise steps fused into one task, whose intermediates no one else sees), grouped
by the node of the kantensor graph whose lowering made it. These are the numbers a
``dask.distributed`` scheduler keeps as ``TaskState.nbytes`` (for NumPy blocks, their
``nbytes``), without running anything (:attr:`TaskBytes.scheduled`).

The scheduler does not see what a fused task makes inside: ``da.ones`` fused into the
step that reads it is a task that reads nothing, and an input block that
``from_array`` embeds in the task is no result of another. :attr:`TaskBytes.inside`
counts them: the task's steps run in order, each result released after its last reader
as Dask's ``execute_graph`` does, data embedded in the task held throughout; the most
bytes alive at once, the task's own result included. What a task holds at its peak
(:attr:`TaskBytes.held`) is its inputs and that.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from dask._task_spec import Alias, DataNode, Task, TaskRef, _execute_subgraph
from dask.array.optimization import optimize
from dask.blockwise import Blockwise
from dask.highlevelgraph import HighLevelGraph

__all__ = ["NodeTasks", "TaskBytes", "account"]


@dataclass(frozen=True)
class TaskBytes:
    """One task: its Dask key, the bytes of the results it reads and of its own result,
    and the most its own work holds at once (``inside``: its result, and for a fused task
    the intermediates and embedded data alive with it; see the module doc);
    ``estimated``: a size derived from its inputs' or a neighbouring block's where its
    own is not recorded."""

    key: Hashable
    inputs: float
    output: float
    estimated: bool = False
    inside: float | None = None
    #: its sizes are upper bounds (a mask's blocks counted as the blocks they mask:
    #: :meth:`.lower.Session.bounds`), not the sizes themselves
    at_most: bool = False

    @property
    def held(self) -> float:
        """What the task holds at its peak: its inputs and what its own work holds."""
        return self.inputs + (self.output if self.inside is None else self.inside)

    @property
    def scheduled(self) -> float:
        """What a ``dask.distributed`` scheduler counts for it: the results it reads and
        its own (``TaskState.nbytes``)."""
        return self.inputs + self.output

    @property
    def unknown(self) -> bool:
        """Its bytes are decided by chunks of unknown size (``nan``)."""
        return any(math.isnan(n) for n in (self.inputs, self.output, self.inside or 0.0))

    @property
    def block(self) -> tuple:
        """The block index in the key (``("sum-aggregate-...", 0, 1)`` -> ``(0, 1)``)."""
        return tuple(self.key[1:]) if isinstance(self.key, tuple) else ()

    @property
    def array(self) -> str:
        return self.key[0] if isinstance(self.key, tuple) else str(self.key)


@dataclass
class NodeTasks:
    """The tasks one node's lowering made: how many, the one that holds the most, and
    the one with the largest result."""

    tasks: int = 0
    largest: TaskBytes | None = None
    largest_output: TaskBytes | None = None
    #: the most a scheduler counts for one of them (:attr:`TaskBytes.scheduled`)
    scheduled: float = 0.0
    #: how many hold bytes that chunks of unknown size decide (``nan``: a mask's), and
    #: the first: never compared with the others (a ``nan`` is no size), never the largest
    unknown: int = 0
    first_unknown: TaskBytes | None = None
    #: how many are counted by upper bounds of their sizes (:attr:`TaskBytes.at_most`)
    at_most: int = 0

    def add(self, task: TaskBytes) -> None:
        self.tasks += 1
        if task.unknown:
            self.unknown += 1
            self.first_unknown = self.first_unknown or task
            return
        self.at_most += task.at_most
        self.scheduled = max(self.scheduled, task.scheduled)
        if self.largest is None or task.held > self.largest.held:
            self.largest = task
        if self.largest_output is None or task.output > self.largest_output.output:
            self.largest_output = task


def _graph(arrays: Iterable[Any]) -> HighLevelGraph:
    graphs = [a.__dask_graph__() for a in arrays if hasattr(a, "__dask_graph__")]
    return HighLevelGraph.merge(*graphs) if graphs else HighLevelGraph({}, {})


class _Blocks:
    """The shape and item size of every key's result, where the graph records it:
    ``tasks`` the graph Dask runs, ``graph`` the one the arrays were built as (whose
    layers record their chunks)."""

    def __init__(self, graph: HighLevelGraph, tasks: dict,
                 sizes: dict[str, dict[int, tuple]] | None = None):
        self.tasks = tasks
        self.layers: dict[str, tuple[tuple, int]] = {}
        for name, layer in graph.layers.items():
            notes = layer.collection_annotations or {}
            if "chunks" in notes and "dtype" in notes:
                chunks = _sized(notes["chunks"], (sizes or {}).get(name, {}))
                self.layers[name] = (_reduced(layer, chunks),
                                     np.dtype(notes["dtype"]).itemsize)
        self.memo: dict[Hashable, tuple[tuple, int] | None] = {}
        #: a task that fusion renamed -> the key it computes (an alias of that name
        #: stands for it)
        self.origin = {task.target: key for key, task in tasks.items()
                       if isinstance(task, Alias)}

    def shape(self, key: Hashable) -> tuple[tuple, int] | None:
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # a cycle cannot happen in a Dask graph; this ends one
        found = self._shape(key)
        self.memo[key] = found
        return found

    def _shape(self, key: Hashable) -> tuple[tuple, int] | None:
        name = key[0] if isinstance(key, tuple) else key
        task = self.tasks.get(key)
        if name in self.layers and isinstance(key, tuple):
            chunks, itemsize = self.layers[name]
            if len(key) == len(chunks) + 1:
                return tuple(c[i] for c, i in zip(chunks, key[1:], strict=True)), itemsize
        if key in self.origin:  # a fused task: the result of the key it stands for
            return self.shape(self.origin[key])
        if isinstance(task, Alias):
            return self.shape(task.target)
        if isinstance(task, Task) and task.func is operator.getitem and len(task.args) == 2:
            source, index = task.args
            if isinstance(source, TaskRef) and isinstance(index, tuple) and all(
                    isinstance(s, slice) for s in index):
                found = self.shape(source.key)
                if found is not None and len(found[0]) == len(index):
                    shape = tuple(len(range(*s.indices(int(n)))) if not math.isnan(n) else n
                                  for s, n in zip(index, found[0], strict=True))
                    return shape, found[1]
        return None

    def nbytes(self, key: Hashable) -> float | None:
        found = self.shape(key)
        if found is None:
            return None
        shape, itemsize = found
        return float(math.prod(shape)) * itemsize

    def inside(self, key: Hashable, task: Any, own: float) -> tuple[float, bool]:
        """The most bytes ``task``'s own work holds at once (see the module doc), and
        whether a size in it was estimated. An alias makes nothing."""
        if isinstance(task, Alias):
            return 0.0, False
        if not _fused(task):
            return own, False
        index = tuple(key[1:]) if isinstance(key, tuple) else ()
        return self._peak(task.args[0], task.args[1], index)

    def _peak(self, inner: dict, out: Hashable, index: tuple) -> tuple[float, bool]:
        """Run a fused task's steps in order (Dask's ``execute_graph``): the most bytes
        alive at once, each result released after its last reader (embedded data and
        the result itself never)."""
        sizes: dict = {}
        guessed = False
        for k, node in inner.items():
            size, g = self._inner_bytes(k, node, index)
            sizes[k], guessed = size, guessed or g
        readers: dict = {}
        for node in inner.values():
            for d in node.dependencies:
                if d in inner:
                    readers[d] = readers.get(d, 0) + 1
        live = peak = 0.0
        for k in _in_order(inner):
            node = inner[k]
            step = sizes[k]
            if _fused(node):
                step, g = self._peak(node.args[0], node.args[1],
                                     tuple(k[1:]) if isinstance(k, tuple) else index)
                guessed = guessed or g
            peak = max(peak, live + step)
            live += sizes[k]
            for d in node.dependencies:
                if d in inner:
                    readers[d] -= 1
                    if readers[d] == 0 and d != out and not isinstance(inner[d], DataNode):
                        live -= sizes[d]
        return peak, guessed

    def _inner_bytes(self, key: Hashable, node: Any, index: tuple) -> tuple[float, bool]:
        """The bytes of one step's result inside a fused task of block ``index``: a
        block of a recorded array (a key of a blockwise fusion is the layer's name
        with its indices, ``tanh-<token>_.0_.1``: the block of the task's own index
        where the ranks agree, else the layer's largest, estimated), or embedded data."""
        if isinstance(node, DataNode):
            return float(getattr(node.value, "nbytes", 0) or 0), False
        if isinstance(key, tuple):
            found = self.nbytes(key)
            return (0.0, True) if found is None else (found, False)
        name = str(key).split("_.")[0]
        if name not in self.layers:
            return 0.0, True
        chunks, itemsize = self.layers[name]
        if len(chunks) == len(index) and all(i < len(c) for c, i in zip(chunks, index,
                                                                         strict=True)):
            return float(math.prod(c[i] for c, i in zip(chunks, index, strict=True))
                         ) * itemsize, False
        return float(math.prod(max(c, default=0) for c in chunks)) * itemsize, True


def _fused(task: Any) -> bool:
    return isinstance(task, Task) and task.func is _execute_subgraph


def _in_order(inner: dict) -> list:
    """The steps of a fused task, each after the steps it reads."""
    done: list = []
    seen: set = set()
    for start in inner:
        stack = [(start, False)]
        while stack:
            k, ready = stack.pop()
            if k in seen:
                continue
            if ready:
                seen.add(k)
                done.append(k)
                continue
            stack.append((k, True))
            stack.extend((d, False) for d in inner[k].dependencies
                         if d in inner and d not in seen)
    return done


def _sized(chunks: tuple, sizes: dict[int, tuple]) -> tuple:
    """A layer's recorded ``chunks`` with the axes ``sizes`` gives (as many blocks)
    replaced by those: a layer's record may not be its array's chunks (Dask records a
    masked array's layer with the chunks of the array it masks, then sets ``nan`` on the
    array), so the axes the session knows are unknown are given, ``nan`` or their
    bounds, whatever the record says."""
    return tuple(tuple(sizes[a]) if a in sizes and len(sizes[a]) == len(c) else c
                 for a, c in enumerate(chunks))


def _reduced(layer: Any, chunks: tuple) -> tuple:
    """The chunks of a layer's results. The first level of a Dask tree reduction is a
    blockwise layer that records the chunks of its input, while its tasks (called with
    ``keepdims=True`` and a tuple ``axis``) give size 1 along the reduced axes."""
    if not isinstance(layer, Blockwise):
        return chunks
    task = next(iter(layer.values()), None)
    kwargs = getattr(task, "kwargs", None) or {}
    if kwargs.get("keepdims") is True and isinstance(kwargs.get("axis"), tuple):
        return tuple((1,) * len(c) if a in kwargs["axis"] else c for a, c in enumerate(chunks))
    return chunks


def account(arrays: Iterable[Any], owners: dict[str, Hashable],
            bounds: dict[str, dict[int, tuple]] | None = None,
            unknown: Iterable[tuple[str, int]] = ()) -> dict[Hashable, NodeTasks]:
    """Per owner (``owners``: graph layer name -> whatever made it), the bytes of every
    task of the graph of ``arrays`` that belongs to an owned layer. ``unknown``: the
    (layer name, axis) whose chunks are of unknown size whatever the layer records
    (:meth:`.lower.Session.unknown`: a masked array's layer records the blocks it
    masks). A task whose bytes chunks of unknown size decide is counted by ``bounds``
    (per layer name, per axis, sizes no block exceeds: :meth:`.lower.Session.bounds`)
    where they bound them all, marked :attr:`TaskBytes.at_most`; else its bytes stay
    unknown (``nan``)."""
    arrays = [a for a in arrays if hasattr(a, "__dask_graph__")]
    graph = _graph(arrays)
    keys = [a.__dask_keys__() for a in arrays]
    tasks = optimize(graph, keys) if arrays else {}
    nan: dict[str, dict[int, tuple]] = {}
    for name, axis in unknown:
        recorded = (graph.layers[name].collection_annotations or {}).get("chunks") \
            if name in graph.layers else None
        if recorded is not None and axis < len(recorded):
            nan.setdefault(name, {})[axis] = (math.nan,) * len(recorded[axis])
    blocks = _Blocks(graph, tasks, nan)
    bounded = _Blocks(graph, tasks, bounds) if bounds else blocks
    out: dict[Hashable, NodeTasks] = {}
    for key, task in tasks.items():
        named = blocks.origin.get(key, key)
        owner = owners.get(named[0] if isinstance(named, tuple) else named)
        if owner is None:
            continue
        found = _task(blocks, key, task)
        if found.unknown and bounded is not blocks:
            at_most = _task(bounded, key, task)
            if not at_most.unknown:
                found = TaskBytes(key, at_most.inputs, at_most.output, at_most.estimated,
                                  at_most.inside, at_most=True)
        out.setdefault(owner, NodeTasks()).add(found)
    return out


def _task(blocks: _Blocks, key: Hashable, task: Any) -> TaskBytes:
    """One task's bytes as ``blocks`` records its inputs' and its own."""
    ins = [blocks.nbytes(d) for d in getattr(task, "dependencies", ())]
    own = blocks.nbytes(key)
    known_ins = [b for b in ins if b is not None]
    estimated = own is None
    if own is None:  # an unrecorded result: as large as its largest input
        own = max(known_ins, default=0.0)
    inside, guessed = blocks.inside(key, task, own)
    return TaskBytes(key, math.fsum(known_ins), own, estimated or guessed,
                     max(inside, own) if not isinstance(task, Alias) else 0.0)
