"""ONNX protos read as kantensor values: a dim, a value's type (a tensor, a sequence, an
optional), an attribute, a node's name in messages. Every count a proto claims (its
rank) is checked before anything is made from it; tensors' data is read by
:class:`~.loading.Tensors`, and a tensor type first from its bytes by
:mod:`.typebytes`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import onnx

from ..graph.type import Type
from ..types.containers import OptionalType, SequenceType
from ..types.dim import Dim
from ..types.type import TensorType
from .dtypes import DTYPES, UnsupportedType, dtype_of
from .loading import MAX_NAME, MAX_RANK, OnnxImportError, Tensors, shown
from .typebytes import _dim_param, _tensor_type

__all__ = ["attribute_value", "constant_value", "described", "label", "proto_type",
           "value_type"]


def _dim(proto: Any) -> int | Dim | None:
    which = proto.WhichOneof("value")
    if which == "dim_value":
        return int(proto.dim_value)
    if which == "dim_param":  # (protobuf gives the bytes of a text that is not UTF-8)
        return _dim_param(proto.dim_param) if type(proto.dim_param) is str else None
    return None


def _shape(t: onnx.TypeProto.Tensor, where: Where) -> tuple:
    """The sizes of a tensor type's dims, at most :data:`~.loading.MAX_RANK` of them."""
    dims = t.shape.dim
    if len(dims) > MAX_RANK:
        raise OnnxImportError(f"{_named(where)}: {len(dims)} dims, at most {MAX_RANK} "
                              "(NumPy's limit)")
    return tuple([_dim(d) for d in dims])


def value_type(info: onnx.ValueInfoProto) -> Type:
    """The type of a graph input or output: a TensorType, a SequenceType or an
    OptionalType (see :mod:`kantensor.types.containers`)."""
    found = _tensor_type(info.SerializeToString())
    return found if found is not None else proto_type(
        info.type, lambda: f"value {shown(info.name)}")


#: Where a type is, for messages: the text, or a callable making it (only if one is made).
Where = str | Callable[[], str]


def _named(where: Where) -> str:
    return where if isinstance(where, str) else where()


def _dtype(elem_type: int, where: Where) -> str:
    """The dtype of a graph value's ``elem_type`` (see :func:`~.dtypes.dtype_of`)."""
    found = DTYPES.get(elem_type)
    return found if found is not None else dtype_of(elem_type, _named(where), text=True)


def proto_type(proto: onnx.TypeProto, where: Where) -> Type:
    """The kantensor type of an ONNX TypeProto: a tensor (whose rank must be given), a
    sequence of tensors (whose elements may be of any rank), an optional tensor or
    sequence."""
    kind = proto.WhichOneof("value")
    try:
        if kind == "tensor_type":
            t = proto.tensor_type
            dtype = _dtype(t.elem_type, where)
            if not t.HasField("shape"):
                raise OnnxImportError(
                    f"{_named(where)}: its rank is not given (ONNX allows a tensor of "
                    f"unknown rank; kantensor types tensors of a known rank: give its dims "
                    f"in the model, or a graph input's to kantensor.onnx.contract's inputs= "
                    f"or `kantensor contract --input NAME=N,3`)")
            return TensorType(dtype, _shape(t, where))
        if kind == "sequence_type":
            elem = proto.sequence_type.elem_type
            if elem.WhichOneof("value") != "tensor_type":
                raise UnsupportedType(f"{_named(where)}: a sequence of "
                                      f"{elem.WhichOneof('value') or 'no type'} is not "
                                      "supported (only sequences of tensors)")
            t = elem.tensor_type
            dtype = _dtype(t.elem_type, where)
            return SequenceType(dtype, _shape(t, where) if t.HasField("shape") else None)
    except (OnnxImportError, UnsupportedType):
        raise
    except (TypeError, ValueError) as exc:  # sizes no type may have (a negative dim)
        raise OnnxImportError(f"{_named(where)}: {exc}") from None
    if kind == "optional_type":
        return OptionalType(proto_type(proto.optional_type.elem_type, where))
    raise UnsupportedType(f"{_named(where)}: values of type {kind or 'none'} are not "
                          "supported (tensors, sequences of tensors and optionals are)")


def attribute_value(attr: onnx.AttributeProto, tensors: Tensors) -> Any:
    """An attribute as a Python value: int, float, str, tuples of them, an array (a
    tensor's, checked and read by ``tensors``)."""
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
    where = f"attribute {shown(attr.name)}"
    if kind == A.TENSOR:
        tensors.check(attr.t, where)
        return tensors.array(attr.t, where)
    name = A.AttributeType.Name(kind) if kind in A.AttributeType.values() else \
        f"type {kind}"
    raise OnnxImportError(f"{where}: {name} attributes are not supported")


def constant_value(node: onnx.NodeProto, tensors: Tensors, label: str) -> np.ndarray:
    """A Constant node's value (the node named ``label`` in messages), its fields
    checked."""
    if len(node.attribute) != 1 or len(node.output) != 1 or node.input:
        raise OnnxImportError(f"node {label!r} (Constant): {len(node.attribute)} "
                              f"attributes, {len(node.input)} inputs and "
                              f"{len(node.output)} outputs; a Constant has one "
                              "attribute, no input and one output")
    (attr,) = node.attribute
    value = attribute_value(attr, tensors)
    if attr.name in ("value_float", "value_floats"):
        value = np.asarray(value, dtype="float32")
    elif attr.name in ("value_int", "value_ints"):
        value = np.asarray(value, dtype="int64")
    elif not isinstance(value, np.ndarray) or attr.name != "value":
        raise OnnxImportError(f"node {label!r} (Constant): attribute {shown(attr.name)} "
                              "is not supported")
    return value


def label(node: onnx.NodeProto) -> str:
    """The node as messages name it (a long name cut short)."""
    text = node.name or f"{node.op_type} -> {', '.join(node.output[:4])}" + \
        (", ..." if len(node.output) > 4 else "")
    return text if len(text) <= MAX_NAME else f"{text[:MAX_NAME]}..."


def described(node: onnx.NodeProto) -> str:
    """``node 'name' (OpType)`` for messages, each part cut short."""
    op_type = node.op_type if len(node.op_type) <= MAX_NAME else \
        f"{node.op_type[:MAX_NAME]}..."
    return f"node {label(node)!r} ({op_type})"
