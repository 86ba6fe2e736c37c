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
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from ..graph.basic import Variable
from ..ops.located import portable, relocated
from ..types.conditions import Clause
from ..types.dim import Dim
from ..types.dtypes import STRING, category, get_default_dtype
from ..types.facts import EMPTY, Facts
from ..types.numpy_dtypes import numpy_dtype
from ..types.symbols import free_symbols
from ..types.type import TensorType
from ..types.variable import TensorVariable, constant
from .dtypes import UnsupportedType, dtype_of, type_name
from .nodememo import MEMO, node_key, remember
from .registry import OnnxOp, UnsupportedOp, lookup

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


def opset_of(model: onnx.ModelProto) -> int:
    """The opset of the default domain the model imports."""
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            return entry.version
    raise OnnxImportError("the model imports no opset of the default domain")


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


def value_type(info: onnx.ValueInfoProto) -> TensorType:
    """The TensorType of a graph input or output."""
    kind = info.type.WhichOneof("value")
    if kind != "tensor_type":
        raise OnnxImportError(f"value {info.name!r}: only tensors are supported, got "
                              f"{kind or 'no type'}")
    t = info.type.tensor_type
    dtype = dtype_of(t.elem_type, f"value {info.name!r}", text=True)
    if not t.HasField("shape"):
        raise OnnxImportError(f"value {info.name!r}: its rank is not given")
    return TensorType(dtype, tuple(_dim(d) for d in t.shape.dim))


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
    types and values from :mod:`.nodememo` without being built."""

    def __init__(self, model: onnx.ModelProto, graph: bool = True):
        self.model = model
        self.opset = opset_of(model)
        self.graph = graph
        self.vars: dict[str, Variable] = {}
        self.types: dict[str, TensorType] = {}
        self.values: dict[str, np.ndarray] = {}
        self.unread: dict[str, onnx.TensorProto] = {}  # initializers whose values wait
        self.value_keys: dict[str, tuple | bool] = {}  # as the node memo keys a known value
        self.entries: dict[tuple[str, str], OnnxOp] = {}
        self.default_dtype = get_default_dtype()  # one for the model (the memo's key)
        #: what the nodes read so far need of the sizes: facts for every later node (the
        #: model's types hold where all its nodes' conditions do), and those conditions,
        #: each naming its node, in the order of the nodes
        self.facts: Facts = EMPTY
        self.conditions: list[Clause] = []
        self.sources = 0  # how many names of types are initializers and graph inputs

    def read(self) -> tuple[list[TensorVariable], list[Variable]]:
        graph = self.model.graph
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
        for info in graph.input:
            if info.name in types:  # an initializer (its default value)
                continue
            var = value_type(info)(info.name)
            self.vars[info.name] = var
            types[info.name] = var.type
            inputs.append(var)
        self.sources = len(types)  # the first names of types: initializers and inputs
        for node in graph.node:
            self.node(node)
        for info in graph.output:
            if info.name not in self.types:
                raise OnnxImportError(f"graph output {info.name!r} is computed by no node")
        if not self.graph:
            return inputs, []
        return inputs, [self.vars[info.name] for info in graph.output]

    def var(self, name: str, node: onnx.NodeProto) -> Variable:
        var = self.vars.get(name)
        if var is None:  # types only: an initializer, or the output of a memo hit
            t = self.types.get(name)
            if t is None:
                raise OnnxImportError(f"node {node.name!r} ({node.op_type}): input {name!r} "
                                      "is defined by no graph input, initializer or "
                                      "earlier node") from None
            var = self.vars[name] = t(name)
        return var

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
        entry = self.entries.get((op_type, domain))
        if entry is None:
            entry = self.entries[op_type, domain] = lookup(op_type, domain, self.opset,
                                                           _label(node))
        wanted = node.output[:]  # a list (a slice costs less than list())
        key = None if self.graph else node_key(self, entry, node, len(wanted))
        if key is not None and self.facts:
            key = (*key, self._relevant(node))
        typed = MEMO.get(key) if key is not None else None
        if typed is None:
            typed = remember(key, *self.build(entry, node, wanted))
        types, values, value_keys = self.types, self.values, self.value_keys
        outs, folded, keys, conditions = typed
        if conditions:
            self.note(node, conditions)
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

    def _relevant(self, node: onnx.NodeProto) -> Facts:
        """The facts about the sizes of ``node``'s inputs (part of its memo key)."""
        symbols: set = set()
        for name in node.input:
            t = self.types.get(name) if name else None
            if t is not None:
                for d in t.shape:
                    if isinstance(d, Dim):
                        symbols |= free_symbols(d)
        return self.facts.about(symbols)

    def note(self, node: onnx.NodeProto, conditions: tuple) -> None:
        """Record ``node``'s conditions (portable: over its inputs by position) as the
        model's, and as facts for the nodes after it."""
        names = node.input[:]
        inputs = [self.var(n, node) if n else None for n in names]
        own = relocated(conditions, inputs, _label(node))
        self.conditions.extend(own)
        self.facts = self.facts.with_(*own)

    def build(self, entry: OnnxOp, node: onnx.NodeProto, wanted: list[str]
              ) -> tuple[tuple, tuple, tuple]:
        """Apply the entry's Op to the node's inputs: the types of its outputs, their
        values when they can be known now (each output variable named as in the model)
        and its conditions, portable (:func:`~kantensor.ops.located.portable`)."""
        op_type, label = node.op_type, _label(node)
        tensors, params = self.arguments(entry, node, label)
        facts = self.facts or None
        for t in tensors:  # what the model's earlier nodes need holds here too
            t.facts = facts
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
        conditions = ()
        if apply is not None and apply.conditions:
            positions = {}
            for k, name in enumerate(node.input):
                if name and id(self.vars.get(name)) not in positions:
                    positions[id(self.vars.get(name))] = k
            conditions = portable(apply.conditions, positions)
        return tuple(o.type for o in outs), \
            tuple(folded) if folded is not None else (None,) * len(outs), conditions

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


def from_onnx(model: onnx.ModelProto | str | os.PathLike | bytes
              ) -> tuple[list[TensorVariable], list[Variable]]:
    """The graph inputs (named as in the model; ``dim_param`` sizes are Dims of that
    name) and outputs of an ONNX model, typed by the relation. ``kt.function(inputs,
    outputs)`` runs it."""
    return _Reader(load_model(model)).read()


def read_types(model: onnx.ModelProto) -> _Reader:
    """The reader after a pass over ``model`` for its types only (``reader.types``: the
    type of every name, for infer_shapes: first the initializers and graph inputs, as
    many as ``reader.sources``, then the nodes' outputs in the order of the nodes)."""
    reader = _Reader(model, graph=False)
    reader.read()
    return reader
