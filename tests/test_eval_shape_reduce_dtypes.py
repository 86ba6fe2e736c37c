"""``np.prod`` (``x.prod``) with ``dtype=``: NumPy casts the elements to it and multiplies
in it (an integer's product wraps, a bool's is ``all``), as ``np.sum`` with ``dtype=``
adds. The type and the built graph's values are NumPy's, for every input dtype and
accumulator pair here."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt

INPUTS = ["int8", "uint8", "bool", "float16", "float32", "int64"]
ACCUMULATORS = [np.int8, np.int64, np.uint16, np.float16, np.float64, bool]


@pytest.mark.parametrize(("dtype", "acc"), list(itertools.product(INPUTS, ACCUMULATORS)))
def test_prod_in_a_dtype_is_numpys(dtype, acc):
    def fn(x):
        return np.prod(x, axis=1, dtype=acc) + x.prod(dtype=acc)
    result = kt.eval_shape(fn, f"{dtype}[A,B]")
    v = (np.arange(12) % 5 + 1).astype(dtype).reshape(3, 4)  # products past int8's range
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fn(v)
        got = kt.function(list(result.inputs), list(result.outputs))(v)
    got = got[0] if isinstance(got, list) else got
    assert result.type.dtype == str(want.dtype) == str(got.dtype)
    np.testing.assert_array_equal(got, want)
