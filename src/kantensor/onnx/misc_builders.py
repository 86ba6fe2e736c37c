"""Builders of assorted ONNX ops: windows, quantisation, spectral, image and sequence
ops (see :mod:`.builders`)."""

from __future__ import annotations

import math
from typing import Any

from ..ops.params import ParamError, normalize_axes, normalize_axis
from ..ops.sizes import SizeNames
from ..ops.templates import builder, names, operand, reads_ranks, where
from .dtypes import ELEM_TYPES, dtype_of


def _rest(types: tuple, skip: int, sizes: SizeNames | None = None) -> str:
    more = len(types) - skip - (len(sizes.dims) if sizes else 0)
    return "".join(f",(*r{i})" for i in range(more)) + (sizes.operands(after=True) if sizes
                                                         else "")


@builder
def window(types: tuple, size_value: Any, output_datatype: int = 1, **_: Any
           ) -> dict[str, Any]:
    """HannWindow and the like: as many values as the size input's value."""
    n = size_value[0] if size_value else None
    sizes = SizeNames(size_value)
    return {"sizes": sizes.operands(after=True), "dt": dtype_of(output_datatype, "window"),
            "y": "(u)" if n is None else f"({sizes.text(n)})",
            "fits": " where u >= 0" if n is None else ""}


def _scale(types: tuple, axis: int, block_size: int) -> str:
    """The scale's operand, which the zero point's shape repeats: a scalar; per axis, the
    axis's size (or 1, which broadcasts); blocked, the input's shape with the axis in
    blocks of ``block_size``."""
    x, s = types[0], types[1]
    dims = names("a", x.ndim)
    if s.ndim == 0:
        return "()"
    if s.ndim == 1 and not block_size:
        return "(1)" if s.shape[0] == 1 else f"({dims[normalize_axis(axis, x.ndim)]})"
    if s.ndim == x.ndim and block_size > 0:
        ax = normalize_axis(axis, x.ndim)
        dims[ax] = f"({dims[ax]}+{block_size - 1})//{block_size}"
        return operand(dims)
    raise ParamError(f"a scale of {s.ndim} axes for an input of {x.ndim} and block_size "
                     f"{block_size}: a scalar, per axis (1-D) or blocked (the input's rank)")


def _zero(types: tuple, scale: str) -> str:
    """The zero point's operand: the scale's shape, except that a scale of one element
    (``()`` or ``(1)``) takes a zero point of one element of either shape, both then
    scalars (as onnx.reference reads them; ONNX's own node cases pair a ``()`` scale with
    a ``(1)`` zero point)."""
    z = types[2]
    if scale in ("()", "(1)") and z.ndim <= 1:
        return "()" if z.ndim == 0 else "(1)"
    return scale


@builder
def quantize(types: tuple, output_dtype: int = 0, axis: int = 1, block_size: int = 0,
             **_: Any) -> dict[str, Any]:
    """QuantizeLinear: the zero point's dtype, else ``output_dtype``, else uint8. A known
    zero point's dtype is the kernel's ``output_dtype`` (its values may come computed in
    a wider integer: :func:`kantensor.ops.op.exact_casts`)."""
    x, s = operand(names("a", types[0].ndim)), _scale(types, axis, block_size)
    if len(types) > 2:
        zero = ELEM_TYPES.get(types[2].dtype) if isinstance(types[2].dtype, str) else None
        return {"x": x, "rest": f",{s}:S,{_zero(types, s)}:Z", "dt": "Z",
                **({"params": {"output_dtype": zero}} if zero else {})}
    return {"x": x, "rest": f",{s}:S",
            "dt": dtype_of(output_dtype, "QuantizeLinear") if output_dtype else "uint8"}


@builder
def dequantize(types: tuple, output_dtype: int = 0, axis: int = 1, block_size: int = 0,
               **_: Any) -> dict[str, Any]:
    """DequantizeLinear: the scale's dtype (or ``output_dtype``)."""
    x, s = operand(names("a", types[0].ndim)), _scale(types, axis, block_size)
    return {"x": x, "rest": f",{s}:S" + (f",{_zero(types, s)}:Z" if len(types) > 2 else ""),
            "dt": dtype_of(output_dtype, "DequantizeLinear") if output_dtype else "S"}


@builder
def dft(types: tuple, given: tuple, dft_length_value: Any = None, axis_value: Any = None,
        onesided: int = 0, inverse: int = 0, **_: Any) -> dict[str, Any]:
    """DFT (opset 20): the axis from the input ``axis`` (default -2)."""
    if 2 in given:
        if not axis_value or not isinstance(axis_value[0], int):
            raise ParamError("DFT's axis must be constant")
        return _dft(types, given, dft_length_value, axis_value[0], onesided, inverse)
    return _dft(types, given, dft_length_value, -2, onesided, inverse)


@builder
def dft17(types: tuple, given: tuple, dft_length_value: Any = None, axis: int = 1,
          onesided: int = 0, inverse: int = 0, **_: Any) -> dict[str, Any]:
    """DFT (opsets 17 to 19): the axis an attribute (default 1)."""
    return _dft(types, given, dft_length_value, axis, onesided, inverse)


