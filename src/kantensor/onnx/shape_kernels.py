"""NumPy implementations of the ONNX shape ops whose sizes come from input values
(Split, Slice, Expand, Tile, Range, Pad, TopK, ...) and of indexing ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..types.dtypes import is_inexact, is_low_precision


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
    if arrays and is_low_precision(arrays[0].dtype) and is_inexact(arrays[0].dtype):
        # NumPy's einsum has no loop for bfloat16 or float8: in float32, then back
        wide = (a.astype(np.float32) for a in arrays)
        return np.einsum(equation, *wide).astype(arrays[0].dtype)
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


def space_to_depth(x: np.ndarray, *, blocksize: int, mode: str = "DCR") -> np.ndarray:
    n, c, h, w = x.shape
    b = blocksize
    order = (0, 3, 5, 1, 2, 4) if mode == "DCR" else (0, 1, 3, 5, 2, 4)
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(order)
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
