"""ONNX's sliding windows: Conv, the pools and the global pools (ConvInteger,
QLinearConv, DeformConv and CausalConvWithState: :mod:`.convvariants`, so that a model
of Convs and pools imports less).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from ...ops.params import ParamError
from ...ops.templates import checked, dims, reads_ranks, shifted, typed
from ...syntax.ast import Clause, DimExpr, DimVar, dim_min
from ...types.dtypes import dtype_info
from ...types.numpy_dtypes import extreme_value
from ..shared import NotKnown


def _window(n: DimVar, k: int | DimVar, s: int, d: int, pb: int, pe: int, auto_pad: str,
            ceil_mode: int) -> DimExpr:
    """The output size of a sliding window over an axis of size ``n`` (``k``: the
    kernel's size, or the weight's axis that has it), written as few operations as the
    size allows (see :func:`_positions`): a stride-1 window that keeps its input's size
    (a 1x1 convolution, a padded 3x3) is ``n`` itself."""
    eff = k if d == 1 else (k - 1) * d + 1  # ((k-1)*1+1 is k)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return n if s == 1 else shifted(n, s - 1) // s
    if auto_pad == "VALID":  # no pads; ceil_mode still rounds up (onnxruntime, onnx)
        pb = pe = 0
    if ceil_mode:  # the last window must start inside the input or its left pad
        ceil = pb + pe + s - 1  # (n + ceil - eff)//s + 1, or (n + pb-1)//s + 1
        if isinstance(eff, int):  # floors of n over one divisor: the smaller offset is the min
            return _positions(n, min(ceil - eff, pb - 1), 0, s)
        return dim_min(_positions(n, ceil, eff, s), _positions(n, pb - 1, 0, s))
    return _positions(n, pb + pe, eff, s)


def _positions(n: DimVar, by: int, eff: int | DimExpr, s: int) -> DimExpr:
    """``(n + by - eff)//s + 1``, the positions of a window of ``eff`` at stride ``s``
    over ``n + by``, written as ``(n + by - eff + s)//s`` (a floor plus one is the floor
    of the sum plus the divisor) and a floor by 1 as its argument: the same size at every
    ``n`` (the Dim algebra gives both one canonical form), with fewer operations for
    every render to check, every build to evaluate and every solve to hold."""
    top = shifted(n, by - eff + s) if isinstance(eff, int) else shifted(n, by + s) - eff
    return top if s == 1 else top // s


def window_attributes(x_ndim: int, **given: tuple | None) -> int:
    """The number of spatial axes of an input of ``x_ndim`` axes (N, C, spatial...); a
    ParamError unless it has one at least and each attribute given has one entry per
    spatial axis (``pads`` two), strides, dilations and known kernel sizes at least 1."""
    k = x_ndim - 2
    if k < 1:
        raise ParamError(f"the input has {x_ndim} axes; it must have (N, C, spatial...) "
                         "with a spatial axis at least")
    for name, value in given.items():
        if value is None:
            continue
        want = 2 * k if name == "pads" else k
        if len(value) != want:
            raise ParamError(f"{name} has {len(value)} entries, the input's {k} spatial "
                             f"axes need {want}")
        if name in ("kernel_shape", "strides", "dilations") and any(
                isinstance(v, int) and v < 1 for v in value):
            raise ParamError(f"{name} must be at least 1 on each axis, got {tuple(value)}")
    return k


class Windows:
    """The parts of a Conv's or a pool's relation: X's dims, W's and the bias's operands
    (a Conv), the output's dims, the where-clauses (with their messages) and the
    parameters resolved."""

    def __init__(self, types: tuple, kernel_shape: tuple | None, strides: tuple | None,
                 pads: tuple | None, dilations: tuple | None, auto_pad: str, ceil_mode: int,
                 group: int, same_pads: bool = False):
        x = types[0]
        k = window_attributes(x.ndim, kernel_shape=kernel_shape, strides=strides, pads=pads,
                              dilations=dilations)
        a = self.x = dims("a", x.ndim)
        conv = len(types) > 1
        self.clauses: list[Clause] = []
        if conv:
            w = types[1]
            if w.ndim != x.ndim:
                raise ParamError(f"W has {w.ndim} dimensions and X {x.ndim}: a Conv's weight "
                                 "is (M, C/group, kernel...), of X's rank")
            wd = self.w = dims("w", w.ndim)
            if kernel_shape is not None and len(kernel_shape) != k:
                raise ParamError(f"kernel_shape has {len(kernel_shape)} entries, X has {k} "
                                 "spatial axes")
            kernel: Any = tuple(kernel_shape) if kernel_shape is not None else tuple(wd[2:])
            self.weight = [wd[0], wd[1], *kernel]
            self.clauses.append(checked(
                a[1].eq(group * wd[1] if group != 1 else wd[1]),
                lambda v, _, c=a[1].name, g=group, w1=wd[1].name: (
                    f"input channels C is not equal to kernel channels * group: C is {v[c]}, "
                    f"W's channels {v[w1]}, group {g}")))
            if group != 1:
                self.clauses.append(checked((wd[0] % group).eq(0),
                                            lambda v, _, m=wd[0].name, g=group: (
                    f"output channels M is not divisible by group: M is {v[m]}, group {g}")))
        else:
            kernel = kernel_shape
            if kernel is None:
                raise NotKnown("the kernel's spatial sizes must be known")
        strides = strides or (1,) * k
        dilations = dilations or (1,) * k
        pads = pads or (0,) * (2 * k)
        if conv and auto_pad.startswith("SAME") and any(v != 1 for v in dilations):
            # onnxruntime refuses this Conv at every size ("Dilation not supported for
            # AutoPadType::SAME_UPPER or AutoPadType::SAME_LOWER"), the spec computes it:
            # the node is left untyped, its contract undecided (docs/onnx.rst)
            raise NotKnown(f"a Conv padded {auto_pad} with dilations {tuple(dilations)}: "
                           "onnxruntime refuses it, the spec computes it")
        out = []
        unknown = dims("u", k)
        for i in range(k):
            if not conv and auto_pad.startswith("SAME") and dilations[i] != 1:
                # onnxruntime pads a pool as if undilated, the spec (onnx.reference) as
                # dilated: they differ (kernel 3, dilation 3 over 9: 5 positions or 9)
                out.append(unknown[i])
                self.clauses.append(unknown[i] >= 0)
                reach = (kernel[i] - 1) * (dilations[i] - 1) // strides[i]
                if reach:  # (its output, ceil(w/s) - reach at most, is not negative)
                    self.clauses.append(checked(
                        shifted(a[2 + i], strides[i] - 1) // strides[i] >= reach,
                        lambda v, types, i=i: (
                            f"the dilated window does not fit spatial axis {i} of "
                            f"{types[0]} padded {auto_pad} as if undilated (onnxruntime "
                            "computes a negative output size)")))
            else:
                size = _window(a[2 + i], kernel[i], strides[i], dilations[i], pads[i],
                               pads[i + k], auto_pad, ceil_mode)
                out.append(size)
                self.clauses.append(checked(size >= 1, lambda v, types, i=i: (
                    f"the window does not fit spatial axis {i} of {types[0]}: the output "
                    f"would have no position there (a window larger than its padded "
                    f"input)")))
            if same_pads and auto_pad.startswith("SAME") and kernel[i] < strides[i] \
                    and all(d == 1 for d in dilations):  # (dilated on any axis:
                # onnxruntime's dilated kernel runs them, on every axis)
                self.clauses.append(_same_pad(a[0], a[2 + i], kernel[i], strides[i], i))
            if not conv and (unknown[i] is out[i] or _window(
                    0, kernel[i], strides[i], dilations[i], pads[i], pads[i + k], auto_pad,
                    ceil_mode) >= 1):  # (onnxruntime: "Only N can be zero": w >= 1 or
                # n == 0; implied by the window's ``out >= 1`` where no window fits an
                # empty axis, as out grows with w: not said twice)
                self.clauses.append(checked(a[2 + i] >= _some(a[0]), lambda v, types, i=i: (
                    f"spatial axis {i} of {types[0]} is empty and its batch is not: a "
                    "pool needs an input")))
            if not conv and auto_pad == "NOTSET" and max(pads[i], pads[i + k]) >= kernel[i]:
                raise ParamError(f"pads {tuple(pads)} must be smaller than kernel_shape "
                                 f"{tuple(kernel)} (as onnxruntime requires of a pool)")
        self.y = [a[0], wd[0] if conv else a[1], *out]
        self.params = {"kernel_shape": tuple(kernel) if all(isinstance(v, int) for v in kernel)
                       else None, "strides": tuple(strides),
                       "pads": tuple(pads), "dilations": tuple(dilations)}


@lru_cache(maxsize=64)
def _some(batch: DimVar) -> DimExpr:
    """``min(batch, 1)``: what a pool's spatial axis is at least (onnxruntime's "Only N
    can be zero"), one expression for every axis and rank (made once per name)."""
    return dim_min(batch, 1)


