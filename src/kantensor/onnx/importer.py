"""``from_onnx``: an ONNX model as a typed kantensor graph.

Each node becomes the Op of its entry in ``signatures/onnx`` (see :mod:`.registry`),
applied to the variables of its inputs with its attributes as parameters; the relation
types its outputs. Inputs whose *values* decide the types (Reshape's shape, Slice's
starts) are still tensor inputs of the Op, which computes with them when the graph runs;
their values, where known when the model is read, are parameters too (``shape_value``),
from which the entry's builder renders the signature. Values are known for initializers,
Constant nodes, and nodes whose inputs are all known, computed by the node's own
implementation; ``Shape`` gives the sizes of its input's type, so Shape -> Gather -> Concat
chains fold into sizes such as ``(batch, seq, 768)``: ints, Dims and None (unknown).

Ops whose values are sequences or optionals, or that hold subgraphs, are typed by their
handlers (:mod:`.structured`); a subgraph is read in the scope of its node's graph
(:mod:`.scope`). A node kantensor does not type leaves untyped only what it reaches (the
reader's ``untyped``): the rest of the model is typed, and ``from_onnx`` refuses only an
output asked for that such a node reaches.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx

from ..graph.basic import Variable
from ..graph.heap import collector_paused
from ..graph.type import Type
from ..ops.located import relocated
from ..types.conditions import Clause
from ..types.facts import EMPTY, Facts
from ..types.numpyrules import rules_key
from . import values as folding
from .bounds import arity
from .building import Building
from .constantnodes import ConstantNodes
from .contradiction import consistent, lasting
from .datasizes import DataSizes
from .dtypes import UnsupportedType
from .entrykeys import check_outputs, fits
from .generic import keep_template, remembered
from .intervals import interval_output, record_interval
from .loading import MAX_NAME, OnnxImportError, Tensors, clipped, opsets_of, shown
from .modelfile import open_model
from .nodecache import ONCE, NodeRecord, record
from .nodememo import MEMO, input_facts, node_key, outputs_asked, remember
from .nodeslot import UNHELD, keep, replay, slotted
from .onnxop import OnnxOp
from .protos import described
from .protos import label as node_label
from .registry import UnsupportedOp, lookup
from .repeats import repeated
from .rereading import read_refuting
from .scope import Budget, Scope
from .shared import NotKnown
from .sources import Sources

__all__ = ["OnnxImportError", "from_onnx", "read_types"]


_UNTRIED = object()  # a node's memo key not made yet

#: (op type, domain, opset) -> its entry, as :func:`.registry.lookup` found it (the
#: catalogue is fixed for the process): a model's first node of an op type finds it here
_ENTRIES: dict[tuple[str, str, int | None], OnnxOp] = {}
_ENTRIES_SIZE = 1 << 12


class _Reader(Scope, Sources, Building, ConstantNodes):
    """One pass over a graph: the type, the variable and the known value of every name.

    With ``graph=False`` (``infer_shapes``) only the types are wanted: initializers are
    read as types (their values only when a node asks), and a node whose entry,
    attributes, input types and known input values were seen before takes its output
    types and values from :mod:`.nodememo` without being built.

    A subgraph (an If's branch, a Loop's body) is read by a reader of its own whose
    ``parent`` is the reader of the graph around it: a name the subgraph uses without
    defining it is the outer scope's, *captured* (``captured``: its stand-in Variable
    in the subgraph, an input of the subgraph's function).

    A node that kantensor does not support (its op type, domain, opset, an attribute or
    an element type) leaves its outputs untyped, and so every value it reaches
    (``untyped``: the name -> the error saying why); everything else is typed."""

    def __init__(self, model: onnx.ModelProto, tensors: Tensors, graph: bool = True,
                 proto: onnx.GraphProto | None = None, parent: _Reader | None = None,
                 given: tuple[Clause, ...] = ()):  # (given: see .rereading)
        self.model = model
        self.tensors = tensors  # checks and reads tensors' data (a subgraph's too)
        self.opsets = parent.opsets if parent is not None else opsets_of(model)
        self.opset = self.opsets.get("")
        self.graph = graph
        self.proto = model.graph if proto is None else proto
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.budget = Budget() if parent is None else parent.budget
        self.vars: dict[str, Variable] = {}
        self.types: dict[str, Type] = {}
        self.values: dict[str, np.ndarray] = {}
        self.unread: dict[str, onnx.TensorProto] = {}  # initializers whose values wait
        self.value_keys: dict[str, tuple | bool] = {}  # as the node memo keys a known value
        self.large_keys: dict[str, tuple | None] = {}  # of the larger ones (.nodememo)
        self.tokens: dict[str, Any] = {}  # what a node's memo key reads of a name (.nodeslot)
        self.entries: dict[tuple[str, str], OnnxOp] = {} if parent is None else \
            parent.entries
        #: the dtype rules, read once for the model (the memos' key): the default dtype,
        #: or "numpy" inside numpy_rules() (whose default is float64 too)
        self.rules = rules_key()
        self.setting = self.rules, folding.MAX_FOLD  # (the node memo's key)
        #: what the nodes read so far need of the sizes: facts for every later node (the
        #: model's types hold where all its nodes' conditions do), and those conditions,
        #: each naming its node, in the order of the nodes
        self.facts: Facts = EMPTY.with_(*given) if given else EMPTY
        self.conditions: list[Clause] = list(given)
        #: the facts about the sizes of a node's input types (facts_about), for ``facts``
        self.about: tuple[Facts, dict[tuple, Facts]] = (EMPTY, {})
        self.sources = 0  # how many names of types are initializers and graph inputs
        self.fresh = 0  # how many nodes were typed at first sight (.nodeslot.replay)
        self.untyped: dict[str, Exception] = {}
        self.captured: dict[str, Variable] = {}
        self.outer: set[str] = set()  # the names brought in from an outer scope
        self.notes: dict[str, Any] = {}  # name -> why a size of its type is unknown
        self.constants: set[str] = set()  # Constants' outputs whose Variables wait
        self.counts = DataSizes() if parent is None else parent.counts  # (.datasizes)
        self.unread_notes: list[str] = [] if parent is None else \
            parent.unread_notes  # (a subgraph's, .unread.graph_unread)
        self.unread_plans: dict[int, Any] = {} if parent is None else \
            parent.unread_plans  # (each graph's, made once: .unread.graph_unread)
        self.repeats: dict[str, Any] = {}  # op type -> its last template (.repeats)

    def read(self) -> tuple[list[Variable], list[Variable]]:
        """Read the graph: its inputs and its outputs (raising for an output that an
        unsupported node reaches)."""
        inputs, _ = self.read_graph()
        return inputs, [self.output(i.name) for i in self.proto.output] if self.graph else []

    def read_graph(self, formal: list[Type] | None = None
                   ) -> tuple[list[Variable], list[str]]:
        """Read the sources and the nodes: the graph's input Variables and its output
        names."""
        inputs = self.read_sources(formal)
        self.read_nodes()
        return inputs, [info.name for info in self.proto.output]

    def read_nodes(self, serialized: Sequence[bytes] | None = None,
                   protos: Sequence[onnx.NodeProto] | None = None) -> None:
        """Read the nodes (``serialized``: each serialized, when made already; ``protos``:
        the graph's nodes in a list, when made already)."""
        shared = not self.graph and self.parent is None  # records kept across models
        if shared and serialized is not None:  # (most often kept already, with a slot)
            replay(self, serialized, protos)
        else:
            for node in self.proto.node:
                self.node(node, record(node) if shared else NodeRecord(node, False))
        for info in self.proto.output:
            if info.name not in self.types and info.name not in self.untyped and \
                    self.find(info.name) is None:
                raise OnnxImportError(f"graph output {shown(info.name)} is computed by no "
                                      "node")

    def var(self, name: str, node: onnx.NodeProto | None) -> Variable:
        var = self.vars.get(name)
        if var is None:  # types only: an initializer, or the output of a memo hit
            why = self.untyped.get(name)
            if why is not None:
                raise why
            t = self.types.get(name)
            if t is None and self.parent is not None:
                t = self._capture(name)
            if t is None:
                where = described(node) if node is not None else "the graph"
                raise OnnxImportError(f"{where}: input {shown(name)} is defined by no graph "
                                      "input, initializer or earlier node") from None
            var = self.vars[name] = t.make_constant(self.values[name], name=name) \
                if name in self.constants else t(name)  # (a Constant's, made when asked:
            # its type is its value's, read with it)
            if name in self.outer:
                self.captured[name] = var
        return var

    def type_of(self, name: str, node: onnx.NodeProto | None) -> Type:
        """The type of ``name`` (captured from an outer scope if need be)."""
        return self.var(name, node).type

    def value(self, name: str) -> np.ndarray | None:
        """The known value of ``name`` (an initializer's read now), or None."""
        proto = self.unread.pop(name, None)
        if proto is not None:
            self.values[name] = self.tensors.array(proto, f"initializer {shown(name)}")
        return self.values.get(name)

    def known(self, name: str) -> bool:
        return name in self.values or name in self.unread

    def node(self, node: onnx.NodeProto, rec: NodeRecord, tried: bool = False) -> None:
        """Type ``node`` (read as ``rec``; ``tried``: its op type's last template tried
        already, by :func:`.nodeslot.replay`)."""
        if rec.literal:  # (a Constant: the format's literal, see NodeRecord)
            wanted = rec.wanted
            if len(wanted) != 1 or wanted[0] in self.types or wanted[0] in self.untyped or \
                    self.parent is not None:  # (as typed_node)
                self.assigned(node, wanted)
            return self.constant(node, rec)
        if rec.slot is None and self.repeats and not tried and repeated(self, rec, node):
            return None  # (typed by the template of its op type's last node: .repeats)
        try:
            return self.typed_node(node, rec)
        except (UnsupportedOp, UnsupportedType, NotKnown) as exc:  # what it reaches
            # stays untyped
            for name in rec.wanted:
                if name:
                    self.untyped[name] = exc
            return None

    def typed_node(self, node: onnx.NodeProto, rec: NodeRecord) -> None:
        """Type ``node`` (its proto's fields read from ``rec``: this runs once per node of
        every model read)."""
        op_type, domain, wanted = rec.op_type, rec.domain, rec.wanted
        types = self.types
        if len(wanted) != 1 or wanted[0] in types or wanted[0] in self.untyped or \
                self.parent is not None:  # (one new output of the main graph: nothing to say)
            self.assigned(node, wanted)
        entry = self.entries.get((op_type, domain)) or self.found_entry(op_type, domain)
        if entry is not None and not fits(entry.gives, wanted):  # (else: by _typed)
            check_outputs(entry.entry, wanted, described(node))
        key, typed, generic = _UNTRIED, None, None
        if entry is not None and not self.graph and self.parent is None:
            # a node seen before: its key holds its entry, which inputs it gives (so they
            # fit the entry) and their types (so none is untyped, no handler types it);
            # nothing else to check. First its slot: its inputs as when last typed
            typed = None if rec.slot is None or entry.structured else \
                slotted(self, entry, rec)  # (no slot: a record's first typing, inline)
            if typed is None and entry.plain:
                key, typed, generic = remembered(self, entry, rec, node)  # (see .generic)
                if typed is not None and key is not None:
                    if rec.slot is None:  # (keep's first typing, inline)
                        rec.slot = ONCE
                    else:
                        keep(self, entry, rec, typed, node)
        if typed is None:
            typed = self._typed(node, rec, entry, key)
            if typed is None:  # typed by its handler
                return None
            keep_template(self, entry, node, generic, typed)  # the first of its template
        outs, folded, keys, conditions = typed
        entry = entry or self.entries[op_type, domain]  # (None: found by _typed)
        if entry.declared.counts is not None and self.once:
            outs, conditions = self.counts.named(self, node, outs, conditions,
                                                 entry.declared.counts)
        if conditions:
            self.note(node, conditions)
        ranged = interval_output(entry, wanted, outs, folded)  # (outs: TensorTypes)
        if ranged is not None:
            record_interval(self, entry, node, ranged)
        if len(wanted) == 1:  # most nodes: no zip
            name = wanted[0]
            if name:
                types[name] = outs[0]
                if folded[0] is None:
                    self.tokens[name] = outs[0]
                else:
                    self.values[name] = folded[0]
                    if keys[0] is not None:
                        self.value_keys[name] = keys[0]
                        self.tokens[name] = outs[0], keys[0]
                    else:  # (a large value: .nodeslot)
                        self.tokens[name] = UNHELD, outs[0]
            return None
        if len(outs) < len(wanted) and any(wanted[len(outs):]):  # (a memo hit too)
            raise OnnxImportError(f"{described(node)}: {len(wanted)} outputs asked, its Op "
                                  f"has {len(outs)}")
        values, value_keys, tokens = self.values, self.value_keys, self.tokens
        for name, t, value, vkey in zip(wanted, outs, folded, keys, strict=False):
            if name:
                types[name] = t
                if value is None:
                    tokens[name] = t
                else:
                    values[name] = value
                    if vkey is not None:
                        value_keys[name] = vkey
                        tokens[name] = t, vkey
                    else:
                        tokens[name] = UNHELD, t
        return None

    def found_entry(self, op_type: str, domain: str) -> OnnxOp | None:
        """The entry of ``op_type`` of ``domain`` at the model's opset, when a node read
        in this process found it (:data:`_ENTRIES`); else None."""
        entry = _ENTRIES.get((op_type, domain, self.opsets.get(
            "" if domain == "ai.onnx" else domain)))
        if entry is not None:
            self.entries[op_type, domain] = entry
        return entry

    def _typed(self, node: onnx.NodeProto, rec: NodeRecord, entry: OnnxOp | None, key: Any
               ) -> tuple | None:
        """The typing of a node the memo does not hold (its entry when found, its key when
        made already, else ``_UNTRIED``): its checks, then its memo entry or its build,
        remembered; None when its handler typed it."""
        names, wanted = rec.names, rec.wanted
        types = self.types
        for name in names:  # an input an unsupported node computes: untyped too
            if name and name not in types:
                why = self.untyped.get(name)
                if why is not None:
                    raise why
                if self.parent is not None:
                    self._capture(name)  # raises the outer scope's error if untyped
        if entry is None:
            entry = self._entry(node, rec.op_type, rec.domain)
            if not fits(entry.gives, wanted):
                check_outputs(entry.entry, wanted, described(node))
        if not entry.fits(names):
            arity(entry.inputs, node, described(node))  # says which does not
        if not entry.plain:
            handler = self.handler(entry, node)
            if handler is not None:
                self.structured(handler, node)
                return None
        typed = None
        if key is _UNTRIED:
            key = None if self.graph else node_key(self, entry, names, rec.attribute_key(node),
                                                   outputs_asked(wanted))
            typed = MEMO.get(key) if key is not None else None
        typed = typed or remember(key, *self.build(entry, node, wanted, rec))
        if key is not None and not self.graph and self.parent is None:
            if rec.slot is None:  # (keep's first typing, inline)
                rec.slot = ONCE
            else:
                keep(self, entry, rec, typed, node)  # (its slot: see .nodeslot)
        return typed

    def _entry(self, node: onnx.NodeProto, op_type: str, domain: str) -> OnnxOp:
        """The entry typing ``node`` (found once per op type and domain of a model)."""
        if len(op_type) > MAX_NAME or len(domain) > MAX_NAME:  # no entry has one
            raise UnsupportedOp(f"{described(node)}: op type {shown(op_type)} of domain "
                                f"{shown(domain)} is not supported")
        opset = self.opsets.get("" if domain == "ai.onnx" else domain)
        try:
            found = lookup(op_type, domain, opset, node_label(node))
        except UnsupportedOp as exc:  # (a message listing the supported op types)
            raise UnsupportedOp(clipped(str(exc))) from None
        if len(_ENTRIES) >= _ENTRIES_SIZE:
            _ENTRIES.clear()
        self.entries[op_type, domain] = _ENTRIES[op_type, domain, opset] = found
        return found

    def facts_about(self, names: Sequence[str]) -> Facts:
        """The facts about the sizes of the inputs ``names`` of a node (part of its memo
        key; found again for the same input types while the facts stay the same)."""
        types = self.types
        return input_facts(self, tuple([types.get(name) if name else None for name in names]))

    def note(self, node: onnx.NodeProto, conditions: tuple) -> None:
        """Record ``node``'s conditions (portable: over its inputs by position) as the
        model's, and as facts for the nodes after it (but a choice's: where it fails the
        model may run, with other types after it, and no later node is refused by it)."""
        inputs = [self.var(n, node) if n else None for n in node.input]
        own = consistent(relocated(conditions, inputs, node_label(node)), node, self.parent)
        self.conditions.extend(own)
        self.facts = self.facts.with_(*lasting(own))

def from_onnx(model: onnx.ModelProto | str | os.PathLike | bytes,
              outputs: Sequence[str] | None = None,
              base_dir: str | os.PathLike | None = None
              ) -> tuple[list[Variable], list[Variable]]:
    """The graph inputs (named as in the model; ``dim_param`` sizes are Dims of that
    name) and outputs of an ONNX model, typed by the relation. ``kt.function(inputs,
    outputs)`` runs it.

    ``outputs`` names the outputs wanted (all of the graph's by default). A node that
    kantensor does not support leaves untyped only what it reaches: an output it reaches
    is refused (UnsupportedOp or UnsupportedType naming the node, its op type, domain
    and opset) only when it is asked for. External data is read from ``base_dir``, else
    from the folder of the model's path (see :mod:`.loading`)."""
    opened = open_model(model, base_dir)
    with collector_paused():  # (see read_types)
        reader, inputs = read_refuting(lambda given: _Reader(*opened, given=given),
                                       lambda r: (r, r.read_graph()[0]))
    names = [info.name for info in reader.proto.output] if outputs is None else \
        list(outputs)
    known = {info.name for info in reader.proto.output}
    for name in names:
        if name not in known:
            raise ValueError(f"from_onnx: {name!r} is not an output of the model "
                             f"(its outputs: {', '.join(sorted(known))})")
    return inputs, [reader.output(name) for name in names]


def read_types(model: onnx.ModelProto, tensors: Tensors | None = None) -> _Reader:
    """The reader after a pass over ``model`` for its types only (``reader.types``: the
    type of every name, for infer_shapes: first the initializers and graph inputs, as
    many as ``reader.sources``, then the nodes' outputs in the order of the nodes;
    ``reader.untyped``: the names an unsupported node reaches, left untyped); external
    data read by ``tensors`` (by default none can be)."""
    tensors = tensors or Tensors(None, "a ModelProto")
    with collector_paused():  # the objects made per node live until the pass ends: the
        # cycle collector's sweeps of them meanwhile find nothing to free
        return read_refuting(lambda given: _Reader(model, tensors, graph=False, given=given),
                             lambda r: (r.read(), r)[1])
