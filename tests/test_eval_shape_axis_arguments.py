"""NumPy's functions with an axis argument traced by eval_shape at edge sizes (0, 1 and
sizes that all differ) with random axis arguments (None, ints in and out of range,
negative ones, tuples, repeated axes, ``()``, ``True``, NumPy integers) and keepdims,
judged by NumPy: where NumPy raises, eval_shape raises (never a type for a call NumPy
refuses); where both run, the type has NumPy's rank, dtype and every size it states.
(Where eval_shape refuses a call NumPy runs, ``True`` as an axis of some functions, that
is a refusal, counted in the hunt, not a wrong type.) Found: ``np.take(x, [0],
axis=True)`` was typed where NumPy raises "an integer is required for the axis", and
``np.roll`` of a 0-d tensor on ``axis=()`` where NumPy raises."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt

AXES = [None, 0, 1, 2, -1, -2, -3, 3, (0,), (0, 1), (-1, 0), (1, 1), (), True, np.int64(1)]
FUNCTIONS = {
    "sum": lambda x, a, k: np.sum(x, axis=a, keepdims=k),
    "mean": lambda x, a, k: np.mean(x, axis=a, keepdims=k),
    "var": lambda x, a, k: np.var(x, axis=a, keepdims=k, ddof=1),
    "max": lambda x, a, k: np.max(x, axis=a, keepdims=k),
    "prod": lambda x, a, k: np.prod(x, axis=a, keepdims=k),
    "any": lambda x, a, k: np.any(x, axis=a, keepdims=k),
    "argmax": lambda x, a, k: np.argmax(x, axis=a, keepdims=k),
    "median": lambda x, a, k: np.median(x, axis=a, keepdims=k),
    "quantile": lambda x, a, k: np.quantile(x, [0.3, 0.7], axis=a, keepdims=k),
    "percentile": lambda x, a, k: np.percentile(x, 40, axis=a, keepdims=k),
    "count_nonzero": lambda x, a, k: np.count_nonzero(x, axis=a, keepdims=k),
    "cumsum": lambda x, a, k: np.cumsum(x, axis=a),
    "sort": lambda x, a, k: np.sort(x, axis=a),
    "flip": lambda x, a, k: np.flip(x, axis=a),
    "roll": lambda x, a, k: np.roll(x, 1, axis=a),
    "expand_dims": lambda x, a, k: np.expand_dims(x, a),
    "squeeze": lambda x, a, k: np.squeeze(x, axis=a),
    "take": lambda x, a, k: np.take(x, [0], axis=a),
    "concatenate": lambda x, a, k: np.concatenate([x, x], axis=a),
    "stack": lambda x, a, k: np.stack([x, x], axis=a),
    "norm": lambda x, a, k: np.linalg.norm(x, axis=a, keepdims=k),
    "diff": lambda x, a, k: np.diff(x, axis=a),
    "repeat": lambda x, a, k: np.repeat(x, 2, axis=a),
    "cumulative_sum": lambda x, a, k: np.cumulative_sum(x, axis=a),
    "moveaxis": lambda x, a, k: np.moveaxis(x, a, 0),
    "swapaxes": lambda x, a, k: np.swapaxes(x, a, -1),
    "split": lambda x, a, k: np.split(x, 1, axis=a)[0],
}


@settings(max_examples=600, deadline=None)
@given(name=st.sampled_from(sorted(FUNCTIONS)),
       shape=st.lists(st.sampled_from([0, 1, 2, 3, 5]), max_size=3).map(tuple),
       dtype=st.sampled_from(["float32", "float64", "int8", "int64", "bool", "uint8",
                              "float16"]),
       axis=st.sampled_from(AXES), keepdims=st.booleans())
def test_numpy_functions_with_axis_arguments_are_numpys(name, shape, dtype, axis, keepdims):
    def fn(x):
        return FUNCTIONS[name](x, axis, keepdims)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.asarray(fn(np.ones(shape, dtype)))
    except (ValueError, TypeError, IndexError):
        want = None
    try:
        got = kt.eval_shape(fn, f"{dtype}[{','.join(map(str, shape))}]").type
    except (ValueError, TypeError, IndexError):  # (a refusal: NumPy's or one of its own)
        return
    assert want is not None, f"typed {got} where NumPy raises"
    assert got.ndim == want.ndim and got.dtype == str(want.dtype), (got, want.shape)
    assert all(d is None or d == w for d, w in zip(got.shape, want.shape, strict=True)), \
        (got, want.shape)
