"""A Python loop over ``range`` of a size (``for x in range(filter_w):``), turn by turn:
each number of turns a case (up to ``loops.MAX_TURNS``; past it the case is refused),
each turn's value Python's int. Before, every such loop was refused ("cannot iterate
over a tensor of type int64[F]"): the function judge's ``conv_forward`` with its weight's
sizes swapped (``benchmarks/function_judge.py --seed 23 --mutants``: F = 1, where NumPy
runs it). Judged by NumPy at every size of a box: typed where NumPy runs, with its shape
and dtype, not held where it raises."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import kantensor as kt
from kantensor.evalshape.branches import BranchError
from kantensor.evalshape.loops import MAX_TURNS
from kantensor.types.symbols import substitute
from npprograms import _choice_explains, judge

sys.path.insert(0, str(Path(__file__).parent / "data"))
import numpy_models as models  # noqa: E402 - the corpus's models, beside the tests

PROGRAMS = [
    ("""def program(x0):
    out = x0[:0].sum(0)
    for k in range(x0.shape[0]):
        out = out + x0[k]
    return out
""", ["float32[A,B]"]),
    ("""def program(x0):
    return np.stack([x0[i] * i for i in range(len(x0))] + [x0[0]])
""", ["int8[A,2]"]),
    ("""def program(x0, x1):
    parts = []
    for i in range(1, x1.shape[0]):
        parts.append(x0[:, i - 1:i])
    return np.concatenate(parts + [x0[:, :0]], axis=1)
""", ["float64[B,A]", "int8[C]"]),
    ("""def program(x0):
    total = 0
    for k in range(x0.shape[0], 0, -2):
        total = total + k
    return np.zeros(total)
""", ["float32[A]"]),
    ("""def program(x0, x1):
    for k in range(len(x1)):
        x0 = x0[1:]
    return x0
""", ["float32[A]", "float32[B]"]),
]


@pytest.mark.parametrize(("source", "types"), PROGRAMS)
def test_a_loop_over_range_of_a_size_is_typed_as_numpy_runs_it(source: str,
                                                                types: list[str]) -> None:
    verdict = judge(source, types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


def test_conv_forward_with_swapped_weight_sizes_is_typed_where_numpy_runs_it() -> None:
    """im2col's ``for x in range(filter_w)`` over the weight's last size F: NumPy runs at
    F = 1 and F = 3 (b of length F broadcast against 3 filters); typed there, refused
    elsewhere, every shape NumPy's."""
    types = ["float64[N,3,H,W]", "float64[3,3,3,F]", "float64[F]"]
    with kt.default_dtype("float64"):
        result = kt.eval_shape(models.conv_forward, *types)
    ran = set()
    for f in range(MAX_TURNS + 3):
        sizes = {"N": 2, "H": 4, "W": 5, "F": f}
        arrays = [np.ones(_shape(kt.TensorType.parse(t), sizes)) for t in types]
        try:
            want = models.conv_forward(*arrays)
        except ValueError:
            assert not result.holds(sizes), f
            continue
        ran.add(f)
        assert result.holds(sizes), f
        case = next(c for c in result.cases if all(x.holds(sizes) for x in c.conditions))
        assert _shape(case.type, sizes) == want.shape
    assert ran == {1, 3}


def test_past_max_turns_the_sizes_are_not_covered_never_said_to_fail() -> None:
    """Past the last typed turn the result does not hold, by a choice
    (``Source.otherwise``: NumPy may run there, as it does here), not by a need."""
    result = kt.eval_shape(lambda x: [x[k] for k in range(x.shape[0])][0], "float32[n,3]")
    assert result.holds({"n": MAX_TURNS}) and not result.holds({"n": MAX_TURNS + 1})
    assert any(f"turns more than {MAX_TURNS} times" in str(r.error) for r in result.refused)
    assert _choice_explains(result, {"n": MAX_TURNS + 1})
    assert not _choice_explains(result, {"n": MAX_TURNS})


