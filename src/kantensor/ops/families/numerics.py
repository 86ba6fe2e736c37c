"""Numerically careful implementations of functions NumPy does not have (SciPy's
``logsumexp``, ``softmax``, ``log_softmax``, ``erf``), and the builder that renders
their shapes (``signatures/reductions.toml``).

All three shift by the maximum along the reduced axes before exponentiating, so no
intermediate overflows: ``logsumexp([1000, 1000])`` is ``1000 + log 2``, not ``inf``.
They receive their input already cast to the output's floating dtype.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import numpy as np

from ...syntax.ast import Clause, DimVar
from ...types.dtypes import DEFAULT_CHOICES, is_lossless_cast
from ..params import ParamError, normalize_axes, quantiles_value
from ..templates import dims, reads_ranks
from .reductions import reduce_strict

_ERF = np.frompyfunc(math.erf, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function of each element: Python's ``math.erf`` (accurate to the last
    bit of a double), in the float dtype the input was cast to (SciPy is no dependency)."""
    x = np.asarray(x)
    return np.asarray(_ERF(x), dtype=x.dtype)


def nan_to_num(x: np.ndarray, copy: bool = True, nan: float = 0.0, posinf: Any = None,
               neginf: Any = None) -> np.ndarray:
    """NumPy's nan_to_num, always into a new array (the graph's input stays as it is)."""
    return np.nan_to_num(x, copy=True, nan=nan, posinf=posinf, neginf=neginf)


def _shift(x: np.ndarray, axis: Any) -> np.ndarray:
    """The maximum along ``axis`` (kept as size-1 axes), 0 where it is not finite, so
    that an empty slice, an all ``-inf`` slice or an ``inf`` stays what it should be."""
    m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    return np.where(np.isfinite(m), m, 0).astype(x.dtype)


def logsumexp(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    """``log(sum(exp(x)))`` along ``axis``, shifted by the maximum."""
    x = np.asarray(x)
    m = _shift(x, axis)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def softmax(x: np.ndarray, axis: Any = -1) -> np.ndarray:
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the maximum."""
    x = np.asarray(x)
    e = np.exp(x - _shift(x, axis))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x: np.ndarray, axis: Any = -1) -> np.ndarray:
    """``x - logsumexp(x)`` along ``axis``: the log of :func:`softmax`, without taking
    the log of a rounded-to-zero probability."""
    x = np.asarray(x)
    return x - logsumexp(x, axis=axis, keepdims=True)


def quantile(x: np.ndarray, q: tuple[str, Any], *args: Any, **kwargs: Any) -> np.ndarray:
    """NumPy's quantile of ``q`` as the ``quantiles`` parameter holds it (an int or a float,
    an int64 or float64 array: :func:`~kantensor.ops.params.quantiles_value`)."""
    return np.quantile(x, quantiles_value(q), *args, **kwargs)


def percentile(x: np.ndarray, q: tuple[str, Any], *args: Any, **kwargs: Any) -> np.ndarray:
    """NumPy's percentile of ``q`` as the ``quantiles`` parameter holds it."""
    return np.percentile(x, quantiles_value(q), *args, **kwargs)


@reads_ranks
def along(types: tuple, axis: int | tuple[int, ...] | None, **_: Any) -> dict[str, Any]:
    """Builder of Ops that keep the shape and work along ``axis`` (softmax): the
    axes resolved (None is all of them)."""
    (x,) = types
    if x.ndim == 0 and isinstance(axis, int) and axis in (0, -1):
        axis = ()  # as in NumPy's reductions, the only "axis" of a scalar
    return {"x": dims("a", x.ndim), "params": {"axis": normalize_axes(axis, x.ndim)}}


#: quantile methods that pick an element of the input (no interpolation): NumPy returns
#: the input's dtype for them.
DISCRETE = frozenset({"lower", "higher", "nearest", "inverted_cdf", "closest_observation"})

#: quantile methods whose result NumPy 2 makes int64 for an integer x at an integer array q
#: (float64 elsewhere): not typed.
_INT64_AT_INTEGER_Q = frozenset({"weibull", "interpolated_inverted_cdf",
                                 "averaged_inverted_cdf"})


@reads_ranks
def quantiles(types: tuple, q: Any, axis: Any, keepdims: bool, method: str = "linear",
              **_: Any) -> dict[str, Any]:
    """quantile: see :func:`_quantiles`."""
    return _quantiles(types, q, axis, keepdims, method)


@reads_ranks
def percentiles(types: tuple, q: Any, axis: Any, keepdims: bool, method: str = "linear",
                **_: Any) -> dict[str, Any]:
    """percentile: :func:`_quantiles` of ``q / 100``."""
    return _quantiles(types, q, axis, keepdims, method, scale=100)


