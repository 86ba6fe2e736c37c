"""Slices whose bounds are sizes (``x[:n - 5]``), judged by NumPy at every size 0..11.

The sign of a size bound is a choice: NumPy counts a negative one from the axis's end,
so ``x[:n - 5]`` has ``n - 5`` elements where ``n >= 5`` and ``max(0, 2*n - 5)`` where
``n < 5``. The build reads the sign the bound's form shows first, and the other sign in
a later alternative, so where the facts (``where=``, or a branch ``if n < 5:``) refute
the first reading the other one applies: typed as NumPy computes it, never refused and
never a case that assumes what its own conditions exclude. Without facts, the first
reading's sizes are the result's and its sign condition an assumption (the sizes where
it fails are not covered, never typed wrong).

The oracle is NumPy (``np.zeros(n)[index].shape``, or the ValueError of an assignment
whose value does not fit), at each size the facts allow.
"""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from kantensor.types.dim import Dim
from kantensor.types.symbols import free_symbols, substitute

SIZES = range(12)

#: Slices of ``x`` (1-d, of size n) whose bounds are sizes of n, by name: each gives the
#: index for a size (a Dim, or an int for NumPy).
SLICES = {
    "x[:n-5]": lambda n: np.s_[:n - 5],
    "x[n-5:]": lambda n: np.s_[n - 5:],
    "x[-n:n]": lambda n: np.s_[-n:n],
    "x[1-n:]": lambda n: np.s_[1 - n:],
    "x[5-n:n-2]": lambda n: np.s_[5 - n:n - 2],
    "x[:n-5:2]": lambda n: np.s_[:n - 5:2],
    "x[n-7::3]": lambda n: np.s_[n - 7::3],
    "x[n-3::-1]": lambda n: np.s_[n - 3::-1],
    "x[:n-4:-1]": lambda n: np.s_[:n - 4:-1],
    "x[n-2:3-n:-2]": lambda n: np.s_[n - 2:3 - n:-2],
    "x[n:0:-1]": lambda n: np.s_[n:0:-1],
    "x[5-n::-2]": lambda n: np.s_[5 - n::-2],
}

#: What is given of n: each decides the sign of some bounds (all of them at one size).
WHERE = [None, "n <= 4", "n >= 5", "n <= 1", "n >= 7", *(f"n == {k}" for k in (0, 1, 3, 6))]


def shape_at(result, sizes: dict[str, int]):
    """The shape ``result`` (of eval_shape) states at ``sizes``: a tuple with None where
    a size is unknown, or None where the sizes are not covered (an assumption fails)."""
    if not result.holds(sizes):
        return None
    if result.cases:
        result = next(c for c in result.cases
                      if all(x.holds(sizes) for x in c.conditions))
    out = []
    for d in result.type.shape:
        if isinstance(d, Dim):
            d = int(substitute(d, sizes)) if free_symbols(d) <= sizes.keys() else None
        out.append(d)
    return tuple(out)


def meets(where: str | None, n: int) -> bool:
    return where is None or bool(eval(where.replace("==", "=="), {"n": n}))  # noqa: S307


def covered(where: str | None, name: str) -> bool:
    """Whether ``where`` decides the sign of every bound of the slice ``name`` (so that
    every size it allows must be covered)."""
    signs = []
    for n in SIZES:
        if meets(where, n):
            s = SLICES[name](n)
            signs.append(tuple(b is None or b >= 0 for b in (s.start, s.stop)))
    return len(set(signs)) <= 1


@pytest.mark.parametrize("where", WHERE, ids=str)
@pytest.mark.parametrize("name", list(SLICES))
def test_a_slice_by_sizes_is_numpys_at_every_size_the_facts_allow(name, where):
    index = SLICES[name]
    result = kt.eval_shape(lambda x: x[index(x.shape[0])], "float32[n]", where=where)
    for n in SIZES:
        if not meets(where, n):
            continue
        expected = np.zeros(n)[index(n)].shape
        got = shape_at(result, {"n": n})
        if got is None:
            assert not covered(where, name), (name, where, n, result)
            continue
        assert all(g is None or g == e for g, e in zip(got, expected, strict=True)) \
            and len(got) == len(expected), (name, where, n, got, expected, result)
        if covered(where, name):
            assert None not in got, (name, where, n, got, result)


