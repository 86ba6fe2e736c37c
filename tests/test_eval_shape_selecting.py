"""eval_shape of NumPy's order statistics and running totals, judged by NumPy at every
size of a box (tests/npprograms.judge): np.partition and np.argpartition (kth in bounds
unless the array is empty: NumPy skips the check there), np.searchsorted, and the array
API's np.cumulative_sum and np.cumulative_prod (axis needed past one dimension;
include_initial adds an entry). All were unsupported ("kantensor has no Op for it")."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from npprograms import BOX, judge, returning

PROGRAMS = [
    ("np.partition(x0, 1)", ["float32[A,B]"]),
    ("np.partition(x0, 2, axis=0)", ["int8[A,B]"]),
    ("np.partition(x0, -2, axis=None)", ["float64[A,B]"]),
    ("np.partition(x0, (0, 3))", ["float32[A]"]),
    ("np.partition(x0, len(x1) - 1)", ["float32[A]", "float32[3]"]),
    ("np.argpartition(x0, -1)", ["float32[A,B]"]),
    ("np.argpartition(x0, 4, axis=0)", ["uint8[A,3]"]),
    # a 0-d input takes axis 0 and -1, as argsort's, and gives one index (it was refused)
    ("np.argpartition(x0, 0)", ["float32[]"]),
    ("np.argpartition(x0, -1, axis=0)", ["int8[]"]),
    ("x0.argpartition(0) + len(x1)", ["float64[]", "float32[A]"]),
    ("x0.partition(1) if False else np.partition(x0, 1, axis=-1)", ["float32[2,B]"]),
    ("np.searchsorted(np.sort(x0.ravel()), x1)", ["float32[A,B]", "int8[B,2]"]),
    ("np.searchsorted(x0, x1, side='right')", ["int64[A]", "float32[]"]),
    ("np.searchsorted(x0, x1[0])", ["float32[A]", "float32[B,A]"]),
    ("np.searchsorted(x0, x1)", ["float32[A,B]", "float32[B]"]),
    ("np.cumulative_sum(x0)", ["int8[A]"]),
    ("np.cumulative_sum(x0, axis=1, include_initial=True)", ["uint8[A,B]"]),
    ("np.cumulative_sum(x0, axis=-2)", ["bool[A,B,2]"]),
    ("np.cumulative_sum(x0)", ["float16[A,B]"]),
    ("np.cumulative_sum(x0, include_initial=True)", ["float32[]"]),
    ("np.cumulative_prod(x0, axis=0, include_initial=True)", ["int32[A,B]"]),
    ("np.cumulative_prod(x0)", ["float64[A]"]),
]


@pytest.mark.parametrize(("body", "types"), PROGRAMS, ids=[p for p, _ in PROGRAMS])
def test_order_statistics_and_running_totals_are_numpys(body, types):
    verdict = judge(returning(body, len(types)), types, BOX)
    assert verdict.status in ("typed", "refused"), verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


@pytest.mark.parametrize("call", ["np.partition(x, 0)", "np.partition(x, 0, axis=0)",
                                  "np.argpartition(x, 0, axis=1)", "np.sort(x)"])
def test_a_0d_input_is_refused_where_numpy_refuses_it(call):
    """partition and sort of a 0-d input have no axis 0 or -1 (NumPy raises AxisError);
    only argsort and argpartition take them."""
    fn = eval("lambda x: " + call, {"np": np})
    with pytest.raises(np.exceptions.AxisError):
        fn(np.float32(1.0))
    with pytest.raises(ValueError, match="out of bounds"):
        kt.eval_shape(fn, "float32[]")
