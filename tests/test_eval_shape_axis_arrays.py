"""NumPy arrays given as axes (``np.flip(x, axis=np.array([0]))``, ``np.transpose(x,
np.array([2, 0, 1]))``, ``np.split(x, np.array([1]))``): NumPy runs them where its
function reads axes by ``operator.index`` or by iterating (flip, roll, moveaxis,
transpose, median, quantile, percentile, split; a 0-d integer array everywhere an int
is taken) and refuses them where it takes one int or a tuple (the reductions' ``axis``,
``expand_dims``, ``squeeze``; float and bool arrays, 2-d arrays everywhere). Before,
eval_shape refused every array of one or more dimensions.

Judged by NumPy (tests/npprograms.judge) at every size of a box holding 0, 1 and sizes
that all differ: typed where NumPy runs at some size, with its shape and dtype at each
size where it runs, and not held where it fails; refused (an error) where NumPy fails at
every size."""

from __future__ import annotations

import itertools

import pytest

from npprograms import BOX, compile_program, judge, run_numpy

ARRAYS = ["np.array([0])", "np.array([0, 2])", "np.array(1)", "np.array([-1])",
          "np.array([], dtype=int)", "np.array([])", "np.array([0.])",
          "np.array([True])", "np.array(True)", "np.array([[0]])",
          "np.array([0], dtype=np.uint8)", "np.array([0, 0])", "np.array([2, 0, 1])",
          "np.array([1], dtype=np.int8)"]
CALLS = ["np.flip(x0, axis={a})", "np.roll(x0, 1, axis={a})", "np.moveaxis(x0, {a}, 0)",
         "np.moveaxis(x0, 0, {a})", "np.transpose(x0, {a})", "np.permute_dims(x0, {a})",
         "x0.transpose({a})", "np.median(x0, axis={a})", "np.quantile(x0, 0.5, axis={a})",
         "np.percentile(x0, [50, 10], axis={a}, keepdims=True)", "np.split(x0, {a})[0]",
         "np.array_split(x0, {a}, axis=1)[-1]", "np.expand_dims(x0, {a})",
         "np.squeeze(x0, axis={a})", "np.sum(x0, axis={a})", "np.max(x0, axis={a})",
         "np.mean(x0, axis={a}, keepdims=True)", "np.cumsum(x0, axis={a})",
         "np.argmax(x0, axis={a})", "np.linalg.norm(x0, axis={a})",
         "np.concatenate([x0, x0], axis={a})"]
#: NumPy reads a 0-d bool array as 1 where it takes ``int(axis)`` or a number of
#: sections; eval_shape refuses it there as it refuses ``True`` (left as it was).
BOOL_READ = ("np.split", "np.array_split", "np.linalg.norm")
TYPES = ["float32[A,B,C]"]


@pytest.mark.parametrize("call", [c.format(a=a) for c in CALLS for a in ARRAYS
                                  if not (c.startswith(BOOL_READ) and a == "np.array(True)")])
def test_an_array_as_axes_is_typed_where_numpy_runs(call: str) -> None:
    source = f"def program(x0):\n    return {call}\n"
    fn = compile_program(source)
    runs = any(not isinstance(run_numpy(fn, TYPES, dict(zip("ABC", s, strict=True))),
                              BaseException) for s in itertools.product(BOX, repeat=3))
    verdict = judge(source, TYPES)
    assert (verdict.status == "typed") == runs, verdict.note
    assert not verdict.wrong, verdict.wrong[:3]
