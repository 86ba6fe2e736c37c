"""``np.cumulative_sum``/``cumulative_prod`` take an axis as a tuple of one int, but not
with ``include_initial=True``, where NumPy raises TypeError (it indexes the shape's list
by the tuple); before, eval_shape typed that call (found by benchmarks/numpy_probe.py).
Judged by NumPy at every size of a box: typed where NumPy runs, with its shape and
dtype; refused where NumPy fails at every size."""

from __future__ import annotations

import itertools

import pytest

from npprograms import BOX, compile_program, judge, run_numpy

CALLS = [f"np.{f}(x0, axis={a}{k})" for f in ("cumulative_sum", "cumulative_prod")
         for a in ("(0,)", "(-1,)", "0", "None", "(0, 1)")
         for k in ("", ", include_initial=True", ", include_initial=False")]
TYPES = [["int8[A]"], ["float32[A,B]"], ["bool[]"]]


@pytest.mark.parametrize("types", TYPES, ids=str)
@pytest.mark.parametrize("call", CALLS)
def test_cumulative_axes_as_numpy_takes_them(call: str, types: list[str]) -> None:
    source = f"def program(x0):\n    return {call}\n"
    fn = compile_program(source)
    names = sorted({c for t in types for c in t if c in "AB"})
    runs = any(not isinstance(run_numpy(fn, types, dict(zip(names, v, strict=True))),
                              BaseException) for v in itertools.product(BOX, repeat=len(names)))
    verdict = judge(source, types)
    assert (verdict.status == "typed") == runs, verdict.note
    assert not verdict.wrong, verdict.wrong[:3]
