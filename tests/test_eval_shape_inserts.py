"""``np.insert``/``np.delete`` at one int position, judged by NumPy at sizes A, B in 0..3
(every pair: sizes that differ, 0 and 1 included).

NumPy's insert takes a position ``-n <= i <= n`` (n the axis's length) and raises
IndexError otherwise; ``np.insert(x, 1, 0, axis=1)`` of ``float64[A,B]`` held at B = 0
(hunt21, a single-call sweep): the position was never stated against an axis of
unknown length. The result must hold exactly where NumPy runs, with NumPy's shape.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.symbols import substitute

SOURCES = ["np.insert(x, 1, 0, axis=1)", "np.insert(x, 3, 0, axis=0)",
           "np.insert(x, -2, 7, axis=1)", "np.insert(x, 2, 5)", "np.insert(x, -1, 0)",
           "np.insert(x, 0, 1, axis=1)",
           "np.insert(x, 2, np.ones(x.shape[1]), axis=0)", "np.delete(x, 1, axis=1)",
           "np.delete(x, -3, axis=0)", "np.delete(x, 4)"]


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
        assert r.holds(sizes) == (shape is not None), (source, a, b)
        if shape is not None:
            case = next((c for c in r.cases if all(x.holds(sizes) for x in c.conditions)),
                        r)
            got = tuple(substitute(d, sizes) for d in case.type.shape)
            assert got == shape, (source, a, b, case.type)
