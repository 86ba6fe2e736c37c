"""Sizes the data decides, named after the node that decides them.

NonZero's count, Compress's, Unique's, NonMaxSuppression's, and TopK's ``k`` where its
value is not known when the model is read: no input size gives them, and the relation
of the node's Op leaves them a size of its own (``u`` in ``{x}:T->({n},u):int64``). The
importer names such a size after its node (``NonZero_3`` for a node named
``/NonZero_3``, ``NonZero_idx`` for an unnamed one whose first output is ``idx``: an
identifier, fresh against every name the model's types use), so that the values
computed from it (Transpose, GatherND, Gather, ConstantOfShape, Concat, ...) are typed
exactly in terms of it, and records where it comes from (:class:`DataSize`: which node
decides it and what it counts; in from_onnx's graph, a :class:`~.subgraph.SizeNote` on
the node, which :func:`~.subgraph.size_notes` lists).

One name is one size in every run: a node's outputs that count the same (Unique's
values, first indices and counts; TopK's values and indices) share it, two nodes of the
same op, attributes and inputs (two NonZeros of one mask) share it too (the same
computation on the same values gives the same count), and any other two counts get two
names. Only the main graph's nodes name their counts: in a loop's body a count changes
from one iteration to the next (and an If's branches are typed apart), so there it
stays unknown.

What the op's semantics guarantees of its count (``u <= numel(x)`` for NonZero: the
relation's condition on its own size) is a *fact* about it, known to every later node,
not a condition the inputs must meet: a contract does not constrain it as if the user
chose it. What an op needs of a count it is given (TopK's ``k <= x.shape[axis]``) stays a
condition, over a size that is no input (the contract says it is approximate there).
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import onnx

from ..types.conditions import Clause, InnerSize
from ..types.dim import Dim, unknown
from ..types.symbols import free_symbols, substitute
from ..types.type import TensorType
from ..types.variable import AxisSize
from .protos import label as node_label
from .subgraph import SizeNote, base_name, fresh_names, names_in

__all__ = ["COUNTS", "DataSize", "DataSizes"]


def _attribute(node: onnx.NodeProto, name: str) -> int | None:
    for a in node.attribute:
        if a.name == name:
            return int(a.i)
    return None


def _on(axis: int | None, rank: int) -> int:
    """``axis`` of a tensor of ``rank`` axes as an index (0 for a flattened output)."""
    if axis is None:
        return 0
    return axis + rank if axis < 0 else axis


def _nonzero(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    return [(0, 1)]


def _compress(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    return [(0, _on(_attribute(node, "axis"), outs[0].ndim))]


def _unique(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    return [(0, _on(_attribute(node, "axis"), outs[0].ndim)), (1, 0), (3, 0)]


def _nms(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    return [(0, 0)]


def _topk(node: onnx.NodeProto, outs: tuple) -> list[tuple[int, int]]:
    axis = _attribute(node, "axis")
    at = _on(-1 if axis is None else axis, outs[0].ndim)
    return [(0, at), (1, at)]


@dataclass(frozen=True)
class Counting:
    """An op whose outputs have a size its data decides: ``axes`` gives the (output,
    axis) pairs that are that one size; ``guaranteed``: whether what the op's relation
    states of it holds by the op's semantics (NonZero's count is at most its input's
    number of elements), so it is a fact, not a condition the inputs must meet."""

    axes: Callable[[onnx.NodeProto, tuple], list[tuple[int, int]]]
    guaranteed: bool
    what: str


#: op type (default domain) -> how its outputs hold the size its data decides
COUNTS: dict[str, Counting] = {
    "NonZero": Counting(_nonzero, True, "how many elements of its input are not zero"),
    "Compress": Counting(_compress, True, "how many elements of its condition are true"),
    "Unique": Counting(_unique, True, "how many different values its input holds"),
    "NonMaxSuppression": Counting(_nms, True, "how many boxes it selects"),
    "TopK": Counting(_topk, False, "the value of its input k"),
}


@dataclass(frozen=True)
class DataSize:
    """A size the data decides: its ``name``, the ``op`` and ``node`` (the node's label)
    that decide it, and ``what`` it counts."""

    name: str
    op: str
    node: str
    what: str

    def __str__(self) -> str:
        return f"{self.name} is decided by the data at {self.op} node {self.node!r} " \
            f"({self.what})"


class DataSizes:
    """The sizes the data decides in one model (shared by its readers): each by name,
    and the name of each computation that decides one."""

    def __init__(self) -> None:
        self.sizes: dict[str, DataSize] = {}
        self._by_key: dict[Hashable, str] = {}
        #: name -> an axis of a built Variable that has that size (from_onnx's graph)
        self._axes: dict[str, Dim] = {}

    def at_run_time(self, value: tuple | None) -> tuple | None:
        """A known value (a parameter: ints, Dims, None) with each size the data decides
        written as the axis of the Variable that has it (``NonZero_3`` as
        ``nonzero3.shape[1]``), so that the Op taking it reads the size from that value
        when the graph runs (no input of the function binds it: see
        :mod:`kantensor.ops.sizes`); its type is still in the size's name."""
        if not value or not self._axes:
            return value
        out = []
        for entry in value:
            if isinstance(entry, Dim):
                names = {s for s in free_symbols(entry) if s in self._axes}
                if names:
                    entry = substitute(entry, {n: self._axes[n] for n in names})
            out.append(entry)
        return tuple(out)

    def named(self, scope: Any, node: onnx.NodeProto, outs: tuple, conditions: tuple
              ) -> tuple[tuple, tuple[Clause, ...], tuple[Clause, ...]]:
        """``outs`` of ``node`` (an op of :data:`COUNTS`, read by the reader ``scope``)
        with the size its data decides named (its output Variables' types too, their
        node's ``tag["notes"]`` saying why, a :class:`SizeNote` per axis), and its
        ``conditions`` (portable: the node's own size an InnerSize's unknown) split into
        those its inputs must meet and the facts about that size. Unchanged where no size
        is left to name (the op's relation gave it, or gives several)."""
        counting = COUNTS[node.op_type]
        try:
            places = [(k, a) for k, a in counting.axes(node, outs)
                      if k < len(outs) and isinstance(outs[k], TensorType)
                      and 0 <= a < outs[k].ndim]
        except (TypeError, ValueError):  # an attribute of another kind: ONNX refused it
            return outs, conditions, ()
        inner = {s for c in conditions for s in c.symbols() if isinstance(s, InnerSize)}
        if not places or len(inner) > 1 or any(outs[k].shape[a] is not None
                                                for k, a in places):
            return outs, conditions, ()
        key = (node.op_type, tuple(node.input), _attributes(node))
        name = self._by_key.get(key)
        label = node_label(node)
        if name is None:
            taken = names_in(_every_type(scope)) | set(self.sizes)
            name = base_name(node.name or f"{node.op_type}_{node.output[0]}")
            if keyword.iskeyword(name):
                name += "_"
            if name in taken:
                (name,) = fresh_names(name, 1, taken)
            self._by_key[key] = name
            self.sizes[name] = DataSize(name, node.op_type, label, counting.what)
        size = Dim(name)
        new = list(outs)
        for k, a in places:
            shape = list(new[k].shape)
            shape[a] = size
            new[k] = TensorType(new[k].dtype, shape)
        renamed = tuple(c.substitute({u: size for u in inner}) for c in conditions) \
            if inner else conditions
        if counting.guaranteed:
            own = tuple(c for c in renamed if name in _names(c))
            needs = tuple(c for c in renamed if name not in _names(c))
        else:
            own, needs = (), renamed
        why = f"decided by the data at {node.op_type} node {label!r} ({counting.what}): " \
            f"the size {name}"
        notes = [SizeNote(label, node.output[k] if k < len(node.output) else "", a, why)
                 for k, a in places]
        owner = None
        for name_, t in zip(node.output, new, strict=False):
            var = scope.vars.get(name_) if name_ else None
            if var is not None:
                var.type, owner = t, var.owner
        k, a = places[0]
        var = scope.vars.get(node.output[k]) if scope.graph and k < len(node.output) else None
        if var is not None and name not in self._axes:
            self._axes[name] = unknown(AxisSize(var, a))
        if owner is not None:
            owner.tag["notes"] = (*owner.tag.get("notes", ()), *notes)
        return tuple(new), needs, own


def _attributes(node: onnx.NodeProto) -> bytes:
    return b"".join(a.SerializeToString(deterministic=True) for a in node.attribute)


def _names(c: Clause) -> set:
    return {s for s in c.symbols() if isinstance(s, str)}


def _every_type(scope: Any) -> list:
    out = []
    while scope is not None:
        out.extend(scope.types.values())
        scope = scope.parent
    return out
