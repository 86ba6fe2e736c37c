"""Reductions and products by Dask's tree algorithms, by the Op's declared kind.

``reduction`` runs the Op's own implementation at every level of the tree (its kind
promises that it combines partial results: sum, prod, max, min, all, any); ``count``
sums partial counts; ``mean``, ``var``, ``std``, ``argmax``, ``argmin``, ``norm``,
``cumsum``, ``cumprod`` and ``product`` (matmul) are Dask's own functions; ``logsumexp``,
``softmax`` and ``log_softmax`` are a tree maximum, then a tree sum of the shifted
exponentials (as kantensor's implementations shift, so nothing overflows).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import dask.array as da
import numpy as np

from .blockwise import axes_of, blockwise, contraction, first, typed
from .lower import NodeCall, known
from .reshaping import reshape

__all__ = ["arg_reduction", "count", "cumulative", "exponentials", "moments", "norm",
           "others_kept", "product", "reduction"]


def _tree(x: Any, fn: Callable[..., Any], axis: tuple[int, ...], keepdims: bool,
          out_dtype: Any, aggregate: Callable[..., Any] | None = None, **kwargs: Any) -> Any:
    """A tree reduction: ``fn(block, axis=, keepdims=True, **kwargs)`` on every block,
    then ``aggregate`` (``fn`` by default) on groups of partial results."""
    chunk = partial(fn, **kwargs) if kwargs else fn
    return da.reduction(x, chunk, aggregate or chunk, axis=axis, keepdims=keepdims,
                        dtype=out_dtype, concatenate=True,
                        meta=np.empty((0,) * (x.ndim if keepdims else x.ndim - len(axis)),
                                      out_dtype))


def others_kept(call: NodeCall, x: Any, y: Any, axis: tuple[int, ...], keepdims: bool = True
                ) -> Any:
    """``y``, made of ``x`` by an algorithm that combines, cuts or moves blocks only
    along ``axis`` (a tree reduction over it, dropping it unless ``keepdims``; a scan,
    flip or diff along it), with the origins of ``x``'s other axes passed on: each keeps
    ``x``'s blocks in order (:meth:`.lower.Session.keeps`); never an axis of ``axis``."""
    others = [a for a in range(x.ndim) if a not in axis]
    call.session.keeps(x, y, {a: a if keepdims else b for b, a in enumerate(others)})
    return y


def reduction(call: NodeCall, values: list[Any]) -> list[Any]:
    x = first(call, values)
    if x.ndim == 0:
        return blockwise(call, values)
    params = call.params
    keepdims = params.pop("keepdims", False)
    params.pop("axis", None)
    params = {k: v for k, v in params.items() if not (k == "initial" and v is None)}
    axis = axes_of(call, x)
    y = _tree(x, call.op.impl, axis, keepdims, call.dtype(), **params)
    return [others_kept(call, values[0], typed(call, y), axis, keepdims)]


def count(call: NodeCall, values: list[Any]) -> list[Any]:
    x = values[0]
    if x.ndim == 0:
        return blockwise(call, values)
    keepdims = call.params.get("keepdims", False)
    axis = axes_of(call, x)
    y = _tree(x, call.op.impl, axis, keepdims, call.dtype(),
              aggregate=partial(np.sum, dtype=call.dtype()))
    return [others_kept(call, x, typed(call, y), axis, keepdims)]


def moments(name: str) -> Callable[[NodeCall, list[Any]], list[Any]]:
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = first(call, values)
        if x.ndim == 0:
            return blockwise(call, values)
        params = call.params
        kwargs: dict[str, Any] = {"axis": axes_of(call, x),
                                  "keepdims": params.get("keepdims", False)}
        if name == "mean":
            kwargs["dtype"] = call.dtype()
        else:
            ddof = call.size_params("ddof")
            ddof = None if ddof is None else ddof[0] or 0
            count = math.prod(call.in_types[0].shape[a] or 0 for a in kwargs["axis"])
            if ddof is None or (ddof > 0 and (count < ddof or None in (
                    call.in_types[0].shape[a] for a in kwargs["axis"]))):
                # NumPy divides by max(n - ddof, 0) (an infinity), Dask by n - ddof (a
                # NaN): Dask's moments only where n >= ddof is known
                return blockwise(call, values)
            kwargs["ddof"] = ddof
        return [others_kept(call, values[0], typed(call, getattr(da, name)(x, **kwargs)),
                        kwargs["axis"], kwargs["keepdims"])]
    return lower


def arg_reduction(name: str) -> Callable[[NodeCall, list[Any]], list[Any]]:
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = values[0]
        if x.ndim == 0:
            return blockwise(call, values)
        axis, keepdims = call.params.get("axis"), call.params.get("keepdims", False)
        fn = getattr(da, name)
        if axis is None and x.ndim > 1:
            # over the flat array: Dask's own axis=None breaks ties by block, not by index
            y = fn(reshape(call, 0, x, (-1,)), axis=0)
            y = y.reshape((1,) * x.ndim) if keepdims else y
        else:
            y = fn(x, axis=axis, keepdims=keepdims)
        return [others_kept(call, x, typed(call, y), axes_of(call, x), keepdims)]
    return lower


def norm(call: NodeCall, values: list[Any]) -> list[Any]:
    x = first(call, values)
    if x.ndim == 0:
        return blockwise(call, values)
    axis, order = call.params.get("axis"), call.params.get("ord")
    keepdims = call.params.get("keepdims", False)
    if not issubclass(x.dtype.type, np.inexact):  # (NumPy's norm: x.astype(float), so
        x = x.astype(np.float64)  # bfloat16, float8 and float4 computed in float64)
    if order is None and axis is None and x.ndim > 2:  # (NumPy's: the flat 2-norm;
        y = abs(x)  # Dask's norm refuses more than two axes without one)
        y = da.sqrt(da.sum(y * y, keepdims=keepdims))
    else:
        y = da.linalg.norm(x, ord=order, axis=axis, keepdims=keepdims)
    return [others_kept(call, values[0], typed(call, y), axes_of(call, x), keepdims)]


