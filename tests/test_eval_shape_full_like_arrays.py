"""``np.full_like(a, fill_value)`` of a fill value of one or more dimensions (a tensor or
a NumPy array): NumPy copies it into ``a``'s shape (``np.copyto``: broadcast one way,
leading axes of length 1 past ``a``'s rank dropped). Before, eval_shape refused every
such fill value (found by benchmarks/numpy_probe.py). Judged by NumPy at every size of a
box: typed where NumPy runs, with its shape and dtype, not held where it fails; the
graph computes NumPy's values."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from npprograms import judge, returning

PROGRAMS = [
    ("np.full_like(x0, x1)", ["float32[A,B]", "int8[B]"]),
    ("np.full_like(x0, x1)", ["float32[]", "int8[C,C,C]"]),
    ("np.full_like(x0, x1)", ["uint8[A]", "float64[C,A]"]),
    ("np.full_like(x0, x1, dtype='int64')", ["uint8[B]", "uint8[B,B,B]"]),
    ("np.full_like(x0, x1, dtype=np.float16)", ["bool[A,B,C]", "int32[C,A,B]"]),
    ("np.full_like(x0, x1)", ["complex64[A,B]", "float64[A,1]"]),
    ("np.full_like(x0, np.arange(3))", ["float32[A,B]"]),
    ("np.full_like(x0, x1[0])", ["int16[A,B]", "int8[C,B]"]),
    ("np.full_like(x0, x1, None)", ["float64[A,A]", "float64[B,A]"]),
]


@pytest.mark.parametrize(("source", "types"), PROGRAMS)
def test_full_like_of_an_array_is_numpys(source: str, types: list[str]) -> None:
    program = returning(source, len(types))
    verdict = judge(program, types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


def test_the_graph_fills_as_numpy() -> None:
    result = kt.eval_shape(lambda a, f: np.full_like(a, f, dtype=np.int16),
                           "float32[A,B]", "float64[B]")
    run = kt.function(list(result.inputs), result.outputs[0])
    a, f = np.zeros((2, 3), np.float32), np.array([1.5, -2.0, 300.0])
    assert np.array_equal(run(a, f), np.full_like(a, f, dtype=np.int16))
    assert run(a, f).dtype == np.int16
