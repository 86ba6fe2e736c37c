"""Values known when an ONNX model is read (a constant, or folded from known values and
``Shape``): ints, Dims and None held in NumPy arrays, and as the parameters builders
read."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..types.type import TensorType

__all__ = ["as_param", "integral", "plain", "settle", "static_size"]


def static_size(t: TensorType) -> int | None:
    if any(not isinstance(d, int) for d in t.shape):
        return None
    return math.prod(t.shape)


def integral(dtype: str) -> bool:
    return dtype == "bool" or np.issubdtype(np.dtype(dtype), np.integer)


def settle(value: np.ndarray) -> np.ndarray:
    """An object array of sizes as int64 when every entry is an int."""
    flat = [plain(v) for v in value.ravel().tolist()]
    if all(isinstance(v, int) for v in flat):
        return np.array(flat, dtype="int64").reshape(value.shape)
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(value.shape)


def plain(v: Any) -> Any:
    if isinstance(v, np.integer | bool):
        return int(v)
    return v


def as_param(value: np.ndarray | None) -> Any:
    """A known value as a parameter: a tuple of its entries (ints, floats, Dims,
    None), or None when unknown."""
    if value is None:
        return None
    flat = value.ravel().tolist()
    return tuple(plain(v) for v in flat)

