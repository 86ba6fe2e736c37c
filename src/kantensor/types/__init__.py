"""Tensors: TensorType, dtypes and promotion, TensorVariable, basic Ops; the types of
sequences of tensors and of optionals (ONNX's)."""

from . import dimdivide  # noqa: F401 - fills Dim's // and % (dim.DIVIDE) before any use
from .basic_ops import SpecifyShape, specify_shape
from .containers import OptionalType, SequenceType
from .dim import Dim
from .dtypes import (
    DTYPES,
    default_dtype,
    get_default_dtype,
    promote_types,
    result_type,
    set_default_dtype,
)
from .names import dims
from .type import TensorType
from .variable import (
    SHORTCUTS,
    TensorConstant,
    TensorVariable,
    as_tensor_variable,
    constant,
    matrix,
    scalar,
    tensor,
    vector,
)

__all__ = [
    "DTYPES", "SHORTCUTS", "Dim", "OptionalType", "SequenceType", "SpecifyShape",
    "TensorConstant", "TensorType",
    "TensorVariable", "as_tensor_variable", "constant", "default_dtype", "dims",
    "get_default_dtype", "matrix",
    "promote_types", "result_type", "scalar", "set_default_dtype", "specify_shape", "tensor",
    "vector",
]
