"""ONNX's generator family (``onnx/defs/generator``): ConstantOfShape, Range, EyeLike
and Bernoulli (``signatures/onnx/generator.toml``), each op's builder beside its
implementation; the element types a Constant (read by the importer as a literal) may
have.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ops.sizes import SizeNames
from ..ops.templates import builder, dims, reads_ranks
from ..syntax.ast import DimVar, dim_max
from ..syntax.errors import TypeInferenceError
from ..types.dim import Dim
from ..types.dtypes import COMPLEX, category
from .dtypes import dtype_of
from .shared import NotKnown, size_entry

#: The first opset whose Constant may hold complex values: before 9 its schema's T is
#: float16, float32 and float64. onnxruntime takes a Constant of every other type it has
#: at any opset (its value becomes an initializer: ints, bool and strings before 9,
#: bfloat16 before 13, float8 before 19, ...), which onnx's inference refuses; kantensor
#: follows onnxruntime there, and refuses where both refuse: complex before 9
#: (onnxruntime registers no complex type; onnx's inference takes it from 9 on).
COMPLEX_CONSTANTS_SINCE = 9


def check_constant(dtype: str, opset: int | None, where: str) -> None:
    """TypeInferenceError naming ``where`` if a Constant's value of ``dtype`` is of no
    type the oracles take at ``opset`` (None: the newest)."""
    if opset is not None and opset < COMPLEX_CONSTANTS_SINCE and \
            category(dtype) is COMPLEX:
        raise TypeInferenceError(f"{where}: a Constant of {dtype} at opset {opset} (its "
                                 "schema's T is float16, float32 and float64 before opset "
                                 f"{COMPLEX_CONSTANTS_SINCE}; complex from then on)")


@builder
def build_constant_of_shape(types: tuple, input_value: Any, value: Any, **_: Any
                            ) -> dict[str, Any]:
    """ConstantOfShape: the sizes of the input's value (where it is not known, as many
    unknown sizes as its type has entries); the dtype of ``value``."""
    dtype = value[0]
    if input_value is None:
        length = types[0].shape[0] if types[0].ndim == 1 else None
        if not isinstance(length, int):
            raise NotKnown("needs a shape whose value or length is known")
        input_value = (None,) * length
    sizes = SizeNames(input_value)
    out, clauses = [], []
    for i, entry in enumerate(input_value):
        if entry is None:
            u = DimVar(f"u{i}")
            out.append(u)
            clauses.append(u >= 0)
        else:
            out.append(size_entry(sizes, entry, clauses, "shape"))
    return {"sizes": sizes.patterns(), "y": out, "dtype": dtype, "fits": clauses}


def constant_of_shape(shape: np.ndarray, *sizes: np.ndarray, input_value: Any = None,
                      value: Any = None, **_: Any) -> np.ndarray:
    dtype, fill = value if value is not None else ("float32", 0.0)  # (ONNX's default)
    return np.full([int(v) for v in np.asarray(shape).tolist()], fill, dtype=dtype)


@builder
def build_range(types: tuple, start_value: Any, limit_value: Any, delta_value: Any,
                **_: Any) -> dict[str, Any]:
    """Range: max(ceil((limit - start) / delta), 0) elements, from the values when they
    are known (an int limit may be a size the model names)."""
    values = [v[0] if v else None for v in (start_value, limit_value, delta_value)]
    start, limit, delta = values
    sizes = SizeNames(tuple(values))
    if all(isinstance(v, int | float) for v in values) and delta != 0:
        return {"sizes": [], "n": max(math.ceil((limit - start) / delta), 0), "fits": []}
    if all(isinstance(v, int) or isinstance(v, Dim) for v in values) and \
            isinstance(delta, int) and delta > 0 and isinstance(start, int):
        lim, shift = sizes.expr(limit), delta - 1 - start
        shifted = lim + shift if shift >= 0 else lim - (-shift)
        return {"sizes": sizes.patterns(), "n": dim_max(shifted, 0) // delta, "fits": []}
    u = DimVar("u")
    return {"sizes": sizes.patterns(), "n": u, "fits": [u >= 0]}


def range_(start: np.ndarray, limit: np.ndarray, delta: np.ndarray, *sizes: np.ndarray,
           **_: Any) -> np.ndarray:
    return np.arange(start, limit, delta).astype(start.dtype)


@reads_ranks
def build_eye_like(types: tuple, dtype: int | None = None, **_: Any) -> dict[str, Any]:
    x = types[0]
    return {"dt": dtype_of(dtype, "EyeLike") if dtype is not None else x.dtype}


def eye_like(x: np.ndarray, *, dtype: int | None = None, k: int = 0, **_: Any) -> np.ndarray:
    return np.eye(x.shape[0], x.shape[1], k)


@reads_ranks
def build_typed_like(types: tuple, dtype: int | None = None, **_: Any) -> dict[str, Any]:
    """Bernoulli: X's shape; the ``dtype`` attribute's dtype, else X's."""
    return {"x": dims("a", types[0].ndim),
            "dt": dtype_of(dtype, "Bernoulli") if dtype is not None else "T"}


def bernoulli(x: np.ndarray, *, dtype: int | None = None, seed: float | None = None
              ) -> np.ndarray:
    rng = np.random.default_rng(None if seed is None else int(seed))
    return rng.random(x.shape) < x