def _quantiles(types: tuple, q: tuple[str, Any], axis: Any, keepdims: bool, method: str,
               scale: int = 1) -> dict[str, Any]:
    """quantile: the reduction's shape, after q's shape (q of rank 0 to 2); every reduced
    axis must be non-empty (``nonempty``, more where-clauses); ``qdims`` (0 for a Python
    number, which NumPy casts to a float x's dtype; 1 for an array, whose float64 or
    integer dtype NumPy promotes with x's: float64) and ``discrete`` (1 where NumPy picks
    elements: a method that does, or ``linear`` at integer q, which NumPy does not
    interpolate) select the dtype rule. A q of a narrower float dtype (float32) would
    promote with x's by NumPy's table: refused where NumPy interpolates. An empty q needs
    the reduced axes non-empty as any other (NumPy runs it on empty integer axes, not on
    empty float ones: refused on both). ``scale``: 100 for percentile (whose q NumPy
    divides by 100 first, so an integer q is no element's position there)."""
    (x,) = types
    kind = q[0]
    values = np.asarray(quantiles_value(q))
    if values.ndim > 2:
        raise ParamError("q must be a scalar or 1d (NumPy's words; it takes 2-d too)")
    if values.size == 0 and values.ndim > 1:  # (NumPy's check takes q.min() then)
        raise ParamError("zero-size array to reduction operation minimum which has no "
                         "identity (q is empty)")
    for value in values.ravel().tolist():
        if not 0 <= value <= scale:
            raise ParamError(f"{'percentiles' if scale != 1 else 'quantiles'} must be in "
                             f"the range [0, {scale}], got {value}")
    picks = method in DISCRETE or scale == 1 and method == "linear" and \
        values.dtype.kind in "iu"
    narrow = values.dtype.kind == "f" and values.dtype.itemsize < 8  # (float16, float32)
    promoted_q = not picks and scale == 1 and method in _INT64_AT_INTEGER_Q and \
        kind not in ("int", "float") and values.dtype.kind in "iu"
    if not picks and narrow or promoted_q and values.dtype.kind == "u":
        raise ParamError(f"q of dtype {values.dtype} is not supported where method "
                         f"{method!r} interpolates (NumPy promotes it with x's dtype by "
                         "rules of its own): give Python numbers or a float64 array")
    axes = normalize_axes(axis, x.ndim)
    a = dims("a", x.ndim)
    kept = [1 if i in axes else d for i, d in enumerate(a)] if keepdims else \
        [d for i, d in enumerate(a) if i not in axes]
    made = {"x": a, "y": list(values.shape) + kept,
            "nonempty": [a[i] >= 1 for i in axes] + _not_all_empty(a, axes),
            "qdims": int(kind not in ("int", "float")), "discrete": int(picks),
            "params": {"axis": axes}}
    if scale == 1:  # (percentile's q is divided first: a float64 array, never promoted)
        made.update(_promoted_q(values.dtype.name if promoted_q else None))
    return made


def _promoted_q(q_dtype: str | None) -> dict[str, Any]:
    """quantile's holes for an integer array ``q`` that NumPy promotes with x's dtype
    (methods that interpolate even at integer q, ``_INT64_AT_INTEGER_Q``): ``intq`` 1,
    ``qint`` its dtype (an integer x joins it, NumPy's table and kantensor's agreeing on
    integers) and ``qfloat`` the narrowest float holding its values (what NumPy's table
    gives a float x with it: float16 with int8, float32 with int16, else float64).
    ``q_dtype`` None: no such q (``intq`` 0; the dtype holes unused)."""
    if q_dtype is None:
        return {"intq": 0, "qint": "int64", "qfloat": "float64"}
    held = [f for f in DEFAULT_CHOICES if is_lossless_cast(q_dtype, f)]  # (the floats)
    return {"intq": 1, "qint": q_dtype, "qfloat": held[0] if held else "float64"}


def _not_all_empty(a: list[DimVar], axes: tuple[int, ...]) -> list[Clause]:
    """The where-clause for NumPy's median and quantile, which reshape the kept axes to
    ``(*kept, -1)`` when they reduce several axes but not all, and so fail when the kept
    sizes multiply to 0; with nothing reduced (``axis=()``) every axis is kept.
    ``[a0*a2 >= 1]`` then, else none."""
    if axes and not 2 <= len(axes) < len(a):
        return []
    kept = [d for i, d in enumerate(a) if i not in axes]
    return [functools.reduce(operator.mul, kept) >= 1] if kept else []


@reads_ranks
def medians(types: tuple, axis: Any, keepdims: bool, **_: Any) -> dict[str, Any]:
    """median: :func:`~kantensor.ops.families.reductions.reduce_strict`, and ``guard``, the
    where-clause of :func:`_not_all_empty`."""
    made = reduce_strict(types, axis, keepdims)
    (x,) = types
    made["guard"] = _not_all_empty(dims("a", x.ndim), made["params"]["axis"])
    return made
