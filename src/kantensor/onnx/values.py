"""Values known when an ONNX model is read (a constant, or folded from known values and
``Shape``): ints, Dims and None held in NumPy arrays, and as the parameters builders
read."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..types.type import TensorType
from .loading import MAX_RANK, OnnxImportError, clipped

__all__ = ["MAX_VALUE_ENTRIES", "as_param", "integral", "plain", "settle", "static_size",
           "value_entries"]

#: The most entries of an input whose value decides an output's type (Reshape's shape,
#: Expand's shape, Slice's starts, Pad's pads, Split's split, ...), checked from its
#: type before anything is built: these hold a few entries per axis.
MAX_VALUE_ENTRIES = 4 * MAX_RANK


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


def value_entries(t: TensorType, k: int, name: str, where: str) -> None:
    """OnnxImportError if input ``k`` (``name``), whose value decides the node's types,
    may have more than :data:`MAX_VALUE_ENTRIES` entries by its type (checked before a
    builder makes anything per entry)."""
    sizes = [d for d in t.shape if isinstance(d, int)]
    if any(d > MAX_VALUE_ENTRIES for d in sizes) or \
            len(sizes) == t.ndim and math.prod(sizes) > MAX_VALUE_ENTRIES:
        raise OnnxImportError(clipped(f"{where}: input {k} ({name}) is {t}; an input whose "
                                      "value decides the types has at most "
                                      f"{MAX_VALUE_ENTRIES} entries"))
