"""Functional updates at an index: ``x.at[i].set(v)``, ``x.at[i].add(v)``.

A graph has no memory to write into, so an update is a new value: ``x`` with the
elements at ``index`` replaced by (or increased by) ``v``. The relation keeps x's type
and states that ``v`` broadcasts to the shape of ``x[index]`` (NumPy's rule for an
assignment: ``v``'s axes, aligned on the right, are 1 or that axis's size; extra leading
axes of ``v`` are 1). The shape of ``x[index]`` is the one the ``getitem`` and ``index``
templates write (:func:`kantensor.ops.families.indexing.selection`,
:func:`kantensor.ops.families.advanced.advanced_selection`). The value is cast to x's dtype, as
NumPy's assignment casts.

``x[i] = v``, ``x[i] += v``, ``np.add.at`` and ``out=`` during ``eval_shape`` build these
(see :mod:`kantensor.evalshape`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...syntax.ast import Clause, DimVar
from ...types.dim import Dim
from ..paramvalues import ArrayRef
from ..templates import alternative, dims, rank_error, reads_ranks, typed
from .advanced import advanced_selection, split_index
from .indexing import array_key, as_key, readings, resolve, selection, sized_bounds


def fits_into(value: list[DimVar], target: list) -> list[Clause]:
    """Where-clauses: a value of dims ``value`` broadcasts to the shape ``target``."""
    extra = len(value) - len(target)
    clauses = [v.eq(1) for v in value[:max(extra, 0)]]
    for v, t in zip(value[max(extra, 0):], target[max(-extra, 0):], strict=True):
        clauses.append(((v - 1) * (v - t)).eq(0))
    return clauses


def one_element(index: tuple, ndim: int, arrays: tuple = ()) -> bool:
    """Whether ``index`` picks one element of a tensor of ``ndim`` axes by integers alone
    (ints, sizes, 0-d integer index arrays of ``arrays``' types): NumPy then assigns a
    scalar, and a value of one axis or more, even of one element, raises ValueError
    ("setting an array element with a sequence"), where ``x[0:1, 0]`` or ``x[..., 0, 0]``
    would broadcast it."""
    items = index if isinstance(index, tuple) else (index,)
    return len(items) == ndim and all(
        isinstance(i, int | Dim) and not isinstance(i, bool) or
        isinstance(i, ArrayRef) and i.position < len(arrays) and
        arrays[i.position].ndim == 0 and arrays[i.position].dtype != "bool" for i in items)


def _scalar_only(v: Any, index: tuple, ndim: int, arrays: tuple = ()) -> None:
    if v.ndim and one_element(index, ndim, arrays):
        raise rank_error("setitem", f"setting an array element with a sequence: the index "
                                    f"picks one element, the value has rank {v.ndim}")


@reads_ranks
def basic_update(types: tuple, index: tuple, **_: Any) -> dict[str, Any]:
    """``x, v`` -> ``x`` for a basic index: one alternative per reading of the size
    bounds' signs (:func:`~kantensor.ops.families.indexing.readings`); a value of one
    axis or more at one element is NumPy's error (:func:`one_element`)."""
    x, v = types[0], types[1]
    _scalar_only(v, index, x.ndim)
    value = dims("v", v.ndim)
    out = []
    for reading in readings(sized_bounds(index)):
        a, selected, clauses, sizes = selection(x.ndim, index, reading)
        out.append(alternative([typed(a, "t"), typed(value, "w"), *sizes.patterns()],
                               [typed(dims("y", x.ndim), "t")],
                               clauses + fits_into(value, selected) + same(x.ndim)))
    return {"sig": out}


def same(ndim: int) -> list[Clause]:
    """``y_i == a_i``: the output has x's shape, under dims of its own (an update is not
    elementwise along x's axes: a backend that splits shared axes into blocks must not
    split these)."""
    return [y.eq(a) for y, a in zip(dims("y", ndim), dims("a", ndim), strict=True)]


@reads_ranks
def advanced_update(types: tuple, index: tuple, **_: Any) -> dict[str, Any]:
    """``x, v, *arrays`` -> ``x`` for an advanced index (0-d integer arrays alone at
    every axis pick one element: :func:`one_element`)."""
    x, v = types[0], types[1]
    _scalar_only(v, index, x.ndim, types[2:])
    value = dims("v", v.ndim)
    out = []
    for reading in readings(sized_bounds(index)):
        operands, selected, clauses, sizes = advanced_selection(x, types[2:], index, reading)
        out.append(alternative([operands[0], typed(value, "w"), *operands[1:],
                                *sizes.patterns()], [typed(dims("y", x.ndim), "t")],
                               clauses + fits_into(value, selected) + same(x.ndim)))
    return {"sig": out}


def setitem(x: np.ndarray, value: np.ndarray, *sizes: np.ndarray, index: tuple
            ) -> np.ndarray:
    """A copy of x with ``x[index] = value``."""
    y = np.array(x, copy=True)
    y[as_key(resolve(index, sizes))] = value
    return y


def additem(x: np.ndarray, value: np.ndarray, *sizes: np.ndarray, index: tuple
            ) -> np.ndarray:
    """A copy of x with ``x[index] += value`` (cast to x's dtype)."""
    y = np.array(x, copy=True)
    key = as_key(resolve(index, sizes))
    y[key] = y[key] + value
    return y


def index_set(x: np.ndarray, value: np.ndarray, *arrays: np.ndarray, index: tuple
              ) -> np.ndarray:
    """A copy of x with ``x[index] = value`` for an advanced index."""
    y = np.array(x, copy=True)
    y[array_key(arrays, index)] = value
    return y


def index_add(x: np.ndarray, value: np.ndarray, *arrays: np.ndarray, index: tuple
              ) -> np.ndarray:
    """A copy of x with ``np.add.at(x, index, value)``: repeated indices add up."""
    y = np.array(x, copy=True)
    np.add.at(y, array_key(arrays, index), np.asarray(value).astype(y.dtype, copy=False))
    return y


def update_operator(basic: Callable[..., Any], advanced: Callable[..., Any]
                    ) -> Callable[[Any, Any, Any], Any]:
    """``update(x, index, value)``: the basic Op for a basic index, else the advanced
    one with the index's arrays as inputs."""
    def update(x: Any, index: Any, value: Any) -> Any:
        arrays, pattern = split_index(index)
        if pattern is None:
            return basic(x, value, index=index)
        return advanced(x, value, *arrays, index=pattern)
    return update