def _dft(types: tuple, given: tuple, dft_length_value: Any, axis: int, onesided: int,
         inverse: int) -> dict[str, Any]:
    """The signal axis becomes ``dft_length`` (half plus one if ``onesided``), the last
    axis (real, imaginary) 2."""
    x = types[0]
    dims = names("a", x.ndim)
    ax = normalize_axis(axis, x.ndim)
    if ax == x.ndim - 1:
        raise ParamError("DFT's axis cannot be the last (the complex) axis")
    sizes = SizeNames(dft_length_value)
    n = dims[ax]
    clauses = []
    if 1 in given:
        length = dft_length_value[0] if dft_length_value else None
        if length is None:
            n = "u"
            clauses.append("u >= 0")
        else:
            n = sizes.text(length)
    if onesided and not inverse and clauses:
        n = "u"
    out = list(dims)
    if onesided and inverse:  # a half spectrum in, the whole real signal out
        out[ax] = n if 1 in given else f"2*({dims[ax]}-1)"
        out[-1] = "1"
    else:
        out[ax] = f"({n})//2+1" if onesided and not clauses else n
        out[-1] = "2"
    return {"x": operand(dims), "rest": _rest(types, 1, sizes), "y": operand(out),
            "fits": where(clauses + [f"{dims[-1]} <= 2"]), "params": {"axis": ax}}


@builder
def center_crop_pad(types: tuple, shape_value: Any, axes: tuple | None = None,
                    **_: Any) -> dict[str, Any]:
    x = types[0]
    dims = names("a", x.ndim)
    picked = normalize_axes(axes, x.ndim) if axes is not None else tuple(range(x.ndim))
    if axes is not None:
        picked = tuple(normalize_axis(a, x.ndim) for a in axes)
    sizes = SizeNames(shape_value)
    out = list(dims)
    clauses = []
    values = list(shape_value) if shape_value else [None] * len(picked)
    for ax, v in zip(picked, values, strict=True):
        if v is None:
            out[ax] = f"u{ax}"
            clauses.append(f"u{ax} >= 0")
        else:
            out[ax] = sizes.text(v)
    return {"x": operand(dims), "rest": _rest(types, 1, sizes), "y": operand(out),
            "fits": where(clauses), "params": {"axes": picked}}


@builder
def col2im(types: tuple, image_shape_value: Any, block_shape_value: Any, **_: Any
           ) -> dict[str, Any]:
    """Col2Im: (N, C * prod(block), L) -> (N, C, image...)."""
    image, block = image_shape_value, block_shape_value
    if image is None or block is None or not all(isinstance(v, int) for v in (*image, *block)):
        raise ParamError("Col2Im needs constant image and block shapes")
    k = math.prod(block)
    return {"x": "(n,cb,l)", "rest": _rest(types, 1),
            "y": operand(["n", f"cb//{k}", *image]), "fits": f" where cb % {k} == 0"}


@reads_ranks
def grid_sample(types: tuple, **_: Any) -> dict[str, Any]:
    """GridSample: (N, C, spatial...) sampled at a grid (N, out..., r) -> (N, C, out...)."""
    x = types[0]
    k = x.ndim - 2
    out = names("o", k)
    return {"x": operand(["n", "c", *names("a", k)]), "g": operand(["n", *out, str(k)]),
            "y": operand(["n", "c", *out])}


@reads_ranks
def nms(types: tuple, **_: Any) -> dict[str, Any]:
    return {"rest": _rest(types, 2)}


@reads_ranks
def conv_transpose(types: tuple, kernel_shape: tuple | None = None,
                   strides: tuple | None = None, pads: tuple | None = None,
                   dilations: tuple | None = None, output_padding: tuple | None = None,
                   output_shape: tuple | None = None, auto_pad: str = "NOTSET",
                   group: int = 1, **_: Any) -> dict[str, Any]:
    """ConvTranspose: (N, C, in...) and W (C, M/group, k...) -> (N, M, out...), out =
    stride * (in - 1) + output_padding + (k - 1) * dilation + 1 - pads, or the
    ``output_shape`` attribute, or in * stride with SAME padding."""
    x = types[0]
    k = x.ndim - 2
    kernel = kernel_shape or tuple(f"k{i}" for i in range(k))
    strides = strides or (1,) * k
    dilations = dilations or (1,) * k
    output_padding = output_padding or (0,) * k
    dims = names("a", x.ndim)
    out = []
    for i in range(k):
        n = dims[2 + i]
        if output_shape is not None:
            out.append(str(output_shape[-k + i]))
        elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out.append(f"{n}*{strides[i]}")
        else:
            p = (pads or (0,) * 2 * k)
            rest = 1 + output_padding[i] - p[i] - p[i + k]
            out.append(f"{strides[i]}*({n}-1)+({kernel[i]}-1)*{dilations[i]}{rest:+d}")
    return {"x": operand(dims), "w": operand(["c", "m", *names("k", k)]),
            "rest": _rest(types, 2), "y": operand([dims[0], f"m*{group}", *out]),
            "params": {"strides": tuple(strides), "dilations": tuple(dilations),
                       "output_padding": tuple(output_padding)}}


@reads_ranks
def rnn(types: tuple, hidden_size: int, direction: str = "forward", layout: int = 0,
        outputs: int = 2, gates: int = 1, **_: Any) -> dict[str, Any]:
    """RNN, GRU, LSTM: Y (seq, dirs, batch, hidden), Y_h and Y_c (dirs, batch, hidden);
    batch first with ``layout`` 1."""
    dirs = 2 if direction == "bidirectional" else 1
    h = hidden_size
    if layout:
        x, y, state = "(b,s,i)", f"(b,s,{dirs},{h})", f"(b,{dirs},{h})"
    else:
        x, y, state = "(s,b,i)", f"(s,{dirs},b,{h})", f"({dirs},b,{h})"
    outs = [f"{y}:T", f"{state}:T", f"{state}:T"][:outputs]
    return {"x": x, "w": f"({dirs},{gates * h},i)", "r": f"({dirs},{gates * h},{h})",
            "rest": _rest(types, 3), "outs": ",".join(outs)}
