"""ONNX's normalisations: Layer, Batch, Instance, RMS, Lp, MeanVariance and Group
normalisation, and LRN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.params import normalize_axis
from ...ops.templates import names, operand, reads_ranks
from ..dtypes import dtype_of


@reads_ranks
def build_layer_norm(types: tuple, axis: int, outputs: int = 1, stash_type: int = 1, **_: Any
                     ) -> dict[str, Any]:
    """LayerNormalization: Y like X; Mean and InvStdDev keep the axes before ``axis``
    and have 1 from it on. Scale and B broadcast to the normalised axes."""
    x = types[0]
    ax = normalize_axis(axis, x.ndim)
    dims = names("a", x.ndim)
    stat = operand([*dims[:ax], *[1] * (x.ndim - ax)]) + ":" + (
        dtype_of(stash_type, "LayerNormalization"))
    outs = [f"{operand(dims)}:T", stat, stat][:outputs]
    return {"x": operand(dims), "rest": "".join(f",(*r{i}):T" for i in range(len(types) - 1)),
            "outs": ",".join(outs), "params": {"axis": ax}}


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


@reads_ranks
def build_same_shape_stats(types: tuple, outputs: int = 1, **_: Any) -> dict[str, Any]:
    """BatchNormalization: Y like X; in training, the running mean and variance like
    the input mean and variance (of X's channels)."""
    dims = operand(names("a", types[0].ndim))
    return {"x": dims, "rest": ",(c):T" * (len(types) - 1),
            "outs": ",".join([f"{dims}:T", "(c):T", "(c):T"][:outputs])}


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


@reads_ranks
def build_same_shape(types: tuple, outputs: int = 1, **_: Any) -> dict[str, Any]:
    """The output(s) of X's shape and dtype; any other inputs of any shape."""
    dims = operand(names("a", types[0].ndim))
    return {"x": dims, "rest": "".join(f",(*r{i})" for i in range(len(types) - 1)),
            "outs": ",".join([f"{dims}:T"] * outputs)}


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


def group_norm(x: np.ndarray, scale: np.ndarray, bias: np.ndarray, *, num_groups: int,
               epsilon: float = 1e-5, stash_type: int = 1) -> np.ndarray:
    n, c = x.shape[:2]
    g = x.reshape(n, num_groups, -1).astype(np.float64)
    m, v = g.mean(axis=-1, keepdims=True), g.var(axis=-1, keepdims=True)
    y = ((g - m) / np.sqrt(v + epsilon)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return (y * scale.reshape(shape) + bias.reshape(shape)).astype(x.dtype)


def lrn(x: np.ndarray, *, size: int, alpha: float = 1e-4, beta: float = 0.75,
        bias: float = 1.0) -> np.ndarray:
    c = x.shape[1]
    sq = np.square(x.astype(np.float64))
    total = np.zeros_like(sq)
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    for i in range(c):
        total[:, i] = sq[:, max(0, i - lo):min(c, i + hi + 1)].sum(axis=1)
    return (x / (bias + alpha / size * total) ** beta).astype(x.dtype)
