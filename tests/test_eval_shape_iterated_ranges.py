"""Iterating a range of a size that is not looped over at once (``list(range(n))``,
``zip(range(n), x)``, ``enumerate(range(n))``, ``reversed(range(n))``) and a tensor
whose first size is a size (``for i, row in enumerate(x)``), turn by turn as ``for k in
range(n)`` is (``evalshape/loops.py``: each number of turns a case, up to
``loops.MAX_TURNS``). Before, each was refused ("cannot iterate over a tensor of type
int64[n]"). Judged by NumPy at every size of a box (0 and 1 among them): typed where
NumPy runs, with its shape and dtype, not held where it raises."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from kantensor.evalshape.branches import BranchError
from kantensor.evalshape.loops import MAX_TURNS
from npprograms import judge

PROGRAMS = [
    ("""def program(x0):
    out = x0[:0]
    for i in list(range(x0.shape[0])):
        out = np.concatenate([out, x0[i:i + 1] * i])
    return out
""", ["float32[A]"]),
    ("""def program(x0, x1):
    out = x1[:0]
    for i, row in zip(range(x0.shape[0]), x1):
        out = np.concatenate([out, row[None] * i])
    return out
""", ["int8[A]", "float64[A,B]"]),
    ("""def program(x0):
    out = x0[:0]
    for k, i in enumerate(reversed(range(len(x0)))):
        out = np.concatenate([out, x0[i:i + 1] + k])
    return out
""", ["float32[A]"]),
    ("""def program(x0):
    acc = x0[:0].sum(0)
    for i, row in enumerate(x0):
        acc = acc + row * i
    return acc
""", ["float32[A,B]"]),
    ("""def program(x0):
    steps = tuple(range(x0.shape[0], 0, -2))
    return np.zeros((len(steps), 2)) + sum(steps)
""", ["int32[A]"]),
    ("""def program(x0, x1):
    idx = range(1, x0.shape[0])
    return np.stack([x1[:, k] for k in list(idx)] + [x1[:, 0]], axis=1) + x0[idx].sum()
""", ["float32[A]", "float32[B,A]"]),
    ("""def program(x0):
    return np.stack([r * k for k, r in enumerate(list(x0))] + [x0[0]])
""", ["int8[A,2]"]),
    ("""def program(x0):
    return np.zeros((max(range(1, x0.shape[0] + 1)), sum(range(x0.shape[0]))))
""", ["float32[A]"]),
    ("""def program(x0):
    return x0[sorted(range(x0.shape[0]), reverse=True) + [0]]
""", ["float32[A]"]),
    ("""def program(x0, x1):
    acc = x1[:0]
    for i, (a, b) in enumerate(zip(x0, x1)):
        acc = np.concatenate([acc, b[None] * a.sum() + i])
    return acc
""", ["float32[A,2]", "int8[A,3]"]),
]


@pytest.mark.parametrize(("source", "types"), PROGRAMS)
def test_iterating_a_range_or_rows_of_a_size_is_typed_as_numpy_runs_it(
        source: str, types: list[str]) -> None:
    verdict = judge(source, types)
    assert verdict.status == "typed", verdict.note
    assert verdict.checked and not verdict.wrong, verdict.wrong[:3]


def test_past_max_turns_the_sizes_are_not_covered() -> None:
    """As for ``for k in range(n)``: past the last typed turn not held, by a choice."""
    result = kt.eval_shape(lambda x: np.stack(list(x) + [x[0]]), "float32[n,3]")
    assert result.holds({"n": MAX_TURNS}) and not result.holds({"n": MAX_TURNS + 1})
    assert any(f"turns more than {MAX_TURNS} times" in str(r.error) for r in result.refused)


def test_zipping_ranges_of_two_sizes_is_refused_naming_the_line() -> None:
    """Two sizes' turns would make more cases than eval_shape runs: refused at the line."""

    def f(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        acc = x[:0]
        for i, j in zip(range(len(x)), range(len(y))):  # noqa: B905 - the user's code
            acc = np.concatenate([acc, x[i:i + 1] + y[j]])
        return acc

    assert f(np.zeros(3, np.float32), np.zeros(2, np.float32)).shape == (2,)
    with pytest.raises(BranchError, match=r"a loop over range\(0, B, 1\) at .*: for i, j in "
                                          r"zip\(range\(len\(x\)\), range\(len\(y\)\)\):.* inside "
                                          r"a loop over range of A \(or zipped with it\)"):
        kt.eval_shape(f, "float32[A]", "float32[B]")


def test_kantensor_outside_a_trace_still_refuses_to_iterate_a_symbolic_length() -> None:
    x = kt.tensor("x", "float32", (kt.Dim("n"), 2))
    with pytest.raises(TypeError, match="cannot iterate over a tensor of type float32"):
        list(x)
