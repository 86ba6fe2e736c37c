"""The arrays NumPy's functions take, as the functions of ``ops/`` that wrap them read
them: a graph value as it is, anything else as NumPy reads it (``np.asarray``,
``np.ndim``, ``np.shape``); a list of numbers holding sizes (``[x.shape[0], 1]``, a list
of Python ints when NumPy runs) as the tensor NumPy's array of it is
(:func:`sized_array`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.dim import Dim
from ..types.sizenum import Ratio, size_tensor
from ..types.variable import constant

__all__ = ["as_array", "ndim", "shape", "sized_array"]

#: The dtype NumPy's array discovery gives a Python number (an int within int64's range:
#: NumPy makes a larger one uint64, float64 or object, refused here).
_PYTHON = {bool: np.dtype(bool), int: np.dtype(np.int64), float: np.dtype(np.float64),
           complex: np.dtype(np.complex128)}


def as_array(x: Any) -> Any:
    """``x`` if a graph value, else ``np.asarray(x)``."""
    return x if isinstance(x, Variable) else np.asarray(x)


def ndim(x: Any) -> int:
    """The rank of a graph value or of what NumPy reads ``x`` as."""
    return x.type.ndim if isinstance(x, Variable) else np.ndim(x)


def shape(x: Any) -> tuple:
    """The shape (sizes may be Dims) of a graph value or of what NumPy reads ``x`` as."""
    return x.shape if isinstance(x, Variable) else np.shape(x)


def _leaf_dtype(v: Any) -> np.dtype | None:
    """The dtype ``np.asarray`` gives ``v`` in a list (a size: a Python int when NumPy
    runs; a size's exact fraction ``n / k``: a float); None for anything else."""
    if isinstance(v, Dim):
        return _PYTHON[int]
    if isinstance(v, Ratio):
        return None if v.rounded else _PYTHON[float]
    if isinstance(v, np.generic):
        return v.dtype
    made = _PYTHON.get(type(v))
    if made is _PYTHON[int] and not -2**63 <= v < 2**63:
        return None
    return made


def _leaves(obj: Any) -> list[Any]:
    return [v for item in obj for v in _leaves(item)] if isinstance(obj, list | tuple) \
        else [obj]


def sized_array(obj: Any) -> Any:
    """The tensor ``np.asarray(obj)`` is for a (nested) list or tuple of numbers holding
    sizes (``[x.shape[0], 1]``): its dtype NumPy's for the numbers its elements are when
    NumPy runs (sizes are Python ints; ``int64`` with ``1.5``: ``float64``), each element
    made in it (a size's number cast, an exact fraction ``n / k`` divided in float64 as
    Python divides), stacked. None where ``obj`` holds no size or holds anything else (a
    tensor, a rounded fraction, an int past int64): the caller reads it otherwise."""
    if not isinstance(obj, list | tuple):
        return None
    leaves = _leaves(obj)
    dtypes = [_leaf_dtype(v) for v in leaves]
    if not any(isinstance(v, Dim | Ratio) for v in leaves) or \
            any(d is None for d in dtypes):  # (np.dtype == None is float64)
        return None
    return _made(obj, np.result_type(*dtypes).name)


def _made(obj: Any, dtype: str) -> Any:
    if isinstance(obj, list | tuple):
        return np.stack([_made(v, dtype) for v in obj])
    if isinstance(obj, Dim):  # (int64: the size's number itself, a Python int of sizes)
        number = size_tensor(obj)
        return number if dtype == "int64" else number.astype(dtype)
    if isinstance(obj, Ratio):
        exact = size_tensor(obj.num).astype("float64") / constant(float(obj.den), "float64")
        return exact.astype(dtype)
    return constant(obj, dtype)
