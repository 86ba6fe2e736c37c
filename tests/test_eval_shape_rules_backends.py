"""eval_shape's graphs run as NumPy runs the code, outside ``numpy_rules()``: a
comparison computes in the dtype NumPy promotes its operands to (the node's rules, its
tag, kept by ``kt.function``'s clone), on the NumPy backend and in Dask's blocks.

Oracle: NumPy's own results of each program on the same arrays. The values sit where
the compute dtype decides the answer: ``int64 2**24 + 1 > np.float32(2**24)`` is True in
NumPy's float64 and False in float32 (kantensor's own promotion of an int64 array with
a 0-d float32), and so at float16's 2**11 and float64's 2**53.
"""

from __future__ import annotations

import itertools
import warnings

import dask.array as da
import numpy as np
import pytest

import kantensor as kt
from kantensor.types import numpyrules as dt

X_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float16", "float32", "float64"]
#: values at the edges of float16's, float32's and float64's integers (cast to each dtype:
#: NumPy's array is the same)
VALUES = [2**11 + 1, 2**11, 2**24 + 1, 2**24, 2**53 + 1, 2**53, 3, 0]
OPERANDS = [("np.float16(2**11)", lambda: np.float16(2**11)),
            ("np.float32(2**24)", lambda: np.float32(2**24)),
            ("np.float64(2**53)", lambda: np.float64(2**53)),
            ("0d float32(2**24)", lambda: np.array(2**24, dtype="float32")),
            ("np.int64(2**53+1)", lambda: np.int64(2**53 + 1)),
            ("np.uint8(3)", lambda: np.uint8(3))]
COMPARE = {">": lambda a, b: a > b, "<=": lambda a, b: a <= b, "==": lambda a, b: a == b,
           "!=": lambda a, b: a != b, "greater": np.greater, "less_equal": np.less_equal}


def _x(dtype: str) -> np.ndarray:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.array([np.array(v).astype(dtype) for v in VALUES], dtype=dtype)


def _cases() -> list:
    out = []
    for dtype, (on, v), (cn, op) in itertools.product(X_DTYPES, OPERANDS, COMPARE.items()):
        out.append((f"x {cn} {on}", lambda x, v=v, op=op: op(x, v()), dtype))
        out.append((f"{on} {cn} x", lambda x, v=v, op=op: op(v(), x), dtype))
    return out


@pytest.mark.parametrize("default", ["float32", "float64"])
def test_comparisons_compute_in_numpys_dtype(default: str) -> None:
    wrong = []
    differs = 0  # cases where kantensor's own promotion gives another answer
    for name, fn, dtype in _cases():
        x = _x(dtype)
        want = fn(x)
        result = kt.eval_shape(fn, f"{dtype}[n]")
        with kt.default_dtype(default):
            assert dt.rules_key() == default
            got = kt.function(list(result.inputs), list(result.outputs))(x)[0]
            if not np.array_equal(got, want):
                wrong.append((name, dtype, "numpy", got.tolist(), want.tolist()))
            sym = kt.tensor("x", dtype, (kt.Dim("n"),))
            mine = kt.function([sym], fn(sym))(x)  # kantensor's own rules
            differs += not np.array_equal(mine, want)
    assert differs > 20  # (the values do tell the rules apart)
    assert not wrong, f"{len(wrong)} wrong, e.g. {wrong[:5]}"


@pytest.mark.parametrize(("name", "fn"), [
    ("x > np.float32(2**24)", lambda x: x > np.float32(2**24)),
    ("np.float64(2**53) == x", lambda x: np.float64(2**53) == x),
    ("(x * np.int64(2)).reshape(-1) > 2**25", lambda x: (x * np.int64(2)).reshape(-1)
     > np.float32(2**25)),
    ("(x > np.float32(2**24)).reshape(2, -1)", lambda x: (x > np.float32(2**24)).reshape(2, -1)),
])
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32", "float32"])
def test_dasks_blocks_are_numpys(name: str, fn, dtype: str) -> None:
    x = _x(dtype)
    want = fn(x)
    result = kt.eval_shape(fn, f"{dtype}[n]")
    g = kt.function(list(result.inputs), list(result.outputs), backend="dask")
    got = g(da.from_array(x, chunks=3))[0]
    blocks = got.compute()
    assert blocks.dtype == want.dtype and np.array_equal(blocks, want), (name, dtype)
