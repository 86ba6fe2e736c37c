"""Values converted to a tensor type's NumPy dtype (:meth:`TensorType.filter
<kantensor.types.type.TensorType.filter>`): Python numbers, lists and strings turned
into arrays, refusing a silent change of value, a masked array's lost mask, or a
``str()`` of what is not a string."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .dtypes import NUMPY_STRING

__all__ = ["refuse_masked"]


def refuse_masked(value: Any, what: str) -> None:
    """TypeError for a NumPy masked array: kantensor has no masks, and NumPy would drop
    the mask silently when converting it. A masked array exists only once ``numpy.ma``
    is imported: until then nothing is one, and asking ``np.ma`` would import it (~8 ms
    of a first ONNX ``infer_shapes``, whose constants come here)."""
    ma = sys.modules.get("numpy.ma")
    if ma is not None and isinstance(value, ma.MaskedArray):
        raise TypeError(f"masked arrays are not supported ({what}): the mask would be "
                        "lost; pass value.filled(fill_value) or np.asarray(value)")


def text_array(value: Any, ttype: Any) -> np.ndarray:
    """Strings as NumPy's StringDType: from an array of NumPy's fixed-width ``str``
    dtype, or an object array or (nested) list holding only ``str`` (ONNX's form).
    Anything else (bytes, numbers) is refused, never turned into its ``str()``."""
    if isinstance(value, np.ndarray | np.generic) and np.asarray(value).dtype.kind == "U":
        return np.asarray(value).astype(NUMPY_STRING)
    if isinstance(value, np.ndarray) and value.dtype != object:
        raise TypeError(f"cannot convert an array of dtype {value.dtype} to {ttype}")
    try:
        values = np.asarray(value, dtype=object)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"cannot convert {type(value).__name__} to {ttype}: {exc}") from None
    for v in values.flat:
        if not isinstance(v, str):
            raise TypeError(f"cannot convert {type(v).__name__} {v!r} to {ttype}: only str "
                            "values are strings")
    return values.astype(NUMPY_STRING)


def from_python(value: Any, target: np.dtype, allow_downcast: bool | None,
                 ttype: Any) -> np.ndarray:
    """Convert Python numbers / nested lists, refusing silent value changes."""
    try:
        natural = np.asarray(value)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"cannot convert {type(value).__name__} to {ttype}: {exc}") from None
    if natural.dtype.kind in "OUSVMm":
        raise TypeError(f"cannot convert {value!r} ({type(value).__name__}) to {ttype}")
    if natural.dtype == target or np.can_cast(natural.dtype, target, "safe"):
        return natural.astype(target)
    if allow_downcast is False:
        raise TypeError(f"converting {natural.dtype} data to {ttype} may lose information "
                        "and allow_downcast=False")
    with np.errstate(all="ignore"):
        try:
            converted = natural.astype(target)
        except (OverflowError, ValueError) as exc:
            raise TypeError(f"value {value!r} does not fit {ttype}: {exc}") from None
    if allow_downcast is None:
        if natural.dtype.kind in "biu" and target.kind in "biu":
            # Compare as Python ints: a round trip through the target dtype would
            # wrap back to the same bits (-1 -> uint64 -> int64 is -1 again).
            same = converted.astype(object).tolist() == natural.astype(object).tolist()
        else:
            back = converted.astype(natural.dtype) if natural.dtype.kind != "c" or \
                target.kind == "c" else converted
            same = np.array_equal(back, natural, equal_nan=natural.dtype.kind in "fc")
        if not same:
            raise TypeError(
                f"value {value!r} cannot be represented exactly as {ttype.dtype} "
                f"(would become {converted.tolist()!r}); pass allow_downcast=True to accept"
            )
    return converted
