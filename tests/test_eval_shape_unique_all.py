"""``np.unique`` with ``return_index``, ``return_inverse``, ``return_counts``, ``axis``
and ``sorted``, and the array API's ``np.unique_values``, ``unique_counts``,
``unique_inverse``, ``unique_all`` (kantensor.ops.uniques): before, each was refused
("kt.unique has no parameter axis", "no Op for numpy.unique_all").

Judged by NumPy (tests/npprograms.judge) at every size of a box holding 0, 1 and sizes
that all differ: where the result holds NumPy runs with the type's shape and dtype (the
indices, inverse and counts int64 as NumPy's intp; the inverse of the input's shape, or of
the axis's length), where it does not NumPy fails (the programs mix no int and float32
operands, nor 0-d and n-d ones: kantensor's promotion of those is documented to differ);
``holds`` may leave a size undecided only where NumPy's outcome there depends on the
data. The graph eval_shape builds
computes NumPy's values (run on random data with repeats, brute-forced sizes)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt
from npprograms import (
    BOX,
    compile_program,
    fails_for_some_data,
    judge,
    returning,
    run_numpy,
)

PROGRAMS = [
    ("np.unique(x0, axis=0)", ["int8[A,B]"]),
    ("np.unique(x0, axis=1)", ["float32[A,B]"]),
    ("np.unique(x0, axis=-2)", ["uint8[A,B,C]"]),
    ("np.unique(x0, axis=2)", ["int8[A,B]"]),
    ("np.unique(x0, axis=0)", ["int8[]"]),
    ("np.unique(x0, axis=0)", ["float16[A]"]),
    ("np.unique(x0, axis=np.int64(1))", ["int32[A,B]"]),
    ("np.unique(x0, axis=0)[0]", ["int8[A,B]"]),
    ("np.unique(x0, axis=1)[:, -1] + x1", ["int64[A,B]", "float64[A]"]),
    ("np.unique(x0, return_counts=True)[1]", ["float32[A,B]"]),
    ("np.unique(x0, return_index=True)[1]", ["bool[A]"]),
    ("np.unique(x0, return_inverse=True)[1]", ["int16[A,B]"]),
    ("np.unique(x0, return_inverse=True)[1]", ["float64[]"]),
    ("np.unique(x0, True, True, True)[3]", ["int8[A,B,C]"]),
    ("np.unique(x0, return_inverse=True, axis=1)[1]", ["float32[A,B]"]),
    ("np.unique(x0, return_counts=True, axis=0)[1]", ["int8[A,B,C]"]),
    ("np.unique(x0, return_index=True, axis=-1)[1][0] + x1", ["int8[A,B]", "int64[B]"]),
    ("np.unique(x0, sorted=False, equal_nan=False)", ["float32[A]"]),
    ("np.unique_values(x0)", ["uint8[A,B]"]),
    ("np.unique_counts(x0).counts", ["float32[A]"]),
    ("np.unique_counts(x0)[0]", ["int8[A,B]"]),
    ("np.unique_inverse(x0).inverse_indices + x0", ["float64[A,B]"]),
    ("np.unique_all(x0).indices", ["int32[A,B]"]),
    ("np.unique_all(x0).inverse_indices", ["float16[A,B,C]"]),
    ("np.unique_all(x0).counts[0]", ["int8[A]"]),
    ("np.unique_all(x0)[0][-1]", ["int8[A,B]"]),
    ("(lambda v, c: v * c)(*np.unique(x0, return_counts=True))", ["int16[A]"]),
    ("(lambda v, i, c: v[:, 0] * c + i)(*np.unique(x0, return_index=True, "
     "return_counts=True, axis=0))", ["int8[A,B]"]),
    ("np.zeros(4)[len(np.unique_counts(x0).counts)]", ["int8[A]"]),
]


@pytest.mark.parametrize(("source", "types"), PROGRAMS)
def test_unique_is_typed_as_numpy_runs_it(source: str, types: list[str]) -> None:
    program = returning(source, len(types))
    verdict = judge(program, types)
    fn = compile_program(program)
    if verdict.status != "typed":  # refused: NumPy fails at every size
        names = sorted({c for t in types for c in t if c in "ABC"})
        for values in itertools.product(BOX, repeat=len(names)):
            sizes = dict(zip(names, values, strict=True))
            assert isinstance(run_numpy(fn, types, sizes), BaseException), (
                verdict.note, sizes)
    for kind, sizes, note in verdict.wrong:
        # undecided only where the data decide NumPy's outcome
        runs_on_zeros = not isinstance(run_numpy(fn, types, sizes), BaseException)
        assert kind == "undecided" and runs_on_zeros and \
            fails_for_some_data(fn, types, sizes), (kind, sizes, note)


CALLS = {
    "flat": lambda x: np.unique(x, True, True, True),
    "axis0": lambda x: np.unique(x, True, True, True, axis=0),
    "axis1": lambda x: np.unique(x, True, True, True, axis=1),
    "axis-1": lambda x: np.unique(x, True, True, True, axis=-1),
    "all": lambda x: tuple(np.unique_all(x)),
    "counts": lambda x: tuple(np.unique_counts(x)),
    "inverse": lambda x: tuple(np.unique_inverse(x)),
    "values": lambda x: (np.unique_values(x),),
    "nan": lambda x: np.unique(x / (x - 1) * 0.0, True, True, True),
    "nan_distinct": lambda x: tuple(np.unique_all(x / (x - 1) * 0.0)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_graph_computes_numpys_values(name: str) -> None:
    """Run the traced graph on data with repeats (and NaNs: 0/0) at every shape of a
    box, and compare each output to NumPy's, element for element (NaNs equal)."""
    fn = CALLS[name]
    result = kt.eval_shape(fn, "float64[A,B,C]")
    f = kt.function(list(result.inputs), list(result.outputs))
    rng = np.random.default_rng(0)
    for shape in itertools.product((0, 1, 2, 3), repeat=3):
        for _ in range(3):
            x = rng.integers(0, 3, shape).astype(np.float64)
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                want = fn(x)
                got = f(x)
            assert len(got) == len(want)
            for g, w in zip(got, want, strict=True):
                w = np.asarray(w)
                assert g.dtype == w.dtype and g.shape == w.shape, (shape, g, w)
                assert np.array_equal(g, w, equal_nan=True), (name, shape, x, g, w)


