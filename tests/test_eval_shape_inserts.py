"""``np.insert``/``np.delete`` at one position (an int or a size), judged by NumPy at
sizes A, B in 0..3 (every pair: sizes that differ, 0 and 1 included).

NumPy's insert takes a position ``-n <= i <= n`` (n the axis's length) and raises
IndexError otherwise; ``np.insert(x, 1, 0, axis=1)`` of ``float64[A,B]`` held at B = 0
(hunt21, a single-call sweep), and so did ``np.insert(x, len(y), 0, axis=1)`` at B = 0,
C = 1: the position was never stated against an axis of unknown length. The result must
hold only where NumPy runs, with NumPy's shape, and where NumPy runs unless a slice
bound that is a size is read by its sign there (docs/numpy.rst).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute
from npprograms import _choice_explains

SOURCES = ["np.insert(x, 1, 0, axis=1)", "np.insert(x, 3, 0, axis=0)",
           "np.insert(x, -2, 7, axis=1)", "np.insert(x, 2, 5)", "np.insert(x, -1, 0)",
           "np.insert(x, 0, 1, axis=1)",
           "np.insert(x, 2, np.ones(x.shape[1]), axis=0)", "np.delete(x, 1, axis=1)",
           "np.delete(x, -3, axis=0)", "np.delete(x, 4)",
           # a size as the position (len(y) in real code): -n <= p <= n as well
           "np.insert(x, x.shape[0], 0, axis=1)", "np.insert(x, x.shape[0] - 1, 0, axis=1)",
           "np.insert(x, -x.shape[0], 0, axis=1)", "np.insert(x, x.shape[1] - x.shape[0], 1)",
           "np.delete(x, x.shape[0] - 2, axis=1)"]


def _numpy(fn, a: int, b: int):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.shape(fn(np.zeros((a, b))))
    except IndexError:
        return None


@pytest.mark.parametrize("source", SOURCES)
def test_one_position_holds_exactly_where_numpy_runs(source):
    fn = eval("lambda x: " + source, {"np": np})
    r = kt.eval_shape(fn, "float64[A,B]")
    for a, b in itertools.product(range(4), repeat=2):
        shape = _numpy(fn, a, b)
        sizes = {"A": a, "B": b}
        holds = r.holds(sizes)
        if not holds and shape is not None:  # a size bound of a slice read by its sign
            assert _choice_explains(r, sizes), (source, a, b)  # (docs/numpy.rst)
            continue
        assert holds == (shape is not None), (source, a, b)
        if shape is not None:
            case = next((c for c in r.cases if all(x.holds(sizes) for x in c.conditions)),
                        r)
            got = tuple(substitute(d, sizes) for d in case.type.shape)
            assert got == shape, (source, a, b, case.type)
