"""Axis parameters as NumPy reads them: every catalogue function with an axis parameter
called through NumPy (:data:`CALLS`), and the judge of eval_shape by NumPy that the axis
tests share (:func:`typed_as_numpy`): a type only where NumPy runs, with NumPy's rank,
dtype and sizes. Used by tests/test_eval_shape_bool_axes.py and
tests/test_eval_shape_axis_forms.py."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import kantensor as kt

#: (Op, parameter) -> the NumPy call with that parameter given as ``a``.
CALLS = {
    ("flip", "axis"): lambda x, a: np.flip(x, axis=a),
    ("roll", "axis"): lambda x, a: np.roll(x, 1, axis=a),
    ("sort", "axis"): lambda x, a: np.sort(x, axis=a),
    ("argsort", "axis"): lambda x, a: np.argsort(x, axis=a),
    ("partition", "axis"): lambda x, a: np.partition(x, 0, axis=a),
    ("argpartition", "axis"): lambda x, a: np.argpartition(x, 0, axis=a),
    ("swapaxes", "axis1"): lambda x, a: np.swapaxes(x, a, 0),
    ("swapaxes", "axis2"): lambda x, a: np.swapaxes(x, 0, a),
    ("moveaxis", "source"): lambda x, a: np.moveaxis(x, a, 0),
    ("moveaxis", "destination"): lambda x, a: np.moveaxis(x, 0, a),
    ("expand_dims", "axis"): lambda x, a: np.expand_dims(x, a),
    ("stack", "axis"): lambda x, a: np.stack([x, x], axis=a),
    ("concatenate", "axis"): lambda x, a: np.concatenate([x, x], axis=a),
    ("split", "axis"): lambda x, a: np.split(x, 1, axis=a)[0],
    ("take", "axis"): lambda x, a: np.take(x, [0], axis=a),
    ("take_along_axis", "axis"): lambda x, a: np.take_along_axis(
        x, np.zeros((1,) * x.ndim, np.int64), axis=a),
    ("trace", "axis1"): lambda x, a: np.trace(x, axis1=a, axis2=0),
    ("trace", "axis2"): lambda x, a: np.trace(x, axis1=0, axis2=a),
    ("diagonal", "axis1"): lambda x, a: np.diagonal(x, axis1=a, axis2=0),
    ("diagonal", "axis2"): lambda x, a: np.diagonal(x, axis1=0, axis2=a),
    ("norm", "axis"): lambda x, a: np.linalg.norm(x, axis=a),
    ("median", "axis"): lambda x, a: np.median(x, axis=a),
    ("quantile", "axis"): lambda x, a: np.quantile(x, 0.5, axis=a),
    ("percentile", "axis"): lambda x, a: np.percentile(x, 50, axis=a),
    ("repeat", "axis"): lambda x, a: np.repeat(x, 2, axis=a),
    ("squeeze", "axis"): lambda x, a: np.squeeze(x, axis=a),
    ("transpose", "axes"): lambda x, a: np.transpose(x, a),
    ("sum", "axis"): lambda x, a: np.sum(x, axis=a),
    ("prod", "axis"): lambda x, a: np.prod(x, axis=a),
    ("mean", "axis"): lambda x, a: np.mean(x, axis=a),
    ("var", "axis"): lambda x, a: np.var(x, axis=a),
    ("std", "axis"): lambda x, a: np.std(x, axis=a),
    ("max", "axis"): lambda x, a: np.max(x, axis=a),
    ("min", "axis"): lambda x, a: np.min(x, axis=a),
    ("argmax", "axis"): lambda x, a: np.argmax(x, axis=a),
    ("argmin", "axis"): lambda x, a: np.argmin(x, axis=a),
    ("all", "axis"): lambda x, a: np.all(x, axis=a),
    ("any", "axis"): lambda x, a: np.any(x, axis=a),
    ("cumsum", "axis"): lambda x, a: np.cumsum(x, axis=a),
    ("cumprod", "axis"): lambda x, a: np.cumprod(x, axis=a),
    ("cumulative_sum", "axis"): lambda x, a: np.cumulative_sum(x, axis=a),
    ("cumulative_prod", "axis"): lambda x, a: np.cumulative_prod(x, axis=a),
    ("count_nonzero", "axis"): lambda x, a: np.count_nonzero(x, axis=a),
    ("diff", "axis"): lambda x, a: np.diff(x, axis=a),
}


def numpy_result(fn: Callable[[np.ndarray], Any], x: np.ndarray) -> np.ndarray | None:
    """``fn(x)`` as NumPy gives it, or None where NumPy raises."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return np.asarray(fn(x))
    except (ValueError, TypeError, IndexError):
        return None


def typed_as_numpy(fn: Callable[[Any], Any], shape: tuple[int, ...], dtype: str,
                   may_refuse: bool) -> Exception | None:
    """Judge ``kt.eval_shape(fn)`` on a ``dtype[shape]`` tensor by NumPy's ``fn`` of
    ``np.ones(shape, dtype)``: never a type where NumPy raises; where both run, NumPy's
    rank and dtype and its sizes (a symbolic size allowed); a refusal only where NumPy
    raises or ``may_refuse``. The refusal, for the caller to judge further, or None."""
    want = numpy_result(fn, np.ones(shape, dtype))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = kt.eval_shape(fn, f"{dtype}[{','.join(map(str, shape))}]").type
    except (ValueError, TypeError, IndexError) as exc:
        assert want is None or may_refuse, \
            f"refused where NumPy gives {want.dtype}{want.shape}: {exc}"
        return exc
    assert want is not None, f"typed {got} where NumPy raises"
    assert got.ndim == want.ndim and got.dtype == str(want.dtype), (got, want.shape)
    assert all(d is None or d == w for d, w in zip(got.shape, want.shape, strict=True)), \
        (got, want.shape)
    return None