@pytest.mark.parametrize("caught", ["TypeError", "Exception"])
def test_a_loop_past_max_turns_inside_the_users_try_is_refused_not_typed(caught: str
                                                                         ) -> None:
    """Past the last typed turn the loop raises; where the user's ``except`` takes it,
    what the code does next (``acc = x[:0]``) is not NumPy's run at those sizes (it
    runs the loop on): that case is refused as if it raised, not typed float32[0]."""
    namespace: dict = {"np": np}
    exec(f"""def f(x):
    acc = x[:1]
    try:
        for k in range(len(x)):
            acc = np.concatenate([acc, x[k:k+1]])
    except {caught}:
        acc = x[:0]
    return acc
""", namespace)
    f = namespace["f"]
    result = kt.eval_shape(f, "float32[A]")
    for a in (3, MAX_TURNS, MAX_TURNS + 1):
        want = f(np.zeros(a, np.float32))
        held = result.holds({"A": a})
        assert held == (a <= MAX_TURNS), a
        if held:
            case = next(c for c in result.cases
                        if all(x.holds({"A": a}) for x in c.conditions))
            assert case.type.dtype == want.dtype.name
            assert _shape(case.type, {"A": a}) == want.shape
    assert _choice_explains(result, {"A": MAX_TURNS + 1})


def test_too_many_comparisons_inside_the_users_try_stop_the_trace() -> None:
    """The run's 25th comparison raises BranchError (a TypeError); the user's
    ``except TypeError`` took it and the rest was typed, float32[0] where A >= 24
    (NumPy: (30,) at A = 30, and ValueError at A = 24). Now the trace stops, as it does
    where the code does not catch it."""

    def f(x: np.ndarray) -> np.ndarray:
        acc = x[:0]
        try:
            for k in range(30):
                if len(x) <= k:
                    raise ValueError("short")
                acc = np.concatenate([acc, x[k:k + 1]])
        except TypeError:
            acc = x[:0]
        return acc

    assert f(np.zeros(30, np.float32)).shape == (30,)
    with pytest.raises(ValueError, match="short"):
        f(np.zeros(24, np.float32))
    with pytest.raises(BranchError, match="more than 24 comparisons of symbolic sizes"):
        kt.eval_shape(f, "float32[A]")


def test_a_loop_over_a_second_size_inside_a_loop_over_a_first_stops_at_once() -> None:
    """Each pair of turn counts would be a case: more than MAX_CASES, each run tracing
    both loops again (conv_forward's mutants spent 70 s of CPU so). The trace stops
    where the inner loop opens its size, with the BranchError the cases ended in."""

    def f(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        acc = x[:0]
        for i in range(len(x)):
            for _ in range(len(y)):
                acc = np.concatenate([acc, x[i:i + 1]])
        return acc

    assert f(np.zeros(3, np.float32), np.zeros(2, np.float32)).shape == (6,)
    with pytest.raises(BranchError, match=r"a loop over range\(0, B, 1\) at .*: for _ in "
                                          r"range\(len\(y\)\): inside a loop over range of A"):
        kt.eval_shape(f, "float32[A]", "float32[B]")


NESTED_OVER_ONE_SIZE = [
    ("""def program(x0):
    acc = x0[:0]
    for i in range(len(x0)):
        for j in range(len(x0) - i):
            acc = np.concatenate([acc, x0[j:j + 1]])
    return acc
""", ["float32[A]"]),
    ("""def program(x0, x1):
    acc = x0[:0]
    for i in range(3):
        for j in range(len(x1)):
            acc = np.concatenate([acc, x0[i:i + 1]])
    return acc
""", ["float32[A]", "float32[B]"]),
]


@pytest.mark.parametrize(("source", "types"), NESTED_OVER_ONE_SIZE)
def test_nested_loops_over_one_size_are_still_typed(source: str, types: list[str]) -> None:
    """Over one size (or an int outside), the turns do not multiply: typed as before."""
    verdict = judge(source, types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


def _shape(t: kt.TensorType, sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(substitute(d, sizes) if isinstance(d, kt.Dim) else d for d in t.shape)
