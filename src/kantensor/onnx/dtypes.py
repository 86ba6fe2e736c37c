"""ONNX element types and the dtypes kantensor computes in."""

from __future__ import annotations

from onnx import TensorProto, helper

from ..types.dtypes import DTYPES as KANTENSOR_DTYPES
from ..types.dtypes import normalize_dtype


def _dtype_name(code: int) -> str | None:
    """kantensor's dtype of ONNX's elem type ``code`` (ONNX's own NumPy dtype for it,
    normalised), or None if kantensor has none (string, float6, undefined)."""
    try:
        name = normalize_dtype(helper.tensor_dtype_to_np_dtype(code))
    except (KeyError, TypeError, ValueError):
        return None
    return name if name in KANTENSOR_DTYPES else None


#: ONNX elem type -> dtype name, for the types kantensor has (derived: a dtype added to
#: kantensor's table is an ONNX type here as soon as ONNX maps it to that NumPy dtype).
DTYPES: dict[int, str] = {code: name for code in TensorProto.DataType.values()
                          if (name := _dtype_name(code)) is not None}

#: dtype name -> ONNX elem type.
ELEM_TYPES: dict[str, int] = {name: code for code, name in DTYPES.items()}


class UnsupportedType(TypeError):
    """An ONNX element type kantensor has no dtype for (string, float6)."""


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
