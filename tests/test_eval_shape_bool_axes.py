"""A bool as an axis, as NumPy takes it per function: ``np.flip(x, axis=True)`` flips
axis 1 (NumPy reads the axis with ``operator.index``), where ``np.sum(x, axis=True)``
raises "an integer is required". One table says which (``params.BOOL_AXES``); main
refused a bool everywhere.

Judged by NumPy, on every catalogue function with an axis parameter: the table is the
set of parameters NumPy accepts True for (called on a 3-d array), and eval_shape at
edge sizes (0-d, 0, 1 and sizes that all differ) with True, False, (True,), [True] and
(False, True) types where NumPy runs, with its shape and dtype, and raises where NumPy
raises, naming the user's line (np.True_: never typed where NumPy raises)."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor.ops.params import BOOL_AXES

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


def _numpy(fn, x):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return np.asarray(fn(x))
    except (ValueError, TypeError, IndexError):
        return None


def test_the_table_is_what_numpy_takes_a_bool_for() -> None:
    x = np.ones((3, 2, 4))
    taken = {key: _numpy(lambda v, call=call: call(v, [True]), x) is not None
             for key, call in CALLS.items()
             if _numpy(lambda v, call=call: call(v, True), x) is not None}
    taken.pop(("diff", "axis"))  # (np.diff reads its axis itself: ops/diffs.py)
    assert taken == BOOL_AXES


@settings(max_examples=400, deadline=None)
@given(key=st.sampled_from(sorted(CALLS)),
       shape=st.lists(st.sampled_from([0, 1, 2, 3, 5]), max_size=3).map(tuple),
       dtype=st.sampled_from(["float32", "int64", "bool", "float16"]),
       axis=st.sampled_from([True, False, (True,), (False, True), [True], np.True_]))
def test_a_bool_axis_is_typed_where_numpy_takes_it(key, shape, dtype, axis) -> None:
    call = CALLS[key]

    def fn(x):
        return call(x, axis)
    want = _numpy(fn, np.ones(shape, dtype))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = kt.eval_shape(fn, f"{dtype}[{','.join(map(str, shape))}]").type
    except (ValueError, TypeError, IndexError) as exc:
        # (np.True_, which NumPy takes in a few functions only (np.linalg.norm), is
        # refused in all: a refusal, not a wrong type)
        assert want is None or axis is np.True_, \
            f"refused where NumPy gives {want.dtype}{want.shape}: {exc}"
        assert f"{__file__}, line" in str(exc), exc  # (the user's line)
        return
    assert want is not None, f"typed {got} where NumPy raises"
    assert got.ndim == want.ndim and got.dtype == str(want.dtype), (got, want.shape)
    assert all(d is None or d == w for d, w in zip(got.shape, want.shape, strict=True)), \
        (got, want.shape)
