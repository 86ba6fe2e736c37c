"""``from_onnx``: an ONNX model as a typed kantensor graph.

Each node becomes the Op of its entry in ``signatures/onnx`` (see :mod:`.registry`),
applied to the variables of its inputs with its attributes as parameters; the relation
types its outputs. Inputs whose *values* decide the types (Reshape's shape, Slice's
starts) are still tensor inputs of the Op, which computes with them when the graph runs;
their values, where known when the model is read, are parameters too (``shape_value``),
from which the entry's builder renders the signature. Values are known for initializers,
Constant nodes, and nodes whose inputs are all known, computed by the node's own
implementation; ``Shape`` gives the sizes of its input's type, so Shape -> Gather ->
Concat chains fold into sizes such as ``(batch, seq, 768)``. A value holds ints, Dims and
None (unknown).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from ..graph.basic import Variable
from ..graph.type import Type
from ..types.containers import OptionalType, SequenceType
from ..types.dim import Dim
from ..types.dtypes import STRING, category, get_default_dtype
from ..types.numpy_dtypes import numpy_dtype
from ..types.type import TensorType
from ..types.variable import constant
from .dtypes import UnsupportedType, dtype_of, type_name
from .nodememo import MEMO, node_key, remember
from .registry import OnnxOp, UnsupportedOp, lookup
from .structured import Structured

#: The most elements a value computed while reading the model may have (larger ones are
#: left to the graph: they are data, not sizes).
MAX_FOLD = 1 << 16

#: The largest model file ``from_onnx`` reads (protobuf's own limit is 2 GiB).
MAX_BYTES = 2 << 30


class OnnxImportError(ValueError):
    """A model kantensor cannot read: a malformed graph, an input without a rank."""


def load_model(model: onnx.ModelProto | str | os.PathLike | bytes) -> onnx.ModelProto:
    """``model`` as a ModelProto (a path or serialized bytes are read)."""
    if isinstance(model, onnx.ModelProto):
        return model
    try:
        if isinstance(model, bytes):
            return onnx.load_from_string(model)
        path = Path(model)
        if path.stat().st_size > MAX_BYTES:
            raise OnnxImportError(f"{path}: larger than {MAX_BYTES} bytes")
        return onnx.load(str(path), load_external_data=False)
    except (OSError, OnnxImportError):
        raise
    except Exception as exc:  # protobuf's DecodeError and the like: not a model
        raise OnnxImportError(f"not an ONNX model: {exc}") from None


def opsets_of(model: onnx.ModelProto) -> dict[str, int]:
    """The version of each operator set domain the model imports (the default domain
    as ``""``)."""
    return {"" if e.domain == "ai.onnx" else e.domain: int(e.version)
            for e in model.opset_import}


def _dim(proto: Any) -> int | Dim | None:
    if proto.HasField("dim_value"):
        return int(proto.dim_value)
    if proto.HasField("dim_param"):
        text = proto.dim_param
        if text.isidentifier():
            return Dim(text)
        try:  # an expression such as 2*seq, as infer_shapes writes them
            return TensorType.parse(f"float32[{text}]").shape[0]
        except (TypeError, ValueError):
            return None
    return None


def value_type(info: onnx.ValueInfoProto) -> Type:
    """The type of a graph input or output: a TensorType, a SequenceType or an
    OptionalType (see :mod:`kantensor.types.containers`)."""
    return proto_type(info.type, f"value {info.name!r}")


def proto_type(proto: onnx.TypeProto, where: str) -> Type:
    """The kantensor type of an ONNX TypeProto: a tensor (whose rank must be given), a
    sequence of tensors (whose elements may be of any rank), an optional tensor or
    sequence."""
    kind = proto.WhichOneof("value")
    if kind == "tensor_type":
        t = proto.tensor_type
        dtype = dtype_of(t.elem_type, where, text=True)
        if not t.HasField("shape"):
            raise OnnxImportError(f"{where}: its rank is not given")
        return TensorType(dtype, tuple(_dim(d) for d in t.shape.dim))
    if kind == "sequence_type":
        elem = proto.sequence_type.elem_type
        if elem.WhichOneof("value") != "tensor_type":
            raise UnsupportedType(f"{where}: a sequence of {elem.WhichOneof('value') or 'no type'}"
                                  " is not supported (only sequences of tensors)")
        t = elem.tensor_type
        dtype = dtype_of(t.elem_type, where, text=True)
        shape = tuple(_dim(d) for d in t.shape.dim) if t.HasField("shape") else None
        return SequenceType(dtype, shape)
    if kind == "optional_type":
        return OptionalType(proto_type(proto.optional_type.elem_type, where))
    raise UnsupportedType(f"{where}: values of type {kind or 'none'} are not supported "
                          "(tensors, sequences of tensors and optionals are)")


def attribute_value(attr: onnx.AttributeProto) -> Any:
    """An attribute as a Python value: int, float, str, tuples of them, an array."""
    kind = attr.type
    A = onnx.AttributeProto
    if kind == A.INT:
        return int(attr.i)
    if kind == A.FLOAT:
        return float(attr.f)
    if kind == A.STRING:
        return attr.s.decode("utf-8", "replace")
    if kind == A.INTS:
        return tuple(int(v) for v in attr.ints)
    if kind == A.FLOATS:
        return tuple(float(v) for v in attr.floats)
    if kind == A.STRINGS:
        return tuple(s.decode("utf-8", "replace") for s in attr.strings)
    if kind == A.TENSOR:
        return _array(attr.t, attr.name)
    raise OnnxImportError(f"attribute {attr.name!r}: {A.AttributeType.Name(kind)} "
                          "attributes are not supported")


def _label(node: onnx.NodeProto) -> str:
    """The node as messages name it."""
    return node.name or f"{node.op_type} -> {', '.join(node.output)}"


def _initializer_type(proto: onnx.TensorProto) -> TensorType:
    """An initializer's type, read from its header (its data is not read)."""
    where = f"initializer {proto.name!r}"
    dtype = dtype_of(proto.data_type, where, text=True)
    try:
        return TensorType(dtype, tuple(proto.dims))
    except (TypeError, ValueError) as exc:
        raise OnnxImportError(f"{where}: {exc}") from None


