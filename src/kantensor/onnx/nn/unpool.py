"""ONNX's windows written back, outputs larger than the inputs: ConvTranspose,
MaxUnpool and Col2Im.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.params import ParamError
from ...ops.sizes import SizeNames
from ...ops.templates import (
    builder,
    checked,
    dims,
    groups,
    reads_known_sizes,
    reads_ranks,
    shifted,
    size_of,
    typed,
)
from ...syntax.ast import Call, Clause, Compare, DimExpr, DimVar, FixedDim
from ..shared import NotKnown, value_entries
from .conv import window_attributes


@reads_ranks
def build_conv_transpose(types: tuple, kernel_shape: tuple | None = None,
                         strides: tuple | None = None, pads: tuple | None = None,
                         dilations: tuple | None = None, output_padding: tuple | None = None,
                         output_shape: tuple | None = None, auto_pad: str = "NOTSET",
                         group: int = 1, **_: Any) -> dict[str, Any]:
    """ConvTranspose: (N, C, in...) and W (C, M/group, k...) -> (N, M, out...), out =
    stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pads, or the
    ``output_shape`` attribute, or in * stride with SAME padding. The relation states
    what onnxruntime checks: W's first size is C, C is divisible by group, the bias has
    M entries, a ``kernel_shape`` attribute is W's spatial sizes, every kernel size and
    every output size is at least 1, and no spatial axis is empty given an
    output_padding or an output_shape."""
    x = types[0]
    k = x.ndim - 2
    if types[1].ndim != x.ndim:
        raise ParamError(f"W has {types[1].ndim} dimensions and X {x.ndim}: a ConvTranspose's "
                         "weight is (C, M/group, kernel...), of X's rank")
    if kernel_shape is not None and len(kernel_shape) != k:
        raise ParamError(f"kernel_shape has {len(kernel_shape)} entries, X has {k} spatial "
                         "axes")
    window_attributes(x.ndim, strides=strides, pads=pads, dilations=dilations,
                      output_padding=output_padding)
    if output_shape is not None and len(output_shape) < k:
        raise ParamError(f"output_shape has {len(output_shape)} entries, the input's {k} "
                         "spatial axes need as many at least")
    kernel = kernel_shape or dims("k", k)
    if any(isinstance(w, int) and w < 1 for w in kernel):
        raise ParamError(f"kernel_shape {tuple(kernel)}: onnxruntime needs every kernel size "
                         "positive (Kernel size must be positive)")
    strides = strides or (1,) * k
    dilations = dilations or (1,) * k
    output_padding = output_padding or (0,) * k
    if any(p >= s for p, s in zip(output_padding, strides, strict=False)):
        raise ParamError(f"output_padding {tuple(output_padding)} must be less than strides "
                         f"{tuple(strides)} (onnxruntime refuses it)")
    a = dims("a", x.ndim)
    out: list[DimExpr | int] = []
    clauses: list[Clause] = []
    for i in range(k):
        n = a[2 + i]
        if output_shape is not None:
            out.append(output_shape[-k + i])
            reach = n * strides[i] + (kernel[i] - 1) * dilations[i]  # onnxruntime's bound
            clauses.append(checked(reach >= output_shape[-k + i], lambda v, types, i=i: (
                f"output_shape is longer than ConvTranspose reaches along spatial axis {i} "
                f"of {types[0]} (stride * size + (kernel - 1) * dilation)")))
        elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out.append(_same(n, strides[i], kernel[i], dilations[i], output_padding[i]))
        else:
            p = (pads or (0,) * 2 * k)
            rest = 1 + output_padding[i] - p[i] - p[i + k]
            out.append(shifted(strides[i] * (n - 1) + (kernel[i] - 1) * dilations[i], rest))
    (m,) = dims("m")
    channels = m * group if group != 1 else m
    if group != 1:
        clauses.append(checked((a[1] % group).eq(0), lambda v, _, c=a[1].name, g=group:
                               f"input channels C is not divisible by group: C is {v[c]}, "
                               f"group {g}"))
    # onnxruntime checks X against the output: ``(out + pads - span) / stride + 1``
    # (C's division, toward zero) must be X's size, which it is not for an empty axis
    # with output_padding (``(output_padding - stride) / stride`` is 0, not -1); and it
    # refuses every empty axis given an output_shape
    clauses += [checked(a[2 + i] >= 1, lambda v, types, i=i: (
        f"spatial axis {i} of {types[0]} is empty: onnxruntime refuses it with an "
        "output_padding or an output_shape"))
        for i in range(k) if output_shape is not None or output_padding[i] > 0]
    clauses += [checked(w >= 1, lambda v, types: (
        f"W {types[1]} has an empty kernel axis: onnxruntime needs every kernel size "
        "positive (Kernel size must be positive)")) for w in kernel if not isinstance(w, int)]
    clauses += [checked(Compare(">=", o, 1),
                        lambda v, types, i=i: (
        f"ConvTranspose's output would have no position along spatial axis {i} of "
        f"{types[0]} (its pads remove more than the window covers)"))
        for i, o in enumerate(out)]
    return {"x": a, "w": [a[1], m, *kernel],
            "rest": [typed([channels], "T")] * (len(types) - 2), "y": [a[0], channels, *out],
            "fits": clauses,
            "params": {"strides": tuple(strides), "dilations": tuple(dilations),
                       "output_padding": tuple(output_padding)}}


def _same(n: DimVar, stride: int, kernel: DimVar | int, dilation: int, output_padding: int
          ) -> DimExpr:
    """A SAME-padded output size: ``in * stride``, or the full output where that is
    shorter (the padding is never negative: onnx's shape inference and onnxruntime take
    ``min(in*stride, stride*(in-1) + output_padding + (k-1)*dilation + 1)``)."""
    if isinstance(kernel, int):
        extra = output_padding + (kernel - 1) * dilation + 1 - stride
        return n * stride if extra >= 0 else shifted(n * stride, extra)
    full = shifted(stride * (n - 1) + (kernel - 1) * dilation, 1 + output_padding)
    return Call("min", (n * stride, full))


def conv_transpose(x: np.ndarray, w: np.ndarray, *b: np.ndarray, strides: tuple,
                   dilations: tuple, output_padding: tuple,
                   pads: tuple | None = None, output_shape: tuple | None = None,
                   auto_pad: str = "NOTSET", group: int = 1, **_: Any) -> np.ndarray:
    n, c = x.shape[:2]
    kernel_shape = w.shape[2:]
    k = len(kernel_shape)
    m = w.shape[1] * group
    spatial = x.shape[2:]
    full = [strides[i] * (spatial[i] - 1) + output_padding[i] + (kernel_shape[i] - 1)
            * dilations[i] + 1 for i in range(k)]
    y = np.zeros((n, m, *full), dtype=np.float64)
    cg, mg = c // group, m // group
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        ws = w[g * cg:(g + 1) * cg]
        for pos in np.ndindex(*kernel_shape):
            contrib = np.einsum("nc...,cm->nm...", xs, ws[(slice(None), slice(None), *pos)])
            index = tuple(slice(pos[i] * dilations[i],
                                pos[i] * dilations[i] + strides[i] * (spatial[i] - 1) + 1,
                                strides[i]) for i in range(k))
            y[(slice(None), slice(g * mg, (g + 1) * mg), *index)] += contrib
    if output_shape is not None:
        target = list(output_shape[-k:])
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        target = [min(spatial[i] * strides[i], full[i]) for i in range(k)]
    else:
        target = None
    if target is not None:
        total = [full[i] - target[i] for i in range(k)]
        y = np.pad(y, [(0, 0), (0, 0)] + [(0, max(-t, 0)) for t in total])
        total = [max(t, 0) for t in total]
        starts = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in total]
        crop = tuple(slice(starts[i], starts[i] + target[i]) for i in range(k))
    else:
        p = pads or (0,) * 2 * k
        crop = tuple(slice(p[i], full[i] - p[i + k]) for i in range(k))
    y = y[(slice(None), slice(None), *crop)]
    if b:
        y = y + b[0].reshape(1, -1, *[1] * k)
    return y.astype(x.dtype)


@builder
def build_max_unpool(types: tuple, given: tuple, kernel_shape: tuple,
                     output_shape_value: Any = None, strides: tuple | None = None,
                     pads: tuple | None = None, **_: Any) -> dict[str, Any]:
    x = types[0]
    k = window_attributes(x.ndim, kernel_shape=kernel_shape, strides=strides, pads=pads)
    a = dims("a", x.ndim)
    strides = strides or (1,) * k
    pads = pads or (0,) * (2 * k)
    sizes = SizeNames(output_shape_value)
    least = [*a[:2], *(shifted((a[2 + i] - 1) * strides[i], kernel_shape[i] - pads[i]
                               - pads[i + k]) for i in range(k))]
    # onnxruntime refuses a least output size that is not positive (an empty input's
    # (0 - 1) * stride + kernel - pads is 0 or less), given an output_shape or not
    clauses = [o >= 1 for o in least[2:]]
    out: list[Any] = least
    if 2 in given:
        u = dims("u", x.ndim)
        if output_shape_value is None:
            out = u
            clauses += [o >= 0 for o in out]
        else:  # and an output_shape smaller than the least (as its check reads it),
            # or whose batch and channel are not X's (onnxruntime: "batch and channel
            # dimensions must match input")
            out = [sizes.expr(v) if v is not None else u[i]
                   for i, v in enumerate(output_shape_value)]
            clauses += [u[i] >= 0 for i, v in enumerate(output_shape_value) if v is None]
            if len(output_shape_value) == len(least):
                clauses += [Compare("==" if i < 2 else ">=", o, m)
                            for i, (o, m) in enumerate(zip(out, least, strict=True))]
    more = len(types) - 2 - len(sizes.dims)
    return {"x": a, "rest": [*groups("r", more), *sizes.patterns()], "y": out,
            "fits": clauses, "params": {"strides": tuple(strides), "pads": tuple(pads)}}


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


@reads_known_sizes  # (image_shape's length r)
def build_col2im(types: tuple, image_shape_value: Any, block_shape_value: Any,
                 dilations: tuple | None = None, pads: tuple | None = None,
                 strides: tuple | None = None, **_: Any) -> dict[str, Any]:
    """Col2Im: (N, C * prod(block), L) and the int64 vectors image_shape and block_shape,
    of one length r (the spatial axes) -> (N, C, *image). As onnxruntime checks: every
    image and block entry is >= 1, C * prod(block) is a positive multiple of prod(block)
    (an empty C refused), and L is
    the number of block positions in the padded image, the product over the axes of
    ``(image + pads - dilation * (block - 1) - 1) // stride + 1``, each >= 1. An entry
    known as a size (a Dim, from Shape nodes) is that size; an unknown entry is a size
    of its own, and what it decides (C, or L) is then not stated."""
    if any(t.ndim != 1 for t in types[1:3]):
        raise ParamError(f"image_shape and block_shape are 1-D, got {types[1]} and "
                         f"{types[2]}")
    r = next((t.shape[0] for t in types[1:3] if isinstance(t.shape[0], int)), None)
    if r is None:
        raise NotKnown("Col2Im's image_shape and block_shape have an unknown length")
    sizes = SizeNames(image_shape_value, block_shape_value)
    clauses: list[Clause] = []
    image = _entries(sizes, value_entries(image_shape_value, r, "image_shape"), "image_shape",
                     clauses)
    block = _entries(sizes, value_entries(block_shape_value, r, "block_shape"), "block_shape",
                     clauses)
    dil, st, pad = dilations or (1,) * r, strides or (1,) * r, pads or (0,) * (2 * r)
    for name, given, n in (("dilations", dil, r), ("strides", st, r), ("pads", pad, 2 * r)):
        if len(given) != n:
            raise ParamError(f"{name} has {len(given)} entries, expected {n} (image_shape "
                             f"has {r})")
    if min((*dil, *st), default=1) < 1:
        raise ParamError(f"dilations {tuple(dil)} and strides {tuple(st)} must be >= 1")
    counts = [_count(image[i], block[i], pad[i] + pad[i + r], dil[i], st[i])
              for i in range(r)]
    for i, c in enumerate(counts):
        if isinstance(c, int) and c < 1:
            raise ParamError(f"the blocks {block_shape_value} do not fit the padded image "
                             f"{image_shape_value} (axis {i})")
        if c is not None and not isinstance(c, int):
            clauses.append(c >= 1)
    n, cb, el, c = dims("n cb l c")
    clauses.append(cb >= 1)  # ("'input' dim[1] must be a positive multiple of prod(block)")
    if None not in block:
        k = size_of(block)
        c = cb // k
        clauses.append((cb % k).eq(0))
    el = el if None in counts else size_of(counts)
    out = [DimVar(f"u{i}") if v is None else v for i, v in enumerate(image)]
    clauses += [u >= 1 for u, v in zip(out, image, strict=True) if v is None]
    return {"x": [n, cb, el], "r": r, "sizes": sizes.patterns(), "y": [n, c, *out],
            "fits": clauses}


def _entries(sizes: SizeNames, values: list, what: str, clauses: list[Clause]) -> list:
    """Col2Im's image or block shape as sizes, each >= 1 (ParamError for an int that is
    not; a where-clause for a Dim, as its size input's variable); None where unknown."""
    out: list = []
    for v in values:
        if isinstance(v, int) and v < 1:
            raise ParamError(f"{what} has an entry {v}: its entries are >= 1")
        out.append(v if v is None or isinstance(v, int) else sizes.expr(v))
        if out[-1] is not None and not isinstance(v, int):
            clauses.append(out[-1] >= 1)
    return out


def _count(image: Any, block: Any, pad: int, dilation: int, stride: int) -> Any:
    """The number of block positions along an axis, ``(image + pad - dilation * (block -
    1) - 1) // stride + 1`` (None where either is unknown)."""
    if image is None or block is None:
        return None
    if isinstance(image, int) and isinstance(block, int):
        return (image + pad - dilation * (block - 1) - 1) // stride + 1
    span = shifted(image, pad + dilation - 1) if not isinstance(image, int) else \
        FixedDim(image + pad + dilation - 1)
    reach = block * dilation if dilation != 1 else block
    rest = shifted(span, -reach) if isinstance(reach, int) else span - reach
    return (rest // stride if stride != 1 else rest) + 1


def col2im(x: np.ndarray, image_shape: np.ndarray, block_shape: np.ndarray,
           *sizes: np.ndarray, dilations: tuple | None = None, pads: tuple | None = None,
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
