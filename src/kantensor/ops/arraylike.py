"""The arrays NumPy's functions take, as the functions of ``ops/`` that wrap them read
them: a graph value as it is, anything else as NumPy reads it (``np.asarray``,
``np.ndim``, ``np.shape``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph.basic import Variable

__all__ = ["as_array", "ndim", "shape"]


def as_array(x: Any) -> Any:
    """``x`` if a graph value, else ``np.asarray(x)``."""
    return x if isinstance(x, Variable) else np.asarray(x)


def ndim(x: Any) -> int:
    """The rank of a graph value or of what NumPy reads ``x`` as."""
    return x.type.ndim if isinstance(x, Variable) else np.ndim(x)


def shape(x: Any) -> tuple:
    """The shape (sizes may be Dims) of a graph value or of what NumPy reads ``x`` as."""
    return x.shape if isinstance(x, Variable) else np.shape(x)
