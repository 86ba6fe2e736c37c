"""NumPy implementations of ONNX ops whose semantics NumPy has under another name or
convention. Each takes the node's input arrays (then any size inputs, ignored: the
values of the shape inputs are read when the graph runs) and the resolved parameters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..types.dtypes import normalize_dtype
from .dtypes import DTYPES, ELEM_TYPES
from .lowp import convert


def _integral(x: np.ndarray) -> bool:
    return x.dtype == object or np.issubdtype(x.dtype, np.integer)


def div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Div: integers truncate toward zero (C's division)."""
    if a.dtype == object or b.dtype == object:
        return a // b  # sizes: non-negative
    if np.issubdtype(a.dtype, np.integer):
        q = np.floor_divide(a, b)
        fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        return q + fix.astype(q.dtype)
    return np.divide(a, b)


def mod(a: np.ndarray, b: np.ndarray, *, fmod: int = 0) -> np.ndarray:
    """Mod: the sign of the divisor (Python's %) unless ``fmod`` (C's fmod)."""
    return np.fmod(a, b) if fmod else np.mod(a, b)


def power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pow: in the base's dtype."""
    if np.issubdtype(a.dtype, np.integer):
        return np.power(a, b.astype(a.dtype))
    return np.power(a, b.astype(a.dtype) if not np.issubdtype(b.dtype, np.integer) else b)


def bitshift(a: np.ndarray, b: np.ndarray, *, direction: str) -> np.ndarray:
    return np.left_shift(a, b) if direction == "LEFT" else np.right_shift(a, b)


def _fold(fn: Any, arrays: tuple) -> np.ndarray:
    out = arrays[0]
    for a in arrays[1:]:
        out = fn(out, a)
    return out


def maximum(*arrays: np.ndarray) -> np.ndarray:
    return _fold(np.maximum, arrays)


def minimum(*arrays: np.ndarray) -> np.ndarray:
    return _fold(np.minimum, arrays)


def total(*arrays: np.ndarray) -> np.ndarray:
    return _fold(np.add, arrays)


def mean(*arrays: np.ndarray) -> np.ndarray:
    return (_fold(np.add, arrays) / len(arrays)).astype(arrays[0].dtype)


def identity(x: np.ndarray, **_: Any) -> np.ndarray:
    return x


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0).astype(x.dtype)


def sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x))).astype(x.dtype)


def softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0, x).astype(x.dtype)


def softsign(x: np.ndarray) -> np.ndarray:
    return (x / (1 + np.abs(x))).astype(x.dtype)


def erf(x: np.ndarray) -> np.ndarray:
    from math import erf as _erf
    return np.vectorize(_erf, otypes=[x.dtype])(x) if x.size else x.copy()


def leaky_relu(x: np.ndarray, *, alpha: float) -> np.ndarray:
    return np.where(x < 0, x * alpha, x).astype(x.dtype)


def prelu(x: np.ndarray, slope: np.ndarray) -> np.ndarray:
    return np.where(x < 0, x * slope, x).astype(x.dtype)


def elu(x: np.ndarray, *, alpha: float) -> np.ndarray:
    return np.where(x < 0, alpha * (np.exp(x) - 1), x).astype(x.dtype)


def celu(x: np.ndarray, *, alpha: float) -> np.ndarray:
    return (np.maximum(0, x) + np.minimum(0, alpha * (np.exp(x / alpha) - 1))).astype(x.dtype)


def selu(x: np.ndarray, *, alpha: float, gamma: float) -> np.ndarray:
    return np.where(x <= 0, gamma * (alpha * np.exp(x) - alpha), gamma * x).astype(x.dtype)


def hard_sigmoid(x: np.ndarray, *, alpha: float, beta: float) -> np.ndarray:
    return np.clip(alpha * x + beta, 0, 1).astype(x.dtype)


def hard_swish(x: np.ndarray) -> np.ndarray:
    return (x * np.clip(x / 6 + 0.5, 0, 1)).astype(x.dtype)


