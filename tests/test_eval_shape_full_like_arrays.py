"""``np.full_like(a, fill_value)`` of a fill value of one or more dimensions (a tensor or
a NumPy array): NumPy copies it into ``a``'s shape (``np.copyto``: broadcast one way,
leading axes of length 1 past ``a``'s rank dropped). Before, eval_shape refused every
such fill value (found by benchmarks/numpy_probe.py). Judged by NumPy at every size of a
box: typed where NumPy runs, with its shape and dtype, not held where it fails; the
graph computes NumPy's values. A list or tuple fill value (``np.full_like(x, [1, 2])``)
and ``shape=`` (of ``full_like``, ``zeros_like``, ``ones_like``, ``empty_like``) were
refused too; they are NumPy's definitions now (``ops/filled.py``)."""

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
#: list fills and ``shape=``: refused before (TypeInferenceError, TypeError)
LISTS_AND_SHAPES = [
    ("np.full_like(x0, [1, 2])", ["float32[A,2]"]),
    ("np.full_like(x0, [1, 2])", ["float32[A,B]"]),
    ("np.full_like(x0, [[1.5], [2.5]])", ["int8[2,A]"]),
    ("np.full_like(x0, (1, 2), dtype=np.int16)", ["float32[B,A]"]),
    ("np.full_like(x0, [[[7]]])", ["uint8[A]"]),
    ("np.full_like(x0, 3, shape=(2, 5))", ["float32[A,B]"]),
    ("np.full_like(x0, 2.5, 'int8', shape=x0.shape[0])", ["float32[A,B]"]),
    ("np.full_like(x0, [1, 2], shape=(x0.shape[0], 2))", ["float32[A,B]"]),
    ("np.full_like(x0, x1, shape=(3, x0.shape[0], x0.shape[1]))", ["float32[A,B]",
                                                                  "int8[B]"]),
    ("np.full_like(x0, x1, shape=(x0.shape[1], 2))", ["float32[A,B]", "float64[C,1]"]),
    ("np.zeros_like(x0, shape=(3, x0.shape[0]))", ["int8[A,B]"]),
    ("np.ones_like(x0, np.float16, shape=(3, x0.shape[0]))", ["int8[A,B]"]),
    ("np.empty_like(x0, shape=[2, x0.shape[1]]) * 0", ["int8[A,B]"]),
    ("np.zeros_like(x0, shape=())", ["complex64[A]"]),
    ("np.full_like(x0, 1, shape=np.array([2, 3]))", ["float32[A,B]"]),
    ("np.zeros_like(x0, shape=np.array([2, 3]))", ["int8[A]"]),
    ("np.ones_like(x0, shape=np.array(4))", ["int8[A]"]),
]


@pytest.mark.parametrize(("source", "types"), PROGRAMS)
def test_full_like_of_an_array_is_numpys(source: str, types: list[str]) -> None:
    program = returning(source, len(types))
    verdict = judge(program, types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


@pytest.mark.parametrize(("source", "types"), LISTS_AND_SHAPES)
def test_a_list_fill_and_shape_are_numpys(source: str, types: list[str]) -> None:
    test_full_like_of_an_array_is_numpys(source, types)


@pytest.mark.parametrize(("source", "types"), [
    p for p in LISTS_AND_SHAPES])
def test_a_list_fill_and_shape_give_numpys_values(source: str, types: list[str]) -> None:
    names = [f"x{i}" for i in range(len(types))]
    namespace: dict = {"np": np}
    exec(f"def program({', '.join(names)}):\n    return {source}\n",  # noqa: S102
         namespace)
    fn = namespace["program"]
    result = kt.eval_shape(fn, *types)
    run = kt.function(list(result.inputs), result.outputs[0])
    rng = np.random.default_rng(0)
    for sizes in ({"A": 2, "B": 3, "C": 1}, {"A": 0, "B": 1, "C": 1}, {"A": 1, "B": 1, "C": 3}):
        values = []
        for t in map(kt.TensorType.parse, types):
            shape = tuple(sizes[d.name] if isinstance(d, kt.Dim) else d for d in t.shape)
            values.append(rng.integers(-3, 9, shape).astype(t.dtype))
        try:
            want = fn(*values)
        except ValueError:  # (a fill NumPy does not broadcast at these sizes)
            continue
        got = run(*values)
        assert got.dtype == want.dtype and np.array_equal(got, want), (sizes, got, want)


def test_the_graph_fills_as_numpy() -> None:
    result = kt.eval_shape(lambda a, f: np.full_like(a, f, dtype=np.int16),
                           "float32[A,B]", "float64[B]")
    run = kt.function(list(result.inputs), result.outputs[0])
    a, f = np.zeros((2, 3), np.float32), np.array([1.5, -2.0, 300.0])
    assert np.array_equal(run(a, f), np.full_like(a, f, dtype=np.int16))
    assert run(a, f).dtype == np.int16
