"""ONNX's GatherND and ScatterND: index tuples, one column per indexed axis, whose
columns fit their axes where their values are known (constant indices) or their
intervals are (indices computed from sizes: :func:`kantensor.onnx.intervals.columns_of`);
indices that are data need only an entry in each indexed axis (:func:`.indexing.some_fit`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ops.params import ParamError
from ...ops.sizes import SizeNames
from ...ops.templates import (
    alternative,
    dims,
    reads_known_sizes,
    reads_ranks,
    shifted,
    signed,
    size_of,
    typed,
)
from ...syntax.alternative import Alternative
from ...syntax.ast import Clause, DimVar
from ..intervals import stated
from ..shared import NotKnown
from .indexing import some_fit

__all__ = ["build_gather_nd", "build_scatter_nd", "gather_nd", "scatter_nd"]


@reads_known_sizes
def build_gather_nd(types: tuple, batch_dims: int = 0, indices_value: Any = None,
                    indices_columns: Any = None, **_: Any) -> dict[str, Any]:
    """GatherND: the indices' leading axes, then the data's axes after the ``b`` batch
    axes and the ``q`` indexed ones (``q``, the indices' last size, must be known). The
    first ``b`` axes of data and indices are equal (ONNX's rule; onnxruntime checks that
    the indices' batch count is a multiple of the data's), ``b`` is less than both ranks
    and ``b + q`` at most data's rank. Where the indices are constant
    (``indices_value``), each of their columns fits its axis (:func:`_columns_fit`); so
    too where the interval of each column is known (``indices_columns``, indices
    computed from sizes: :func:`kantensor.onnx.intervals.columns_of`); where they are
    data, each indexed axis has an entry, or there are no index tuples
    (:func:`some_fit`)."""
    x, i = types[:2]  # then the inputs carrying the sizes of the columns' intervals
    b = batch_dims
    if x.ndim < 1 or i.ndim < 1:
        raise ParamError(f"data and indices must have 1 axis or more, got {x.ndim} and "
                         f"{i.ndim}")
    if not 0 <= b < min(x.ndim, i.ndim):
        raise ParamError(f"batch_dims {b} must be less than the ranks of data ({x.ndim}) "
                         f"and indices ({i.ndim})")
    q = i.shape[-1]
    if not isinstance(q, int):
        raise NotKnown("the indices' last axis must have a known size")
    if b + q > x.ndim:
        raise ParamError(f"the indices' last size {q} is larger than data's {x.ndim} axes "
                         f"less batch_dims {b}")
    a, idx = dims("a", x.ndim), dims("i", i.ndim)
    count = [*a[:b], *idx[b:-1]]  # (the batch axes, then the index tuples' count's)
    inputs = [typed(a, "T"), typed([*count, q], "int64")]
    out = [typed([*count, *a[b + q:]], "T")]
    if indices_value is None and stated(indices_columns) and len(indices_columns) == 2 * q:
        sig = _intervals_fit(inputs, out, a[b:b + q], count, indices_columns, a[b + q:])
    else:
        sig = _columns_fit(inputs, out, a[b:b + q], count, indices_value, a[b + q:])
    return {"sig": sig, "params": {"indices_value": None}}


def _intervals_fit(inputs: list, out: list, axes: Sequence[DimVar], idx: Sequence[Any],
                   columns: tuple, unread: Sequence[DimVar]) -> list[Alternative]:
    """The alternatives of index tuples into ``axes`` whose columns' value intervals are
    known (``columns``, flattened: ``lo0, end0, ...``, each column's ends attained where
    there are tuples, over named sizes): each column fits its axis (``end <= d``, ``lo
    >= -d``: exact, as onnxruntime checks every index); or there are no tuples
    (``idx``, the dims whose product counts them, has a 0); or the slice each tuple
    reads (``unread``, its axes) is empty, which onnxruntime does not check (as
    :func:`_columns_fit`)."""
    sizes = SizeNames(columns)
    inputs = [*inputs, *sizes.patterns()]
    clauses: list[Clause] = []
    for d, lo, end in zip(axes, columns[0::2], columns[1::2], strict=True):
        clauses.append(signed(sizes.expr(end)) <= d)
        if not (isinstance(lo, int) and lo >= 0):
            low = sizes.expr(lo)
            clauses.append((shifted(d, low) if isinstance(low, int) else low + d) >= 0)
    fits = [alternative(inputs, out, clauses)]
    if idx:
        fits.append(alternative(inputs, out, [size_of(idx).eq(0)]))
    if unread:
        fits.append(alternative(inputs, out, [size_of(unread).eq(0)]))
    return fits


def _columns_fit(inputs: list, out: list, axes: Sequence[DimVar], idx: Sequence[Any],
                 value: tuple[int, ...] | None, unread: Sequence[DimVar] = ()
                 ) -> list[Alternative]:
    """The alternatives of index tuples into ``axes`` (GatherND's, ScatterND's): where
    their values are constant (``value``, row-major, one column per axis), each column's
    least ``lo`` and greatest ``hi`` value are known, and ``-d <= lo`` and ``hi < d``
    for its axis' size ``d`` is what onnxruntime checks of each index (exact, where an
    interval over the whole tensor would ask every axis to hold every column's values);
    no tuples, no condition; nor where the slice each tuple reads (``unread``, its
    axes: GatherND's) is empty, which onnxruntime's GatherND does not check. Where the
    indices are data: :func:`some_fit`, or that empty slice."""
    if value is None:
        fits = some_fit(inputs, out, [], axes, idx)
        if axes and unread:
            fits.append(alternative(inputs, out, [size_of(unread).eq(0)]))
        return fits
    q = len(axes)
    clauses = [] if not value else [
        d >= max(max(value[k::q]) + 1, -min(value[k::q])) for k, d in enumerate(axes)]
    fits = [alternative(inputs, out, clauses)]
    if clauses and unread:
        fits.append(alternative(inputs, out, [size_of(unread).eq(0)]))
    return fits


def gather_nd(x: np.ndarray, i: np.ndarray, *sizes: np.ndarray, batch_dims: int = 0,
              **_: Any) -> np.ndarray:
    i = i.astype(np.int64)
    if i.shape[-1] == 0:  # no axis indexed: data's (batch's) elements for each index
        b, mid = batch_dims, i.shape[batch_dims:-1]
        x = x.reshape(*x.shape[:b], *(1,) * len(mid), *x.shape[b:])
        return np.broadcast_to(x, (*i.shape[:-1], *x.shape[b + len(mid):])).copy()
    if batch_dims == 0:
        return x[tuple(np.moveaxis(i, -1, 0))]
    batch = int(np.prod(x.shape[:batch_dims]))
    xs = x.reshape(batch, *x.shape[batch_dims:])
    js = i.reshape(batch, *i.shape[batch_dims:])
    out = np.stack([a[tuple(np.moveaxis(b, -1, 0))] for a, b in zip(xs, js, strict=True)])
    return out.reshape(*i.shape[:-1], *x.shape[batch_dims + i.shape[-1]:])


@reads_ranks
def build_scatter_nd(types: tuple, indices_value: Any = None, **_: Any) -> dict[str, Any]:
    """ScatterND: ``updates.shape == indices.shape[:-1] + data.shape[q:]``, where ``q``,
    the indices' last size, is at most data's rank. The ranks decide ``q`` (updates has
    ``rank(indices) - 1 + rank(data) - q`` axes), so the relation states it even where
    that size is unknown; data and indices have one axis or more (as onnxruntime checks).
    Constant indices fit their axes column by column, data ones need an entry in each
    indexed axis or no index tuples (:func:`_columns_fit`)."""
    x, i, u = types
    if x.ndim < 1 or i.ndim < 1:
        raise ParamError(f"data and indices must have 1 axis or more, got {x.ndim} and "
                         f"{i.ndim}")
    q = i.ndim - 1 + x.ndim - u.ndim
    if not 0 <= q <= x.ndim:
        raise ParamError(f"updates has {u.ndim} axes: with indices of {i.ndim} and data of "
                         f"{x.ndim} it must have {i.ndim - 1} to {i.ndim - 1 + x.ndim} "
                         "(indices.shape[:-1] + data.shape[indices.shape[-1]:])")
    a, idx = dims("a", x.ndim), dims("i", i.ndim - 1)
    return {"sig": _columns_fit([typed(a, "T"), typed([*idx, q], "int64"),
                                 typed([*idx, *a[q:]], "T")], [typed(a, "T")], a[:q], idx,
                                indices_value),
            "params": {"indices_value": None}}


def scatter_nd(x: np.ndarray, i: np.ndarray, u: np.ndarray, *, reduction: str = "none",
               **_: Any) -> np.ndarray:
    y = x.copy()
    idx = tuple(np.moveaxis(i, -1, 0))
    ufunc = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
    if reduction == "none":
        y[idx] = u
    else:
        ufunc[reduction].at(y, idx, u)
    return y
