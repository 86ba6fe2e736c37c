"""``infer_shapes``: a copy of an ONNX model whose every value carries its type.

A drop-in for ``onnx.shape_inference.infer_shapes``: each value_info and graph output
gets the element type and dims kantensor's relation inferred, a size as ``dim_value``,
a symbolic one as ``dim_param`` holding the Dim's text in the DSL's syntax (``2*seq``),
an unknown one as a dim with neither (never a guess).
"""

from __future__ import annotations

import os

import onnx

from ..types.dim import Dim
from ..types.type import TensorType
from .dtypes import ELEM_TYPES
from .importer import load_model, read_types

#: TensorType -> its TypeProto (types are interned: the key is the object).
_PROTOS: dict[TensorType, onnx.TypeProto] = {}
_PROTOS_SIZE = 1 << 12


def type_proto(t: TensorType) -> onnx.TypeProto:
    """The TypeProto of ``t`` (made once per type)."""
    proto = _PROTOS.get(t)
    if proto is None:
        proto = onnx.TypeProto()
        tensor = proto.tensor_type
        tensor.elem_type = ELEM_TYPES[t.dtype]
        shape = tensor.shape
        shape.SetInParent()
        for d in t.shape:
            dim = shape.dim.add()
            if isinstance(d, int):
                dim.dim_value = d
            elif isinstance(d, Dim):
                dim.dim_param = str(d)
        if len(_PROTOS) >= _PROTOS_SIZE:
            _PROTOS.clear()
        _PROTOS[t] = proto
    return proto


def infer_shapes(model: onnx.ModelProto | str | os.PathLike | bytes) -> onnx.ModelProto:
    """A copy of ``model`` with every value_info and output typed by kantensor."""
    source = load_model(model)
    types = read_types(source).types  # in the order the graph defines the names
    out = onnx.ModelProto()
    if isinstance(model, bytes):
        out.ParseFromString(model)  # a second parse costs less than a copy
    else:
        out.CopyFrom(source)
    graph = out.graph
    skip = {o.name for o in graph.output} | {i.name for i in graph.input} | \
        {t.name for t in graph.initializer}
    for o in graph.output:
        o.type.CopyFrom(type_proto(types[o.name]))
    graph.ClearField("value_info")
    infos = graph.value_info
    for name, t in types.items():
        if name not in skip:
            info = infos.add()
            info.name = name
            info.type.CopyFrom(type_proto(t))
    return out
