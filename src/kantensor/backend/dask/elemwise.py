"""An elementwise node as the very call dask.array makes for it: the same graph, key for key.

A node whose Op is one of NumPy's ufuncs, with no parameters and no axis of its own
(every label shared, none whole, contracted or new), on Dask arrays whose blocks the
ufunc takes as they are (no cast) and gives the inferred dtype, computes
``ufunc(*blocks)`` in every task, as its blockwise (:func:`.blockwise.blockwise`) would.
dask.array computes the same with ``dask.array.core.elemwise``: the Python operator for
``x - y``, ``x / y``, ``-x``, ... (:data:`OPERATORS`, what ``dask.array.Array``'s
methods pass, each calling that ufunc on NumPy blocks), the ufunc itself for
``np.tanh(x)``. Made by that call, the node's layer has dask.array's name and token, so
a graph that is dask.array's program is dask.array's graph key for key, and
``dask.order`` (which breaks ties by the keys) orders it as it orders dask.array's:
the results held at once, and so the peak memory per worker, are dask.array's
(issue 37: ``std``'s ``x - mean`` and ``/ std`` named otherwise were ordered otherwise,
and peaked at 1.14 to 1.21x dask.array's memory).

Anything else (an input that is a constant or of another dtype, a chunk of unknown
size, a ufunc with parameters) is the blockwise, which casts and checks as kantensor
does.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np
from dask.array.core import elemwise as dask_elemwise

from .blockwise import aligned, casts
from .lower import NodeCall

__all__ = ["OPERATORS", "elemwise"]

#: The Python operator whose ``dask.array.Array`` method computes a ufunc, by the ufunc:
#: ``x - y`` is ``elemwise(operator.sub, x, y)``, which on NumPy blocks is
#: ``numpy.subtract``. A ufunc not here is dask.array's own ufunc wrapper's call,
#: ``elemwise(ufunc, ...)``: ``np.tanh(x)`` of a Dask array, and ``np.abs(x)`` (the
#: spelling of array code; ``abs(x)`` would be ``operator.abs``). A kantensor Op made by
#: ``x - y`` or by ``np.subtract(x, y)`` is one node, so one spelling per ufunc: the
#: operator where Python has one.
OPERATORS: dict[np.ufunc, Callable[..., Any]] = {
    np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
    np.true_divide: operator.truediv, np.floor_divide: operator.floordiv,
    np.remainder: operator.mod, np.power: operator.pow, np.negative: operator.neg,
    np.invert: operator.invert,
    np.bitwise_and: operator.and_, np.bitwise_or: operator.or_,
    np.bitwise_xor: operator.xor, np.left_shift: operator.lshift,
    np.right_shift: operator.rshift, np.less: operator.lt, np.less_equal: operator.le,
    np.greater: operator.gt, np.greater_equal: operator.ge, np.equal: operator.eq,
    np.not_equal: operator.ne,
}


def elemwise(call: NodeCall, values: list[Any]) -> list[Any] | None:
    """The node's output as dask.array's own elementwise call (see the module doc), or
    None where that call is not the Op's blockwise task for task."""
    ufunc = call.op.impl
    axes = call.axes
    if not isinstance(ufunc, np.ufunc) or ufunc.nout != 1 or call.params \
            or len(call.out_types) != 1 or call.out_types[0].ndim == 0 or axes is None \
            or axes.whole or axes.contracted or axes.new:
        return None
    if not all(isinstance(x, da.Array) and _known(x) for x in values):
        return None
    values = aligned(call, values, frozenset())
    values, kinds = casts(call, values)
    if any(k is not None for k in kinds):
        return None
    dtype = call.dtype()
    try:
        loop = ufunc.resolve_dtypes(tuple(x.dtype for x in values) + (None,))
    except TypeError:  # no loop for these dtypes (NumPy's error is a TypeError)
        return None
    if loop[-1] != dtype or any(np.dtype(d) != x.dtype for d, x in zip(loop, values,
                                                                      strict=False)):
        return None
    y = dask_elemwise(OPERATORS.get(ufunc, ufunc), *values)
    if y.dtype != dtype or y.shape != call.out_types[0].shape:
        return None  # not NumPy's broadcast of known sizes (never, as far as is known)
    return [y]


def _known(x: Any) -> bool:
    return not any(math.isnan(c) for cs in x.chunks for c in cs)
