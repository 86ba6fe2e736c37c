"""ONNX's casts: Cast, CastLike and BitCast (ONNX's conversions, float8 saturation and
FLOAT8E8M0's rounding: :mod:`..lowp`), and a value holding sizes cast where the target
type holds them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.templates import reads_ranks
from ...syntax.ast import DTypeVar, InCategory
from ...types.dtypes import DEFAULT_RANGE, dtype_info, normalize_dtype
from ..dtypes import DTYPES, ELEM_TYPES, dtype_of
from ..floatsizes import float_sizes, held, precision, to_integer
from ..lowp import convert
from ..shared import FOLD_FACTS


@reads_ranks
def build_cast(types: tuple, to: int, **_: Any) -> dict[str, Any]:
    """Cast's target dtype, from the ONNX element type ``to``."""
    return {"to_dtype": dtype_of(to, "Cast")}


@float_sizes
def cast(x: np.ndarray, *, to: int, to_dtype: str = "", saturate: int = 1,
         round_mode: str = "up") -> np.ndarray:
    """Cast: ONNX's conversion (float8 saturation, FLOAT8E8M0's rounding)."""
    if x.dtype == object:
        return _sizes_cast(x, to, saturate, round_mode)
    return convert(x, to, saturate, round_mode)


@float_sizes
def cast_like(x: np.ndarray, like: np.ndarray, *, saturate: int = 1,
              round_mode: str = "up") -> np.ndarray:
    to = ELEM_TYPES[normalize_dtype(like.dtype)]
    if x.dtype == object:
        return _sizes_cast(x, to, saturate, round_mode)
    return convert(x, to, saturate, round_mode)


def _sizes_cast(x: np.ndarray, to: int, saturate: int, round_mode: str) -> np.ndarray:
    """A value holding sizes (Dims) cast to the ONNX element type ``to``: each int
    converted as ONNX converts it (-1 in uint8 is 255), each size kept where the type
    holds it at every size (int64; uint64 where the facts say it is >= 0; a float, as
    :mod:`..floatsizes` says, whose fraction an integer type truncates);
    ValueError otherwise (not folded: ``100*n`` in uint8 wraps from n = 3, in int32 past
    2**31)."""
    target = DTYPES[to]
    out = np.empty(x.shape, dtype=object)
    floats = precision(target) is not None
    for index, v in np.ndenumerate(x):
        if floats:
            out[index] = held(v, target)
            continue
        v = to_integer(v, "Cast")  # (a float of sizes, stating what it needs)
        if isinstance(v, int | np.integer):
            out[index] = convert(np.asarray(int(v), dtype=np.int64), to, saturate,
                                 round_mode).item()
        elif target == "int64" or target == "uint64" and \
                FOLD_FACTS.get().decide((v, ">=", 0)) is True:
            out[index] = v
        else:
            raise ValueError(f"{v} in {target} is not {v} at every size")
    return out


@reads_ranks
def build_bitcast(types: tuple, to: int, **_: Any) -> dict[str, Any]:
    """BitCast: the target dtype, from the ONNX element type ``to``; the input's dtype
    ``T`` of the same bit width (its schema's shape inference, and onnxruntime, refuse
    another: the bytes would not make as many elements)."""
    target = dtype_of(to, "BitCast")
    bits = dtype_info(target).bits
    same = tuple(d for d in DEFAULT_RANGE if dtype_info(d).bits == bits)
    return {"to_dtype": target, "same": [InCategory(DTypeVar("T"), same)]}


def bitcast(x: np.ndarray, *, to: int, **_: Any) -> np.ndarray:
    """BitCast: the same bytes (little endian) read as another dtype of the same width."""
    target = np.dtype(DTYPES[to]).newbyteorder("<")
    data = np.asarray(x, dtype=x.dtype.newbyteorder("<")).tobytes()
    return np.frombuffer(data, dtype=target).reshape(x.shape).astype(target.newbyteorder("="))
