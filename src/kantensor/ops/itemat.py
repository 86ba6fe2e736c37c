"""``x.item(i)`` and ``x.item(i, j, ...)``: NumPy's element at a flat position or at one
position per axis, each an int or a size (``x.item(len(y) - 1)``).

``x.item()`` is the catalogue's ``item`` (a tensor of one element). With positions it is
NumPy's definition: the element of the flattened ``x`` at ``i`` (``-x.size <= i <
x.size``), or ``x[i, j, ...]`` with one position per axis (NumPy's ValueError "incorrect
number of indices" otherwise), which the index Ops type and bound-check; the result, a
0-d tensor, is the ``item`` of it (a Python scalar in NumPy).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.dim import Dim


def item_at(op: Callable[..., Any]) -> Callable[..., Any]:
    """The ``item`` method (``op``, the catalogue's) with NumPy's positions."""
    @functools.wraps(op)
    def item(x: Any, *args: Any) -> Any:
        if not args:
            return op(x)
        if len(args) == 1 and isinstance(args[0], tuple):
            args = args[0]
        for a in args:
            _position(a)
        if len(args) == 1:
            return op(np.ravel(x)[args[0]])
        if len(args) != x.type.ndim:
            raise ValueError("incorrect number of indices for array")
        return op(x[tuple(args)])
    return item


def _position(a: Any) -> None:
    """Refuse what NumPy's ``item`` refuses as a position: anything but an integer (an
    int, a size, an integer tensor: a graph's index checks its dtype and rank)."""
    if isinstance(a, bool | np.bool_):
        raise TypeError("an integer is required")
    if not isinstance(a, int | np.integer | Dim | Variable | np.ndarray):
        raise TypeError(f"'{type(a).__name__}' object cannot be interpreted as an integer")
