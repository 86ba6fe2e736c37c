"""Builders for reductions over ``axis`` (int, negative, tuple or None) with
``keepdims``."""

from __future__ import annotations

from typing import Any

from ..signature.params import normalize_axes, normalize_axis
from .templates import names, operand, product, where


def reduce(types: tuple, axis: int | tuple[int, ...] | None, keepdims: bool,
           **_: Any) -> dict[str, Any]:
    """``x`` -> ``y`` with the reduced axes dropped (or kept as 1); ``nonempty``
    requires every reduced axis to be non-empty (reductions without identity).
    Like NumPy's ufunc reductions, an int axis 0 or -1 of a 0-d input reduces nothing."""
    (x,) = types
    if x.ndim == 0 and axis in (0, -1) and isinstance(axis, int):
        axis = ()
    return reduce_strict(types, axis, keepdims)


def reduce_strict(types: tuple, axis: int | tuple[int, ...] | None, keepdims: bool,
                  **_: Any) -> dict[str, Any]:
    """:func:`reduce` without the 0-d exception (mean, var, std)."""
    (x,) = types
    axes = normalize_axes(axis, x.ndim)
    dims = names("a", x.ndim)
    kept = [1 if i in axes else d for i, d in enumerate(dims)] if keepdims else \
        [d for i, d in enumerate(dims) if i not in axes]
    return {"x": operand(dims), "y": operand(kept),
            "nonempty": where([f"{dims[i]} >= 1" for i in axes]),
            "params": {"axis": axes}}


def reduce_one(types: tuple, axis: int | None, keepdims: bool, **_: Any) -> dict[str, Any]:
    """Like :func:`reduce` for one axis or None (the flattened tensor): argmax."""
    (x,) = types
    dims = names("a", x.ndim)
    if axis is None:
        out = [1] * x.ndim if keepdims else []
        return {"x": operand(dims), "y": operand(out),
                "nonempty": where([f"{product(dims)} >= 1"])}
    ax = normalize_axis(axis, x.ndim)
    out = [1 if i == ax else d for i, d in enumerate(dims)] if keepdims else \
        [d for i, d in enumerate(dims) if i != ax]
    return {"x": operand(dims), "y": operand(out),
            "nonempty": where([f"{dims[ax]} >= 1"]), "params": {"axis": ax}}


def accumulate(types: tuple, axis: int | None, **_: Any) -> dict[str, Any]:
    """cumsum: same shape along ``axis``; ``None`` flattens first."""
    (x,) = types
    dims = names("a", x.ndim)
    if axis is None:
        return {"x": operand(dims), "y": operand([product(dims)])}
    ax = normalize_axis(axis, x.ndim)
    return {"x": operand(dims), "y": operand(dims), "params": {"axis": ax}}
