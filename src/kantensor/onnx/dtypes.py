"""ONNX element types and the NumPy dtypes kantensor computes in."""

from __future__ import annotations

from onnx import TensorProto

#: ONNX elem type -> dtype name, for the types kantensor has.
DTYPES: dict[int, str] = {
    TensorProto.FLOAT: "float32", TensorProto.DOUBLE: "float64",
    TensorProto.FLOAT16: "float16", TensorProto.BOOL: "bool",
    TensorProto.INT8: "int8", TensorProto.INT16: "int16", TensorProto.INT32: "int32",
    TensorProto.INT64: "int64", TensorProto.UINT8: "uint8", TensorProto.UINT16: "uint16",
    TensorProto.UINT32: "uint32", TensorProto.UINT64: "uint64",
    TensorProto.COMPLEX64: "complex64", TensorProto.COMPLEX128: "complex128",
}

#: dtype name -> ONNX elem type.
ELEM_TYPES: dict[str, int] = {name: code for code, name in DTYPES.items()}


class UnsupportedType(TypeError):
    """An ONNX element type kantensor has no dtype for (string, bfloat16, float8, int4)."""


def dtype_of(elem_type: int, where: str) -> str:
    """The dtype name of ONNX ``elem_type``; UnsupportedType naming ``where`` if none."""
    try:
        return DTYPES[elem_type]
    except KeyError:
        name = TensorProto.DataType.Name(elem_type) if elem_type in \
            TensorProto.DataType.values() else str(elem_type)
        raise UnsupportedType(
            f"{where}: element type {name} is not supported (kantensor computes in "
            f"{', '.join(sorted(ELEM_TYPES))})") from None
