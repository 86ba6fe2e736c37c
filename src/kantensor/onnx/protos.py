"""ONNX protos read as kantensor values: a dim, a value's type (a tensor, a sequence, an
optional), an attribute, an initializer's header and data; and the error of a model
kantensor cannot read."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from ..graph.type import Type
from ..types.containers import OptionalType, SequenceType
from ..types.dim import Dim
from ..types.numpy_dtypes import numpy_dtype
from ..types.type import TensorType
from .dtypes import UnsupportedType, dtype_of

__all__ = ["OnnxImportError", "array_of", "attribute_value", "initializer_type", "label",
           "proto_type", "value_type"]


class OnnxImportError(ValueError):
    """A model kantensor cannot read: a malformed graph, an input without a rank."""


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
        return array_of(attr.t, attr.name)
    raise OnnxImportError(f"attribute {attr.name!r}: {A.AttributeType.Name(kind)} "
                          "attributes are not supported")


def label(node: onnx.NodeProto) -> str:
    """The node as messages name it."""
    return node.name or f"{node.op_type} -> {', '.join(node.output)}"


def initializer_type(proto: onnx.TensorProto) -> TensorType:
    """An initializer's type, read from its header (its data is not read)."""
    where = f"initializer {proto.name!r}"
    dtype = dtype_of(proto.data_type, where, text=True)
    try:
        return TensorType(dtype, tuple(proto.dims))
    except (TypeError, ValueError) as exc:
        raise OnnxImportError(f"{where}: {exc}") from None


def array_of(proto: onnx.TensorProto, where: str) -> np.ndarray:
    dtype = dtype_of(proto.data_type, where, text=True)
    return np.asarray(numpy_helper.to_array(proto)).astype(numpy_dtype(dtype), copy=False)
