"""NumPy implementations of ONNX ops whose semantics NumPy has under another name or
convention. Each takes the node's input arrays (then any size inputs, ignored: the
values of the shape inputs are read when the graph runs) and the resolved parameters."""

from __future__ import annotations

from typing import Any

import numpy as np


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


def cast(x: np.ndarray, *, to: int, to_dtype: str = "", **_: Any) -> np.ndarray:
    return x  # the result is cast to the output dtype


def cast_like(x: np.ndarray, like: np.ndarray, **_: Any) -> np.ndarray:
    return x.astype(like.dtype) if x.dtype != object else x


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


def arg_max(x: np.ndarray, *, axis: int, keepdims: int, select_last_index: int = 0
            ) -> np.ndarray:
    if select_last_index:
        y = x.shape[axis] - 1 - np.argmax(np.flip(x, axis), axis=axis)
    else:
        y = np.argmax(x, axis=axis)
    return np.expand_dims(y, axis) if keepdims else y


def arg_min(x: np.ndarray, *, axis: int, keepdims: int, select_last_index: int = 0
            ) -> np.ndarray:
    if select_last_index:
        y = x.shape[axis] - 1 - np.argmin(np.flip(x, axis), axis=axis)
    else:
        y = np.argmin(x, axis=axis)
    return np.expand_dims(y, axis) if keepdims else y


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


def split(x: np.ndarray, *rest: np.ndarray, axis: int, outputs: int, **_: Any) -> tuple:
    if rest:
        sizes = [int(v) for v in np.asarray(rest[0]).tolist()]
    else:
        d = x.shape[axis]
        chunk = -(-d // outputs)
        sizes = [chunk] * (outputs - 1) + [d - (outputs - 1) * chunk]
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


def slice_(x: np.ndarray, starts: np.ndarray, ends: np.ndarray, *rest: np.ndarray,
           given: tuple = (0, 1, 2), **_: Any) -> np.ndarray:
    n = len(starts)
    more = dict(zip([g for g in given if g > 2], rest, strict=False))
    axes = [int(a) for a in more[3]] if 3 in more else list(range(n))
    steps = [int(s) for s in more[4]] if 4 in more else [1] * n
    index = [slice(None)] * x.ndim
    for a, b, e, s in zip(axes, starts.tolist(), ends.tolist(), steps, strict=True):
        index[a % x.ndim] = slice(int(b), int(e), s)
    return x[tuple(index)]


def expand(x: np.ndarray, shape: np.ndarray, *sizes: np.ndarray, **_: Any) -> np.ndarray:
    target = np.broadcast_shapes(x.shape, tuple(int(v) for v in shape.tolist()))
    return np.broadcast_to(x, target).copy()


def tile(x: np.ndarray, repeats: np.ndarray, *sizes: np.ndarray, **_: Any) -> np.ndarray:
    return np.tile(x, [int(r) for r in repeats.tolist()])


def range_(start: np.ndarray, limit: np.ndarray, delta: np.ndarray, *sizes: np.ndarray,
           **_: Any) -> np.ndarray:
    return np.arange(start, limit, delta).astype(start.dtype)


def pad(x: np.ndarray, pads: np.ndarray, *rest: np.ndarray, mode: str = "constant",
        given: tuple = (0, 1), **_: Any) -> np.ndarray:
    more = dict(zip([g for g in given if g > 1], rest, strict=False))
    value = more[2].item() if 2 in more and more[2].size else 0
    axes = [int(a) % x.ndim for a in more[3]] if 3 in more else list(range(x.ndim))
    k = len(axes)
    widths = [(0, 0)] * x.ndim
    pads = [int(p) for p in pads.tolist()]
    for i, a in enumerate(axes):
        widths[a] = (pads[i], pads[i + k])
    crop = tuple(slice(max(-b, 0), x.shape[i] - max(-e, 0)) for i, (b, e) in enumerate(widths))
    x = x[crop]
    widths = [(max(b, 0), max(e, 0)) for b, e in widths]
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=value)
    return np.pad(x, widths, mode={"reflect": "reflect", "edge": "edge", "wrap": "wrap"}[mode])


def trilu(x: np.ndarray, *k: np.ndarray, upper: int = 1) -> np.ndarray:
    shift = int(k[0]) if k else 0
    return np.triu(x, shift) if upper else np.tril(x, shift)


def cumsum(x: np.ndarray, axis: np.ndarray, *, exclusive: int = 0, reverse: int = 0
           ) -> np.ndarray:
    return _cumulative(np.cumsum, x, int(axis), exclusive, reverse, 0)


