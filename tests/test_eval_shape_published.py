"""benchmarks/eval_shape_published.py reads a result typed only under assumptions as
tests/shape_judge.py does: where the tried sizes break them, eval_shape did not type
those sizes (refused there), so the function counts as raised, never as typed wrong (a
loop over ``range`` of a size is typed where the size is 0, and refused past it: the
harness compared that case's type with NumPy's at sizes above 0 and called it wrong)."""

from __future__ import annotations

import random
import sys
import types
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from eval_shape_published import measure_one  # noqa: E402
from published_corpus import Fn  # noqa: E402


def standardize(x):
    """Each column scaled in place, a loop over the columns."""
    mean, std = x.mean(axis=0), x.std(axis=0)
    for col in range(np.shape(x)[1]):
        if std[col]:
            x[:, col] = (x[:, col] - mean[col]) / std[col]
    return x


def scale(x):
    return x * 2.0


def _measure(name: str) -> dict:
    module = types.ModuleType("corpus_module")
    module.standardize, module.scale = standardize, scale
    return measure_one(Fn("corpus_module", name, ["float64[N,D]"]), module,
                       random.Random(34), mutate=False)


def test_a_result_under_assumptions_the_sizes_break_is_refused_there():
    got = _measure("standardize")
    assert got["verdict"] == "raised", got
    assert got["message"].startswith("assumed: ") and "range" in got["message"], got


def test_a_result_without_assumptions_is_judged_by_numpy():
    got = _measure("scale")
    assert got["verdict"] == "right", got
