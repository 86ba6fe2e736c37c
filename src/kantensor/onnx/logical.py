"""ONNX's logical family (``onnx/defs/logical``): comparisons, logic and bitwise ops
(``signatures/onnx/logical.toml``). NumPy's ufuncs compute all of them but BitShift.
"""

from __future__ import annotations

import numpy as np


def bitshift(a: np.ndarray, b: np.ndarray, *, direction: str) -> np.ndarray:
    return np.left_shift(a, b) if direction == "LEFT" else np.right_shift(a, b)