def cumprod(x: np.ndarray, axis: np.ndarray, *, exclusive: int = 0, reverse: int = 0
            ) -> np.ndarray:
    return _cumulative(np.cumprod, x, int(axis), exclusive, reverse, 1)


def _cumulative(fn: Any, x: np.ndarray, axis: int, exclusive: int, reverse: int,
                identity: int) -> np.ndarray:
    if reverse:
        x = np.flip(x, axis)
    y = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        y = np.concatenate([np.full_like(np.take(y, [0], axis), identity),
                            np.delete(y, -1, axis)], axis=axis) if x.shape[axis] else y
    return np.flip(y, axis) if reverse else y


def topk(x: np.ndarray, k: np.ndarray, *sizes: np.ndarray, axis: int, largest: int = 1,
         sorted: int = 1, **_: Any) -> tuple:
    n = int(np.asarray(k).ravel()[0])
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")
    idx = np.take(order, np.arange(n), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64)


def one_hot(indices: np.ndarray, depth: np.ndarray, values: np.ndarray, *, axis: int,
            **_: Any) -> np.ndarray:
    d = int(np.asarray(depth).ravel()[0])
    i = np.where(indices < 0, indices + d, indices).astype(np.int64)
    hot = np.expand_dims(i, axis) == np.arange(d).reshape([d if j == axis else 1
                                                          for j in range(i.ndim + 1)])
    return np.where(hot, values[1], values[0])


def nonzero(x: np.ndarray) -> np.ndarray:
    return np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)


def compress(x: np.ndarray, condition: np.ndarray, *, axis: int | None = None
             ) -> np.ndarray:
    return np.compress(condition, x, axis=axis)