def _array(proto: onnx.TensorProto, where: str) -> np.ndarray:
    dtype = dtype_of(proto.data_type, where, text=True)
    return np.asarray(numpy_helper.to_array(proto)).astype(numpy_dtype(dtype), copy=False)


class _Reader:
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

    def __init__(self, model: onnx.ModelProto, graph: bool = True,
                 proto: onnx.GraphProto | None = None, parent: _Reader | None = None):
        self.model = model
        self.opsets = parent.opsets if parent is not None else opsets_of(model)
        self.opset = self.opsets.get("")
        self.graph = graph
        self.proto = model.graph if proto is None else proto
        self.parent = parent
        self.vars: dict[str, Variable] = {}
        self.types: dict[str, Type] = {}
        self.values: dict[str, np.ndarray] = {}
        self.unread: dict[str, onnx.TensorProto] = {}  # initializers whose values wait
        self.value_keys: dict[str, tuple | bool] = {}  # as the node memo keys a known value
        self.entries: dict[tuple[str, str], OnnxOp] = {} if parent is None else \
            parent.entries
        self.default_dtype = get_default_dtype()  # one for the model (the memo's key)
        self.sources = 0  # how many names of types are initializers and graph inputs
        self.untyped: dict[str, Exception] = {}
        self.captured: dict[str, Variable] = {}
        self.outer: set[str] = set()  # the names brought in from an outer scope
        self.notes: dict[str, Any] = {}  # name -> why a size of its type is unknown

    def read(self) -> tuple[list[Variable], list[Variable]]:
        """Read the graph: its inputs and its outputs (raising for an output that an
        unsupported node reaches)."""
        inputs, _ = self.read_graph()
        if not self.graph:
            return inputs, []
        return inputs, [self.output(info.name) for info in self.proto.output]

    def read_graph(self, formal: list[Type] | None = None
                   ) -> tuple[list[Variable], list[str]]:
        """Read the sources and the nodes: the graph's input Variables and its output
        names."""
        inputs = self.read_sources(formal)
        self.read_nodes()
        return inputs, [info.name for info in self.proto.output]

    def read_sources(self, formal: list[Type] | None = None,
                     values: Sequence[np.ndarray | None] = ()) -> list[Variable]:
        """The initializers and the graph inputs (of the types ``formal`` and with the
        known ``values`` when given: a subgraph's inputs as its node passes them)."""
        graph = self.proto
        types = self.types
        seen: dict[tuple, TensorType] = {}  # (elem type, dims) -> type
        for t in graph.initializer:
            name = t.name
            if self.graph:
                data = _array(t, f"initializer {name!r}")
                var = self.vars[name] = constant(data, name=name)
                types[name] = var.type
                self.values[name] = data
                continue
            header = (t.data_type, tuple(t.dims[:]))  # a slice reads faster
            found = seen.get(header)
            if found is None:
                found = seen[header] = _initializer_type(t)
            types[name] = found
            self.unread[name] = t
        inputs = []
        given = [info for info in graph.input if info.name not in types]  # else initializers
        if formal is not None and len(formal) != len(given):
            raise OnnxImportError(f"a subgraph with {len(given)} inputs is given "
                                  f"{len(formal)}")
        for k, info in enumerate(given):
            if k < len(values) and values[k] is not None:
                self.values[info.name] = values[k]
            try:
                t = formal[k] if formal is not None else value_type(info)
            except UnsupportedType as exc:
                self.untyped[info.name] = exc
                continue
            var = self.vars[info.name] = t(info.name)
            types[info.name] = var.type
            inputs.append(var)
        self.sources = len(types)  # the first names of types: initializers and inputs
        return inputs

    def read_nodes(self) -> None:
        for node in self.proto.node:
            self.node(node)
        for info in self.proto.output:
            if info.name not in self.types and info.name not in self.untyped and \
                    self.find(info.name) is None:
                raise OnnxImportError(f"graph output {info.name!r} is computed by no node")

    def output(self, name: str) -> Variable:
        """The Variable of an output of the graph; the error of the unsupported node it
        depends on if it has none."""
        why = self.untyped.get(name)
        if why is not None:
            raise type(why)(f"output {name!r} is not typed: {why}") from why
        return self.var(name, None)

    def find(self, name: str) -> Type | None:
        """The type of ``name`` here or in an outer scope (None if untyped or unknown)."""
        reader: _Reader | None = self
        while reader is not None:
            t = reader.types.get(name)
            if t is not None or name in reader.untyped:
                return t
            reader = reader.parent
        return None

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
              values: Sequence[np.ndarray | None] = (), graph: bool | None = None
              ) -> _Reader:
        """A subgraph of a node of this graph, read with its inputs of the types
        ``formal`` (and the known ``values``), its outer scope this graph; ``graph``
        (default: as this reader) builds its Variables to be run."""
        sub = _Reader(self.model, self.graph if graph is None else graph, proto, self)
        sub.read_sources(formal, values)
        sub.read_nodes()
        return sub

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
                where = f"node {_label(node)!r} ({node.op_type})" if node is not None else \
                    "the graph"
                raise OnnxImportError(f"{where}: input {name!r} is defined by no graph "
                                      "input, initializer or earlier node") from None
            var = self.vars[name] = t(name)
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
            self.values[name] = _array(proto, f"initializer {name!r}")
        return self.values.get(name)

    def known(self, name: str) -> bool:
        return name in self.values or name in self.unread

    def node(self, node: onnx.NodeProto) -> None:
        op_type, domain = node.op_type, node.domain
        if op_type == "Constant" and domain in ("", "ai.onnx"):
            return self.constant(node, _label(node))
        try:
            return self.typed_node(node)
        except (UnsupportedOp, UnsupportedType) as exc:  # what it reaches stays untyped
            for name in node.output:
                if name:
                    self.untyped[name] = exc
            return None

    def typed_node(self, node: onnx.NodeProto) -> None:
        op_type, domain = node.op_type, node.domain
        for name in node.input:  # an input an unsupported node computes: untyped too
            if name and name not in self.types:
                why = self.untyped.get(name)
                if why is not None:
                    raise why
                if self.parent is not None:
                    self._capture(name)  # raises the outer scope's error if untyped
        key = (op_type, domain)
        entry = self.entries.get(key)
        if entry is None:
            entry = self.entries[key] = lookup(op_type, domain, self.opsets.get(
                "" if domain == "ai.onnx" else domain), _label(node))
        handler = self.handler(entry, node)
        if handler is not None:
            return self.structured(handler, node)
        wanted = node.output[:]  # a list (a slice costs less than list())
        key = None if self.graph else node_key(self, entry, node, len(wanted))
        typed = MEMO.get(key) if key is not None else None
        if typed is None:
            typed = remember(key, *self.build(entry, node, wanted))
        types, values, value_keys = self.types, self.values, self.value_keys
        outs, folded, keys = typed
        if len(wanted) == 1:  # most nodes: no zip
            name = wanted[0]
            if name:
                types[name] = outs[0]
                if folded[0] is not None:
                    values[name] = folded[0]
                    if keys[0] is not None:
                        value_keys[name] = keys[0]
            return None
        for name, t, value, vkey in zip(wanted, outs, folded, keys, strict=False):
            if name:
                types[name] = t
                if value is not None:
                    values[name] = value
                    if vkey is not None:
                        value_keys[name] = vkey
        return None

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
        label = _label(node)
        try:
            typed = handler.read(self, node, label)
        except (UnsupportedOp, UnsupportedType, OnnxImportError):
            raise
        except (TypeError, ValueError, IndexError) as exc:
            message = f"node {label!r} ({node.op_type}): {exc}"
            try:
                error = type(exc)(message)
            except TypeError:
                error = OnnxImportError(message)
            raise error from exc
        apply = None
        for name, (var, value) in zip(node.output, typed, strict=False):
            if not name or var is None:
                continue
            var.name = name
            self.vars[name] = var
            self.types[name] = var.type
            apply = apply or var.owner
            if value is not None:
                self.values[name] = value
        if apply is not None and node.name:
            apply.tag["name"] = node.name

    def attributes(self, node: onnx.NodeProto, handler: Structured, label: str
                   ) -> dict[str, Any]:
        """The node's attributes as a structured handler takes them: GRAPH attributes as
        GraphProtos, TYPE_PROTO ones as kantensor types; UnsupportedOp for one the
        handler does not take."""
        out: dict[str, Any] = {}
        for attr in node.attribute:
            kind = handler.attributes.get(attr.name)
            if kind is None:
                raise UnsupportedOp(f"node {label!r} ({node.op_type}): attribute "
                                    f"{attr.name!r} is not supported; supported: "
                                    f"{', '.join(sorted(handler.attributes)) or 'none'}")
            if kind == "graph":
                out[attr.name] = attr.g
            elif kind == "type":
                out[attr.name] = proto_type(attr.tp, f"node {label!r}: attribute "
                                            f"{attr.name!r}")
            else:
                out[attr.name] = attribute_value(attr)
        return out

    def build(self, entry: OnnxOp, node: onnx.NodeProto, wanted: list[str]
              ) -> tuple[tuple, tuple]:
        """Apply the entry's Op to the node's inputs: the types of its outputs and their
        values when they can be known now (each output variable named as in the model)."""
        op_type, label = node.op_type, _label(node)
        tensors, params = self.arguments(entry, node, label)
        for t in tensors:
            if not isinstance(t.type, TensorType):
                raise UnsupportedOp(f"node {label!r} ({op_type}): input {t.name!r} is "
                                    f"{t.type}; {op_type} takes tensors only")
        try:
            if self.graph:  # repeated calls hit the Op's cached call
                result = entry.op(*tensors, **params)
                outs = result if isinstance(result, list) else [result]
            else:  # the node memo remembers calls: none is cached in code
                outs = entry.op.make_node(*tensors, **params).outputs
        except (TypeError, ValueError, IndexError) as exc:
            message = f"node {label!r} ({op_type}): {exc}"
            if not entry.takes_strings and any(_is_text(t) for t in tensors):
                raise UnsupportedType(f"node {label!r} ({op_type}): element type "
                                      f"{type_name(onnx.TensorProto.STRING)} is not "
                                      f"supported by {op_type}: {exc}") from exc
            try:
                error = type(exc)(message)
            except TypeError:  # an error class with more arguments
                error = OnnxImportError(message)
            raise error from exc
        if len(outs) < len([o for o in wanted if o]):
            raise OnnxImportError(f"node {label!r} ({op_type}): {len(wanted)} outputs "
                                  f"asked, its Op has {len(outs)}")
        apply = outs[0].owner
        if apply is not None and node.name:  # refine's messages name the node
            apply.tag["name"] = node.name
        folded = self.fold(entry, node, apply) if apply is not None else None
        for name, var in zip(wanted, outs, strict=False):
            if name:
                var.name = name
                self.vars[name] = var
        return tuple(o.type for o in outs), \
            tuple(folded) if folded is not None else (None,) * len(outs)

    def constant(self, node: onnx.NodeProto, label: str) -> None:
        (attr,) = node.attribute
        value = attribute_value(attr)
        if attr.name in ("value_float", "value_floats"):
            value = np.asarray(value, dtype="float32")
        elif attr.name in ("value_int", "value_ints"):
            value = np.asarray(value, dtype="int64")
        elif not isinstance(value, np.ndarray):
            raise OnnxImportError(f"node {label!r} (Constant): attribute {attr.name} is not "
                                  "supported")
        var = self.vars[node.output[0]] = constant(value, name=node.output[0])
        self.types[node.output[0]] = var.type
        self.values[node.output[0]] = value

    def arguments(self, entry: OnnxOp, node: onnx.NodeProto, label: str
                  ) -> tuple[list[Variable], dict[str, Any]]:
        """The tensors and parameters of the entry's call for ``node``."""
        params: dict[str, Any] = {}
        tensors: list[Variable] = []
        names = {p.name for p in entry.entry.spec.params}
        given = []
        for k, spec in enumerate(entry.inputs):
            name = spec.strip("*?")
            if spec.startswith("*"):
                rest = [n for n in node.input[k:] if n]
                tensors.extend(self.var(n, node) for n in rest)
                given.extend(range(k, k + len(rest)))
                break
            source = node.input[k] if k < len(node.input) else ""
            if not source:
                if not spec.endswith("?"):
                    raise OnnxImportError(f"node {label!r} ({node.op_type}): input {k} "
                                          f"({name}) is required")
                continue
            given.append(k)
            tensors.append(self.var(source, node))
            if f"{name}_value" in names:
                params[f"{name}_value"] = _as_param(self.value(source))
        if len(node.input) > len(entry.inputs) and not any(
                s.startswith("*") for s in entry.inputs):
            raise OnnxImportError(f"node {label!r} ({node.op_type}): {len(node.input)} "
                                  f"inputs, at most {len(entry.inputs)} expected")
        if "given" in names:
            params["given"] = tuple(given)
        if "outputs" in names:
            params["outputs"] = len(node.output)
        attributes = entry.attributes
        for attr in node.attribute:
            if attr.name not in attributes or attr.name.endswith("_value") and \
                    attr.name[:-6] in {s.strip("*?") for s in entry.inputs}:
                raise UnsupportedOp(f"node {label!r} ({node.op_type}): attribute "
                                    f"{attr.name!r} is not supported; supported: "
                                    f"{', '.join(sorted(attributes)) or 'none'}")
            params[attr.name] = attribute_value(attr)
        return tensors, params

    def fold(self, entry: OnnxOp, node: onnx.NodeProto, apply: Any) -> list | None:
        """The values of the node's outputs when they can be known now."""
        if node.op_type in ("Shape", "Size"):
            return [self.shape_value(node, apply)]
        for v in apply.inputs:  # a size input (Dims of a parameter) is no known value
            if not self.known(v.name) or self.vars.get(v.name) is not v:
                return None
        for out in apply.outputs:
            size = _static_size(out.type)
            if size is None or size > MAX_FOLD:
                return None
        values = [self.value(v.name) for v in apply.inputs]
        symbolic = any(v.dtype == object for v in values)
        if symbolic and any(not _integral(o.type.dtype) for o in apply.outputs):
            return None
        op = apply.op
        try:
            with np.errstate(all="ignore"):
                result = op.impl(*values, **op._kwargs)
        except Exception:  # a value that cannot be computed now is computed at run time
            return None
        results = result if isinstance(result, tuple | list) and len(apply.outputs) > 1 \
            else (result,)
        out = []
        for r, o in zip(results, apply.outputs, strict=True):
            r = np.asarray(r)
            if r.dtype == object:
                r = _settle(r)
            if r.dtype != object:
                r = r.astype(o.type.dtype)
            if r.shape != tuple(o.type.shape):
                return None
            out.append(r)
        return out

    def shape_value(self, node: onnx.NodeProto, apply: Any) -> np.ndarray | None:
        x = apply.inputs[0].type
        if node.op_type == "Size":
            if any(d is None for d in x.shape):
                return None
            return _settle(np.array(math.prod(x.shape, start=1), dtype=object))
        start, end = 0, x.ndim
        for attr in node.attribute:
            if attr.name == "start":
                start = attr.i
            elif attr.name == "end":
                end = attr.i
        entries = list(x.shape)[slice(start, end)]
        return _settle(np.array(entries + [0], dtype=object)[:-1])