def _same_pad(batch: DimVar, n: DimVar, k: int, s: int, i: int) -> Clause:
    """A SAME pool's total pad is not negative, ``(ceil(n / s) - 1) * s + k - n >= 0``,
    unless the batch is empty (with a kernel shorter than its stride it is negative at
    some ``n``; onnxruntime's older pool kernels refuse it, "padding values must be
    non-negative", but not over an empty batch: ``batch * pad >= 0`` says both)."""
    reach = shifted(shifted(n, s - 1) // s * s, k - s)
    return checked(batch * reach >= batch * n, lambda v, types, i=i: (
        f"the SAME pads of spatial axis {i} of {types[0]} would be negative (a kernel "
        "shorter than its stride; onnxruntime refuses them)"))


@reads_ranks
def build_same_padded_pool(types: tuple, **attributes: Any) -> dict[str, Any]:
    """:func:`build_pool` for the pools whose onnxruntime kernel refuses a negative SAME
    total pad (MaxPool, AveragePool before 19: the catalogue's tables say which) of the
    dtypes whose kernel refuses it (the dtype table's ``same_pad_refused``: MLAS's float32
    and float16; its float64, int8 and uint8 kernels run it, as the spec does)."""
    return _pool(types, same_pads=dtype_info(types[0].dtype).same_pad_refused, **attributes)


@reads_ranks
def build_pool(types: tuple, kernel_shape: tuple | None = None, strides: tuple | None = None,
               pads: tuple | None = None, dilations: tuple | None = None,
               auto_pad: str = "NOTSET", ceil_mode: int = 0, outputs: int = 1, group: int = 1,
               **_: Any) -> dict[str, Any]:
    """Conv and the pools: (N, C, spatial...) -> (N, C or M, windows...).

    Conv's weight is (M, C/group, k...) and its bias (M): the relation states
    ``C == group * W.shape[1]`` and ``M % group == 0``, and a ``kernel_shape`` attribute
    is W's spatial sizes (onnxruntime refuses any other). Every window fits its padded
    input: each output size is at least 1 (PyTorch's rule; onnxruntime refuses it for
    Conv, and for a pool computes an empty map that a later node cannot use, or a
    position from a window overhanging by less than a stride); a pool's
    pads are smaller than its kernel, and its input has channels and no empty spatial
    axis unless its batch is empty (C >= min(N, 1), W >= min(N, 1): onnxruntime's "Only
    N can be zero"; over an empty batch it runs an empty axis whose pads hold a window),
    as onnxruntime requires. (``W >= min(N, 1)``, not ``N*W >= N``: where a fact states
    ``W >= 1``, a window's kept ``out >= 1``, the direct build reads it without a sum or
    a product, :func:`kantensor.types.stated.at_most`; and a contract solves it into
    boxes, ``N == 0`` or ``W >= 1``, where the product is a condition no box states.)"""
    return _pool(types, kernel_shape, strides, pads, dilations, auto_pad, ceil_mode, outputs,
                 group)


def _pool(types: tuple, kernel_shape: tuple | None = None, strides: tuple | None = None,
          pads: tuple | None = None, dilations: tuple | None = None, auto_pad: str = "NOTSET",
          ceil_mode: int = 0, outputs: int = 1, group: int = 1, same_pads: bool = False,
          **_: Any) -> dict[str, Any]:
    """:func:`build_pool`'s relation; ``same_pads``: a SAME pool's total pads are not
    negative."""
    made = Windows(types, kernel_shape, strides, pads, dilations, auto_pad, ceil_mode, group,
                    same_pads)
    rest = [typed(made.weight, "T"), *[typed([made.w[0]], "T")] * (len(types) - 2)] \
        if len(types) > 1 else []
    outs = [typed(made.y, "T"), typed(made.y, "int64")][:2 if outputs > 1 else 1]
    n, c = made.x[0], made.x[1]
    channels = [] if len(types) > 1 else [c >= _some(n)]  # (Conv's C is its weight's)
    return {"x": made.x, "rest": rest, "outs": outs, "fits": [*made.clauses, *channels],
            "params": made.params}


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
        else:  # VALID: no pads, rounded up in ceil_mode all the same
            pb, pe = (0, 0) if auto_pad == "VALID" else (pads[i], pads[i + k])
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


def max_pool(x: np.ndarray, *, kernel_shape: tuple, strides: tuple, pads: tuple,
             dilations: tuple, auto_pad: str = "NOTSET", ceil_mode: int = 0,
             storage_order: int = 0, outputs: int = 1, **_: Any) -> Any:
    low = extreme_value(x.dtype, -1)
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


@reads_ranks
def build_global_pool(types: tuple, **_: Any) -> dict[str, Any]:
    """(N, C, spatial...) -> (N, C, 1...), X of 3 dimensions or more; there are
    channels and the spatial axes are not empty (their mean or maximum would be none)
    unless the batch is empty (C >= min(N, 1), D >= min(N, 1): onnxruntime's "Only N can
    be zero"; over an empty batch it runs them, an output of N*C*1... = 0 entries)."""
    if types[0].ndim < 3:
        raise ParamError(f"X has {types[0].ndim} dimensions; a global pool takes (N, C, "
                         "spatial...), 3 or more (onnxruntime refuses fewer)")
    a = dims("a", types[0].ndim)
    return {"x": a, "y": [*a[:2], *[1] * (len(a) - 2)],
            "fits": [a[1] >= _some(a[0]), *(d >= _some(a[0]) for d in a[2:])]}


def global_average_pool(x: np.ndarray) -> np.ndarray:
    if x.size == 0:  # (an empty batch, the only empty X: the output is empty too)
        return np.zeros((*x.shape[:2], *[1] * (x.ndim - 2)), x.dtype)
    return x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)


def global_max_pool(x: np.ndarray) -> np.ndarray:
    if x.size == 0:
        return np.zeros((*x.shape[:2], *[1] * (x.ndim - 2)), x.dtype)
    return x.max(axis=tuple(range(2, x.ndim)), keepdims=True)


def global_lp_pool(x: np.ndarray, *, p: int = 2) -> np.ndarray:
    """The p-norm of each channel's map, ``sum(|x|**p) ** (1/p)``, with onnxruntime's
    ``1/p`` a float division: at ``p = 0`` it is inf (the sum, the count, to the inf)."""
    if x.size == 0:
        return np.zeros((*x.shape[:2], *[1] * (x.ndim - 2)), x.dtype)
    total = (np.abs(x) ** float(p)).sum(axis=tuple(range(2, x.ndim)), keepdims=True)
    with np.errstate(divide="ignore"):
        inverse = np.divide(1.0, float(p))
    return (total ** inverse).astype(x.dtype)
