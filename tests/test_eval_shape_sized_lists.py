"""A list of numbers holding sizes (``[x.shape[0], 1]``: a list of Python ints when NumPy
runs) as NumPy's array of it: ``np.full_like(x, [x.shape[0], 1])`` was refused
("unsupported dtype object"), and ``np.array([len(x), 1.5])`` was typed in kantensor's
promotion (float32 at the default float dtype; ``[len(x), np.float32(1)]`` float32 at
every default) where NumPy's array of those numbers is float64, as ``np.array([3, 1.5])``
already was during eval_shape (``ops/arraylike.py``, ``sized_array``). Judged by NumPy:
shape and dtype at every size of a box (at kantensor's default float dtype too), and the
graph's values."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from npprograms import compile_program, judge, returning, run_numpy

FILLS = [
    ("np.full_like(x0, [x0.shape[0], 1])", ["float32[A,2]"]),
    ("np.full_like(x0, [x0.shape[0], 1])", ["float32[A,B]"]),
    ("np.full_like(x0, [[len(x0)], [1]], dtype=np.int8)", ["float32[A,2]"]),
    ("np.full_like(x0, (x0.shape[1], x0.shape[0] / 2))", ["int16[A,B]"]),
    ("np.full_like(x0, [x0.shape[0], 0.1])", ["float64[A,2]"]),
    ("np.full_like(x0, [x0.shape[0] - 3, True], dtype=np.uint8)", ["float32[A,2]"]),
    ("np.full_like(x0, [len(x1) * 100, 1 + 2j], dtype=np.complex64)", ["int8[A,2]",
                                                                      "int8[B]"]),
]
ARRAYS = [
    ("np.array([len(x0), 1.5])", ["float32[A]"]),
    ("np.asarray([x0.shape[0] / 2, 1])", ["float32[A]"]),
    ("np.array([len(x0), np.float32(1)])", ["int8[A]"]),
    ("np.array([[len(x0)], [1 + 2j]])", ["int8[A]"]),
    ("np.array([len(x0), True, np.int8(3)])", ["int8[A]"]),
    ("x0 + np.array([x0.shape[0], 0.5])", ["float64[A,2]"]),
]


@pytest.mark.parametrize(("source", "types"), FILLS + ARRAYS)
def test_a_list_holding_sizes_is_typed_as_numpy_runs_it(source: str, types: list[str]
                                                        ) -> None:
    verdict = judge(returning(source, len(types)), types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


@pytest.mark.parametrize(("source", "types"), FILLS + ARRAYS)
def test_its_dtype_is_numpys_at_the_default_float_dtype(source: str, types: list[str]
                                                        ) -> None:
    """At kantensor's default float32 too: the numbers of a list are NumPy's (a Python
    float in a list is float64, as in ``np.array([3, 1.5])``)."""
    fn = compile_program(returning(source, len(types)))
    assert kt.get_default_dtype() == "float32"
    got = kt.eval_shape(fn, *types).type
    want = np.asarray(run_numpy(fn, types, {"A": 2, "B": 2}))
    assert (got.dtype, got.ndim) == (str(want.dtype), want.ndim)


@pytest.mark.parametrize(("source", "types"), FILLS + ARRAYS)
def test_the_graph_computes_numpys_values(source: str, types: list[str]) -> None:
    fn = compile_program(returning(source, len(types)))
    result = kt.eval_shape(fn, *types)
    run = kt.function(list(result.inputs), result.outputs[0])
    rng = np.random.default_rng(0)
    for sizes in ({"A": 2, "B": 2}, {"A": 0, "B": 2}, {"A": 5, "B": 3}):
        values = []
        for t in map(kt.TensorType.parse, types):
            shape = tuple(sizes[d.name] if isinstance(d, kt.Dim) else d for d in t.shape)
            values.append(rng.integers(-3, 9, shape).astype(t.dtype))
        try:
            want = np.asarray(fn(*values))
        except ValueError:  # (a fill NumPy does not broadcast at these sizes)
            continue
        got = run(*values)
        assert got.dtype == want.dtype and np.array_equal(got, want), (sizes, got, want)
