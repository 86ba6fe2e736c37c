"""The scopes of an ONNX model: a subgraph (an If's branch, a Loop's body) is read in the
scope of its node's graph, whose values it *captures* (its stand-ins of them are inputs
of its function, and the outer Variables inputs of the node); and the nodes a
:class:`~.structured.Structured` handler types (sequences, optionals, control flow)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx

from ..graph.basic import Variable
from ..graph.type import Type
from ..types.type import TensorType
from .bounds import bounded
from .dtypes import UnsupportedType
from .loading import OnnxImportError, shown
from .onnxop import OnnxOp
from .protos import attribute_value, described, label, proto_type
from .registry import UnsupportedOp
from .shared import NotKnown
from .structured import Structured
from .unread import graph_unread

#: The deepest a subgraph may lie in subgraphs (an If in a Loop's body is at depth 2): a
#: Loop's body is read once or a few times (its symbolic typing, a fixpoint, the function
#: it runs as), so reading time grows with the nesting; a deeper node is left untyped.
MAX_DEPTH = 8

#: The node readings all of a model's subgraphs may take together, as a multiple of the
#: nodes the model holds in all its graphs (and at least MIN_READS): nested bodies are
#: read a few times each, so the readings of a body ``d`` deep grow like ``3**d``; past
#: the budget a node's subgraphs are not typed, and the work stays linear in the model.
READS_PER_NODE = 8
MIN_READS = 1 << 14


def nodes_in(graph: onnx.GraphProto) -> int:
    """The nodes of ``graph`` and of every subgraph of its nodes, at any depth."""
    count, stack = 0, [graph]
    while stack:
        g = stack.pop()
        count += len(g.node)
        for node in g.node:
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    stack.append(attr.g)
                elif attr.type == onnx.AttributeProto.GRAPHS:
                    stack.extend(attr.graphs)
    return count


class Budget:
    """The node readings a model's subgraphs may still take (set from the model's size
    when its first subgraph is read; one for the model, shared by its readers)."""

    def __init__(self) -> None:
        self.limit: int | None = None
        self.left = 0

    def spend(self, model: onnx.ModelProto, graph: onnx.GraphProto) -> None:
        """Count reading ``graph``'s nodes once; UnsupportedOp past the budget."""
        if self.limit is None:
            self.limit = self.left = max(MIN_READS, READS_PER_NODE * nodes_in(model.graph))
        self.left -= len(graph.node)
        if self.left < 0:
            raise UnsupportedOp(f"the model's subgraphs would be read past {self.limit} "
                                f"node readings in all ({READS_PER_NODE} per node of the "
                                "model, the limit kantensor.onnx.scope.READS_PER_NODE); "
                                "the rest are not typed")


