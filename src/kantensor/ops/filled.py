"""``np.full_like(a, fill_value)`` with a fill value of one or more dimensions: NumPy's
definition, ``np.copyto`` of the fill value into an array of ``a``'s shape, as a
composition of the catalogue's Ops.

``copyto`` broadcasts the fill value to ``a``'s shape one way, and first drops its
leading axes past ``a``'s rank where they have length 1 (``np.full_like(np.zeros(()),
np.ones((1, 1)))`` runs): those axes squeezed (each must be 1), the rest broadcast to
``a``'s shape, cast to ``dtype`` (``a``'s where None, NumPy's unsafe cast). A 0-d fill
value (or a number) is the catalogue's ``full_like`` as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.protocol import NUMPY_OPS, register_numpy


def _filled(op: Callable[..., Any]) -> Callable[..., Any]:
    def full_like(a: Any, fill_value: Any, dtype: Any = None) -> Any:
        """``np.full_like`` (the Op's parameters: NumPy's others are its defaults, as the
        NumPy entry's plan passes them, :mod:`kantensor.types.numpyargs`)."""
        fill = fill_value
        if not isinstance(fill, Variable | np.ndarray) or not np.ndim(fill) or \
                not isinstance(a, Variable):
            return op(a, fill_value, dtype=dtype)
        extra = np.ndim(fill) - np.ndim(a)
        if extra > 0:
            fill = np.squeeze(fill, axis=tuple(range(extra)))
        return np.broadcast_to(fill, a.shape).astype(a.dtype if dtype is None else dtype)
    return full_like


def register() -> None:
    """Make ``np.full_like`` of a fill value of one or more dimensions the composition."""
    register_numpy(np.full_like, _filled(NUMPY_OPS[np.full_like]))
