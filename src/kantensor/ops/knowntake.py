"""``np.take`` (``x.take``) and ``np.take_along_axis`` of indices whose values the trace
knows: the index ``x[:, ..., indices]``, whose relation checks the values against the
axis (:func:`known_take`), and the values given to take_along_axis's Op (:func:`known_along`);
indices it does not know go to the catalogue's Ops, which read no values. Apart from
:mod:`kantensor.ops.compositions` (which registers them) because reading the indices is
a job of its own.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.dim import Dim
from ..types.dtypes import is_integer
from .arraylike import ndim
from .families.advanced import array_ref, listed_index
from .families.values import made_of_sizes
from .params import normalize_axis
from .paramvalues import ArrayRef
from .takemodes import moded

__all__ = ["known_along", "known_take", "taken"]


_TAKE = inspect.signature(lambda a, indices, axis=None, out=None, mode="raise": None)


def known_take(op: Callable[..., Any]) -> Callable[..., Any]:
    """``np.take(x, indices, axis)`` (and ``x.take``) of indices the trace knows (an int,
    a list, a NumPy array; bools are NumPy's 0 and 1; a graph value whose bounds, reach
    or permuted axis (an argsort's) the index knows,
    :func:`~kantensor.ops.families.advanced.array_ref`, or integers made of
    sizes, :func:`~kantensor.ops.families.values.made_of_sizes`, whose bounds (or an
    assumption on them, where they are not read) ``eval_shape`` states,
    :mod:`kantensor.evalshape.indexvalues`) is the index
    ``x[:, ..., indices]`` on the axis (of the flattened x where ``axis`` is None; a size
    ``n - 1`` or a 0-d index too: one position, as ``x[n - 1]``), whose
    relation checks those values against the axis's size: ``mode="raise"`` raises
    IndexError for one out of bounds, and ``np.take(x, [0, 1])`` held at one element.
    (NumPy skips the check where the other axes are empty, which the index does not:
    refused there, never wrong.) The catalogue's take, which reads no values, computes
    tensor indices."""
    @functools.wraps(op)  # (its signature is the Op's: help and x.take? show it)
    def take(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = _TAKE.bind(*args, **kwargs)
        except TypeError:
            return op(*args, **kwargs)
        a, indices = bound.arguments["a"], bound.arguments["indices"]
        axis, mode = bound.arguments.get("axis"), bound.arguments.get("mode", "raise")
        if mode in ("clip", "wrap") and isinstance(a, Variable) and \
                bound.arguments.get("out") is None:  # NumPy's definition (takemodes)
            return taken(a, moded(a, indices, axis, mode), axis)
        known = isinstance(indices, int | Dim | list | tuple | range | np.ndarray | np.integer)
        if isinstance(indices, Variable):  # np.arange(4) % 2: values a build knows
            ref = array_ref(0, indices)
            known = (ref.bounds is not None or ref.counting or ref.reach is not None or
                     ref.along is not None or
                     is_integer(indices.type.dtype) and made_of_sizes(indices))
        if not known or bound.arguments.get("out") is not None or mode != "raise":
            return op(*args, **kwargs)
        if isinstance(indices, Variable | Dim):  # (a size: a position, as in x[n - 1])
            return taken(a, indices, axis)
        values = listed_index(indices) if isinstance(indices, list | tuple | range) else \
            np.asarray(indices)
        if isinstance(values, Variable):  # a list of sizes: the tensor of their numbers
            return taken(a, values, axis)
        if values.dtype.kind == "b" or values.size == 0:  # ([] is float64: no values)
            values = values.astype(np.intp)
        if values.dtype.kind not in "iu" or not isinstance(a, Variable):
            return op(*args, **kwargs)
        return taken(a, values, axis)
    return take


_ALONG = inspect.signature(lambda arr, indices, axis=-1: None)


def known_along(op: Callable[..., Any]) -> Callable[..., Any]:
    """``np.take_along_axis(arr, indices, axis)`` with the indices' known values (a
    NumPy array's, or a graph value's: :func:`~kantensor.ops.families.advanced.array_ref`)
    as the Op's ``values`` parameter, which its relation checks against the axis."""
    @functools.wraps(op)
    def take_along_axis(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = _ALONG.bind(*args, **kwargs)
        except TypeError:
            return op(*args, **kwargs)
        indices = bound.arguments["indices"]
        ref = array_ref(0, indices) if isinstance(indices, Variable | np.ndarray) else None
        if ref is None or ref == ArrayRef(0):  # (nothing known of the values)
            return op(*args, **kwargs)
        return op(*args, **kwargs, values=(ref,))
    return take_along_axis


def taken(a: Any, indices: Any, axis: int | None) -> Any:
    """``a[:, ..., indices]`` on ``axis`` (of the flattened ``a`` for None; a bool axis
    is refused, as NumPy's take refuses it)."""
    if isinstance(axis, bool | np.bool_):
        raise TypeError("an integer is required for the axis")
    axis = None if axis is None else operator.index(axis)  # (np.array([0]): NumPy raises)
    if axis is None or ndim(a) == 0 and axis in (0, -1):
        return np.ravel(a)[indices]
    axis = normalize_axis(axis, ndim(a))
    return a[(slice(None),) * axis + (indices,)]