def thresholded_relu(x: np.ndarray, *, alpha: float) -> np.ndarray:
    return np.where(x > alpha, x, 0).astype(x.dtype)


def mish(x: np.ndarray) -> np.ndarray:
    return (x * np.tanh(np.logaddexp(0, x))).astype(x.dtype)


def swish(x: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    return (x / (1 + np.exp(-alpha * x))).astype(x.dtype)


def gelu(x: np.ndarray, *, approximate: str) -> np.ndarray:
    if approximate == "tanh":
        y = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    else:
        y = 0.5 * x * (1 + erf(x / np.sqrt(2).astype(x.dtype)))
    return y.astype(x.dtype)


def shrink(x: np.ndarray, *, bias: float, lambd: float) -> np.ndarray:
    return np.where(x < -lambd, x + bias, np.where(x > lambd, x - bias, 0)).astype(x.dtype)


def is_inf(x: np.ndarray, *, detect_negative: int, detect_positive: int) -> np.ndarray:
    return (np.isinf(x) & ((x < 0) if not detect_positive else True)
            & ((x > 0) if not detect_negative else True))


def clip(x: np.ndarray, *bounds: np.ndarray, given: tuple) -> np.ndarray:
    lo = bounds[given.index(1) - 1] if 1 in given else None
    hi = bounds[given.index(2) - 1] if 2 in given else None
    out = x
    if lo is not None:
        out = np.maximum(out, lo)
    if hi is not None:
        out = np.minimum(out, hi)
    return out.astype(x.dtype)


def cast(x: np.ndarray, *, to: int, to_dtype: str = "", saturate: int = 1,
         round_mode: str = "up") -> np.ndarray:
    """Cast: ONNX's conversion (float8 saturation, FLOAT8E8M0's rounding)."""
    return convert(x, to, saturate, round_mode) if x.dtype != object else x


def cast_like(x: np.ndarray, like: np.ndarray, *, saturate: int = 1,
              round_mode: str = "up") -> np.ndarray:
    if x.dtype == object:
        return x
    return convert(x, ELEM_TYPES[normalize_dtype(like.dtype)], saturate, round_mode)


def softmax(x: np.ndarray, *, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return np.ones_like(x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x: np.ndarray, *, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return np.zeros_like(x)
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def hardmax(x: np.ndarray, *, axis: int) -> np.ndarray:
    idx = np.expand_dims(np.argmax(x, axis=axis), axis)
    out = np.zeros_like(x)
    np.put_along_axis(out, idx, 1, axis=axis)
    return out


def flatten(x: np.ndarray, *, axis: int) -> np.ndarray:
    lead = int(np.prod(x.shape[:axis]))
    return x.reshape(lead, -1) if x.size or lead else x.reshape(lead, int(np.prod(x.shape[axis:])))


def transpose(x: np.ndarray, *, perm: tuple) -> np.ndarray:
    return np.transpose(x, perm)


def _reducer(fn: Any) -> Any:
    def reduce(x: np.ndarray, *rest: np.ndarray, axes: tuple, keepdims: int, **_: Any) -> Any:
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
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _sum_square(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    return np.sum(np.square(x), axis=axis, keepdims=keepdims)


def _extreme(fn: Any, empty: float) -> Any:
    def reduce(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
        if x.size == 0:
            shape = tuple(1 if i in axis else d for i, d in enumerate(x.shape)) if keepdims \
                else tuple(d for i, d in enumerate(x.shape) if i not in axis)
            return np.full(shape, empty if x.dtype.kind == "f" else
                           (np.iinfo(x.dtype).min if empty < 0 else np.iinfo(x.dtype).max),
                           dtype=x.dtype)
        return fn(x, axis=axis, keepdims=keepdims)
    return reduce


reduce_sum = _reducer(np.sum)
reduce_mean = _reducer(np.mean)
reduce_prod = _reducer(np.prod)
reduce_max = _reducer(_extreme(np.max, -np.inf))
reduce_min = _reducer(_extreme(np.min, np.inf))
reduce_l1 = _reducer(_l1)
reduce_l2 = _reducer(_l2)
reduce_log_sum = _reducer(_log_sum)
reduce_log_sum_exp = _reducer(_log_sum_exp)
reduce_sum_square = _reducer(_sum_square)


def _arg(find: Callable[..., np.ndarray], name: str) -> Callable[..., np.ndarray]:
    """ONNX's ArgMax/ArgMin over NumPy's ``find``: ``select_last_index`` searches the
    flipped axis, ``keepdims`` keeps the axis as size 1. Named ``name`` in this module,
    so pickle finds it by reference."""
    def arg(x: np.ndarray, *, axis: int, keepdims: int, select_last_index: int = 0
            ) -> np.ndarray:
        if select_last_index:
            y = x.shape[axis] - 1 - find(np.flip(x, axis), axis=axis)
        else:
            y = find(x, axis=axis)
        return np.expand_dims(y, axis) if keepdims else y
    arg.__name__ = arg.__qualname__ = name
    return arg


arg_max = _arg(np.argmax, "arg_max")
arg_min = _arg(np.argmin, "arg_min")


def reshape(x: np.ndarray, shape: np.ndarray, *sizes: np.ndarray, allowzero: int = 0,
            **_: Any) -> np.ndarray:
    target = [int(v) for v in np.asarray(shape).tolist()]
    if not allowzero:
        target = [x.shape[i] if v == 0 else v for i, v in enumerate(target)]
    return np.reshape(x, target)


def shape(x: np.ndarray, *, start: int, end: int) -> np.ndarray:
    return np.array(x.shape[start:end], dtype="int64")


def size(x: np.ndarray) -> np.ndarray:
    return np.array(x.size, dtype="int64")


def gather(x: np.ndarray, i: np.ndarray, *, axis: int) -> np.ndarray:
    i = np.where(i < 0, i + x.shape[axis], i) if i.dtype != object else i
    return np.take(x, i, axis=axis)


def gather_elements(x: np.ndarray, i: np.ndarray, *, axis: int) -> np.ndarray:
    i = np.where(i < 0, i + x.shape[axis], i)
    return np.take_along_axis(x, i, axis=axis)


def concat(*arrays: np.ndarray, axis: int) -> np.ndarray:
    return np.concatenate(arrays, axis=axis)


def unsqueeze(x: np.ndarray, axes: np.ndarray, *, axes_value: tuple) -> np.ndarray:
    return np.expand_dims(x, axes_value)


def squeeze(x: np.ndarray, *rest: np.ndarray, axes_value: tuple, **_: Any) -> np.ndarray:
    return np.squeeze(x, axis=axes_value) if axes_value else x.copy()


def constant_of_shape(shape: np.ndarray, *sizes: np.ndarray, input_value: Any = None,
                      value: Any = None, **_: Any) -> np.ndarray:
    fill = value[1] if value is not None else 0.0
    return np.full([int(v) for v in np.asarray(shape).tolist()], fill)


def where(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.where(c, a, b)


def gemm(a: np.ndarray, b: np.ndarray, *c: np.ndarray, alpha: float, beta: float,
         transA: int, transB: int) -> np.ndarray:
    a = a.T if transA else a
    b = b.T if transB else b
    y = alpha * (a @ b) if alpha != 1 else a @ b
    if c:
        y = y + (beta * c[0] if beta != 1 else c[0])
    return y


def bitcast(x: np.ndarray, *, to: int, **_: Any) -> np.ndarray:
    """BitCast: the same bytes (little endian) read as another dtype of the same width."""
    target = np.dtype(DTYPES[to]).newbyteorder("<")
    data = np.asarray(x, dtype=x.dtype.newbyteorder("<")).tobytes()
    return np.frombuffer(data, dtype=target).reshape(x.shape).astype(target.newbyteorder("="))
