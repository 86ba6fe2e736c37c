"""ONNX's reduction family (``onnx/defs/reduction``): ReduceX and ArgMax/ArgMin
(``signatures/onnx/reduction.toml``), each op's builder beside its implementation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..ops.params import ParamError, normalize_axes, normalize_axis
from ..ops.sizes import SizeNames
from ..ops.templates import dims, reads_ranks, typed
from ..syntax.ast.dims import as_expr, dim_min
from ..types.numpy_dtypes import extreme_value
from .floatsizes import float_sizes
from .shared import RANK_BY_VALUES, SIZE_MAX, SIZE_MIN, constant_ints, known_ints, size_reduce


@reads_ranks
def build_reduce(types: tuple, keepdims: int, axes_value: Any = None, axes: Any = None,
                 noop_with_empty_axes: int = 0, given: tuple = (0,),
                 axes_length: int | None = None, **_: Any) -> dict[str, Any]:
    """ReduceX: the axes from the input (opset 18, ReduceSum 13) or the attribute; none
    means all, or none at all with ``noop_with_empty_axes``. The Op it resolves holds the
    axes it picked (``axes``), so rendering it again (refine, query) needs no value.
    ``axes_length``: the axes' static length where their value is not known (a graph
    input ``int64[1]``, ``Unsqueeze`` of a Loop's iteration number)."""
    x = types[0]
    if 1 in given and axes is None and types[1].ndim != 1:  # (onnxruntime: at every size)
        raise ParamError(f"axes must have 1 axis, got {types[1].ndim}")
    if axes is None and axes_value is None and axes_length == 0:
        axes_value = ()  # (an input of no entries has one value: none)
    if axes is None and 1 in given and known_ints(axes_value) is None and (keepdims or (
            (len(axes_value) if axes_value is not None else axes_length) == 1 and x.ndim)):
        # axes not known when the model is read (or sizes: a Loop's iteration number): the
        # rank stays, each size the input's or 1, which the run decides (none, or a
        # repeated axis, changes no rank); without keepdims, one axis of them (one entry)
        # is one axis fewer (several may repeat one: their number is no rank), each size
        # unknown
        out = dims("u", x.ndim if keepdims else x.ndim - 1)
        sizes = SizeNames(axes_value)  # (the size inputs of its entries that are sizes)
        fits = [u >= 0 for u in out]
        for v in axes_value or ():  # each axis in range: -r <= e < r
            if isinstance(v, int):
                normalize_axis(v, x.ndim)
            elif v is not None:
                e = as_expr(sizes.expr(v))
                fits += [e + x.ndim >= 0, e <= x.ndim - 1]
        return {"x": dims("a", x.ndim), "rest": [typed(dims("k"), "int64"), *sizes.patterns()],
                "y": out, "fits": fits, "params": {"axes": None, "axes_value": axes_value}}
    if axes is not None:  # the attribute (opsets before 18), or the axes resolved already
        chosen = tuple(axes)
    elif 1 in given:
        chosen = constant_ints(axes_value, "axes", RANK_BY_VALUES)
    else:
        chosen = ()
    if not chosen:
        chosen = () if noop_with_empty_axes else tuple(range(x.ndim))
    picked = normalize_axes(chosen, x.ndim)
    a = dims("a", x.ndim)
    kept = [1 if i in picked else d for i, d in enumerate(a)] if keepdims else \
        [d for i, d in enumerate(a) if i not in picked]
    return {"x": a, "rest": [typed(dims("k"), "int64")] if 1 in given else [],
            "y": kept, "fits": [], "params": {"axes": picked, "axes_value": None}}


@reads_ranks
def build_reduce_extreme(types: tuple, **params: Any) -> dict[str, Any]:
    """ReduceMax and ReduceMin from opset 20 (which takes bool): :func:`build_reduce`'s,
    and over bool an empty set reduced to entries fails: onnxruntime has no value for it
    ("ReduceMax is not defined for empty set with bool type"; the spec's is False, as
    onnx.reference gives it, and a point is valid only where both run). So the input
    holds an entry or the output none, ``volume(x) >= min(volume(y), 1)`` (with axes
    from the data, ``y``'s sizes are the run's)."""
    found = build_reduce(types, **params)
    if types[0].dtype == "bool" and types[0].ndim:
        volume = [1, 1]
        for k, shape in enumerate((found["x"], found["y"])):
            for d in shape:
                volume[k] = volume[k] * d
        found["fits"] = [*found["fits"], volume[0] >= dim_min(volume[1], 1)]
    return found


