"""``np.unique`` of a tensor's elements in another order (``x.T``, ``x.reshape(-1)``,
``np.ravel``, ``swapaxes``) is one count with ``np.unique(x)``: it sorts the same values,
so its mask of first occurrences is the same (``evalshape/counts.py``: the sorted values
of a vector are known by its values up to order). Before, ``np.unique(x) -
np.unique(x.T)`` assumed its two counts broadcast, which ``holds`` could not decide.
Judged by NumPy at every size of a box (typed, held wherever NumPy runs, no assumption
left) and on data with repeats, NaNs and signed zeros; a tensor of other values
(``x[:, ::2]``, ``x + 1`` against ``x``) stays an assumption, as NumPy fails for some
data there."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from npprograms import judge

SAME = [
    ("np.unique(x0) - np.unique(x0.T)", ["float32[A,B]"]),
    ("np.unique(x0) * np.unique(x0.reshape(-1))", ["int8[A,B]"]),
    ("np.unique(x0) + np.unique(np.ravel(x0))", ["float64[A,B,C]"]),
    ("np.unique(x0) - np.unique(np.swapaxes(x0, 0, 2))", ["int16[A,B,C]"]),
    ("np.unique(x0 + 1) - np.unique(x0.T + 1)", ["float32[A,B]"]),
    ("np.unique(x0, return_counts=True)[1] - np.unique_values(x0.T)", ["int8[A,B]"]),
    ("np.unique(x0, equal_nan=False) - np.unique(x0.T, equal_nan=False)",
     ["float64[A,B]"]),
]


@pytest.mark.parametrize(("source", "types"), SAME)
def test_unique_of_the_same_values_in_another_order_is_one_count(source: str,
                                                                  types: list[str]) -> None:
    verdict = judge(f"def program(x0):\n    return {source}\n", types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]
    fn = eval(f"lambda x0: {source}", {"np": np})
    assert kt.eval_shape(fn, *types).assumptions == ()


def test_the_graph_computes_numpys_values() -> None:
    fn = lambda x: np.unique(x) - np.unique(x.T)  # noqa: E731
    result = kt.eval_shape(fn, "float64[A,B]")
    run = kt.function(list(result.inputs), result.outputs[0])
    for a in (np.array([[3.0, 1, -0.0], [np.nan, 0.0, np.nan]]), np.zeros((0, 3)),
              np.random.default_rng(0).integers(0, 3, (4, 5)).astype(float)):
        assert np.array_equal(run(a), fn(a), equal_nan=True)


@pytest.mark.parametrize("source", [
    "np.unique(x0) - np.unique(x0[:, ::2])", "np.unique(x0) - np.unique(x0.T + 1)",
    "np.unique(x0) - np.unique(x0.T, equal_nan=False)"])
def test_other_values_stay_two_counts(source: str) -> None:
    """NumPy fails for some data there (``x + 1`` of float32 may merge values; NaNs are
    one value with ``equal_nan``, several without): the need is kept."""
    fn = eval(f"lambda x0: {source}", {"np": np})
    assert kt.eval_shape(fn, "float32[A,B]").assumptions != ()
