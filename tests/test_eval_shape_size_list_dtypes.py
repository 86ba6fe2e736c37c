"""A list holding sizes and Python numbers made of them, as NumPy makes it an array.

In NumPy code a size is a Python int and ``n * 1.5`` a Python float: ``np.array([n *
1.5, 1])`` is float64 (NumPy's array discovery), whatever kantensor's default float
dtype. Before, ``n * 1.5`` (a 0-d number of the graph) was stacked with kantensor's
promotion (float32 under the default float32), and a list holding a size as an
operand (``x + [n, 1.5]``) was refused (an object array). Judged by NumPy at sizes that
all differ (0 and 1 among them): the dtype and shape NumPy gives."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute
from npprograms import judge

SIZES = (0, 1, 2, 3, 5)

#: (function, input type): each runs in NumPy at every size of SIZES.
PROGRAMS = [
    (lambda x: np.array([x.shape[0] * 1.5, 1]), "int8[n]"),
    (lambda x: np.array([[len(x) / 4, 2], [x.shape[0] * 0.5 - 1, 3]]), "float16[n]"),
    (lambda x: np.asarray((x.shape[0] * 2.0, x.shape[0])), "int32[n]"),
    (lambda x: np.array(x.shape[0] * 1.5), "uint8[n]"),
    (lambda x: x[:, None] + [x.shape[0], 1.5], "float32[n]"),
    (lambda x: x[:, None] * [x.shape[0] * 0.25, 2], "int8[n]"),
    (lambda x: np.add(x[:, None], [x.shape[0], 2]), "int16[n]"),
    (lambda x: x[:, None] - (x.shape[0] / 2, 1.0), "float16[n]"),
]


def _shape(t: kt.TensorType, n: int) -> tuple[int, ...]:
    return tuple(substitute(d, {"n": n}) if isinstance(d, kt.Dim) else d for d in t.shape)


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize(("fn", "text"), PROGRAMS)
def test_a_list_of_sizes_has_numpys_dtype(fn, text: str, default: str) -> None:
    t = kt.TensorType.parse(text)
    with kt.default_dtype(default):
        result = kt.eval_shape(fn, text)
    for n in SIZES:
        want = np.asarray(fn(np.ones(n, t.dtype)))
        assert result.holds({"n": n}), n
        assert result.type.dtype == want.dtype.name, (n, result.type, want.dtype)
        assert _shape(result.type, n) == want.shape, (n, result.type, want.shape)


def test_a_list_operand_holding_a_size_is_typed_where_numpy_runs() -> None:
    """``x + [n, 1.5]`` broadcasts a float64 vector of 2: NumPy runs at n in (1, 2)."""
    verdict = judge("""def program(x0):
    return x0 + [x0.shape[0], 1.5]
""", ["float32[A]"])
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong


def test_a_tensor_in_the_list_keeps_the_stacked_reading() -> None:
    """A value of the data (``x.sum()``) is no Python number: stacked as before."""
    result = kt.eval_shape(lambda x: np.array([x.sum(), x.shape[0] * 1.5]), "float64[n]")
    assert result.type == kt.TensorType("float64", (2,))