def _is_text(v: Variable) -> bool:
    return category(v.type.dtype) is STRING


def _static_size(t: TensorType) -> int | None:
    if any(not isinstance(d, int) for d in t.shape):
        return None
    return math.prod(t.shape)


def _integral(dtype: str) -> bool:
    return dtype == "bool" or np.issubdtype(np.dtype(dtype), np.integer)


def _settle(value: np.ndarray) -> np.ndarray:
    """An object array of sizes as int64 when every entry is an int."""
    flat = [_plain(v) for v in value.ravel().tolist()]
    if all(isinstance(v, int) for v in flat):
        return np.array(flat, dtype="int64").reshape(value.shape)
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(value.shape)


def _plain(v: Any) -> Any:
    if isinstance(v, np.integer | bool):
        return int(v)
    return v


def _as_param(value: np.ndarray | None) -> Any:
    """A known value as a parameter: a tuple of its entries (ints, floats, Dims,
    None), or None when unknown."""
    if value is None:
        return None
    flat = value.ravel().tolist()
    return tuple(_plain(v) for v in flat)


def from_onnx(model: onnx.ModelProto | str | os.PathLike | bytes,
              outputs: Sequence[str] | None = None
              ) -> tuple[list[Variable], list[Variable]]:
    """The graph inputs (named as in the model; ``dim_param`` sizes are Dims of that
    name) and outputs of an ONNX model, typed by the relation. ``kt.function(inputs,
    outputs)`` runs it.

    ``outputs`` names the outputs wanted (all of the graph's by default). A node that
    kantensor does not support leaves untyped only what it reaches: an output it reaches
    is refused (UnsupportedOp or UnsupportedType naming the node, its op type, domain
    and opset) only when it is asked for."""
    reader = _Reader(load_model(model))
    inputs, _ = reader.read_graph()
    names = [info.name for info in reader.proto.output] if outputs is None else \
        list(outputs)
    known = {info.name for info in reader.proto.output}
    for name in names:
        if name not in known:
            raise ValueError(f"from_onnx: {name!r} is not an output of the model "
                             f"(its outputs: {', '.join(sorted(known))})")
    return inputs, [reader.output(name) for name in names]


def read_types(model: onnx.ModelProto) -> _Reader:
    """The reader after a pass over ``model`` for its types only (``reader.types``: the
    type of every name, for infer_shapes: first the initializers and graph inputs, as
    many as ``reader.sources``, then the nodes' outputs in the order of the nodes;
    ``reader.untyped``: the names an unsupported node reaches, left untyped)."""
    reader = _Reader(model, graph=False)
    reader.read()
    return reader
