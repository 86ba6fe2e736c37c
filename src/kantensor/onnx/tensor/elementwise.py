"""ONNX's tensor ops that work element by element: Where, Identity and IsInf (IsNaN is
NumPy's isnan); the casts are :mod:`.cast`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..floatsizes import float_sizes


def where(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(c, a, b)


@float_sizes
def identity(x: np.ndarray, **_: Any) -> np.ndarray:
    return x


def is_inf(x: np.ndarray, *, detect_negative: int, detect_positive: int) -> np.ndarray:
    return (np.isinf(x) & ((x < 0) if not detect_positive else True)
            & ((x > 0) if not detect_negative else True))
