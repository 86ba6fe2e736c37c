"""NumPy implementations of further ONNX ops: quantized products, rotary embeddings,
image and signal ops."""

from __future__ import annotations

from typing import Any

import numpy as np

from .nn_kernels import conv


def _rows(v: np.ndarray) -> np.ndarray:
    """A per-row (M) scale or zero point of a left matrix operand, as (M, 1)."""
    return v.reshape(-1, 1) if v.ndim == 1 and v.size > 1 else v


def matmul_integer(a: np.ndarray, b: np.ndarray, *zero: np.ndarray) -> np.ndarray:
    az = _rows(zero[0]).astype(np.int32) if zero else 0
    bz = zero[1].astype(np.int32) if len(zero) > 1 else 0
    return (a.astype(np.int32) - az) @ (b.astype(np.int32) - bz)


def qlinear_matmul(a: np.ndarray, a_s: np.ndarray, a_z: np.ndarray, b: np.ndarray,
                   b_s: np.ndarray, b_z: np.ndarray, y_s: np.ndarray, y_z: np.ndarray
                   ) -> np.ndarray:
    real = ((a.astype(np.float64) - _rows(a_z)) * _rows(a_s)) @ \
        ((b.astype(np.float64) - b_z) * b_s)
    info = np.iinfo(y_z.dtype)
    return np.clip(np.rint(real / y_s) + y_z, info.min, info.max).astype(y_z.dtype)


def conv_integer(x: np.ndarray, w: np.ndarray, *zero: np.ndarray, **params: Any
                 ) -> np.ndarray:
    xz = zero[0].astype(np.int64) if zero else 0
    wz = zero[1].astype(np.int64).reshape(-1, *[1] * (w.ndim - 1)) \
        if len(zero) > 1 and zero[1].size > 1 else (zero[1] if len(zero) > 1 else 0)
    y = conv((x.astype(np.int64) - xz).astype(np.float64),
             (w.astype(np.int64) - wz).astype(np.float64), **params)
    return np.rint(y).astype(np.int32)


def qlinear_conv(x: np.ndarray, x_s: np.ndarray, x_z: np.ndarray, w: np.ndarray,
                 w_s: np.ndarray, w_z: np.ndarray, y_s: np.ndarray, y_z: np.ndarray,
                 *bias: np.ndarray, **params: Any) -> np.ndarray:
    per = (-1,) + (1,) * (w.ndim - 1)
    wz = w_z.reshape(per) if w_z.size > 1 else w_z
    ws = w_s.reshape(per) if w_s.size > 1 else w_s
    real = conv((x.astype(np.float64) - x_z) * x_s, (w.astype(np.float64) - wz) * ws,
                **params)
    if bias:
        shape = (1, -1) + (1,) * (x.ndim - 2)
        real = real + (bias[0].astype(np.float64) * (x_s * w_s)).reshape(shape)
    info = np.iinfo(y_z.dtype)
    return np.clip(np.rint(real / y_s) + y_z, info.min, info.max).astype(y_z.dtype)


def dynamic_quantize(x: np.ndarray) -> tuple:
    lo, hi = min(0.0, float(x.min(initial=0))), max(0.0, float(x.max(initial=0)))
    scale = np.float32((hi - lo) / 255)
    zero = np.uint8(np.clip(np.rint(-lo / scale), 0, 255)) if scale else np.uint8(0)
    y = np.clip(np.rint(x / scale) + zero, 0, 255) if scale else np.zeros(x.shape)
    return y.astype(np.uint8), np.array(scale, dtype=np.float32), np.array(zero)