def _shifted(call: NodeCall, x: Any) -> tuple[Any, Any, tuple[int, ...]]:
    """``(m, sum(exp(x - m)))`` along the Op's axes, both kept as size-1 axes: ``m`` the
    maximum (0 where it is not finite), each a tree reduction."""
    axis = axes_of(call, x)
    m = _tree(x, np.max, axis, True, x.dtype, initial=-np.inf)
    m = da.where(da.isfinite(m), m, 0).astype(x.dtype)
    e = da.exp(x - m)
    return m, e, axis


def exponentials(name: str) -> Callable[[NodeCall, list[Any]], list[Any]]:
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = first(call, values)
        if x.ndim == 0:
            return blockwise(call, values)
        m, e, axis = _shifted(call, x)
        s = da.sum(e, axis=axis, keepdims=True, dtype=x.dtype)
        if name == "softmax":
            return [others_kept(call, values[0], typed(call, e / s), axis, True)]
        with np.errstate(divide="ignore"):
            lse = da.log(s) + m
        if name == "log_softmax":
            return [others_kept(call, values[0], typed(call, x - lse), axis, True)]
        keepdims = call.params.get("keepdims", False)
        if not keepdims:
            lse = lse.squeeze(axis=axis)
        return [others_kept(call, values[0], typed(call, lse), axis, keepdims)]
    return lower


def product(call: NodeCall, values: list[Any]) -> list[Any]:
    if call.out_types[0].dtype == "bool" or any(
            getattr(x, "ndim", 0) == 0 for x in values):
        return contraction(call, values)  # matmul's product of booleans is logical
    dtype = call.dtype()
    values = _contracted_sizes(call, values)
    y = typed(call, da.matmul(*(x.astype(dtype) for x in values)))
    _matmul_kept(call, *values, y)
    return [y]


def _matmul_kept(call: NodeCall, a: Any, b: Any, y: Any) -> None:
    """The origins of ``a @ b``'s axes (Dask's matmul is blockwise over them, each
    block of ``a``'s rows and ``b``'s columns kept in order): ``a``'s rows, ``b``'s
    columns, and each batch axis from the input of more than one row there (both:
    one origin, :func:`_contracted_sizes`)."""
    core = (a.ndim >= 2) + (b.ndim >= 2)
    batch = y.ndim - core
    for x, rows in ((a, a.ndim >= 2 and b.ndim >= 2), (b, False)):
        if not isinstance(x, da.Array) or x.ndim < 2:
            continue
        own = x.ndim - 2
        axes = {k: batch - own + k for k in range(own) if x.shape[k] != 1}
        if x is a:
            axes[own] = y.ndim - 1 - rows
        else:
            axes[own + 1] = y.ndim - 1
        call.session.keeps(x, y, axes)


def _contracted_sizes(call: NodeCall, values: list[Any]) -> list[Any]:
    """matmul's inputs with their sizes resolved (or refused) where the axes it pairs
    (the contracted ones, and the batch axes it broadcasts) have unknown chunks that are
    not one array's blocks: Dask rechunks the contracted ones to each other's, which
    unknown sizes refuse ("Chunks must be unchanging along dimensions with missing
    values"), and pairs the batch blocks one with one by their count, sizes unseen."""
    a, b = values
    if not (isinstance(a, da.Array) and isinstance(b, da.Array)):
        return values
    batch = [(a.ndim - 3 - k, b.ndim - 3 - k) for k in range(min(a.ndim, b.ndim) - 2)]
    if _paired(call, a, a.ndim - 1, b, max(b.ndim - 2, 0), False) and \
            all(_paired(call, a, ka, b, kb, True) for ka, kb in batch):
        return values
    why = " and must be aligned with another input's"
    return [call.session.sizes(call, i, x, why) for i, x in enumerate(values)]


def _paired(call: NodeCall, a: Any, ka: int, b: Any, kb: int, broadcast: bool) -> bool:
    """Whether axis ``ka`` of ``a`` and ``kb`` of ``b`` pair as they are: both of known
    sizes (Dask unifies them), one a known size 1 of a ``broadcast`` (batch) axis, or
    both unknown and one array's blocks (as :func:`.blockwise.aligned` says)."""
    ca, cb = a.chunks[ka], b.chunks[kb]
    if known(ca) and known(cb) or broadcast and 1 in (a.shape[ka], b.shape[kb]):
        return True
    return len(ca) == len(cb) and not known(ca) and not known(cb) \
        and call.session.origin(a, ka) == call.session.origin(b, kb)


def cumulative(name: str) -> Callable[[NodeCall, list[Any]], list[Any]]:
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        x = values[0]
        axis = call.params.get("axis")
        if axis is None:
            x, axis = reshape(call, 0, x, (-1,)), 0
        if x.ndim == 0:
            return blockwise(call, values)
        if len(x.chunks[axis % x.ndim]) > 1:  # Dask's scan over several chunks carries
            # a block of every other axis's sizes (np.full_like of its chunks: a nan
            # fails in the task, "'float' object cannot be interpreted as an integer")
            x = call.session.sizes(call, 0, x, " (a scan over several chunks carries "
                                   "blocks of the other axes' sizes)")
        y = typed(call, getattr(da, name)(x, axis=axis, dtype=call.dtype()))
        return [others_kept(call, x, y, (axis % x.ndim,), True)]
    return lower
