"""``np.diff(a, n, axis, prepend, append)`` with ``prepend`` or ``append``: NumPy's
definition, a composition of the catalogue's Ops. Each of them is made an array
(``np.asanyarray``: a Python number is one of NumPy's dtype for it, so ``prepend=0.0``
on a float32 ``a`` gives float64, as NumPy does), broadcast where it is 0-d to ``a``'s
shape with 1 along the axis, and joined before (after) ``a`` along the axis; the
catalogue's ``diff`` takes the differences of the whole. ``n == 0`` gives ``a`` as it is,
whatever else is given (``axis=None``, a 0-d ``a``, values to join), as NumPy checks ``n``
first; a Python bool ``n`` or ``axis`` is the int it is, as NumPy's ``operator.index``
reads it. A joined tensor makes ``a`` one too, as NumPy's ``np.asanyarray``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.dim import Dim
from ..types.protocol import NUMPY_OPS, register_numpy
from .params import normalize_axis

_NOT_GIVEN = np._NoValue


def _diffed(diff: Any, concatenate: Any, broadcast_to: Any, as_tensor: Callable[[Any], Any]
            ) -> Callable[..., Any]:
    def numpy_diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = _NOT_GIVEN,
                   append: Any = _NOT_GIVEN) -> Any:
        if not isinstance(n, Variable | Dim) and n == 0:  # (NumPy's truth of it)
            return a
        n, axis = _index(n), _index(axis)
        if prepend is _NOT_GIVEN and append is _NOT_GIVEN:
            return diff(a, n, axis)
        a = a if isinstance(a, Variable) else as_tensor(np.asanyarray(a))
        if not a.type.ndim:
            raise ValueError("diff requires input that is at least one dimensional")
        axis = normalize_axis(axis, a.type.ndim)

        def joined(value: Any) -> list[Any]:
            if value is _NOT_GIVEN:
                return []
            value = value if isinstance(value, Variable) else as_tensor(np.asanyarray(value))
            if not value.type.ndim:
                shape = list(a.shape)
                shape[axis] = 1
                value = broadcast_to(value, tuple(shape))
            return [value]
        parts = joined(prepend) + [a] + joined(append)
        return diff(concatenate(parts, axis=axis), n, axis)
    numpy_diff.__name__ = "diff"
    return numpy_diff


def _index(value: Any) -> Any:
    """``n`` or ``axis`` as NumPy reads it (``operator.index``, ``range``): a Python bool
    is the int it is (``n=True`` is one difference); anything else as given, for the
    catalogue's ``diff`` to check (NumPy's bool scalar is refused there, as by NumPy)."""
    return int(value) if isinstance(value, bool) else value


def register(ops: dict[str, Any], as_tensor: Callable[[Any], Any]) -> None:
    """Make ``np.diff`` take ``prepend`` and ``append`` (``ops``: the catalogue's Ops by
    name; ``as_tensor``: a value as a tensor)."""
    register_numpy(np.diff, _diffed(NUMPY_OPS[np.diff], ops["concatenate"],
                                    ops["broadcast_to"], as_tensor))
