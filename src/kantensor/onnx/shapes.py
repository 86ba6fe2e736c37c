"""``infer_shapes``: a copy of an ONNX model whose every value carries its type.

A drop-in for ``onnx.shape_inference.infer_shapes``: each value_info and graph output
gets the element type and dims kantensor's relation inferred, a size as ``dim_value``,
a symbolic one as ``dim_param`` holding the Dim's text in the DSL's syntax (``2*seq``),
an unknown one as a dim with neither (never a guess). A sequence is written as the type
its elements share, an optional as its element's. Values that a node kantensor does not
support reaches get no value_info (a graph output keeps the type the model gave it).
"""

from __future__ import annotations

import os
from itertools import islice
from typing import Any

import onnx

from ..graph.heap import collector_paused
from ..graph.type import Type
from ..types.containers import OptionalType, SequenceType
from ..types.dim import Dim
from ..types.type import TensorType
from .dtypes import ELEM_TYPES
from .importer import _Reader, read_types
from .loading import open_model
from .modelmemo import found as remembered
from .modelmemo import model_key, remember, restore

#: Type -> a ValueInfoProto of that type and no name (tensor types are interned: the
#: key is the object); a value's info is a copy of it, named.
_INFOS: dict[Type, onnx.ValueInfoProto] = {}
_INFOS_SIZE = 1 << 12


def _tensor(proto: onnx.TypeProto, dtype: str, shape: tuple | None) -> None:
    tensor = proto.tensor_type
    tensor.elem_type = ELEM_TYPES[dtype]
    if shape is None:  # a sequence's elements of any rank: no shape
        return
    dims = tensor.shape
    dims.SetInParent()
    for d in shape:
        dim = dims.dim.add()
        if isinstance(d, int):
            dim.dim_value = d
        elif isinstance(d, Dim):
            dim.dim_param = str(d)


def _write(proto: onnx.TypeProto, t: Type) -> None:
    """``t`` written into ``proto``: a tensor, a sequence (ONNX states its elements'
    type, not its length), an optional."""
    if isinstance(t, TensorType):
        _tensor(proto, t.dtype, t.shape)
    elif isinstance(t, SequenceType):
        _tensor(proto.sequence_type.elem_type, t.dtype, t.shape)
    elif isinstance(t, OptionalType):
        _write(proto.optional_type.elem_type, t.element)
    else:
        raise TypeError(f"cannot write {t} as an ONNX type")


def value_info(t: Type) -> onnx.ValueInfoProto:
    """A ValueInfoProto of type ``t`` and no name (made once per type: copy it)."""
    info = _INFOS.get(t)
    if info is None:
        info = onnx.ValueInfoProto()
        _write(info.type, t)
        if len(_INFOS) >= _INFOS_SIZE:
            _INFOS.clear()
        _INFOS[t] = info
    return info


def infer_shapes(model: onnx.ModelProto | str | os.PathLike | bytes,
                 base_dir: str | os.PathLike | None = None) -> onnx.ModelProto:
    """A copy of ``model`` with every value_info and output typed by kantensor. External
    data (read only where a node's type depends on it) comes from ``base_dir``, else
    from the folder of the model's path (see :mod:`.loading`). A model typed before in
    this process is written as it was then (:mod:`.modelmemo`)."""
    with collector_paused():  # (see read_types)
        source, tensors = open_model(model, base_dir)
        reader = _Reader(source, tensors, graph=False)
        reader.read_sources()  # (every initializer checked: the key holds their types)
        nodes = [node.SerializeToString() for node in reader.proto.node]
        key, large = model_key(reader, nodes)
        typed = remembered(key, reader)
        if typed is not None:
            out = _copy(model, source)
            restore(typed, out, lambda t: value_info(t).type)
            return out
        reader.read_nodes(nodes)
        out = _written(model, source, reader)
        remember(key, large, reader, out)
        return out


def typed_model(model: onnx.ModelProto | str | os.PathLike | bytes,
                base_dir: str | os.PathLike | None = None
                ) -> tuple[onnx.ModelProto, _Reader]:
    """:func:`infer_shapes`'s copy of ``model``, and the reader that typed it (its
    ``types``, and for each value left untyped why, in ``untyped``)."""
    with collector_paused():  # (see read_types: the copy too keeps what it makes)
        return _typed_model(model, base_dir)


def _typed_model(model: onnx.ModelProto | str | os.PathLike | bytes,
                 base_dir: str | os.PathLike | None) -> tuple[onnx.ModelProto, _Reader]:
    source, tensors = open_model(model, base_dir)
    reader = read_types(source, tensors)
    return _written(model, source, reader), reader


def _copy(model: Any, source: onnx.ModelProto) -> onnx.ModelProto:
    out = onnx.ModelProto()
    if isinstance(model, bytes):
        out.ParseFromString(model)  # a second parse costs less than a copy
    else:
        out.CopyFrom(source)
    return out


def _written(model: Any, source: onnx.ModelProto, reader: _Reader) -> onnx.ModelProto:
    """A copy of ``model`` (read as ``source``) with the types ``reader`` read written."""
    types = reader.types  # the initializers and inputs, then the nodes' outputs
    out = _copy(model, source)
    graph = out.graph
    skip = set()
    for o in graph.output:
        skip.add(o.name)
        t = types.get(o.name)
        if t is not None:  # else an unsupported node reaches it: left as it was
            o.type.CopyFrom(value_info(t).type)
    graph.ClearField("value_info")
    infos = graph.value_info
    once: set[Type] = set()  # the types met once so far, written in place: a type of one
    # value (every value of a model whose nodes all differ) is not worth a cached copy
    for name, t in islice(types.items(), reader.sources, None):
        if name not in skip:
            info = infos.add()
            cached = _INFOS.get(t)
            if cached is not None:
                info.CopyFrom(cached)
            elif t in once:
                info.CopyFrom(value_info(t))
            else:
                once.add(t)
                _write(info.type, t)
            info.name = name
    return out
