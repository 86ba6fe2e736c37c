"""``np.unique`` called twice on one tensor is one count: the same call on the same
tensor gives values of one length (NumPy computes the same array twice), so ``np.unique(x)
+ np.unique(x)`` assumes nothing. Before, each call built its own sort and mask, two
counts the data decide, and what the sum needs of them was an assumption ``holds`` could
not decide (``np.nonzero`` had a per-tensor cache, ``unique`` none: ``ops/uniques.py``'s
``_ORDERS`` now). Judged by NumPy at every size of a box (``npprograms.judge``: typed,
held wherever NumPy runs) and on data with repeats, NaNs and none."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from npprograms import judge

PROGRAMS = [
    ("np.unique(x0) + np.unique(x0)", ["float32[A,B]"]),
    ("np.unique(x0, return_counts=True)[1] * np.unique(x0)", ["int8[A]"]),
    ("np.unique(x0, axis=0) + np.unique(x0, axis=0)", ["int8[A,B]"]),
    ("np.unique(x0, axis=-1) * np.unique(x0, return_index=True, axis=1)[0]",
     ["uint8[B,A]"]),
    ("np.unique_values(x0) - np.unique(x0, equal_nan=False)", ["float64[A]"]),
    ("np.unique(x0) - np.unique_values(x0)", ["int8[A,B]"]),
    ("np.unique_counts(x0).counts + np.unique_all(x0).indices", ["float32[A]"]),
]


@pytest.mark.parametrize(("source", "types"), PROGRAMS)
def test_unique_twice_on_one_tensor_is_one_count(source: str, types: list[str]) -> None:
    verdict = judge(f"def program(x0):\n    return {source}\n", types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]
    fn = eval(f"lambda x0: {source}", {"np": np})
    assert kt.eval_shape(fn, *types).assumptions == ()


def test_unique_twice_computes_numpys_values() -> None:
    fn = lambda x: np.unique(x) + np.unique(x)  # noqa: E731
    result = kt.eval_shape(fn, "float64[A]")
    run = kt.function(list(result.inputs), result.outputs[0])
    for a in (np.array([3.0, 1, 3, np.nan, np.nan, 1]), np.array([]), np.zeros(4)):
        assert np.array_equal(run(a), fn(a), equal_nan=True)


def test_unique_with_and_without_equal_nan_are_two_counts() -> None:
    """Where NaNs may be, ``equal_nan`` changes the count (NumPy: ``[nan, nan]`` has one
    unique value, two with ``equal_nan=False``): those two stay an assumption."""
    a = np.array([np.nan, np.nan])
    assert len(np.unique(a)) != len(np.unique(a, equal_nan=False))
    fn = lambda x: np.unique(x) + np.unique(x, equal_nan=False)  # noqa: E731
    assert kt.eval_shape(fn, "float64[A]").assumptions != ()
