"""``np.take(x, indices, axis, mode='clip'|'wrap')``: NumPy's definition, the indices
clipped into ``0 .. n - 1`` or wrapped modulo ``n`` (``n`` the axis's length, the size of
the flattened ``x`` for ``axis=None``) in int64 whatever their own integer dtype (NumPy
casts them to intp first, by the rule 'same_kind': floats refused), then taken as
``mode='raise'`` takes them.

Every value is then in bounds where ``n >= 1``; where ``n == 0`` and an index is taken,
NumPy raises ("cannot do a non-empty take from an empty axes"), as the index Op does
(its relation needs a non-empty axis wherever the indices are not empty).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.dim import Dim
from ..types.sizenum import size_tensor
from ..types.variable import as_tensor_variable
from .families.advanced import listed_index
from .params import normalize_axis


def moded(a: Variable, indices: Any, axis: int | None, mode: str) -> Any:
    """The ``indices`` NumPy's ``mode`` makes of ``indices`` on ``a``'s ``axis``: a
    tensor of int64 positions in bounds wherever the axis is not empty."""
    n = np.ravel(a).shape[0] if axis is None else a.shape[normalize_axis(axis, a.type.ndim)]
    if isinstance(indices, list | tuple | range):
        indices = listed_index(indices)
    if isinstance(indices, Dim):
        indices = size_tensor(indices)
    if not isinstance(indices, Variable):
        values = np.asarray(indices)
        indices = as_tensor_variable(values.astype(np.intp) if values.size == 0 else values)
    if np.dtype(indices.type.dtype).kind not in "iub":
        raise TypeError(f"Cannot cast array data from dtype('{indices.type.dtype}') to "
                        "dtype('int64') according to the rule 'same_kind'")
    if indices.type.dtype != "int64":  # (NumPy clips and wraps in intp, whatever theirs)
        indices = indices.astype("int64")
    if mode == "wrap":
        return indices % n
    return np.minimum(np.maximum(indices, 0), n - 1)
