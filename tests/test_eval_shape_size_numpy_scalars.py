"""A size beside a NumPy scalar or 0-d array, and ``np.real``/``np.imag`` of a Python
number made of sizes (fixnp27, after revA27's tests/test_review_reva27.py): typed, each
with NumPy 2's dtype (the oracle: NumPy's result on real arrays); a size stays a size
outside a trace, where no NumPy promotion is asked."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.dim import Dim

# Each is typed (no refusal), so a lost Dim.real/.imag or a size read as a NumPy
# integer's int shows here.
TYPED = [
    ("x + np.imag(len(x))", "int8"),
    ("x + np.real(len(x))", "int8"),
    ("x + np.real(len(x) * 1j)", "float32"),
    ("x + np.imag(len(x) * 1j)", "float16"),
    ("x * (len(x) // np.int8(2))", "bool"),
    ("x * (len(x) % np.array(3, np.uint16))", "int8"),
    ("x + (len(x) / 2 + np.int16(3))", "float32"),
    ("x + (np.int16(3) - len(x) / 2)", "float16"),
    ("x + np.float16(2) * len(x)", "int8"),
]


def _numpy(src: str, dtype: str) -> tuple[str, int]:
    fn = eval("lambda x: " + src, {"np": np, "math": math})  # noqa: S307
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = np.asarray(fn(np.ones((4, 3), dtype)))
    return out.dtype.name, out.ndim


@pytest.mark.parametrize(("src", "dtype"), TYPED)
def test_typed_with_numpys_dtype(src: str, dtype: str) -> None:
    fn = eval("lambda x: " + src, {"np": np, "math": math})  # noqa: S307
    got = kt.eval_shape(fn, f"{dtype}[n,m]").type
    assert (str(got.dtype), got.ndim) == _numpy(src, dtype), src


def test_a_numpy_int_beside_a_size_as_a_shape_is_numpys_or_refused() -> None:
    # n + np.int64(1) is NumPy's int64 (strong), a number of the graph here, not a size:
    # refused as a shape today, as np.zeros(np.int64(n)) is; never a wrong length.
    assert np.zeros(4 + np.int64(1)).shape == (5,)
    try:
        got = kt.eval_shape(lambda x: np.zeros(len(x) + np.int64(1)), "float32[n]").type
    except (TypeError, ValueError):
        return
    assert str(got) == "float64[n+1]"


def test_outside_a_trace_a_size_takes_a_numpy_int_as_an_int() -> None:
    n = Dim("n")
    for k in (np.int64(1), np.uint8(1), np.array(1, np.int16)):
        assert type(n + k) is Dim and n + k == n + 1
        assert type(k * n) is Dim
    assert n.real is n and n.imag == 0
