"""An assumption eval_shape lists is one the user can break: at some sizes it fails while
the assumptions listed before it hold, and NumPy fails there. One that holds at every
size (``N//2 + 1 <= N or N == 0`` of ``np.argpartition(x, len(x)//2)``, ``m*min(1, N,
m) <= m``) or that the earlier ones already imply is not the user's assumption. (An
overload's choice, such as the sign ``x[:N - k//2]``'s stop is read with, may fail
where NumPy runs: it is only asked to be breakable.) Judged by NumPy at every
assignment of a box of sizes."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.conditions import is_choice

BOX = range(7)

PROGRAMS = [
    (lambda x: np.argpartition(x, x.shape[0] // 2), ["float32[N]"]),
    (lambda x: np.partition(x, len(x) // 2)[len(x) // 2], ["float32[N]"]),
    (lambda x, y: np.partition(x[: y.shape[0]], y.shape[0] - 1),
     ["float32[N]", "float32[m]"]),
    (lambda x, y: np.partition(x, y.shape[0] - 1, axis=1), ["float32[N,M]", "float32[m]"]),
    (lambda x, y: x.reshape(-1, y.shape[0]), ["float32[N]", "float32[K]"]),
    (lambda x, y: np.sort(x)[: x.shape[0] - y.shape[0] // 2], ["float32[N]", "float32[k]"]),
]


def _names(types):
    return list(dict.fromkeys(d.name for t in types for d in kt.TensorType.parse(t).shape
                              if isinstance(d, kt.Dim)))


def _runs(fn, types, sizes):
    arrays = [np.zeros([sizes[d.name] if isinstance(d, kt.Dim) else d for d in t.shape],
                       t.dtype) for t in map(kt.TensorType.parse, types)]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*arrays)
    except (ValueError, IndexError, ZeroDivisionError):
        return False
    return True


def _holds(need, sizes):
    try:
        return need.holds(sizes)
    except ZeroDivisionError:  # (a quotient by a size that is 0 there)
        return False


@pytest.mark.parametrize(("fn", "types"), PROGRAMS, ids=range(len(PROGRAMS)))
def test_each_assumption_is_broken_somewhere_numpy_fails(fn, types):
    result = kt.eval_shape(fn, *types)
    names = _names(types)
    boxes = [dict(zip(names, v, strict=True))
             for v in itertools.product(BOX, repeat=len(names))]
    for i, need in enumerate(result.assumptions):
        broken = [s for s in boxes if not _holds(need, s)
                  and all(_holds(a, s) for a in result.assumptions[:i])]
        assert broken, f"{need} holds wherever {result.assumptions[:i]} do"
        if not is_choice(need):  # (where a build's choice fails, NumPy may run)
            assert not any(_runs(fn, types, s) for s in broken), need
    for sizes in boxes:  # and the rest are still exact
        if result.holds(sizes):
            assert _runs(fn, types, sizes), sizes
        elif all(_holds(a, sizes) for a in result.assumptions if is_choice(a)):
            assert not _runs(fn, types, sizes), sizes