def _reducer(fn: Any) -> Any:
    def reduce(x: np.ndarray, *rest: np.ndarray, axes: tuple | None, keepdims: int,
               noop_with_empty_axes: int = 0, **_: Any) -> Any:
        if axes is None:  # (not known when the model was read: the input's, any order,
            axes = tuple(sorted({normalize_axis(int(v), x.ndim)  # a repeat one axis)
                                 for v in np.asarray(rest[0]).ravel()}))
            if not axes and not noop_with_empty_axes:
                axes = tuple(range(x.ndim))
        if not axes:
            return x.copy()
        return fn(x, axis=axes, keepdims=bool(keepdims))
    return reduce


def _l1(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    return np.sum(np.abs(x), axis=axis, keepdims=keepdims)


def _l2(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    return np.sqrt(np.sum(np.square(x), axis=axis, keepdims=keepdims))


def _log_sum(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    return np.log(np.sum(x, axis=axis, keepdims=keepdims))


def _log_sum_exp(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    if x.size == 0:  # log(0) over nothing, as onnxruntime gives it: -inf, or an int
        # dtype's least value (NumPy's max, the stabiliser, has no identity there)
        return _nothing(x, axis, keepdims, -1)
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _sum_square(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    return np.sum(np.square(x), axis=axis, keepdims=keepdims)


def _extreme(fn: Any, empty: int, sizes: Any) -> Any:
    """ReduceMax (``empty`` -1) or ReduceMin (1): over nothing, the dtype's lowest (or
    highest) value, an infinity where the dtype holds one; of sizes while the model is
    read (an object array), by ``sizes``."""
    def reduce(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
        if x.dtype == object and x.size:
            return size_reduce(sizes, x, axis, keepdims)
        if x.size == 0:
            return _nothing(x, axis, keepdims, empty)
        return fn(x, axis=axis, keepdims=keepdims)
    return reduce


def _nothing(x: np.ndarray, axis: tuple, keepdims: bool, empty: int) -> np.ndarray:
    """The reduction of an empty ``x`` over ``axis``: the dtype's lowest (``empty`` -1)
    or highest (1) value, an infinity where the dtype holds one."""
    shape = tuple(1 if i in axis else d for i, d in enumerate(x.shape)) if keepdims \
        else tuple(d for i, d in enumerate(x.shape) if i not in axis)
    return np.full(shape, extreme_value(x.dtype, empty), dtype=x.dtype)


reduce_sum = _reducer(np.sum)


reduce_mean = _reducer(np.mean)


reduce_prod = _reducer(np.prod)


reduce_max = float_sizes(_reducer(_extreme(np.max, -1, SIZE_MAX)))


reduce_min = float_sizes(_reducer(_extreme(np.min, 1, SIZE_MIN)))


reduce_l1 = _reducer(_l1)


reduce_l2 = _reducer(_l2)


reduce_log_sum = _reducer(_log_sum)


reduce_log_sum_exp = _reducer(_log_sum_exp)


reduce_sum_square = _reducer(_sum_square)


@reads_ranks
def build_arg_reduce(types: tuple, axis: int, keepdims: int, **_: Any) -> dict[str, Any]:
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    a = dims("a", x.ndim)
    out = [1 if i == ax else d for i, d in enumerate(a)] if keepdims else \
        [d for i, d in enumerate(a) if i != ax]
    # an empty axis has no index of its extreme: onnxruntime refuses it unless the
    # output is empty too (a[ax] * rest >= rest: a[ax] >= 1 or rest == 0)
    rest = 1
    for i, d in enumerate(a):
        rest = rest * d if i != ax else rest
    return {"x": a, "y": out, "fits": [a[ax] * rest >= rest], "params": {"axis": ax}}


def _arg(find: Callable[..., np.ndarray], name: str) -> Callable[..., np.ndarray]:
    """ONNX's ArgMax/ArgMin over NumPy's ``find``: ``select_last_index`` searches the
    flipped axis, ``keepdims`` keeps the axis as size 1. Named ``name`` in this module,
    so pickle finds it by reference."""
    def arg(x: np.ndarray, *, axis: int, keepdims: int, select_last_index: int = 0
            ) -> np.ndarray:
        if x.size == 0:  # (no position, or an empty axis where there is none)
            y = np.zeros(np.delete(x.shape, axis), np.int64)
        elif select_last_index:
            y = x.shape[axis] - 1 - find(np.flip(x, axis), axis=axis)
        else:
            y = find(x, axis=axis)
        return np.expand_dims(y, axis) if keepdims else y
    arg.__name__ = arg.__qualname__ = name
    return arg


arg_max = _arg(np.argmax, "arg_max")


arg_min = _arg(np.argmin, "arg_min")
