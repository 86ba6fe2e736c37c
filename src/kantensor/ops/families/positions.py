"""The values of the positions of a mask's elements (``np.nonzero``, ``np.argwhere``,
``np.flatnonzero``), for :mod:`kantensor.ops.families.values`.

``np.nonzero(x)`` is a grid of positions (row ``k`` counts ``0 .. n_k - 1`` along axis
``k``: ``np.cumsum(np.ones_like(x), axis=k) - 1``) stacked and picked by the mask
(``grid[:, x != 0]``, :mod:`kantensor.ops.counted`). For every data, any of row ``k``'s
values is picked (all ones pick them all), so an index made of row ``k`` needs its axis
to be at least ``n_k`` long wherever it is not empty: the for-every-data reading of
``argmax``'s positions. Row ``k``'s own bounds, not the hull of every row's
(``max(n_0, n_1)``), which would refuse sizes where NumPy runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...graph.basic import Variable
from ...types.dim import DimLike
from .indexing import index
from .shape import stack

Range = tuple["DimLike | None", "DimLike | None"]
_UNKNOWN: Range = (None, None)
_FULL = ("slice", None, None, None)


def counted(x: Variable, axis: int | None, range_of: Callable[[Any], Range]) -> Range:
    """``cumsum`` of ones along ``axis`` (of the flattened ``x`` for None): ``1 .. n``,
    n the length of the axis (the size of ``x``); unknown for other values."""
    if range_of(x) != (1, 1):
        return _UNKNOWN
    shape = x.type.shape
    n: DimLike = 1
    for s in shape if axis is None else shape[axis:axis + 1]:
        if s is None:
            return _UNKNOWN
        n = n * s
    return 1, n


def position_row(v: Variable, item: tuple, range_of: Callable[[Any], Range],
                 picked: Callable[[Variable, Any], Range]) -> Range | None:
    """The values of ``v[i]`` or ``v[:, i]`` (``item``) where :func:`_line` knows them;
    None otherwise."""
    if len(item) == 1 and type(item[0]) is int and item[0] >= 0:
        return _line(v, item[0], 0, range_of, picked)
    if len(item) == 2 and item[0] == _FULL and type(item[1]) is int and item[1] >= 0:
        return _line(v, item[1], 1, range_of, picked)
    return None


def _line(v: Variable, i: int, axis: int, range_of: Callable[[Any], Range],
          picked: Callable[[Variable, Any], Range]) -> Range | None:
    """The values of ``v`` at position ``i`` along ``axis`` (0 or 1), where ``v`` is a
    stack along axis 0 (a grid of positions), such a stack's columns picked by a mask
    (``grid[:, mask]``: some of row i's values, any of them for some data), or the
    transpose of a matrix of those (``np.argwhere``): row i's own; None otherwise."""
    node = v.owner
    if node is None or len(node.outputs) != 1:
        return None
    impl, params = getattr(node.op, "impl", None), dict(getattr(node.op, "params", ()))
    if impl is stack and axis == 0 and params.get("axis", 0) == 0 and i < len(node.inputs):
        return range_of(node.inputs[i])
    pattern = params.get("index", ())
    if impl is index and axis == 0 and len(pattern) == 2 and pattern[0] == _FULL and \
            node.inputs[1].type.dtype == "bool":
        row = _line(node.inputs[0], i, 0, range_of, picked)
        return None if row is None else picked(v, lambda: row)
    if impl in (np.transpose, np.permute_dims, np.matrix_transpose) and \
            v.type.ndim == 2 and params.get("axes") in (None, (1, 0)):
        return _line(node.inputs[0], i, 1 - axis, range_of, picked)
    return None
