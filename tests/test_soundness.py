"""Random graphs of catalogue Ops against NumPy (see soundness.py for the oracle).

``KANTENSOR_SOUNDNESS_GRAPHS`` sets the number of graphs (default 40, a few seconds); a
large run, such as the 7,600 graphs of issue 14, is::

    KANTENSOR_SOUNDNESS_GRAPHS=7600 .venv/bin/python -m pytest tests/test_soundness.py

Each graph has its own seed (``KANTENSOR_SOUNDNESS_SEED`` + its number), so a failure names
the seed that reproduces it.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import kantensor as kt
import sizing
from soundness import Disagreement, Node, documented_difference, run_graph

GRAPHS = sizing.size("SOUNDNESS_GRAPHS", 40, 7600)
SEED = int(os.environ.get("KANTENSOR_SOUNDNESS_SEED", "14"))
BATCH = 10


@pytest.mark.parametrize("batch", range(0, GRAPHS, BATCH))
def test_random_graphs_agree_with_numpy(batch):
    for seed in range(SEED + batch, SEED + min(batch + BATCH, GRAPHS)):
        try:
            run_graph(np.random.default_rng(seed))
        except Disagreement as exc:
            raise Disagreement(f"graph seed {seed}: {exc}") from None


def test_the_documented_promotion_differences_are_the_known_ones():
    """The exceptions the oracle allows are exactly docs/promotion.rst's cases; plain
    tensors of one dtype never qualify."""
    i8 = Node(kt.vector("a", "int8"), np.zeros(2, "int8"), 0, "a")
    i64_0d = Node(kt.scalar("b", "int64"), np.zeros((), "int64"), 0, "b")
    f16 = Node(kt.vector("c", "float16"), np.zeros(2, "float16"), 0, "c")
    number = Node(1.5, 1.5, 0, "1.5")
    assert documented_difference([i8, i8], float_fn=False) is None
    assert documented_difference([f16, f16], float_fn=True) is None
    assert documented_difference([i8, i64_0d], False).startswith("priorities")
    assert documented_difference([i8, f16], False).startswith("categories")
    assert documented_difference([i8, number], False).startswith("Python floats")
    assert documented_difference([i8], True).startswith("float function")
    # and they are real differences: kantensor's rule, not NumPy's
    assert (i8.var + i64_0d.var).type.dtype == "int8"
    assert (i8.value + i64_0d.value).dtype == np.int64
    assert (i8.var + number.var).type.dtype == kt.get_default_dtype() == "float32"
    assert (i8.value + 1.5).dtype == np.float64
    assert (i8.var + f16.var).type.dtype == "float16"
    assert (i8.value + f16.value).dtype == np.float16  # here NumPy agrees (int8 fits)
    i64 = kt.vector("d", "int64")
    assert (i64 + f16.var).type.dtype == "float16"
    assert (np.zeros(2, "int64") + f16.value).dtype == np.float64


def test_squeeze_keeps_unknown_sizes_only_where_they_are_not_1():
    """The squeeze rule (docs): with axis=None an unknown size is kept under the
    constraint ``size != 1``, checked when the graph runs; where NumPy would drop it
    (a run-time 1), the checked graph raises instead of returning another shape."""
    x = kt.tensor("x", dtype="float32", shape=(None, 1, 3))
    y = kt.squeeze(x)
    assert str(y.type) == "float32[?,3]"
    f = kt.function([x], y, check=True)
    value = np.ones((2, 1, 3), dtype="float32")
    assert f(value).shape == np.squeeze(value).shape == (2, 3)
    with pytest.raises(kt.TypeInferenceError, match="at run time"):
        f(np.ones((1, 1, 3), dtype="float32"))


