"""ONNX's generator family (``onnx/defs/generator``): ConstantOfShape, Range, EyeLike,
Bernoulli, RandomNormal, RandomUniform, their Like forms and Multinomial
(``signatures/onnx/generator.toml``), each op's builder beside its implementation; the
element types a Constant (read by the importer as a literal) may have.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ops.params import ParamError
from ..ops.sizes import SizeNames
from ..ops.templates import builder, dims, reads_ranks
from ..syntax.ast import DimVar, dim_max
from ..syntax.errors import TypeInferenceError
from ..types.dim import Dim
from ..types.dtypes import COMPLEX, category
from ..types.intervals import interval
from ..types.numpy_dtypes import numpy_dtype
from .dtypes import DTYPES, dtype_of
from .shared import NotKnown, nonzero_entry, size_entry

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
    are known (an int limit may be a size the model names). Of ints and sizes whose
    delta's sign is known (a nonzero int, a size ``D >= 1`` under the delta's condition,
    ``-D``), ``max(s*(limit - start) + |delta| - 1, 0) // |delta|`` with ``s`` the sign:
    ``Range(N, 0, -1)`` is ``N``, ``Range(0, 4, D)`` is ``(D + 3)//D``; else unknown."""
    values = [v[0] if v else None for v in (start_value, limit_value, delta_value)]
    start, limit, delta = values
    sizes = SizeNames(tuple(values))
    if all(isinstance(v, int | float) for v in values) and delta != 0:
        return {"sizes": [], "n": max(math.ceil((limit - start) / delta), 0), "fits": []}
    fits = nonzero_entry(sizes, delta, "the delta")  # (onnxruntime refuses 0)
    sign = _sign(delta) if all(isinstance(v, int | Dim) for v in values) else None
    if sign is None:
        u = DimVar("u")
        return {"sizes": sizes.patterns(), "n": u, "fits": [u >= 0, *fits]}
    step = sizes.expr(delta if sign > 0 else -delta)
    ahead, behind = (limit, start) if sign > 0 else (start, limit)
    count = _difference(sizes, [ahead, step], [behind], -1)
    return {"sizes": sizes.patterns(), "n": dim_max(count, 0) // step, "fits": fits}


def _sign(delta: int | Dim) -> int | None:
    """1 or -1: the sign of a Range's delta wherever the node runs (a size's as
    :func:`.shared.nonzero_entry` bounds it); None where it may be either."""
    if isinstance(delta, int):
        return 1 if delta > 0 else -1
    low, high = interval(delta)
    return 1 if low is not None and low >= 0 else \
        -1 if high is not None and high <= 0 else None


def _difference(sizes: SizeNames, plus: list, minus: list, const: int) -> Any:
    """``sum(plus) - sum(minus) + const`` over ints, sizes and dim expressions as a dim
    expression, its ints gathered into one (a dim expression holds no negative
    literal)."""
    total: Any = None
    for entry, factor in [*((e, 1) for e in plus), *((e, -1) for e in minus)]:
        if isinstance(entry, int):
            const += factor * entry
            continue
        expr = sizes.expr(entry) if isinstance(entry, Dim) else entry
        total = expr if total is None and factor > 0 else \
            (0 if total is None else total) + expr if factor > 0 else \
            (0 if total is None else total) - expr
    if total is None:
        return const
    return total + const if const > 0 else total - (-const) if const < 0 else total


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
    """1 where a uniform draw falls below X's probability, else 0, of the ``dtype``
    attribute's dtype (else X's)."""
    return (_rng(seed).random(x.shape) < x).astype(_like(x, dtype))


def _sizes(shape: Any, op: str) -> list[int]:
    """The ``shape`` attribute's sizes, each 0 or more."""
    sizes = [int(s) for s in shape]
    if any(s < 0 for s in sizes):
        raise ParamError(f"{op}: shape {tuple(sizes)} has a negative size")
    return sizes


@reads_ranks
def build_random(types: tuple, shape: Any, dtype: int = 1, **_: Any) -> dict[str, Any]:
    """RandomNormal, RandomUniform: of the ``shape`` attribute's sizes and the ``dtype``
    attribute's dtype (float32 unless given), which the signature's set must hold."""
    return {"y": _sizes(shape, "RandomNormal/RandomUniform"),
            "dt": dtype_of(dtype, "RandomNormal/RandomUniform")}


@reads_ranks
def build_random_like(types: tuple, dtype: int | None = None, **_: Any) -> dict[str, Any]:
    """RandomNormalLike, RandomUniformLike: the input's shape (its values unread: any
    dtype of T1); the ``dtype`` attribute's dtype, else the input's, which the
    signature's set (T2) must hold."""
    return {"x": dims("a", types[0].ndim),
            "dt": dtype_of(dtype, "RandomNormalLike/RandomUniformLike")
            if dtype is not None else "T1"}


@reads_ranks
def build_multinomial(types: tuple, sample_size: int = 1, dtype: int = 6, **_: Any
                      ) -> dict[str, Any]:
    """Multinomial: of input [batch_size, class_size], ``sample_size`` class indices per
    batch entry, of the ``dtype`` attribute's dtype (int32 unless given). onnxruntime
    draws from a batch of one entry or more, of one class or more, one sample or more
    (it refuses the others at every value: "batch_size is < 1", "num_classes is < 1",
    "num_samples is < 1")."""
    if types[0].ndim != 2:
        raise ParamError(f"Multinomial: the input is [batch_size, class_size], got "
                         f"{types[0].ndim} dimensions")
    if sample_size < 1:
        raise ParamError(f"Multinomial: sample_size must be positive, got {sample_size}")
    b, c = dims("a", 2)
    return {"x": [b, c], "y": [b, sample_size], "dt": dtype_of(dtype, "Multinomial"),
            "fits": [b >= 1, c >= 1]}


def _rng(seed: float | None) -> np.random.Generator:
    """The generator of a node's ``seed`` (a float attribute; none: fresh entropy)."""
    return np.random.default_rng(None if seed is None else int(seed))


def random_normal(*, shape: Any, dtype: int = 1, mean: float = 0.0, scale: float = 1.0,
                  seed: float | None = None) -> np.ndarray:
    return _rng(seed).normal(mean, scale, tuple(shape)).astype(
        numpy_dtype(DTYPES[dtype]))


def random_uniform(*, shape: Any, dtype: int = 1, low: float = 0.0, high: float = 1.0,
                   seed: float | None = None) -> np.ndarray:
    return _rng(seed).uniform(low, high, tuple(shape)).astype(numpy_dtype(DTYPES[dtype]))


def _like(x: np.ndarray, dtype: int | None) -> np.dtype:
    return x.dtype if dtype is None else numpy_dtype(DTYPES[dtype])


def random_normal_like(x: np.ndarray, *, dtype: int | None = None, mean: float = 0.0,
                       scale: float = 1.0, seed: float | None = None) -> np.ndarray:
    return _rng(seed).normal(mean, scale, x.shape).astype(_like(x, dtype))


def random_uniform_like(x: np.ndarray, *, dtype: int | None = None, low: float = 0.0,
                        high: float = 1.0, seed: float | None = None) -> np.ndarray:
    return _rng(seed).uniform(low, high, x.shape).astype(_like(x, dtype))


def multinomial(x: np.ndarray, *, sample_size: int = 1, dtype: int = 6,
                seed: float | None = None) -> np.ndarray:
    """``sample_size`` draws per row of the classes whose unnormalised log
    probabilities the row holds."""
    rng, out = _rng(seed), np.empty((x.shape[0], sample_size), numpy_dtype(DTYPES[dtype]))
    logits = x.astype(np.float64)
    for b, row in enumerate(logits):
        p = np.exp(row - row.max())
        out[b] = rng.choice(len(row), size=sample_size, p=p / p.sum())
    return out
