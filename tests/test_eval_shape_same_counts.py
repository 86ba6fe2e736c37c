"""One count the data decide, named alike wherever the relations pass it on: what code
needs of values of one count (``rows + cols`` of ``np.nonzero(x)``, ``v + np.roll(v, 1)``
of ``v = x[x > 0]``, ``np.nonzero(x)`` called twice, ``x[m]`` beside ``np.nonzero(m)``
or ``np.flatnonzero(m)``, the mask made twice) is no assumption, and what it needs
of two multiples of it (``2*m == 3*m``) stays one. Judged by NumPy on data of every
density (none, some, all elements nonzero) at every assignment of a box of sizes."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt

BOX = (0, 1, 2, 3, 5)


def _data(shape: tuple[int, ...], dtype: str, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [np.zeros(shape, dtype), np.ones(shape, dtype),
            (rng.random(shape) < 0.5).astype(dtype), (rng.random(shape) < 0.2).astype(dtype)]


def _runs(fn, shape, dtype) -> list[bool]:
    out = []
    for a in _data(shape, dtype, sum(shape)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn(a)
            out.append(True)
        except ValueError:
            out.append(False)
    return out


def _rows_plus_cols(x):
    rows, cols = np.nonzero(x)
    return rows + cols


def _nonzero_twice(x):
    return np.nonzero(x)[0] * np.nonzero(x)[1]


def _argwhere_and_nonzero(x):
    return np.argwhere(x)[:, 1] - np.nonzero(x)[0]


def _rolled(x):
    v = x[x > 0]
    return v + np.roll(v, 1)


def _zeros_of_its_length(x):
    v = x[x > 0]
    return np.zeros(len(v)) + v


def _doubled(x):
    v = x[x > 0]
    return np.concatenate([v, v]) + np.tile(v, 2)


def _unique_plus_one(x):
    return np.unique_values(x[x > 0]) + 1


def _mask_and_its_positions(x):
    m = x > 0
    return x[m] - np.nonzero(m)[1]


def _mask_made_twice(x):
    return x[x > 0] + x[x > 0] * 2 - x.astype(np.float32)[x > 0]


def _flat_positions(x):
    return x[x > 0] * np.flatnonzero(x > 0)


def _transposed_mask(x):
    return x[x != 1] + x.T[x.T != 1] + x.ravel()[np.ravel(x) != 1]


def _compressed_and_masked(x):
    return np.compress((x > 0).ravel(), x) + x[x > 0] + np.argwhere(x > 0)[:, 0]


RUNS = [_rows_plus_cols, _nonzero_twice, _argwhere_and_nonzero, _rolled,
        _zeros_of_its_length, _doubled, _unique_plus_one, _mask_and_its_positions,
        _mask_made_twice, _flat_positions, _transposed_mask, _compressed_and_masked]


@pytest.mark.parametrize("fn", RUNS, ids=lambda f: f.__name__)
def test_values_of_one_count_need_nothing_of_it(fn):
    """NumPy runs at every size and density: the result holds at every size (no
    assumption over the count, which ``holds`` could not decide)."""
    result = kt.eval_shape(fn, "int8[A,B]")
    for a, b in itertools.product(BOX, BOX):
        assert all(_runs(fn, (a, b), "int8")), (a, b)
        assert result.holds({"A": a, "B": b}), (a, b, result.assumptions)


def _two_and_three(x):
    v = x[x > 0]
    return np.concatenate([v, v]) + np.tile(v, 3)


def test_two_multiples_of_one_count_need_it_to_be_zero():
    """``2*m`` against ``3*m`` broadcast only where the count is 0: one assumption over
    the count, which NumPy confirms (it runs on zeros only)."""
    result = kt.eval_shape(_two_and_three, "int8[A,B]")
    assert [str(c) for c in result.assumptions] == ["index{index=(<array 0>,)}.out."
                                                    "shape[0] == 0"]
    assert _runs(_two_and_three, (2, 3), "int8") == [True, False, False, False]


@pytest.mark.parametrize(("fn", "y"), [
    (lambda x, y: x[x > 0] + y[y > 0], [3, 3, 3]),
    (lambda x, y: x[x > 0] * np.flatnonzero(x > 1), [3, 3, 3]),
    (lambda x, y: x[x > 0] + y[(x > 0) & (y > 0)], [0, 0, 3]),
    (lambda x, y: x[x > 0] + y[x + y > 0], [0, 0, 3])])
def test_two_counts_stay_two(fn, y):
    """``x[x > 0]`` and ``y[y > 0]`` are two counts (and so are those of ``x > 0`` and
    ``x > 1``): what code needs of both stays an assumption ``holds`` cannot decide
    (NumPy runs or not by the data)."""
    result = kt.eval_shape(fn, "int8[A]", "int8[A]")
    assert len(result.assumptions) == 1
    with pytest.raises(ValueError, match="cannot say"):
        result.holds({"A": 3})
    with pytest.raises(ValueError):
        fn(np.array([1, 1, 0], np.int8), np.array(y, np.int8))
