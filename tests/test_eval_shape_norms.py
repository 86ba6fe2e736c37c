"""``np.linalg.norm`` judged by NumPy: where it runs, at every size in 0..2 of every
axis, and what it computes.

A matrix norm's pair of axes is (row, column) in the given order: ``axis=(1, 0)`` with
``ord=1`` is the greatest row sum, yet kantensor sorted the pair and computed the
greatest column sum (7 for NumPy's 12 on ``arange(6).reshape(2, 3)``). And the norms
that take a minimum (a vector's ``ord=-inf``; a matrix's -1, -2, -inf) raise on an
empty axis, where the type held (hunt21, a single-call sweep).
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import kantensor as kt

ORDS = [None, math.inf, -math.inf, 0, 1, -1, 2, -2, 3, 0.5, "fro", "nuc"]
CALLS = [("float64[A]", None, False), ("float64[A,B]", None, False),
         ("float64[A,B]", 0, False), ("float64[A,B]", 1, True),
         ("float64[A,B]", (0, 1), False), ("float64[A,B]", (1, 0), True),
         ("float64[A,B,C]", (2, 1), False), ("float64[A,B,C]", -1, False)]


def _fn(ord, axis, keepdims):  # noqa: A002
    return lambda x: np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("ord", ORDS, ids=str)
@pytest.mark.parametrize(("t", "axis", "keepdims"), CALLS)
def test_holds_exactly_where_numpy_runs(ord, t, axis, keepdims):  # noqa: A002
    fn = _fn(ord, axis, keepdims)
    try:
        r = kt.eval_shape(fn, t)
    except (kt.TypeInferenceError, ValueError):
        r = None
    names = [d for d in "ABC" if d in t]
    for values in itertools.product(range(3), repeat=len(names)):
        sizes = dict(zip(names, values, strict=True))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = np.shape(fn(np.ones(values)))
        except ValueError:
            want = None
        holds = r is not None and r.holds(sizes)
        assert holds == (want is not None), (sizes, r)


@pytest.mark.parametrize("ord", [1, -1, math.inf, -math.inf, 2, -2, "fro", "nuc", None],
                         ids=str)
@pytest.mark.parametrize("axis", [(1, 0), (0, 1), (-1, 0), (0, -1)])
def test_a_pair_of_axes_is_row_then_column(ord, axis):  # noqa: A002
    x = kt.tensor("x", "float64", (2, 3))
    data = np.arange(6.0).reshape(2, 3) ** 2
    for keepdims in (False, True):
        f = kt.function([x], np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims))
        np.testing.assert_allclose(f(data), np.linalg.norm(data, ord=ord, axis=axis,
                                                          keepdims=keepdims))
