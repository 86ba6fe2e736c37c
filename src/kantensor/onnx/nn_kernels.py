"""NumPy implementations of ONNX convolution, pooling and normalisation."""

from __future__ import annotations

from typing import Any

import numpy as np


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


def conv(x: np.ndarray, w: np.ndarray, *b: np.ndarray, kernel_shape: tuple | None,
         strides: tuple,
         pads: tuple, dilations: tuple, auto_pad: str = "NOTSET", group: int = 1,
         **_: Any) -> np.ndarray:
    kernel_shape = kernel_shape or w.shape[2:]
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


def nll_loss(x: np.ndarray, target: np.ndarray, *weight: np.ndarray, reduction: str = "mean",
             ignore_index: int | None = None) -> np.ndarray:
    c = x.shape[1]
    t = target.astype(np.int64)
    keep = np.ones(t.shape, dtype=bool) if ignore_index is None else t != ignore_index
    safe = np.where(keep, t, 0)
    picked = np.take_along_axis(x, safe[:, None], axis=1)[:, 0]
    w = weight[0][safe] if weight else np.ones(t.shape, dtype=x.dtype)
    w = np.where(keep, w, 0).astype(x.dtype)
    loss = -picked * w
    if reduction == "none":
        return loss.astype(x.dtype)
    if reduction == "sum":
        return loss.sum().astype(x.dtype)
    del c
    return (loss.sum() / w.sum()).astype(x.dtype)


def softmax_cross_entropy(x: np.ndarray, labels: np.ndarray, *weight: np.ndarray,
                          reduction: str = "mean", ignore_index: int | None = None,
                          outputs: int = 1) -> Any:
    shifted = x - x.max(axis=1, keepdims=True)
    log_prob = (shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))).astype(x.dtype)
    loss = nll_loss(log_prob, labels, *weight, reduction=reduction, ignore_index=ignore_index)
    return (loss, log_prob) if outputs > 1 else loss
