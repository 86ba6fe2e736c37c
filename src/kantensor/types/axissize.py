"""``x.shape[axis]`` where that size is unknown when the graph is built: the Dim keyed by
:class:`AxisSize`, "the length of that axis of that variable", which a size parameter
takes from x when the graph runs."""

from __future__ import annotations

from typing import Any

from .dim import unknown
from .type import ShapeEntry


class AxisSize:
    """The key of the Dim that ``x.shape[axis]`` is when that size is unknown when the
    graph is built: "the length of axis ``axis`` of the variable ``variable``". Two
    keys are equal when they name the same axis of the same variable (by identity), so
    ``x.shape[0] == x.shape[0]`` and ``x.shape[0] != y.shape[0]``. A size parameter
    holding such a Dim takes its value from x when the graph runs (see
    :mod:`kantensor.ops.sizes`)."""

    __slots__ = ("variable", "axis")

    def __init__(self, variable: Any, axis: int):
        self.variable = variable
        self.axis = axis

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, AxisSize) and self.variable is other.variable
                and self.axis == other.axis)

    def __hash__(self) -> int:
        return hash((id(self.variable), self.axis))

    def __reduce__(self) -> tuple:
        return AxisSize, (self.variable, self.axis)

    def __str__(self) -> str:
        name = getattr(self.variable, "name", None)
        return f"{name}.shape[{self.axis}]" if name else f"shape[{self.axis}]"

    __repr__ = __str__


def axis_size(variable: Any, axis: int) -> ShapeEntry:
    """``variable.shape[axis]``: its static size (an int or a Dim), or when that is
    unknown, the Dim keyed by :class:`AxisSize` (the size it will have)."""
    entry = variable.type.shape[axis]
    return unknown(AxisSize(variable, axis % variable.type.ndim)) if entry is None else entry
