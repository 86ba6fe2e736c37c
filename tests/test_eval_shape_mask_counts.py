"""The count a boolean mask selects (``x[x > 0]``, ``np.nonzero``, ``np.flatnonzero``)
is between 0 and the mask's size, and what later code needs of it is decided with that
bound where it can be: at sizes where every count answers alike (``min(1, count) <= n``
where the mask has no element), ``result.holds`` answers, and a need the bound implies
for every size is no assumption. Judged by NumPy at every size of a box, on data whose
masks select nothing (zeros) and everything (ones): where holds answers True, NumPy runs
on both; False, it fails on both; where NumPy's outcome differs with the data, holds
says it cannot decide (a ValueError), never a guess."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt

BOX = (0, 1, 2, 3, 5)


def _doubled(x, m):
    x = x.copy()
    x[m] = x[m] * 2
    return x


def _increased(x, m):
    x = x.copy()
    x[:, m] += x[:, m]
    return x


def _set_where_another_selects(x, m):
    y = x.copy()
    y[m, 0] = x[m][:, 1]
    return y

PROGRAMS = {
    "x[nonzero(x)]": (lambda x: x[np.nonzero(x)], ["float64[A,B]"]),
    "rows of nonzero, stacked": (lambda x: np.hstack([x, x[np.nonzero(x)[0]]]),
                                 ["float32[B]"]),
    "rows of another's nonzero": (lambda x, v: x[np.nonzero(v)[0]],
                                  ["int32[A,1]", "bool[B]"]),
    "flat positions": (lambda x: x.ravel()[np.flatnonzero(x)], ["float64[A,A]"]),
    "a count as a position": (lambda x: np.zeros(3)[len(np.flatnonzero(x))],
                              ["float64[A,B]"]),
    "a mask's count as a position": (lambda x: np.ones((2, 4))[:, len(x[x > 0])],
                                     ["int8[A]"]),
    "a mask's elements set from themselves": (_doubled, ["float64[A,B]", "bool[A]"]),
    "a mask's columns increased by themselves": (_increased, ["float32[B,A]", "bool[A]"]),
    "a mask's column set from another's": (_set_where_another_selects,
                                           ["float64[A,2]", "bool[A]"]),
    "a 0-d mask": (lambda x: x[x.sum() > 0], ["float64[A,B]"]),
    "a 0-d mask of a row": (lambda x: x[x[0, 0] > 0], ["int32[A,B]"]),
    "a mask beside an int": (lambda x, m: x[m, 1], ["float64[A,B]", "bool[A]"]),
    "a 0-d mask beside an int": (lambda x: x[x.sum() > 0, 0], ["int8[A,B]"]),
}

DATA = (np.zeros, np.ones)


def _runs(fn, types, sizes, make):
    arrays = []
    for text in types:
        t = kt.TensorType.parse(text)
        shape = tuple(sizes[d.name] if isinstance(d, kt.Dim) else d for d in t.shape)
        arrays.append(make(shape, dtype=t.dtype))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*arrays)
    except (ValueError, IndexError):
        return False
    return True


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_what_code_needs_of_a_mask_count_is_decided_where_the_data_cannot_change_it(name):
    fn, types = PROGRAMS[name]
    result = kt.eval_shape(fn, *types)
    names = sorted({d.name for t in types for d in kt.TensorType.parse(t).shape
                    if isinstance(d, kt.Dim)})
    for values in itertools.product(BOX, repeat=len(names)):
        sizes = dict(zip(names, values, strict=True))
        outcomes = {_runs(fn, types, sizes, make) for make in DATA}
        if len(outcomes) > 1:  # the data decide it
            with pytest.raises(ValueError, match="holds cannot say"):
                result.holds(sizes)
            continue
        assert result.holds(sizes) == outcomes.pop(), sizes


@pytest.mark.parametrize("fn", [_doubled, _set_where_another_selects],
                         ids=["x[m] = x[m] * 2", "y[m, 0] = x[m][:, 1]"])
def test_a_mask_update_from_the_same_mask_is_no_assumption(fn):
    """``x[m] = x[m] * 2`` assigns as many values as the mask selects, at every size and
    on every data (NumPy runs it on every mask): the count the update selects is the one
    ``x[m]`` selected (:func:`~kantensor.evalshape.counts.same_counts`), so nothing is
    assumed and ``assume="error"`` types it. On an empty axis (A = 0) main assumed
    ``index_set.m0_0 == 0``, which its bound (the mask's size, 0) implies, and refused
    the program under ``assume="error"``; at A > 0, that the two counts agree."""
    types = ["float64[A,2]", "bool[A]"]
    for sizes in ((0, 2), ("A", 2)):
        shown = [t.replace("A", str(sizes[0])) for t in types]
        result = kt.eval_shape(fn, *shown, assume="error")
        assert result.assumptions == ()
        for a in BOX if sizes[0] == "A" else (0,):
            assert all(_runs(fn, types, {"A": a}, make) for make in DATA)


def test_a_need_the_bound_implies_is_no_assumption():
    """``x[np.nonzero(x)]`` of a vector needs ``min(1, count) <= n``: the count is at
    most n, so it holds at every size (NumPy runs on every data), no assumption."""
    result = kt.eval_shape(lambda x: x[np.nonzero(x)], "float64[n]")
    assert result.assumptions == ()
    for n in BOX:
        assert all(_runs(lambda x: x[np.nonzero(x)], ["float64[n]"], {"n": n}, make)
                   for make in DATA)


@pytest.mark.parametrize("fn", [
    lambda x, v: x[np.nonzero(v)[0]],
    lambda x, v: x[np.argwhere(v)[:, 0]],
    lambda x, v: x[np.flatnonzero(v)],
], ids=["nonzero", "argwhere", "flatnonzero"])
def test_positions_of_a_mask_index_other_axes_for_every_data(fn):
    """The positions of a mask's elements along its axis of B are any of 0 .. B - 1 for
    some data (all ones pick them all), as argmax's are: indexing an axis of A by them
    needs B <= A where any is picked. Where ``A >= 1`` is given, main held at A = 1,
    B = 5, where NumPy raises IndexError on ones."""
    types = ["float32[A]", "bool[B]"]
    result = kt.eval_shape(fn, *types, where="A >= 1")
    for a, b in itertools.product((1, 2, 3, 5), BOX):
        sizes = {"A": a, "B": b}
        outcomes = {_runs(fn, types, sizes, make) for make in DATA}
        try:
            held = result.holds(sizes)
        except ValueError:
            assert len(outcomes) > 1, sizes  # undecided only where the data decide
            continue
        assert outcomes == {held}, sizes


@pytest.mark.parametrize("fn", [
    lambda x: np.ones_like(x)[np.argmin(np.ones_like(x, dtype=np.int8), axis=1)],
    lambda x: x[np.argmax(np.zeros_like(x), axis=1)[::-1]],
], ids=["argmin of ones_like", "argmax of zeros_like"])
def test_positions_in_values_of_no_data_are_not_read_for_every_data(fn):
    """``np.ones_like(x)`` has no data (its values are 1 at every size): the positions of
    its least element are the sizes' (all 0), not any of ``0 .. B - 1`` for some data;
    main refused x[argmin(ones_like)] at B >= 2 where NumPy runs on any data (npprograms
    seed 55 #109). Never refused where NumPy runs; held only where it runs."""
    types = ["float64[A,B]"]
    result = kt.eval_shape(fn, *types)
    decided = 0
    for a, b in itertools.product(BOX, repeat=2):
        sizes = {"A": a, "B": b}
        outcomes = {_runs(fn, types, sizes, make) for make in DATA}
        try:
            held = result.holds(sizes)
        except ValueError:
            continue  # (the sizes decide it in a way not read: said so)
        assert outcomes == {held}, sizes
        decided += 1
    assert decided  # (a holds that never answers would pass the loop)


def test_positions_in_uninitialised_values_are_read_for_every_data():
    """``np.empty_like(x)``'s values are NumPy's uninitialised memory (kantensor's are
    zeros, under an implementation of its own): its argmin is any of ``0 .. B - 1``, so
    an index of it is held only where every position is in bounds. Judged by NumPy on
    the data that put the argmin last (a row decreasing), which fails wherever any does."""
    def fn(x, data=np.empty_like):
        return x[np.argmin(data(x), axis=1)]
    result = kt.eval_shape(fn, "float64[A,B]")
    for a, b in itertools.product(BOX, repeat=2):
        worst = lambda x: np.tile(np.arange(x.shape[1])[::-1], (x.shape[0], 1))  # noqa: E731
        try:
            fn(np.zeros((a, b)), worst)
            runs = True
        except (IndexError, ValueError):  # (out of bounds; an argmin of an empty row)
            runs = False
        assert result.holds({"A": a, "B": b}) == runs, (a, b)
