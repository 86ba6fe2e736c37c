"""ONNX element types and the dtypes kantensor computes in."""

from __future__ import annotations

from onnx import TensorProto, helper

from ..types.dtypes import DTYPES as KANTENSOR_DTYPES
from ..types.dtypes import NUMPY_STRING, STRING, category, normalize_dtype


def _dtype_name(code: int) -> str | None:
    """kantensor's dtype of ONNX's elem type ``code`` (ONNX's own NumPy dtype for it,
    normalised; ONNX holds STRING in object arrays of str, kantensor in its string
    dtype), or None if kantensor has none (float6, undefined)."""
    if code == TensorProto.STRING:
        return normalize_dtype(NUMPY_STRING)
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
    """An ONNX element type kantensor has no dtype for (float6), or STRING where an op
    does not take it."""


def dtype_of(elem_type: int, where: str, text: bool = False) -> str:
    """The dtype name of ONNX ``elem_type``; UnsupportedType naming ``where`` if none.
    STRING only with ``text`` (a value of the graph: an input, an initializer, a
    constant), never for an attribute naming a dtype to compute in (Cast's ``to``)."""
    found = DTYPES.get(elem_type)
    if found is not None and (text or category(found) is not STRING):
        return found
    here = " here (STRING is a graph value's type only)" if found is not None else ""
    raise UnsupportedType(
        f"{where}: element type {type_name(elem_type)} is not supported{here} (kantensor "
        f"computes in {', '.join(sorted(n for n in ELEM_TYPES if category(n) is not STRING))})")


def type_name(elem_type: int) -> str:
    """ONNX's name of an elem type (``STRING``), or its number if ONNX has none."""
    return TensorProto.DataType.Name(elem_type) if elem_type in \
        TensorProto.DataType.values() else str(elem_type)
