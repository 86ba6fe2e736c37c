"""``np.roll(x, shifts)`` with ``axis=None`` and several shifts, a size among them: NumPy
rolls the flattened array by each in turn (its axis 0 broadcast against the shifts).
Before, eval_shape refused it ("several shifts must be ints"); now the shifts reach the
implementation as given, so the graph's values are NumPy's. Judged by NumPy: the type
at every size of a box (``npprograms.judge``), the values of the graph (NumPy and Dask
backends) at every size of a smaller one."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kantensor as kt
from npprograms import judge

SHIFTS = ["(x0.shape[0], 2)", "(-x0.shape[1], x0.shape[0] - 5, 1)", "[x0.shape[0]]",
          "(x0.shape[0], x0.shape[0], -7)", "(x0.size, -x0.shape[1])"]


def _program(shifts: str) -> str:
    return f"def program(x0):\n    return np.roll(x0, {shifts})\n"


@pytest.mark.parametrize("shifts", SHIFTS)
def test_several_shifts_of_sizes_are_typed_as_numpy_runs_them(shifts: str) -> None:
    verdict = judge(_program(shifts), ["int8[A,B]"])
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shifts", SHIFTS)
def test_several_shifts_of_sizes_roll_numpys_values(shifts: str, backend: str) -> None:
    namespace: dict = {"np": np}
    exec(_program(shifts), namespace)  # noqa: S102 - the test's own program
    fn = namespace["program"]
    result = kt.eval_shape(fn, "float32[A,B]")
    run = kt.function(list(result.inputs), result.outputs[0], backend=backend)
    for a, b in itertools.product(range(4), repeat=2):
        x = np.arange(a * b, dtype=np.float32).reshape(a, b)
        assert np.array_equal(np.asarray(run(x)), fn(x)), (shifts, a, b)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize(("shifts", "axis"), [
    ("(x0.shape[0],)", "(0, 1)"), ("x0.shape[1]", "(0, 1, -1)"), ("(1, x0.shape[0])", "(1, 1)"),
    ("(x0.shape[0], -2, 3)", "(0, -1, 0)")])
def test_shifts_broadcast_against_axes_roll_numpys_values(shifts: str, axis: str,
                                                          backend: str) -> None:
    """``np.roll(x, shifts, axis=axes)``: NumPy broadcasts the shifts against the axes and
    rolls each axis by the sum of its shifts (Dask's roll needs as many of each: it
    raised "Must have the same number of shifts as axes")."""
    namespace: dict = {"np": np}
    exec(f"def program(x0):\n    return np.roll(x0, {shifts}, axis={axis})\n",  # noqa: S102
         namespace)
    fn = namespace["program"]
    result = kt.eval_shape(fn, "float32[A,B]")
    run = kt.function(list(result.inputs), result.outputs[0], backend=backend)
    for a, b in itertools.product(range(4), repeat=2):
        x = np.arange(a * b, dtype=np.float32).reshape(a, b)
        assert np.array_equal(np.asarray(run(x)), fn(x)), (shifts, axis, a, b)
