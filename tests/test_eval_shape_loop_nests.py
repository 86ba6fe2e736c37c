"""Nested loops over one symbolic size, traced by ``eval_shape`` (``for i in range(n):
for j in range(n): out[i, j] = ...``, rows of a matrix inside a range loop, a loop in
a loop over ``x.shape[0]``): each number of turns a case, each run a build per turn.

Before, every build's relation asked :func:`kantensor.logic.dims.nowhere` of its waiting
equations (an update's ``y0 == a0``) over fresh logic variables, so the prover's memo
missed at every build: the ``out[i, j] = ...`` nest took 4 s of CPU (33 s profiled),
more than half of it proving the same thing again. The question is now asked over
stand-ins (:mod:`kantensor.logic.standins`) and its verdict remembered. Judged here by
NumPy at sizes that all differ; and the runs of one call turn such loops at most
``loops.MAX_LOOP_TURNS`` times in all (a deeper nest is refused at its line)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kantensor as kt
from kantensor.evalshape.branches import BranchError
from kantensor.evalshape.loops import MAX_LOOP_TURNS, MAX_TURNS
from kantensor.logic.standins import standing_in
from kantensor.logic.terms import fresh
from kantensor.types.dim import unknown
from kantensor.types.dimminmax import dim_max
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.symbols import free_symbols, substitute


def set_pairs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = a.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = a[i, j] * 2 + a[j, i] + b[j].sum()
    return out


def upper_pairs(a: np.ndarray) -> np.ndarray:
    n = a.shape[0]
    s = a[:0].sum(0)
    for i in range(n):
        for j in range(i + 1, n):
            s = s + a[i] * a[j]
    return s


def rows_in_range(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = b[:0].sum(0)
    for i in range(a.shape[0]):
        for k, row in enumerate(b):
            out = out + row * a[i, k]
    return out


def loop_in_loop(x: np.ndarray) -> np.ndarray:
    s = x[0] * 0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            s = s + x[i] * x[j]
    return s


PROGRAMS = [
    (set_pairs, ["float64[n,n]", "float32[n,m]"]),
    (upper_pairs, ["float32[n,m]"]),
    (rows_in_range, ["float32[n,n]", "float32[n,m]"]),
    (loop_in_loop, ["float32[n,m]"]),
]


def _shape(t: kt.TensorType, sizes: dict[str, int]) -> tuple[int, ...]:
    return tuple(substitute(d, sizes) if isinstance(d, kt.Dim) else d for d in t.shape)


@pytest.mark.parametrize(("fn", "types"), PROGRAMS, ids=lambda p: getattr(p, "__name__", ""))
def test_a_loop_nest_over_one_size_is_typed_as_numpy_runs_it(fn, types) -> None:
    """Where the result holds, NumPy runs and gives its shape and dtype; past the last
    typed turn (``n > 16``) the sizes are not covered; where NumPy raises (``x[0]`` of
    no rows) it does not hold."""
    with kt.default_dtype("float64"):
        result = kt.eval_shape(fn, *types)
    for n, m in ((2, 3), (3, 5), (5, 2), (0, 4), (1, 7), (MAX_TURNS + 1, 3)):
        sizes = {"n": n, "m": m}
        arrays = [np.ones(_shape(kt.TensorType.parse(t), sizes), kt.TensorType.parse(t).dtype)
                  for t in types]
        try:
            want = fn(*arrays)
        except IndexError:
            assert not result.holds(sizes), sizes
            continue
        assert result.holds(sizes) == (n <= MAX_TURNS), sizes
        if n > MAX_TURNS:
            continue
        case = next(c for c in result.cases if all(x.holds(sizes) for x in c.conditions))
        assert (_shape(case.type, sizes), case.type.dtype) == (want.shape, want.dtype.name)


def test_an_update_nest_proves_each_question_once_per_case() -> None:
    """``out[i, j] = ...`` builds an update per turn, each waiting on ``y0 == a0`` over
    fresh variables: asked over stand-ins, the questions of one case are a few, not one
    per build (before: 2814 questions, every one new, for the 1512 updates)."""
    # (in a fresh process: in this one, an earlier eval_shape of set_pairs left its
    # builds in the Ops' memos, and then nowhere is asked nothing)
    code = ("import kantensor as kt, test_eval_shape_loop_nests as t\n"
            "from kantensor.logic import dims\n"
            "kt.eval_shape(t.set_pairs, 'float64[n,n]', 'float32[n,m]')\n"
            "info = dims._refuted.cache_info()\n"
            "print(info.hits, info.misses)")
    path = os.pathsep.join([str(Path(__file__).parent), *sys.path])
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": path}, check=True)
    hits, misses = map(int, ran.stdout.split())
    assert hits + misses >= 1500
    assert misses <= 200, (hits, misses)


def test_stand_ins_rename_in_order_and_keep_the_canonical_form() -> None:
    """Two questions alike but for their fresh unknowns are one (the memo's key), and
    the renamed one is what re-canonicalising it says (the same terms in the same
    order); an unknown inside a term, or one the facts name, is left as it is."""
    a, b, c, d = fresh("y"), fresh("a"), fresh("y"), fresh("a")
    n = kt.Dim("n")
    one = 3 * unknown(a) * unknown(b) - unknown(b) + 2 * n * unknown(a) - 7
    two = 3 * unknown(c) * unknown(d) - unknown(d) + 2 * n * unknown(c) - 7
    facts = Facts([kt.Condition(n, ">", 4)])
    first, second = standing_in(one, facts), standing_in(two, facts)
    assert first == second and hash(first) == hash(second)
    ins = sorted(free_symbols(first) - {"n"}, key=str)
    back = substitute(first, {ins[0]: unknown(a), ins[1]: unknown(b)})
    assert back == one or substitute(first, {ins[0]: unknown(b), ins[1]: unknown(a)}) == one
    assert substitute(one, dict(zip(sorted([a, b], key=str), map(unknown, ins),
                                    strict=True)))._terms == first._terms
    inside = dim_max(unknown(a), n) - unknown(b)
    assert standing_in(inside, EMPTY) is inside
    named = Facts([kt.Condition(unknown(a), ">", 1)])
    assert standing_in(one, named) is one


def test_a_deeper_nest_is_refused_at_its_line_within_the_turn_budget() -> None:
    """A nest of four loops over one size turns 16**4 times at n = 16 alone: the runs
    of one call turn at most MAX_LOOP_TURNS times in all, then eval_shape refuses,
    naming the loop and the user's line."""

    def deep(x: np.ndarray) -> np.ndarray:
        steps = 0
        for _i in range(x.shape[0]):
            for _j in range(x.shape[0]):
                for _k in range(x.shape[0]):
                    for _ in range(x.shape[0]):
                        steps += 1
        return x[:1] * steps

    with pytest.raises(BranchError, match=rf"more than {MAX_LOOP_TURNS} turns of loops over "
                                          r"sizes .* range\(0, n, 1\) at .*: for _ in "
                                          r"range\(x\.shape\[0\]\):"):
        kt.eval_shape(deep, "float32[n,3]")
