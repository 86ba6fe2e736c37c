"""squeeze: its builder (a relation over sizes for ``axis=None``) and implementation."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ...syntax.errors import RenderingLimit
from ..params import normalize_axes
from ..templates import alternative, dims, reads_known_sizes

__all__ = ["MAX_SQUEEZE_NONE_UNKNOWN", "squeeze", "squeezed"]


#: The most axes of unknown size ``squeeze(axis=None)`` takes: its relation has an
#: alternative per set of those axes dropped (2**n of them; 256 render in about 0.3 s,
#: once per type).
MAX_SQUEEZE_NONE_UNKNOWN = 8


@reads_known_sizes
def squeezed(types: tuple, axis: int | tuple[int, ...] | None, **_: Any) -> dict[str, Any]:
    """squeeze: drop axes of size 1. Named axes must have size 1; like NumPy, an int 0 or
    -1 is accepted for a 0-d input.

    ``axis=None`` is a relation over sizes: an axis known to be 1 is dropped, one known
    to be another size kept, and for the axes of unknown size one alternative per set of
    them dropped, those of size 1, every other ``!= 1``; fewest dropped first, so
    make_node (which takes the first alternative that fits) keeps an unknown axis under
    ``size != 1``, checked when the graph runs (``check=True``); a query enumerates both
    branches. The text is the relation for every input with the sizes it knows (a query
    renders it from the sizes it knows too, see :func:`reads_known_sizes`), so ranks are
    not capped: only the axes of unknown size, at :data:`MAX_SQUEEZE_NONE_UNKNOWN`
    (more is a :class:`~kantensor.syntax.errors.RenderingLimit`, which a query raises
    rather than answer without those types). The implementation gets the axes the
    node's type drops (so that a block of a kept axis that happens to be 1 is never
    dropped) and those it keeps under ``!= 1`` (``kept``): a value with one of them 1 is
    refused when the graph runs, where NumPy would drop it and give another rank."""
    (x,) = types
    a = dims("a", x.ndim)
    if axis is None:
        ones = {i for i, d in enumerate(x.shape) if isinstance(d, int) and d == 1}
        open_ = [i for i, d in enumerate(x.shape) if not isinstance(d, int)]
        if len(open_) > MAX_SQUEEZE_NONE_UNKNOWN:
            raise RenderingLimit(
                f"squeeze: axis=None on {len(open_)} axes of unknown size: its relation "
                f"has an alternative per set of them dropped (2**{len(open_)}), more than "
                f"kantensor writes (at most {MAX_SQUEEZE_NONE_UNKNOWN} axes of unknown "
                "size); give the axes to drop (axis=...) or more of the sizes")
        alternatives = []
        for k in range(len(open_) + 1):
            for chosen in itertools.combinations(open_, k):
                dropped = ones | set(chosen)
                kept = [i for i in range(x.ndim) if i not in dropped]
                alternatives.append(alternative(
                    [[1 if i in dropped else d for i, d in enumerate(a)]], [[a[i] for i in kept]],
                    [a[i].ne(1) for i in kept if i in open_]))
        return {"sig": alternatives,
                "params": {"dropped": tuple(sorted(ones)), "kept": tuple(open_)}}
    if x.ndim == 0 and isinstance(axis, int) and axis in (0, -1):
        axes: tuple[int, ...] = ()
    else:
        axes = normalize_axes(axis, x.ndim)
    return {"sig": alternative([[1 if i in axes else d for i, d in enumerate(a)]],
                               [[d for i, d in enumerate(a) if i not in axes]]),
            "params": {"axis": axes}}


def squeeze(x: np.ndarray, axis: Any = None, dropped: tuple[int, ...] = (),
            kept: tuple[int, ...] = ()) -> np.ndarray:
    """``numpy.squeeze``; with ``axis=None`` it drops the axes ``dropped`` (those the
    node's type drops, see :func:`squeezed`) and refuses a value whose axis in ``kept``
    (kept by the type under ``size != 1``) is 1: NumPy would drop it too, so the value
    is NumPy's, or an error, never another rank than the type's."""
    if axis is None:
        for i in kept:
            if x.shape[i] == 1:
                raise ValueError(
                    f"squeeze(axis=None): axis {i} of the value {x.shape} has size 1, but "
                    "the graph was built with that size unknown and kept it (the "
                    f"condition a{i} != 1); NumPy would drop it, giving a result of "
                    f"another rank. Give the axes to drop (axis=...) or the size")
        return np.squeeze(x, axis=dropped)
    return np.squeeze(x, axis=axis)
