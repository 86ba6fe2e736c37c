"""``infer_shapes``: a copy of an ONNX model whose every value carries its type.

A drop-in for ``onnx.shape_inference.infer_shapes``: each value_info and graph output
gets the element type and dims kantensor's relation inferred, a size as ``dim_value``,
a symbolic one as ``dim_param`` holding the Dim's text in the DSL's syntax (``2*seq``),
an unknown one as a dim with neither (never a guess).
"""

from __future__ import annotations

import os
from itertools import islice

import onnx

from ..types.dim import Dim
from ..types.type import TensorType
from .dtypes import ELEM_TYPES
from .importer import load_model, read_types

#: TensorType -> a ValueInfoProto of that type and no name (types are interned: the key
#: is the object); a value's info is a copy of it, named.
_INFOS: dict[TensorType, onnx.ValueInfoProto] = {}
_INFOS_SIZE = 1 << 12


def value_info(t: TensorType) -> onnx.ValueInfoProto:
    """A ValueInfoProto of type ``t`` and no name (made once per type: copy it)."""
    info = _INFOS.get(t)
    if info is None:
        info = onnx.ValueInfoProto()
        tensor = info.type.tensor_type
        tensor.elem_type = ELEM_TYPES[t.dtype]
        shape = tensor.shape
        shape.SetInParent()
        for d in t.shape:
            dim = shape.dim.add()
            if isinstance(d, int):
                dim.dim_value = d
            elif isinstance(d, Dim):
                dim.dim_param = str(d)
        if len(_INFOS) >= _INFOS_SIZE:
            _INFOS.clear()
        _INFOS[t] = info
    return info


def infer_shapes(model: onnx.ModelProto | str | os.PathLike | bytes) -> onnx.ModelProto:
    """A copy of ``model`` with every value_info and output typed by kantensor."""
    source = load_model(model)
    reader = read_types(source)
    types = reader.types  # the initializers and inputs, then the nodes' outputs
    out = onnx.ModelProto()
    if isinstance(model, bytes):
        out.ParseFromString(model)  # a second parse costs less than a copy
    else:
        out.CopyFrom(source)
    graph = out.graph
    skip = set()
    for o in graph.output:
        skip.add(o.name)
        o.type.CopyFrom(value_info(types[o.name]).type)
    graph.ClearField("value_info")
    infos = graph.value_info
    for name, t in islice(types.items(), reader.sources, None):
        if name not in skip:
            info = infos.add()
            info.CopyFrom(value_info(t))
            info.name = name
    return out
