"""Conv's variants: ConvInteger, QLinearConv (Conv's windows over quantized tensors),
DeformConv (typed, not computed) and CausalConvWithState. Apart from :mod:`.conv`, whose
Conv and pools most models use: a first typing imports only the modules its entries name,
and a smaller module is read and unmarshalled faster.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.templates import builder, dims, groups, reads_ranks, typed
from .conv import Windows, conv


@builder
def build_conv_integer(types: tuple, kernel_shape: tuple | None = None,
                       strides: tuple | None = None, pads: tuple | None = None,
                       dilations: tuple | None = None, auto_pad: str = "NOTSET", group: int = 1,
                       given: tuple = (0, 1), **_: Any) -> dict[str, Any]:
    """ConvInteger: Conv's sizes; int32 out. The zero points (``given`` says which the
    node has) of any shape, x's of x's dtype (T), w's of w's (U), as its schema says."""
    made = Windows(types[:2], kernel_shape, strides, pads, dilations, auto_pad, 0, group)
    rest = [typed(g.dims, "T" if place == 2 else "U")
            for g, place in zip(groups("z", len(types) - 2), given[2:], strict=True)]
    return {"x": made.x, "w": made.weight, "rest": rest, "y": made.y,
            "fits": made.clauses, "params": made.params}


def conv_integer(x: np.ndarray, w: np.ndarray, *zero: np.ndarray, given: tuple = (0, 1),
                 **params: Any) -> np.ndarray:
    placed = dict(zip(given[2:], zero, strict=True))
    xz = placed[2].astype(np.int64) if 2 in placed else 0
    wz = placed[3].astype(np.int64).reshape(-1, *[1] * (w.ndim - 1)) \
        if 3 in placed and placed[3].size > 1 else placed.get(3, 0)
    y = conv((x.astype(np.int64) - xz).astype(np.float64),
             (w.astype(np.int64) - wz).astype(np.float64), **params)
    return np.rint(y).astype(np.int32)


@builder
def build_qlinear_conv(types: tuple, kernel_shape: tuple | None = None,
                       strides: tuple | None = None, pads: tuple | None = None,
                       dilations: tuple | None = None, auto_pad: str = "NOTSET", group: int = 1,
                       **_: Any) -> dict[str, Any]:
    """QLinearConv: x, its scale and zero point, w, its scale and zero point, y's scale
    and zero point (whose dtype the output has), and a bias."""
    made = Windows((types[0], types[3]), kernel_shape, strides, pads, dilations, auto_pad, 0,
                    group)
    return {"x": made.x, "w": made.weight, "bias": groups("z", len(types) - 8, 8),
            "y": made.y, "fits": made.clauses, "params": made.params}


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


@reads_ranks
def build_deform_conv(types: tuple, given: tuple = (0, 1, 2), offset_group: int = 1,
                      **_: Any) -> dict[str, Any]:
    """DeformConv: the output's spatial sizes are the offset's; B (the output channels
    M, as W's first axis) and mask (N, offset_group * the kernel's size, the output's
    spatial sizes), whichever the node has (``given``: by their places), of X's dtype
    (its schema's one T), as onnxruntime runs them (any shape of either was taken)."""
    k = types[0].ndim - 2
    out = dims("o", k)
    kernel = dims("k", k)
    n, c, m, cg, q = dims("n c m cg q")
    window = offset_group
    for d in kernel:
        window = d * window
    rest = {3: typed([m], "T"), 4: typed([n, window, *out], "T")}
    return {"x": [n, c, *dims("a", k)], "w": [m, cg, *kernel],
            "offset": [n, q, *out],
            "rest": [rest[place] for place in given[3:]],
            "y": [n, m, *out]}


@reads_ranks
def build_causal_conv(types: tuple, given: tuple, outputs: int = 2, **_: Any) -> dict[str, Any]:
    """CausalConvWithState: the output like the input, the state (batch, channels, k-1);
    the bias is (channels), a past state like the present one."""
    b, c, k, n = dims("b c k l")
    state = typed([b, c, k - 1], "T")
    rest = [typed([c], "T") if p == 2 else state for p in given[2:]]
    return {"rest": rest, "outs": [typed([b, c, n], "T"), state][:outputs]}


def causal_conv(x: np.ndarray, w: np.ndarray, *rest: np.ndarray, given: tuple,
                outputs: int = 2, activation: str = "none") -> Any:
    extra = dict(zip(given[2:], rest, strict=False))
    b, c, n = x.shape
    k = w.shape[2]
    past = extra.get(3, np.zeros((b, c, k - 1), dtype=x.dtype))
    full = np.concatenate([past, x], axis=2)
    y = np.zeros((b, c, n), dtype=np.float64)
    for j in range(k):
        y += w[None, :, 0, j, None] * full[:, :, j:j + n]
    if 2 in extra:
        y += extra[2][None, :, None]
    if activation in ("silu", "swish"):
        y = y / (1 + np.exp(-y))
    present = full[:, :, full.shape[2] - (k - 1):] if k > 1 else full[:, :, :0]
    return (y.astype(x.dtype), present) if outputs > 1 else y.astype(x.dtype)
