"""Review revA27 (session 27): eval_shape's dtypes NumPy contradicts where a NumPy scalar
or 0-d array meets a size (the strong operand's dtype lost: the result is typed as a
Python number of sizes), and where ``np.real``/``np.imag`` of a Python float made of a
size is typed float64, and of a Python int made of sizes int64 (NumPy returns the Python
number itself: weak). Oracle: NumPy's
result dtype on real arrays. These fail on main 94f66511 (and before dtype27, 677874a7).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import kantensor as kt

CASES = [
    ("x * (np.int16(3) + len(x))", "bool"),
    ("x * (len(x) + np.int16(3))", "bool"),
    ("x * (np.array(3, np.int16) + math.floor(x.shape[0] / 2))", "bool"),
    ("x + np.uint8(3) * len(x)", "int8"),
    ("x + np.exp(len(x) + np.uint8(3))", "int8"),
    ("x * (len(x) / np.array(3, np.int16))", "float32"),
    ("x + np.real(float(x.shape[0]))", "float32"),
    ("x + np.imag(float(x.shape[0]))", "float32"),
    ("x + np.real(len(x)) * np.float16(2)", "int8"),
    ("x * np.real(math.sqrt(x.shape[0]))", "float16"),
    ("x + len(x) * np.conj(2)", "int16"),
]


@pytest.mark.parametrize(("src", "dtype"), CASES)
def test_numpy_scalar_beside_a_size_keeps_numpys_dtype(src: str, dtype: str) -> None:
    fn = eval("lambda x: " + src, {"np": np, "math": math})  # noqa: S307
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = np.asarray(fn(np.ones((4, 3), dtype))).dtype.name
    try:
        got = kt.eval_shape(fn, f"{dtype}[n,m]").type.dtype
    except (TypeError, ValueError):
        return  # (a refusal is no wrong answer)
    assert str(got) == want, (src, dtype)