def unique(x: np.ndarray, *, axis: int | None = None, sorted: int = 1) -> tuple:
    y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, axis=axis)
    if not sorted:
        order = np.argsort(first, kind="stable")
        rank = np.argsort(order)
        y = np.take(y, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    return y, first.astype(np.int64), inverse.reshape(-1).astype(np.int64), \
        counts.astype(np.int64)


def dropout(x: np.ndarray, *rest: np.ndarray, outputs: int = 1, **_: Any) -> Any:
    mask = np.ones(x.shape, dtype=bool)
    return (x.copy(), mask) if outputs > 1 else x.copy()


def einsum(*arrays: np.ndarray, equation: str) -> np.ndarray:
    return np.einsum(equation, *arrays)


def eye_like(x: np.ndarray, *, dtype: int | None = None, k: int = 0, **_: Any) -> np.ndarray:
    return np.eye(x.shape[0], x.shape[1], k)


def depth_to_space(x: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    n, c, h, w = x.shape
    b = blocksize
    if mode == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


def space_to_depth(x: np.ndarray, *, blocksize: int) -> np.ndarray:
    n, c, h, w = x.shape
    b = blocksize
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


def gather_nd(x: np.ndarray, i: np.ndarray, *, batch_dims: int = 0) -> np.ndarray:
    i = i.astype(np.int64)
    if batch_dims == 0:
        return x[tuple(np.moveaxis(i, -1, 0))]
    batch = int(np.prod(x.shape[:batch_dims]))
    xs = x.reshape(batch, *x.shape[batch_dims:])
    js = i.reshape(batch, *i.shape[batch_dims:])
    out = np.stack([a[tuple(np.moveaxis(b, -1, 0))] for a, b in zip(xs, js, strict=True)])
    return out.reshape(*i.shape[:-1], *x.shape[batch_dims + i.shape[-1]:])


def scatter_elements(x: np.ndarray, i: np.ndarray, u: np.ndarray, *, axis: int = 0,
                     reduction: str = "none") -> np.ndarray:
    y = x.copy()
    i = np.where(i < 0, i + x.shape[axis], i)
    idx = list(np.indices(i.shape, sparse=True))
    idx[axis] = i
    ufunc = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
    if reduction == "none":
        y[tuple(idx)] = u
    else:
        ufunc[reduction].at(y, tuple(idx), u)
    return y


def scatter_nd(x: np.ndarray, i: np.ndarray, u: np.ndarray, *, reduction: str = "none"
               ) -> np.ndarray:
    y = x.copy()
    idx = tuple(np.moveaxis(i, -1, 0))
    ufunc = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
    if reduction == "none":
        y[idx] = u
    else:
        ufunc[reduction].at(y, idx, u)
    return y


def det(x: np.ndarray) -> np.ndarray:
    return np.linalg.det(x)


def reverse_sequence(x: np.ndarray, lengths: np.ndarray, *, batch_axis: int = 1,
                     time_axis: int = 0) -> np.ndarray:
    y = x.copy()
    for b, n in enumerate(lengths.tolist()):
        src = [slice(None)] * x.ndim
        src[batch_axis], src[time_axis] = b, slice(0, n)
        dst = list(src)
        dst[time_axis] = slice(n - 1, None, -1) if n else slice(0, 0)
        y[tuple(src)] = x[tuple(dst)]
    return y


def _windows(x: np.ndarray, kernel: tuple, strides: tuple, pads: tuple, dilations: tuple,
             auto_pad: str, ceil_mode: int, fill: float) -> tuple[np.ndarray, np.ndarray]:
    """The sliding windows over the spatial axes of (N, C, spatial...): an array
    (N, C, out..., kernel...) and the mask of the positions inside the input."""
    k = len(kernel)
    spatial = x.shape[2:]
    before, after, outs = [], [], []
    for i in range(k):
        n, s, d = spatial[i], strides[i], dilations[i]
        eff = (kernel[i] - 1) * d + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out = -(-n // s)
            total = max((out - 1) * s + eff - n, 0)
            small, big = total // 2, total - total // 2
            pb, pe = (small, big) if auto_pad == "SAME_UPPER" else (big, small)
        elif auto_pad == "VALID":
            pb = pe = 0
            out = (n - eff) // s + 1
        else:
            pb, pe = pads[i], pads[i + k]
            if ceil_mode:
                out = -(-(n + pb + pe - eff) // s) + 1
                if (out - 1) * s >= n + pb:
                    out -= 1
            else:
                out = (n + pb + pe - eff) // s + 1
        pe = max(pe, (out - 1) * s + eff - n - pb)
        before.append(pb)
        after.append(pe)
        outs.append(out)
    width = [(0, 0), (0, 0), *zip(before, after, strict=True)]
    padded = np.pad(x, width, constant_values=fill)
    inside = np.pad(np.ones(spatial, dtype=bool), width[2:], constant_values=False)
    view = np.lib.stride_tricks.sliding_window_view
    eff_k = [(kernel[i] - 1) * dilations[i] + 1 for i in range(k)]
    win = view(padded, eff_k, axis=tuple(range(2, 2 + k)))
    mask = view(inside, eff_k, axis=tuple(range(k)))
    take = tuple(slice(0, (outs[i] - 1) * strides[i] + 1, strides[i]) for i in range(k))
    dil = tuple(slice(None, None, dilations[i]) for i in range(k))
    win = win[(slice(None), slice(None), *take, *dil)]
    mask = mask[(*take, *dil)]
    return win, mask


def max_pool(x: np.ndarray, *, kernel_shape: tuple, strides: tuple, pads: tuple,
             dilations: tuple, auto_pad: str = "NOTSET", ceil_mode: int = 0,
             storage_order: int = 0, outputs: int = 1, **_: Any) -> Any:
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    win, _ = _windows(x, kernel_shape, strides, pads, dilations, auto_pad, ceil_mode, low)
    axes = tuple(range(-len(kernel_shape), 0))
    y = win.max(axis=axes)
    if outputs > 1:
        raise NotImplementedError("MaxPool's Indices output is not computed")
    return y


def average_pool(x: np.ndarray, *, kernel_shape: tuple, strides: tuple, pads: tuple,
                 dilations: tuple, auto_pad: str = "NOTSET", ceil_mode: int = 0,
                 count_include_pad: int = 0, **_: Any) -> np.ndarray:
    win, mask = _windows(x, kernel_shape, strides, pads, dilations, auto_pad, ceil_mode, 0)
    axes = tuple(range(-len(kernel_shape), 0))
    total = win.sum(axis=axes)
    if count_include_pad:
        # the explicit pads count, the extra cells of ceil_mode do not
        k = len(kernel_shape)
        spatial = x.shape[2:]
        ones = np.ones((1, 1, *spatial), dtype=x.dtype)
        padded = np.pad(ones, [(0, 0), (0, 0)] + [(pads[i], pads[i + k]) for i in range(k)],
                        constant_values=1) if auto_pad == "NOTSET" else ones
        counts, _ = _windows(padded, kernel_shape, strides, (0,) * 2 * k, dilations,
                             "NOTSET", ceil_mode, 0)
        count = counts.sum(axis=axes)[0, 0]
    else:
        count = mask.sum(axis=axes)
    return (total / count).astype(x.dtype)


def lp_pool(x: np.ndarray, *, kernel_shape: tuple, strides: tuple, pads: tuple,
            dilations: tuple, auto_pad: str = "NOTSET", ceil_mode: int = 0, p: int = 2,
            **_: Any) -> np.ndarray:
    win, _ = _windows(np.abs(x) ** p, kernel_shape, strides, pads, dilations, auto_pad,
                      ceil_mode, 0)
    return (win.sum(axis=tuple(range(-len(kernel_shape), 0))) ** (1 / p)).astype(x.dtype)


def conv(x: np.ndarray, w: np.ndarray, *b: np.ndarray, kernel_shape: tuple, strides: tuple,
         pads: tuple, dilations: tuple, auto_pad: str = "NOTSET", group: int = 1,
         **_: Any) -> np.ndarray:
    win, _ = _windows(x, kernel_shape, strides, pads, dilations, auto_pad, 0, 0)
    n, c = x.shape[:2]
    m = w.shape[0]
    k = len(kernel_shape)
    win = win.reshape(n, group, c // group, *win.shape[2:])
    wg = w.reshape(group, m // group, *w.shape[1:])
    letters = "uvwxyz"[:k]
    spec = f"ngc{letters.upper()}{letters},gmc{letters}->ngm{letters.upper()}"
    y = np.einsum(spec, win, wg).reshape(n, m, *win.shape[3:3 + k])
    if b:
        y = y + b[0].reshape(1, m, *[1] * k)
    return y.astype(x.dtype)


def global_average_pool(x: np.ndarray) -> np.ndarray:
    return x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)


def global_max_pool(x: np.ndarray) -> np.ndarray:
    return x.max(axis=tuple(range(2, x.ndim)), keepdims=True)


def layer_norm(x: np.ndarray, *rest: np.ndarray, axis: int, epsilon: float = 1e-5,
               stash_type: int = 1, outputs: int = 1) -> Any:
    axes = tuple(range(axis, x.ndim))
    xs = x.astype(np.float32) if stash_type == 1 else x
    mean = xs.mean(axis=axes, keepdims=True)
    var = ((xs - mean) ** 2).mean(axis=axes, keepdims=True)
    inv = 1 / np.sqrt(var + epsilon)
    y = (xs - mean) * inv
    if rest:
        y = y * rest[0]
    if len(rest) > 1:
        y = y + rest[1]
    y = y.astype(x.dtype)
    return (y, mean, inv)[:outputs] if outputs > 1 else y


def batch_norm(x: np.ndarray, scale: np.ndarray, b: np.ndarray, mean: np.ndarray,
               var: np.ndarray, *, epsilon: float = 1e-5, momentum: float = 0.9,
               training_mode: int = 0, outputs: int = 1) -> Any:
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training_mode:
        axes = (0, *range(2, x.ndim))
        m, v = x.mean(axis=axes), x.var(axis=axes)
        y = (x - m.reshape(shape)) / np.sqrt(v.reshape(shape) + epsilon)
        y = y * scale.reshape(shape) + b.reshape(shape)
        return (y, mean * momentum + m * (1 - momentum),
                var * momentum + v * (1 - momentum))[:outputs]
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon)
    return y * scale.reshape(shape) + b.reshape(shape)


def instance_norm(x: np.ndarray, scale: np.ndarray, b: np.ndarray, *,
                  epsilon: float = 1e-5) -> np.ndarray:
    axes = tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    m, v = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(v + epsilon) * scale.reshape(shape) + b.reshape(shape)


def rms_norm(x: np.ndarray, scale: np.ndarray, *, axis: int = -1, epsilon: float = 1e-5,
             stash_type: int = 1) -> np.ndarray:
    axes = tuple(range(axis % x.ndim, x.ndim))
    xs = x.astype(np.float32) if stash_type == 1 else x
    y = xs / np.sqrt((xs ** 2).mean(axis=axes, keepdims=True) + epsilon)
    return (y * scale).astype(x.dtype)


def lp_norm(x: np.ndarray, *, axis: int = -1, p: int = 2) -> np.ndarray:
    n = np.sum(np.abs(x) ** p, axis=axis, keepdims=True) ** (1 / p)
    return np.where(n == 0, 0, x / np.where(n == 0, 1, n)).astype(x.dtype)


def mean_variance_norm(x: np.ndarray, *, axes: tuple = (0, 2, 3)) -> np.ndarray:
    m = x.mean(axis=axes, keepdims=True)
    s = np.sqrt(((x - m) ** 2).mean(axis=axes, keepdims=True))
    return ((x - m) / (s + 1e-9)).astype(x.dtype)
