"""``np.full_like(a, fill_value)`` with a fill value of one or more dimensions (a tensor,
a NumPy array, or a nested list or tuple of numbers), and NumPy's ``*_like`` functions
with ``shape=``: NumPy's definitions as compositions of the catalogue's Ops.

NumPy's ``full_like`` is ``np.copyto`` of the fill value into ``empty_like(a, dtype,
shape=shape)``: ``copyto`` broadcasts the fill value to that shape one way, and first
drops its leading axes past the shape's rank where they have length 1
(``np.full_like(np.zeros(()), np.ones((1, 1)))`` runs): those axes squeezed (each must
be 1), the rest broadcast to the shape, cast to ``dtype`` (``a``'s where None, NumPy's
unsafe cast). A list or tuple fill value is the array NumPy makes of it. A 0-d fill
value (or a number) is the catalogue's ``full_like`` as before, or ``full`` of the shape
given. ``zeros_like``, ``ones_like`` and ``empty_like`` with ``shape=`` are ``full`` of
it (``empty_like``'s values are zeros, as without ``shape``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.protocol import NUMPY_OPS, register_numpy
from ..types.variable import as_tensor_variable
from .arraylike import sized_array


def _dtype_of(a: Any, dtype: Any) -> Any:
    """The result's dtype: ``dtype``, else ``a``'s (a tensor's, an array's, a number's
    as NumPy reads it)."""
    if dtype is not None:
        return dtype
    return a.type.dtype if isinstance(a, Variable) else np.asarray(a).dtype


def _shape(shape: Any) -> tuple:
    """NumPy's shape argument: an int (or size, or 0-d array) is one axis; a list, tuple
    or 1-d array of them, the axes."""
    if isinstance(shape, np.ndarray) and shape.ndim == 1:
        return tuple(shape.tolist())
    return tuple(shape) if isinstance(shape, list | tuple) else (shape,)


def _array(fill: Any) -> Any:
    """A list or tuple fill value as the array NumPy makes of it, the tensor of it where
    it holds sizes (:func:`~.arraylike.sized_array`: ``[x.shape[0], 1]``); kept as it is
    where that is no array of numbers (the Op then says what it refuses)."""
    if not isinstance(fill, list | tuple):
        return fill
    sized = sized_array(fill)
    if sized is not None:
        return sized
    try:
        made = np.asarray(fill)
    except (TypeError, ValueError):
        return fill
    return made if made.dtype.kind in "biufc" else fill


def _filled(op: Callable[..., Any], full: Callable[..., Any]) -> Callable[..., Any]:
    def full_like(a: Any, fill_value: Any, dtype: Any = None, shape: Any = None) -> Any:
        """``np.full_like`` (the Op's parameters and ``shape``: NumPy's others are its
        defaults, as the NumPy entry's plan passes them,
        :mod:`kantensor.types.numpyargs`)."""
        fill = _array(fill_value)
        many = isinstance(fill, Variable | np.ndarray) and np.ndim(fill) > 0
        if shape is None and (not many or not isinstance(a, Variable)):
            return op(a, fill, dtype=dtype)
        target = a.shape if shape is None else _shape(shape)
        to = _dtype_of(a, dtype)
        if not many:
            return full(target, fill, dtype=to)
        extra = np.ndim(fill) - len(target)
        fill = as_tensor_variable(fill)  # (an array's broadcast to sizes: a graph's)
        if extra > 0:
            fill = np.squeeze(fill, axis=tuple(range(extra)))
        return np.broadcast_to(fill, target).astype(to)
    return full_like


def _shaped(op: Callable[..., Any], full: Callable[..., Any], value: int
            ) -> Callable[..., Any]:
    def like(a: Any, dtype: Any = None, shape: Any = None) -> Any:
        """``np.zeros_like`` / ``ones_like`` / ``empty_like`` (the Op's parameters and
        ``shape``): ``full`` of the shape given, of ``a``'s dtype unless one is given."""
        if shape is None:
            return op(a, dtype=dtype)
        return full(_shape(shape), value, dtype=_dtype_of(a, dtype))
    like.__name__ = like.__qualname__ = getattr(op, "name", like.__name__)
    return like


def register(ops: Mapping[str, Any]) -> None:
    """Make ``np.full_like`` of a fill value of one or more dimensions the composition,
    and NumPy's ``*_like`` functions with ``shape=`` ``full`` of it."""
    full = ops["full"]
    register_numpy(np.full_like, _filled(NUMPY_OPS[np.full_like], full))
    for fn, value in ((np.zeros_like, 0), (np.ones_like, 1), (np.empty_like, 0)):
        register_numpy(fn, _shaped(NUMPY_OPS[fn], full, value))
