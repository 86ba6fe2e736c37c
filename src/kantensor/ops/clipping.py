"""``np.clip`` (and ``x.clip``) with a bound left out, as real code writes a ReLU
(``np.clip(x, 0, None)``, ``x.clip(min=0)``): the catalogue's ``clip`` takes both bounds,
so one bound is ``np.maximum(x, lo)`` (``np.minimum(x, hi)``), which computes the same
values in the same dtype (``promote(x, lo)``; NaNs stay NaN), and neither bound is a
copy of x, as NumPy 2 gives. NumPy's ``min``/``max`` keywords name the bounds too.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

_CLIP = inspect.signature(lambda a, a_min=None, a_max=None, out=None, *, min=None,  # noqa: A006
                          max=None: None)


def clipped(op: Callable[..., Any]) -> Callable[..., Any]:
    """``np.clip`` of ``op`` (the catalogue's, both bounds given) with NumPy's call: a
    bound of None (or not given) leaves that side unbounded."""
    @functools.wraps(op)
    def clip(*args: Any, **kwargs: Any) -> Any:
        try:
            given = _CLIP.bind(*args, **kwargs).arguments
        except TypeError:
            return op(*args, **kwargs)
        if given.get("out") is not None or \
                "a_min" in given and "min" in given or "a_max" in given and "max" in given:
            return op(*args, **kwargs)  # (NumPy's own errors, or out=: the Op's)
        a = given["a"]
        lo = given.get("a_min", given.get("min"))
        hi = given.get("a_max", given.get("max"))
        if lo is not None and hi is not None:
            return op(a, lo, hi)
        if lo is not None:
            return np.maximum(a, lo)
        return np.copy(a) if hi is None else np.minimum(a, hi)
    return clip
