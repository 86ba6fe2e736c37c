"""ONNX's quantization family (``onnx/defs/quantization``): QuantizeLinear,
DequantizeLinear and DynamicQuantizeLinear (``signatures/onnx/quantization.toml``), each
op's builder beside its implementation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from onnx import TensorProto

from ..ops.params import ParamError, normalize_axis
from ..ops.templates import builder, dims, typed
from ..syntax.ast import Broadcasts, DTypeEq, DTypeName, DTypeVar
from ..types.dtypes import is_integer, normalize_dtype
from ..types.numpy_dtypes import numpy_dtype
from .dtypes import DTYPES, ELEM_TYPES, dtype_of
from .lowp import quantized


def _scale(types: tuple, axis: int, block_size: int) -> list:
    """The scale's dims, which the zero point's shape repeats: a scalar; per axis, the
    axis's size (or 1, which broadcasts: of a size the types do not give, a dim that is
    1 or the axis's, which ``_broadcast`` states); blocked, the input's shape with the
    axis in blocks of ``block_size``."""
    x, s = types[0], types[1]
    a: list = dims("a", x.ndim)
    if s.ndim == 0 and not block_size:
        return []
    if s.ndim == 1 and not block_size:
        if not isinstance(s.shape[0], int):
            return dims("s", 1)
        return [1] if s.shape[0] == 1 else [a[normalize_axis(axis, x.ndim)]]
    if s.ndim == x.ndim and block_size > 0:
        ax = normalize_axis(axis, x.ndim)
        a[ax] = (a[ax] + (block_size - 1)) // block_size
        return a
    raise ParamError(f"a scale of {s.ndim} axes for an input of {x.ndim} and block_size "
                     f"{block_size}: a scalar, per axis (1-D) or blocked (the input's rank; "
                     "onnxruntime refuses a scalar scale in blocks when it runs)")


def _broadcast(types: tuple, scale: list, axis: int, block_size: int) -> list:
    """Where a per-axis scale's size is no int: that it is 1 or the axis's size
    (onnxruntime refuses another, onnx.reference too), and 1 under a zero point of no
    axes (which onnxruntime takes only beside a scale of one element). (A blocked scale
    of one axis, beside an x of one, is ``ceil(D / block_size)``, not broadcast.)"""
    if len(scale) != 1 or isinstance(scale[0], int) or types[1].ndim != 1 or block_size:
        return []
    if len(types) > 2 and types[2].ndim == 0:
        return [scale[0].eq(1)]
    a = dims("a", types[0].ndim)[normalize_axis(axis, types[0].ndim)]
    (c,) = dims("c", 1)  # (``broadcast(s, a) == a`` loses that a is the broadcast)
    return [Broadcasts((scale[0], a), c), c.eq(a)]


def _zero(types: tuple, scale: list, block_size: int) -> list:
    """The zero point's dims: the scale's, except that a scale of one element (``()`` or
    ``(1)``) takes a zero point of one element of either shape, both then scalars (as
    onnx.reference reads them; ONNX's own node cases pair a ``()`` scale with a ``(1)``
    zero point)."""
    z = types[2]
    if scale in ([], [1]) and z.ndim <= 1:
        return [] if z.ndim == 0 else [1]
    if z.ndim == 0 and len(scale) == 1 and not isinstance(scale[0], int) and not block_size:
        return []  # the scale is 1 (see _broadcast)
    return scale


@builder
def build_quantize(types: tuple, output_dtype: int = 0, axis: int = 1, block_size: int = 0,
                   precision: int = 0, **_: Any) -> dict[str, Any]:
    """QuantizeLinear: x's and the scale's dims; after them the zero point (dtype ``Z``)
    and the scale's size conditions. The output's dtype ``dt`` is the zero point's, else
    ``output_dtype``'s, else uint8; given both, they are one dtype (``Z == int4``: the
    checker and onnxruntime refuse two). The catalogue states each opset's dtype sets
    (``T``, the scale's, ``Z`` and ``dt`` in ...). A known zero point's dtype is the
    kernel's ``output_dtype`` (its values may come computed in a wider integer:
    :func:`kantensor.ops.op.exact_casts`). ``precision`` (from opset 23), when given,
    names the element type the division computes in: an element type, not STRING
    (UnsupportedType else; it does not change the output's dtype)."""
    if precision:
        dtype_of(precision, "QuantizeLinear's precision")
    x, s = dims("a", types[0].ndim), _scale(types, axis, block_size)
    rest: list = [*_broadcast(types, s, axis, block_size)]
    named = dtype_of(output_dtype, "QuantizeLinear") if output_dtype else None
    if len(types) > 2:
        zero = ELEM_TYPES.get(types[2].dtype) if isinstance(types[2].dtype, str) else None
        same = [DTypeEq(DTypeVar("Z"), DTypeName(named))] if named else []
        return {"x": x, "s": s, "rest": [typed(_zero(types, s, block_size), "Z"), *rest, *same],
                "dt": "Z", **({"params": {"output_dtype": zero}} if zero else {})}
    return {"x": x, "s": s, "rest": rest, "dt": named or "uint8"}


def _along(v: np.ndarray, x: np.ndarray, axis: int, block_size: int) -> np.ndarray:
    """A scale or zero point broadcast against x: a scalar, per ``axis``, or blocked."""
    if v.ndim == 0 or v.size == 1:
        return v.reshape(())
    if v.ndim == 1 and not block_size:
        shape = [1] * x.ndim
        shape[axis % x.ndim] = -1
        return v.reshape(shape)
    return np.repeat(v, block_size, axis=axis % x.ndim)[
        tuple(slice(0, n) for n in x.shape)]


def quantize(x: np.ndarray, scale: np.ndarray, *zero: np.ndarray, axis: int = 1,
             block_size: int = 0, output_dtype: int = 0, saturate: int = 1,
             precision: int = 0) -> np.ndarray:
    to = output_dtype or (ELEM_TYPES[normalize_dtype(zero[0].dtype)] if zero else
                          TensorProto.UINT8)
    z = _along(zero[0], x, axis, block_size) if zero else None
    s = _along(scale, x, axis, block_size)
    if precision:  # the division in that type (as onnx.reference and onnxruntime do)
        p = numpy_dtype(DTYPES[precision])
        y = x.astype(p) / s.astype(p)
    else:
        y = x.astype(np.float64) / s if is_integer(DTYPES[to]) else x / s
    return quantized(y, z, to, saturate)


@builder
def build_dequantize(types: tuple, output_dtype: int = 0, axis: int = 1, block_size: int = 0,
                     **_: Any) -> dict[str, Any]:
    """DequantizeLinear: x's and the scale's dims; after them the zero point, of x's
    dtype ``T``, and the scale's size conditions. The output's dtype ``dt`` is
    ``output_dtype``'s, else the scale's (``S``, where the catalogue's entry names it)."""
    x, s = dims("a", types[0].ndim), _scale(types, axis, block_size)
    zero = [typed(_zero(types, s, block_size), "T")] if len(types) > 2 else []
    return {"x": x, "s": s, "rest": [*zero, *_broadcast(types, s, axis, block_size)],
            "dt": dtype_of(output_dtype, "DequantizeLinear") if output_dtype else "S"}


def dequantize(x: np.ndarray, scale: np.ndarray, *zero: np.ndarray, axis: int = 1,
               block_size: int = 0, **_: Any) -> np.ndarray:
    z = _along(zero[0], x, axis, block_size).astype(np.float64) if zero else 0
    return ((x.astype(np.float64) - z) * _along(scale, x, axis, block_size))


def dynamic_quantize(x: np.ndarray) -> tuple:
    lo, hi = min(0.0, float(x.min(initial=0))), max(0.0, float(x.max(initial=0)))
    scale = np.float32((hi - lo) / 255)
    zero = np.uint8(np.clip(np.rint(-lo / scale), 0, 255)) if scale else np.uint8(0)
    y = np.clip(np.rint(x / scale) + zero, 0, 255) if scale else np.zeros(x.shape)
    return y.astype(np.uint8), np.array(scale, dtype=np.float32), np.array(zero)
