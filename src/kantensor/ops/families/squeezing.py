"""squeeze: its builder (a relation over sizes for ``axis=None``) and implementation."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..params import normalize_axes
from ..templates import builder, names, operand, rank_error, where

__all__ = ["MAX_SQUEEZE_NONE_RANK", "squeeze", "squeezed"]


#: The most axes ``squeeze(axis=None)`` takes: its relation has an alternative per set
#: of axes of size 1 (2**rank of them).
MAX_SQUEEZE_NONE_RANK = 6


@builder
def squeezed(types: tuple, axis: int | tuple[int, ...] | None, **_: Any) -> dict[str, Any]:
    """squeeze: drop axes of size 1. Named axes must have size 1; like NumPy, an int 0 or
    -1 is accepted for a 0-d input.

    ``axis=None`` is a relation over sizes, the same for every input of a rank: one
    alternative per set of dropped axes, those of size 1, every other axis ``!= 1``;
    fewest dropped first, so make_node (which takes the first alternative that fits)
    drops the axes known to be 1 and keeps an unknown one under ``size != 1``, checked
    when the graph runs (``check=True``); a query enumerates both branches. The sizes
    are read only to give the implementation those axes (so that a block of a kept axis
    that happens to be 1 is never dropped)."""
    (x,) = types
    dims = names("a", x.ndim)
    if axis is None:
        if x.ndim > MAX_SQUEEZE_NONE_RANK:
            raise rank_error("squeeze", f"axis=None takes at most {MAX_SQUEEZE_NONE_RANK} "
                             f"dimensions, got {x.ndim}: give the axes to drop")
        alternatives = []
        for k in range(x.ndim + 1):
            for dropped in itertools.combinations(range(x.ndim), k):
                kept = [d for i, d in enumerate(dims) if i not in dropped]
                alternatives.append(
                    operand(1 if i in dropped else d for i, d in enumerate(dims)) + "->"
                    + operand(kept) + where([f"{d} != 1" for d in kept]))
        known = tuple(i for i, d in enumerate(x.shape) if isinstance(d, int) and d == 1)
        return {"sig": " | ".join(alternatives), "params": {"dropped": known}}
    if x.ndim == 0 and isinstance(axis, int) and axis in (0, -1):
        axes: tuple[int, ...] = ()
    else:
        axes = normalize_axes(axis, x.ndim)
    return {"sig": operand(1 if i in axes else d for i, d in enumerate(dims)) + "->"
            + operand(d for i, d in enumerate(dims) if i not in axes),
            "params": {"axis": axes}}


def squeeze(x: np.ndarray, axis: Any = None, dropped: tuple[int, ...] = ()) -> np.ndarray:
    """``numpy.squeeze``; with ``axis=None`` it drops the axes ``dropped`` (those the
    node's type drops, see :func:`squeezed`), never another that is 1 at run time."""
    return np.squeeze(x, axis=dropped if axis is None else axis)
