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
from .importer import load_model, read_model


def _write_type(info: onnx.ValueInfoProto, t: TensorType) -> None:
    tensor = info.type.tensor_type
    tensor.elem_type = ELEM_TYPES[t.dtype]
    tensor.ClearField("shape")
    shape = tensor.shape
    shape.SetInParent()
    for d in t.shape:
        dim = shape.dim.add()
        if isinstance(d, int):
            dim.dim_value = d
        elif isinstance(d, Dim):
            dim.dim_param = str(d)


def infer_shapes(model: onnx.ModelProto | str | os.PathLike | bytes) -> onnx.ModelProto:
    """A copy of ``model`` with every value_info and output typed by kantensor."""
    source = load_model(model)
    out = onnx.ModelProto()
    out.CopyFrom(source)
    reader = read_model(out)
    graph = out.graph
    outputs = {o.name for o in graph.output}
    inputs = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    graph.ClearField("value_info")
    for o in graph.output:
        _write_type(o, reader.vars[o.name].type)
    for node in graph.node:
        for name in node.output:
            if name and name not in outputs and name not in inputs and name in reader.vars:
                _write_type(graph.value_info.add(name=name), reader.vars[name].type)
    return out
