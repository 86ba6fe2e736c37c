"""The NumPy half of the dtypes: the NumPy dtype that holds each dtype's values, casts
between them, and the tolerance computed values are compared with.

The table of dtypes and every fact about them that needs no values (categories,
promotion) is :mod:`kantensor.types.dtypes`; this module reads it. The low-precision
dtypes' NumPy dtypes come from ml_dtypes (the ``lowp`` extra): without it they type but
hold no values (:class:`DTypeUnavailable`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:  # the low-precision dtypes' NumPy half: optional (the lowp extra)
    import ml_dtypes
except ImportError:
    ml_dtypes = None

from .dtypes import (
    BOOL,
    COMPLEX,
    DTYPE_TABLE,
    FLOATING,
    NUMPY_STRING,
    STRING,
    DTypeInfo,
    dtype_info,
    normalize_dtype,
)

__all__ = ["DTypeUnavailable", "LOWP_EXTRA", "NUMPY_DTYPES", "can_cast", "default_tolerance",
           "extreme_value", "numpy_dtype"]

#: The extra (``pip install "kantensor[lowp]"``) that installs ml_dtypes.
LOWP_EXTRA = "lowp"
_PACKAGES: dict[str, Any] = {"numpy": np, "ml_dtypes": ml_dtypes}


def _of(d: DTypeInfo) -> np.dtype:
    if d.category is STRING:
        return NUMPY_STRING
    return np.dtype(getattr(_PACKAGES[d.package], d.name))


#: The NumPy dtype of each dtype that can hold values here: all of them once ml_dtypes is
#: installed, else the ones NumPy has.
NUMPY_DTYPES: dict[str, np.dtype] = {
    d.name: _of(d) for d in DTYPE_TABLE if _PACKAGES[d.package] is not None}
_INFO: dict[str, DTypeInfo] = {d.name: d for d in DTYPE_TABLE}


class DTypeUnavailable(ImportError):
    """A dtype that types but cannot hold values here: its package is not installed."""


def numpy_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype of ``dtype``; DTypeUnavailable naming the package and the extra
    to install for a low-precision dtype when ml_dtypes is missing."""
    name = normalize_dtype(dtype)
    found = NUMPY_DTYPES.get(name)
    if found is None:
        package = _INFO[name].package
        raise DTypeUnavailable(
            f"dtype {name} types without {package}, but values of it need the {package} "
            f"package (NumPy lacks {name}): pip install \"kantensor[{LOWP_EXTRA}]\"")
    return found


def can_cast(from_: Any, to: Any, casting: str = "same_kind") -> bool:
    """``np.can_cast`` on the NumPy dtypes (DTypeUnavailable for a low-precision dtype
    without ml_dtypes)."""
    return bool(np.can_cast(numpy_dtype(from_), numpy_dtype(to), casting=casting))


def default_tolerance(dtype: Any) -> tuple[float, float]:
    """``(rtol, atol)`` for comparing computed values of ``dtype``: looser for the
    dtypes of single precision or less (float16, float32, complex64); a low-precision
    float's own epsilon and smallest normal."""
    info = _INFO[normalize_dtype(dtype)]
    if info.category >= FLOATING and info.package != "numpy":
        finfo = ml_dtypes.finfo(numpy_dtype(info.name))
        return float(finfo.eps), float(finfo.smallest_normal)
    loose = info.category >= FLOATING and info.bits <= (64 if info.category is COMPLEX else 32)
    return (1e-3, 1e-5) if loose else (1e-5, 1e-8)


def extreme_value(dtype: Any, sign: int) -> Any:
    """The value of ``dtype`` below every other (``sign < 0``) or above every other: an
    infinity where the dtype holds one (the dtype table's ``infinity`` column),
    else its least or greatest finite value (a max-pool's padding, the maximum of
    nothing in ONNX)."""
    name = normalize_dtype(dtype)
    info = _INFO[name]
    if dtype_info(name).infinity:
        return -np.inf if sign < 0 else np.inf
    if info.category is BOOL:
        return sign > 0
    package = ml_dtypes if info.package == "ml_dtypes" else np
    limits = (package.finfo if info.category is FLOATING else package.iinfo)(numpy_dtype(name))
    return limits.min if sign < 0 else limits.max