def rotary_embedding(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, *ids: np.ndarray,
                     interleaved: int = 0, num_heads: int = 0,
                     rotary_embedding_dim: int = 0) -> np.ndarray:
    four = x.ndim == 4
    if four:
        y = x.transpose(0, 2, 1, 3)  # (b, s, h, d)
    else:
        b, s, w = x.shape
        y = x.reshape(b, s, num_heads, w // num_heads)
    d = y.shape[-1]
    rot = rotary_embedding_dim or d
    if ids:
        cos, sin = cos[ids[0]], sin[ids[0]]
    cos, sin = cos[:, :, None, :rot // 2], sin[:, :, None, :rot // 2]
    part, rest = y[..., :rot], y[..., rot:]
    if interleaved:
        x1, x2 = part[..., 0::2], part[..., 1::2]
        turned = np.empty_like(part)
        turned[..., 0::2] = x1 * cos - x2 * sin
        turned[..., 1::2] = x2 * cos + x1 * sin
    else:
        x1, x2 = part[..., :rot // 2], part[..., rot // 2:]
        turned = np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)
    out = np.concatenate([turned, rest], axis=-1)
    return out.transpose(0, 2, 1, 3) if four else out.reshape(x.shape)


def affine_grid(theta: np.ndarray, size: np.ndarray, *sizes: np.ndarray,
                align_corners: int = 0, **_: Any) -> np.ndarray:
    spatial = [int(v) for v in size.tolist()[2:]]

    def axis(n: int) -> np.ndarray:
        if align_corners:
            return np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
        return (np.arange(n) * 2 + 1) / n - 1

    coords = np.meshgrid(*[axis(n) for n in spatial], indexing="ij")[::-1]
    base = np.stack([*coords, np.ones_like(coords[0])], axis=-1)  # (..., k+1): x, y, (z), 1
    return np.einsum("...j,nij->n...i", base, theta).astype(theta.dtype)


def tensor_scatter(past: np.ndarray, update: np.ndarray, *idx: np.ndarray, axis: int = -2,
                   mode: str = "linear") -> np.ndarray:
    out = past.copy()
    ax = axis % past.ndim
    n, m = past.shape[ax], update.shape[ax]
    starts = idx[0].tolist() if idx else [0] * past.shape[0]
    for b, start in enumerate(starts):
        where = np.arange(start, start + m)
        if mode == "circular":
            where = where % n
        target = [slice(None)] * past.ndim
        target[0], target[ax] = b, where
        out[tuple(target)] = np.take(update[b], np.arange(m), axis=ax - 1)
    return out


def max_unpool(x: np.ndarray, i: np.ndarray, *rest: np.ndarray, kernel_shape: tuple,
               strides: tuple, pads: tuple, given: tuple = (0, 1), **_: Any) -> np.ndarray:
    k = x.ndim - 2
    if 2 in given:
        shape = [int(v) for v in rest[0].tolist()]
    else:
        shape = [*x.shape[:2], *((x.shape[2 + j] - 1) * strides[j] - pads[j] - pads[j + k]
                                 + kernel_shape[j] for j in range(k))]
    y = np.zeros(int(np.prod(shape)), dtype=x.dtype)
    y[i.ravel()] = x.ravel()
    return y.reshape(shape)


def stft(signal: np.ndarray, step: np.ndarray, *rest: np.ndarray, given: tuple = (0, 1),
         onesided: int = 1, **_: Any) -> np.ndarray:
    more = dict(zip(given[2:], rest, strict=False))
    window = more.get(2)
    length = int(more[3]) if 3 in more else len(window)
    s = int(step)
    x = signal[..., 0] + (1j * signal[..., 1] if signal.shape[-1] == 2 else 0)
    frames = (x.shape[1] - length) // s + 1
    chunks = np.stack([x[:, f * s:f * s + length] for f in range(frames)], axis=1)
    if window is not None:
        chunks = chunks * window
    y = np.fft.fft(chunks, axis=-1)
    if onesided:
        y = y[..., :length // 2 + 1]
    return np.stack([y.real, y.imag], axis=-1).astype(signal.dtype)


def col2im(x: np.ndarray, image_shape: np.ndarray, block_shape: np.ndarray, *,
           dilations: tuple | None = None, pads: tuple | None = None,
           strides: tuple | None = None, **_: Any) -> np.ndarray:
    """Col2Im: sums the columns (N, C * prod(block), L) back into images."""
    image, block = [int(v) for v in image_shape], [int(v) for v in block_shape]
    k = len(image)
    dil, st = dilations or (1,) * k, strides or (1,) * k
    pad = pads or (0,) * (2 * k)
    full = [image[i] + pad[i] + pad[i + k] for i in range(k)]
    counts = [(full[i] - dil[i] * (block[i] - 1) - 1) // st[i] + 1 for i in range(k)]
    n = x.shape[0]
    c = x.shape[1] // int(np.prod(block))
    cols = x.reshape(n, c, *block, *counts)
    out = np.zeros((n, c, *full), dtype=np.float64)
    for pos in np.ndindex(*block):
        target = tuple(slice(pos[i] * dil[i], pos[i] * dil[i] + st[i] * (counts[i] - 1) + 1,
                             st[i]) for i in range(k))
        out[(slice(None), slice(None), *target)] += cols[(slice(None), slice(None), *pos)]
    crop = tuple(slice(pad[i], pad[i] + image[i]) for i in range(k))
    return out[(slice(None), slice(None), *crop)].astype(x.dtype)


def tfidf(x: np.ndarray, *, max_gram_length: int, max_skip_count: int,
          min_gram_length: int, mode: str, ngram_counts: tuple, ngram_indexes: tuple,
          pool_int64s: tuple = (), weights: tuple = (), **_: Any) -> np.ndarray:
    """TfIdfVectorizer on integer tokens: counts of the pool's n-grams (with skips),
    as term frequencies, 0/1 (IDF) or weighted counts."""
    pool = list(pool_int64s)
    grams: dict[tuple, int] = {}
    starts = [*ngram_counts, len(pool)]
    at = 0
    for n in range(1, len(ngram_counts) + 1):
        lo, hi = starts[n - 1], starts[n]
        for j in range(lo, hi, n):
            grams[tuple(pool[j:j + n])] = ngram_indexes[at]
            at += 1
    size = max(ngram_indexes) + 1
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    out = np.zeros((rows.shape[0], size), dtype=np.float32)
    for r, row in enumerate(rows.tolist()):
        for n in range(min_gram_length, max_gram_length + 1):
            for skip in range(0, max_skip_count + 1 if n > 1 else 1):
                step = skip + 1
                for start in range(len(row) - (n - 1) * step):
                    key = tuple(row[start:start + (n - 1) * step + 1:step])
                    if key in grams:
                        out[r, grams[key]] += 1
    w = np.asarray(weights, dtype=np.float32) if weights else np.ones(size, np.float32)
    if mode == "IDF":
        out = (out > 0) * w
    elif mode == "TFIDF":
        out = out * w
    return out.reshape(-1) if x.ndim == 1 else out


def not_computed(*arrays: np.ndarray, **_: Any) -> Any:
    raise NotImplementedError("this op is typed but not computed")