NEEDLESS = [
    ("np.unique(x0)", ["int8[A,B]"]),
    ("np.unique(x0, return_counts=True)[1]", ["float32[A,B,C]"]),
    ("np.unique_all(x0).inverse_indices", ["int16[A,B]"]),
    ("np.unique_values(x0)", ["uint8[A,B]"]),
    ("(lambda v, c: v * c)(*np.unique(x0, return_counts=True))", ["int64[A,B]"]),
    ("np.unique(x0, axis=1, return_index=True)[1]", ["int8[A,B,C]"]),
]


@pytest.mark.parametrize(("source", "types"), NEEDLESS)
def test_a_count_bound_is_no_assumption(source: str, types: list[str]) -> None:
    """Where NumPy runs at every size of the box (for ramps and steps of data too), the
    result assumes nothing: the count's own bound ``m >= min(1, A*B)`` (as its cases,
    ``m >= 1 or A == 0 or B == 0``) was reported as an assumption of an n-d input."""
    program = returning(source, len(types))
    fn = compile_program(program)
    names = sorted({c for t in types for c in t if c in "ABC"})
    for values in itertools.product(BOX, repeat=len(names)):
        sizes = dict(zip(names, values, strict=True))
        assert not isinstance(run_numpy(fn, types, sizes), BaseException)
        assert not fails_for_some_data(fn, types, sizes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = kt.eval_shape(fn, *types)
    assert result.assumptions == ()
