"""``np.vecdot(a, b, axis=..., axes=..., keepdims=...)`` and ``np.linalg.vecdot(a, b,
axis=...)``: NumPy 2's gufunc ``(n),(n)->()`` with its axis arguments, a composition of
the catalogue's Ops. Each operand's contracted axis is its own (``axis``, or its entry of
``axes``, negative from that operand's own end) and is moved last, where the catalogue's
``vecdot`` contracts it, broadcasting the others; ``keepdims`` leaves it as 1 in the
output where ``axis`` (or the output's entry of ``axes``, else last) says, counted in the
output.
NumPy's errors are raised where NumPy raises them: both ``axis`` and ``axes``, an axis out
of an operand's range (``AxisError``), an operand of no axes (``ValueError``), an output
entry of ``axes`` without ``keepdims``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.protocol import register_numpy
from .params import normalize_axis

_NOT_GIVEN = object()  # (NumPy tells axis=None from no axis: it refuses None)


def _vecdot(vecdot: Any, moveaxis: Any, expand_dims: Any, as_tensor: Callable[[Any], Any]
            ) -> Callable[..., Any]:
    def numpy_vecdot(x1: Any, x2: Any, *, axis: Any = _NOT_GIVEN, axes: Any = _NOT_GIVEN,
                     keepdims: bool = False) -> Any:
        if axis is not _NOT_GIVEN and axes is not _NOT_GIVEN:
            raise TypeError("cannot specify both 'axis' and 'axes'")
        operands = [x if isinstance(x, Variable) else as_tensor(np.asarray(x))
                    for x in (x1, x2)]
        if axes is _NOT_GIVEN:
            k = -1 if axis is _NOT_GIVEN else _index(axis)
            axes = [(k,), (k,)] + ([(k,)] if keepdims else [])
        if not isinstance(axes, list):
            raise TypeError("axes should be a list.")
        axes = [tuple(a) for a in axes]
        if len(axes) == 3 and bool(axes[2]) != bool(keepdims):
            raise np.exceptions.AxisError(
                f"vecdot: operand 2 has {int(bool(keepdims))} core dimensions, but "
                f"{len(axes[2])} dimensions are specified by axes tuple.")
        if len(axes) not in (2, 3):
            raise ValueError("axes should be a list with an entry for all 3 inputs and "
                             "outputs; entries for outputs can only be omitted if none of "
                             "them has core axes.")
        moved = []
        for i, (x, entry) in enumerate(zip(operands, axes, strict=False)):
            if x.type.ndim == 0:
                raise ValueError(f"vecdot: Input operand {i} does not have enough "
                                 "dimensions (has 0, gufunc core with signature "
                                 "(n),(n)->() requires 1)")
            (k,) = entry
            moved.append(moveaxis(x, normalize_axis(_index(k), x.type.ndim), -1))
        y = vecdot(*moved)
        if keepdims:  # (where the output's entry of axes says, else last)
            (k,) = axes[2] if len(axes) == 3 and axes[2] else (-1,)
            y = expand_dims(y, normalize_axis(_index(k), y.type.ndim + 1))
        return y
    numpy_vecdot.__name__ = "vecdot"
    numpy_vecdot.takes = ("axis", "axes", "keepdims")  # type: ignore[attr-defined]
    return numpy_vecdot


def _index(value: Any) -> int:
    """An axis as NumPy's gufuncs read it: an integer, not a bool."""
    if isinstance(value, bool | np.bool_):
        raise TypeError("an integer is required")
    return operator.index(value)


def register(ops: dict[str, Any], as_tensor: Callable[[Any], Any]) -> None:
    """Make ``np.vecdot`` and ``np.linalg.vecdot`` take their axis arguments (``ops``:
    the catalogue's Ops by name; ``as_tensor``: a value as a tensor)."""
    made = _vecdot(ops["vecdot"], ops["moveaxis"], ops["expand_dims"], as_tensor)
    register_numpy(np.vecdot, made)
    register_numpy(np.linalg.vecdot, made)
