"""Builders of NumPy's order statistics and running totals (``signatures/arrange.toml``,
``signatures/reductions.toml``): partition/argpartition, searchsorted and the array
API's cumulative_sum/cumulative_prod, lexsort and the order of a matrix's rows.

``np.partition(x, kth, axis)`` keeps the shape and needs each ``kth`` in bounds of the
axis (``-n <= kth < n``; NumPy raises ValueError "kth(=k) out of bounds" otherwise),
except where the array is empty: NumPy then returns it unchecked, so the where-clause is
``min(size, 1) * (k + 1) <= n`` (``-k`` for a negative ``k``), exact at every size.
``np.searchsorted(a, v)`` gives one int64 index per element of ``v`` into the 1-d ``a``.
``np.cumulative_sum(x, axis, include_initial)`` is ``cumsum`` that needs ``axis`` for more
than one dimension and, with ``include_initial``, starts with the identity (one more
entry along the axis).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...syntax.ast import dim_min
from ...syntax.template import Operands
from ...types.dim import Dim
from ..params import ParamError, normalize_axis
from ..sizes import SizeNames, concrete
from ..templates import dims, rank_error, reads_ranks, size_of, typed


@reads_ranks
def partitioned(types: tuple, kth: tuple[int | Dim, ...], axis: int | None,
                **_: Any) -> dict[str, Any]:
    """partition/argpartition: the same shape along ``axis`` (None flattens first), each
    ``kth`` in bounds where the array is not empty (see the module). A ``kth`` that is
    a size (of either sign) is in bounds where both ``k + 1 <= n`` and ``-k <= n``
    hold (one of them trivially, whatever its sign)."""
    x = types[0]
    a = dims("a", x.ndim)
    if not kth:
        raise ParamError("kth must name at least one position")
    sizes = SizeNames(kth)
    if axis is None:
        n = size_of(a)
        y, params = [n], {"kth": kth, "axis": None}
    else:
        ax = normalize_axis(axis, x.ndim)
        n, y, params = a[ax], a, {"kth": kth, "axis": ax}
    some = dim_min(size_of(a), 1)
    ints = {k for k in kth if not isinstance(k, Dim)}
    fits = [some * (k + 1 if k >= 0 else -k) <= n for k in sorted(ints)
            if k != 0 and k != -1] + ([some <= n] if {0, -1} & ints else [])
    for k in dict.fromkeys(k for k in kth if isinstance(k, Dim)):
        e = sizes.expr(k)
        fits += [some * (e + 1) <= n, some * (0 - e) <= n]
    return {"x": a, "sizes": sizes.patterns(), "y": y, "fits": fits, "params": params}


@reads_ranks
def argpartitioned(types: tuple, kth: tuple[int | Dim, ...], axis: int | None,
                   **_: Any) -> dict[str, Any]:
    """argpartition: as :func:`partitioned`, but like NumPy (and argsort) a 0-d input
    takes axis 0 or -1 and gives one index, as if flattened (np.partition refuses)."""
    flat = types[0].ndim == 0 and axis in (0, -1)
    return partitioned(types, kth, None if flat else axis)


@reads_ranks
def searched(types: tuple, **_: Any) -> dict[str, Any]:
    """searchsorted: ``a`` 1-d, one int64 index per element of ``v`` (``v``'s shape)."""
    a, v = types
    if a.ndim != 1:
        raise rank_error("searchsorted", f"a must be 1-d, got {a.ndim} dimensions")
    n, w = dims("n", 1), dims("v", v.ndim)
    return {"a": [typed(n, "s")], "v": [typed(w, "t")], "y": [typed(w, "int64")]}


@reads_ranks
def accumulated(types: tuple, axis: int | tuple[int] | None, include_initial: bool,
                **_: Any) -> dict[str, Any]:
    """cumulative_sum/cumulative_prod: ``axis`` given for more than one dimension (a 0-d
    input is one element); with ``include_initial`` one more entry along it. An axis
    given as a tuple of one is that axis, but with ``include_initial``, where NumPy
    raises TypeError (it indexes the shape's list by the tuple)."""
    (x,) = types
    if isinstance(axis, tuple):
        if include_initial:
            raise TypeError("list indices must be integers or slices, not tuple (NumPy's "
                            "cumulative functions take an int axis with include_initial)")
        (axis,) = axis
    a = dims("a", x.ndim)
    if x.ndim > 1 and axis is None:
        raise rank_error("cumulative_sum", "for arrays which have more than one dimension "
                         "axis argument is required")
    if x.ndim == 0:
        if axis not in (None, 0, -1):
            normalize_axis(axis, 1)
        y = [2] if include_initial else [1]
        return {"x": a, "y": y, "params": {"axis": 0, "include_initial": include_initial}}
    ax = normalize_axis(0 if axis is None else axis, x.ndim)
    y = list(a)
    if include_initial:
        y[ax] = a[ax] + 1
    return {"x": a, "y": y, "params": {"axis": ax, "include_initial": include_initial}}


@reads_ranks
def lexsorted(types: tuple, axis: int, **_: Any) -> dict[str, Any]:
    """lexsort: keys of one shape (NumPy: "all keys need to be the same shape"), the
    int64 indices of that shape; ``axis`` in bounds (-1 and 0 of 0-d keys too)."""
    if not types:
        raise ParamError("need sequence of keys with len > 0 in lexsort")
    ndim = types[0].ndim
    if any(t.ndim != ndim for t in types):
        raise rank_error("lexsort", "all keys need to be the same shape")
    ax = normalize_axis(axis, max(ndim, 1))
    a = dims("a", ndim)
    return {"inputs": Operands([typed(a) for _ in types]), "y": a,
            "params": {"axis": ax}}


def partition(x: np.ndarray, *sizes: np.ndarray, kth: tuple[int | Dim, ...],
              axis: int | None) -> np.ndarray:
    """``numpy.partition``; the Dims of ``kth`` are read from the lengths of ``sizes``."""
    return np.partition(x, concrete([kth], sizes)[0], axis=axis)


def argpartition(x: np.ndarray, *sizes: np.ndarray, kth: tuple[int | Dim, ...],
                 axis: int | None) -> np.ndarray:
    """``numpy.argpartition``; the Dims of ``kth`` are read from the lengths of
    ``sizes``."""
    return np.argpartition(x, concrete([kth], sizes)[0], axis=axis)


def lexsort(*keys: np.ndarray, axis: int) -> np.ndarray:
    """``numpy.lexsort`` with the keys as separate arguments (the impl convention)."""
    return np.asarray(np.lexsort(keys, axis=axis))


def argsort_rows(x: np.ndarray) -> np.ndarray:
    """The int64 stable order of the rows of each of ``x``'s matrices (its last two
    axes), compared lexicographically (the first column first): ``np.lexsort`` of the
    columns along the rows, the last key first; the rows in order where there is no
    column (no key to sort by: ``np.lexsort`` refuses none)."""
    if x.shape[-1] == 0:
        return np.broadcast_to(np.arange(x.shape[-2], dtype=np.int64), x.shape[:-1]).copy()
    return np.lexsort(np.moveaxis(x, -1, 0)[::-1], axis=-1).astype(np.int64)
