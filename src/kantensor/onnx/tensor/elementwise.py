"""ONNX's tensor ops that work element by element: Where, Identity, IsInf (IsNaN is
NumPy's isnan), Cast, CastLike and BitCast.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.templates import reads_ranks
from ...types.dtypes import normalize_dtype
from ..dtypes import DTYPES, ELEM_TYPES, dtype_of
from ..lowp import convert


def where(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(c, a, b)


def identity(x: np.ndarray, **_: Any) -> np.ndarray:
    return x


def is_inf(x: np.ndarray, *, detect_negative: int, detect_positive: int) -> np.ndarray:
    return (np.isinf(x) & ((x < 0) if not detect_positive else True)
            & ((x > 0) if not detect_negative else True))


@reads_ranks
def build_cast(types: tuple, to: int, **_: Any) -> dict[str, Any]:
    """Cast's target dtype, from the ONNX element type ``to``."""
    return {"to_dtype": dtype_of(to, "Cast")}


def cast(x: np.ndarray, *, to: int, to_dtype: str = "", saturate: int = 1,
         round_mode: str = "up") -> np.ndarray:
    """Cast: ONNX's conversion (float8 saturation, FLOAT8E8M0's rounding)."""
    return convert(x, to, saturate, round_mode) if x.dtype != object else x


def cast_like(x: np.ndarray, like: np.ndarray, *, saturate: int = 1,
              round_mode: str = "up") -> np.ndarray:
    if x.dtype == object:
        return x
    return convert(x, ELEM_TYPES[normalize_dtype(like.dtype)], saturate, round_mode)


def bitcast(x: np.ndarray, *, to: int, **_: Any) -> np.ndarray:
    """BitCast: the same bytes (little endian) read as another dtype of the same width."""
    target = np.dtype(DTYPES[to]).newbyteorder("<")
    data = np.asarray(x, dtype=x.dtype.newbyteorder("<")).tobytes()
    return np.frombuffer(data, dtype=target).reshape(x.shape).astype(target.newbyteorder("="))