def test_a_branch_on_the_size_takes_the_other_reading():
    """``if n < 5: x[:n - 5]`` is ``max(0, 2*n - 5)`` elements in that case, with nothing
    assumed (it was ``n - 5``, assuming ``n >= 5``: a case that assumes what its own
    condition excludes)."""

    def head(x):
        n = x.shape[0]
        if n < 5:
            return x[:n - 5]
        return x

    result = kt.eval_shape(head, "float32[n]")
    assert not result.assumptions
    small = next(c for c in result.cases if str(c.conditions[0]) == "n < 5")
    assert not small.assumptions
    for n in SIZES:
        assert shape_at(result, {"n": n}) == np.zeros(n)[:n - 5].shape if n < 5 else (n,)


def test_an_empty_reshape_takes_the_reading_its_size_allows():
    """``y[-m:m]`` of a flattened ``x[n, s]`` where ``m = n*s == 0`` (a branch): NumPy's
    ``y[0:0]``, empty (that case assumed ``n >= 1 and s >= 1``, which its own condition
    refutes: no size was covered there); every size is covered."""

    def middle(x):
        y = x.reshape(-1)
        m = y.shape[0]
        if m == 0:
            return y[-m:m]
        return y[-m:m]

    result = kt.eval_shape(middle, "float32[n,s]")
    for n in range(4):
        for s in range(4):
            assert shape_at(result, {"n": n, "s": s}) == (n * s,), (n, s, result)


@pytest.mark.parametrize("k", range(8))
def test_an_assignment_fits_where_numpy_fits_it(k):
    """``x[:n - 5] = x[5:]``: the value fits where both slices have one length, which at
    n < 5 is the other reading's (``max(0, 2*n - 5)`` against 0: n <= 2)."""

    def shift(x):
        n = x.shape[0]
        x[:n - 5] = x[5:]
        return x

    a = np.zeros(k)
    try:
        a[:k - 5] = a[5:]
        numpy_ran = True
    except ValueError:
        numpy_ran = False
    try:
        result = kt.eval_shape(shift, "float32[n]", where=f"n == {k}")
    except kt.TypeInferenceError:
        assert not numpy_ran, k
        return
    assert numpy_ran, (k, result)
    assert not result.assumptions, (k, result)
    assert shape_at(result, {"n": k}) == (k,)


@pytest.mark.parametrize("k", range(8))
def test_an_advanced_index_with_a_slice_by_sizes_is_numpys(k):
    """``x[[0], n - 5:]`` (an index array beside a size-bounded slice): NumPy's shape at
    each size fixed by ``where``."""
    rows = np.zeros(1, np.int64)
    result = kt.eval_shape(lambda x: x[rows, x.shape[1] - 5:], "float32[2,n]",
                           where=f"n == {k}")
    assert not result.assumptions, (k, result)
    assert shape_at(result, {"n": k}) == np.zeros((2, k))[rows, k - 5:].shape


@pytest.mark.parametrize("k", range(4))
def test_past_four_size_bounds_the_other_readings_leave_the_axes_unknown(k):
    """Six size bounds would be 64 readings: past four, the forms' own reading, then one
    where the axes they slice are unknown. Where the facts refute the first (n == 0),
    the shape is NumPy's or unknown: never another size, never refused."""

    def cube(x):
        n = x.shape[0]
        return x[-n:n, 1 - n:n, -n:]

    result = kt.eval_shape(cube, "float32[n,n,n]", where=f"n == {k}")
    got = shape_at(result, {"n": k})
    expected = np.zeros((k, k, k))[-k:k, 1 - k:k, -k:].shape
    assert got is not None and all(g is None or g == e for g, e in zip(got, expected,
                                                                       strict=True)), got
