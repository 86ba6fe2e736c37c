"""ONNX's conversions to its low-precision types (Cast, CastLike, QuantizeLinear):
``saturate`` for the float8 types and the rounding of FLOAT8E8M0, as the ONNX operator
specification defines them. Values of those types are ml_dtypes arrays (the onnx
package depends on ml_dtypes)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from onnx import TensorProto

from ..types.dtypes import integer_range, is_integer
from ..types.numpy_dtypes import numpy_dtype
from .dtypes import DTYPES

#: The element types ``saturate`` applies to: out-of-range values (infinities included)
#: become the largest finite value of their sign instead of NaN or infinity.
SATURATING = frozenset({TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ,
                        TensorProto.FLOAT8E5M2, TensorProto.FLOAT8E5M2FNUZ})
_E8M0 = TensorProto.FLOAT8E8M0
_EXPONENT_BITS = np.uint32(0xFF)
_FRACTION = np.uint32(0x7FFFFF)
_HALF = np.uint32(0x400000)  # the fraction's top bit: one half


def saturated(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``x`` clipped to the finite range of ``dtype`` (NaN stays NaN), then converted."""
    info = ml_dtypes.finfo(dtype)
    return np.clip(x, info.min, info.max).astype(dtype)


def to_e8m0(x: np.ndarray, saturate: int, round_mode: str) -> np.ndarray:
    """FLOAT8E8M0 (a power of two, 2**(e - 127); no sign, no zero): the float32
    exponent of ``|x|``, raised by one when ``round_mode`` is "up" and a fraction is
    left, or "nearest" and the fraction is at least one half (a subnormal's exactly one
    half stays down); "down" truncates. NaN and infinities give NaN; with ``saturate``
    the largest exponent never rounds up into NaN."""
    if round_mode not in ("up", "down", "nearest"):
        raise ValueError(f"round_mode must be up, down or nearest, got {round_mode!r}")
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    exponent = ((bits >> np.uint32(23)) & _EXPONENT_BITS).astype(np.uint16)
    fraction = bits & _FRACTION
    special = exponent == 0xFF
    if round_mode == "up":
        up = fraction != 0
    elif round_mode == "nearest":
        up = ((fraction & _HALF) != 0) & ((exponent > 0) | ((fraction & ~_HALF) != 0))
    else:
        up = np.zeros(exponent.shape, dtype=bool)
    if saturate:
        up &= exponent != 0xFE
    code = np.where(special, 0xFF, exponent + up).astype(np.uint8)
    return code.view(ml_dtypes.float8_e8m0fnu)


def convert(x: np.ndarray, to: int, saturate: int = 1, round_mode: str = "up") -> np.ndarray:
    """``x`` as ONNX elem type ``to`` (Cast's semantics)."""
    target = numpy_dtype(DTYPES[to])
    if to == _E8M0:
        return to_e8m0(x, saturate, round_mode)
    if to in SATURATING and saturate:
        return saturated(x, target)
    return x.astype(target)


def quantized(y: np.ndarray, zero: np.ndarray | None, to: int, saturate: int) -> np.ndarray:
    """QuantizeLinear's last step on ``y = x / scale`` (a float array): integers round
    half to even, add the zero point and clip to their range; float8 types convert
    (saturating), ignoring the zero point; other floats add it and convert."""
    dtype = DTYPES[to]
    if is_integer(dtype):
        q = np.rint(y) + (0 if zero is None else zero.astype(np.float64))
        low, high = integer_range(dtype)
        return np.clip(q, low, high).astype(numpy_dtype(dtype))
    if to in SATURATING:
        return convert(y, to, saturate)
    return (y if zero is None else y + zero.astype(np.float64)).astype(numpy_dtype(dtype))