class Scope:
    """What the importer's reader does with scopes and structured nodes (a mixin of
    :class:`kantensor.onnx.importer._Reader`: ``parent`` is the reader of the graph
    around, ``depth`` how many subgraphs deep it is, ``budget`` the model's
    :class:`Budget`; ``types``, ``values``, ``untyped``, ``outer`` and ``captured`` its
    own)."""

    #: whether the graph runs at most once per run of the model (the main graph, its
    #: If's branches; not a loop's body): where sizes the data decides are named
    once = True

    def output(self, name: str) -> Variable:
        """The Variable of an output of the graph; the error of the unsupported node it
        depends on if it has none."""
        why = self.untyped.get(name)
        if why is not None:
            raise type(why)(f"output {name!r} is not typed: {why}") from why
        return self.var(name, None)

    def find(self, name: str) -> Type | None:
        """The type of ``name`` here or in an outer scope (None if untyped or unknown)."""
        reader: Scope | None = self
        while reader is not None:
            t = reader.types.get(name)
            if t is not None or name in reader.untyped:
                return t
            reader = reader.parent
        return None

    def assigned(self, node: onnx.NodeProto, names: list[str]) -> None:
        """OnnxImportError if a name the node assigns is assigned already (by an
        initializer, a graph input, an earlier node or the node itself, or in a graph
        around a subgraph: ONNX's names are unique across a model's graphs)."""
        types, outer = self.types, self.parent
        for k, name in enumerate(names):
            if name and (name in types or name in self.untyped or name in names[:k] or
                         outer is not None and outer.defines(name)):
                first = "itself" if name in names[:k] else self.origin(name)
                raise OnnxImportError(f"{described(node)}: its output {shown(name)} is "
                                      f"assigned already, by {first}: a name is assigned "
                                      "once")

    def origin(self, name: str) -> str:
        """What assigned ``name`` first, in words (for the message of a second one)."""
        graph = self.proto
        if name in self.outer or name not in self.types and name not in self.untyped:
            return "the graph around this subgraph"
        if any(t.name == name for t in graph.initializer):
            return "an initializer"
        if any(i.name == name for i in graph.input):
            return "a graph input"
        for node in graph.node:
            if name in node.output:
                return described(node)
        return "an earlier node"  # pragma: no cover - every name has an origin

    def defines(self, name: str) -> bool:
        """Whether this graph or one around it assigns ``name`` (typed or not) so far."""
        reader: Scope | None = self
        while reader is not None:
            if name in reader.types or name in reader.untyped:
                return True
            reader = reader.parent
        return False

    def _capture(self, name: str) -> Type | None:
        """Bring an outer scope's ``name`` into this one (its type and known value; the
        scope around captures it first when it is its own outer scope's); its error if
        it is untyped there; None if no scope defines it."""
        outer = self.parent
        if outer is None:
            return None
        t = outer.types.get(name)
        if t is None:
            if name in outer.untyped:
                raise outer.untyped[name]
            t = outer._capture(name)
            if t is None:
                return None
        self.types[name] = t
        self.outer.add(name)
        value = outer.value(name) if isinstance(t, TensorType) else None
        if value is not None:
            self.values[name] = value
            if name in outer.value_keys:
                self.value_keys[name] = outer.value_keys[name]
        if name in outer.notes:
            self.notes[name] = outer.notes[name]
        return t

    def child(self, proto: onnx.GraphProto, formal: list[Type],
              values: Sequence[np.ndarray | None] = (), graph: bool | None = None,
              once: bool = False) -> Any:
        """A subgraph of a node of this graph (a reader of the same class), read with its
        inputs of the types ``formal`` (and the known ``values``), its outer scope this
        graph; ``graph`` (default: as this reader) builds its Variables to be run;
        ``once``: it runs at most once per run of this graph (an If's branch, not a
        loop's body). It is read under this graph's facts as they stand at the node
        (what the nodes before it need, and guarantee of the sizes the data decide, holds
        wherever it runs: a branch's Gather of ``NonZero`` indices into ``N`` rows knows
        ``NonZero <= N``); what its own nodes state stays its own (the facts are a value:
        this graph's, an If's other branch's, are not changed by it)."""
        if self.depth >= MAX_DEPTH:
            raise UnsupportedOp(f"subgraphs nested more than {MAX_DEPTH} deep (the limit "
                                "kantensor.onnx.scope.MAX_DEPTH) are not typed")
        self.budget.spend(self.model, proto)
        sub = type(self)(self.model, self.tensors, self.graph if graph is None else graph,
                         proto, self)
        sub.once = once and self.once
        sub.facts = self.facts
        sub.read_sources(formal, values)
        sub.read_nodes()
        sub.unread_notes.extend(graph_unread(proto, sub))  # (its values computed from
        # sizes but not known: the contract notes them, as the main graph's)
        return sub

    def handler(self, entry: OnnxOp, node: onnx.NodeProto) -> Structured | None:
        """The handler typing ``node``: its entry's when the entry is structured, the
        entry's ``containers`` handler when an input is a sequence or an optional."""
        if entry.structured:
            return entry.op
        if entry.containers is not None and any(
                n and not isinstance(self.find(n), TensorType | None) for n in node.input):
            return entry.containers
        return None

    def structured(self, handler: Structured, node: onnx.NodeProto) -> None:
        """Type and build ``node`` by its handler (see :mod:`.structured`)."""
        named = label(node)
        try:
            typed = handler.read(self, node, named)
        except (UnsupportedOp, UnsupportedType, NotKnown, OnnxImportError):
            raise
        except (TypeError, ValueError, IndexError) as exc:
            message = f"node {named!r} ({node.op_type}): {exc}"
            try:
                error = type(exc)(message)
            except TypeError:
                error = OnnxImportError(message)
            raise error from exc
        apply = None
        for k, (name, (var, value)) in enumerate(zip(node.output, typed, strict=False)):
            if not name or var is None:
                continue
            bounded(var.type, f"node {named!r} ({node.op_type}): output {k}")
            var.name = name
            self.vars[name] = var
            self.types[name] = var.type
            apply = apply or var.owner
            if value is not None:
                self.values[name] = value
        if apply is not None and node.name:
            apply.tag["name"] = node.name

    def attributes(self, node: onnx.NodeProto, handler: Structured, named: str
                   ) -> dict[str, Any]:
        """The node's attributes as a structured handler takes them: GRAPH attributes as
        GraphProtos, TYPE_PROTO ones as kantensor types; UnsupportedOp for one the
        handler does not take."""
        out: dict[str, Any] = {}
        for attr in node.attribute:
            kind = handler.attributes.get(attr.name)
            if kind is None:
                raise UnsupportedOp(f"node {named!r} ({node.op_type}): attribute "
                                    f"{attr.name!r} is not supported; supported: "
                                    f"{', '.join(sorted(handler.attributes)) or 'none'}")
            if kind == "graph":
                out[attr.name] = attr.g
            elif kind == "type":
                out[attr.name] = proto_type(attr.tp, f"node {named!r}: attribute "
                                            f"{attr.name!r}")
            else:
                out[attr.name] = attribute_value(attr, self.tensors)
        return out
