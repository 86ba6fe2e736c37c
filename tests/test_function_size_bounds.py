"""kt.function on slices and indices whose bounds are sizes (``x[:n - 5]``), run by the
NumPy and the Dask backends and judged by NumPy at every size 0..12 the facts allow.

The type level reads both signs of such a bound (tests/test_getitem_readings.py); the
backends must run every reading it accepts and give NumPy's values and shapes. A size
of either sign is carried by the names it is made of, so its value at run time may be
negative (``x[:n - 5]`` at ``n = 3`` is ``x[:-2]``); it raised ShapeBindingError there,
and the Dask backend refused every slice by a size unless its axis was one chunk. The
Dask oracle is Dask's own computed blocks: the chunks ``f.chunks`` predicts are the
chunks of the blocks computed.
"""

from __future__ import annotations

import random

import dask
import dask.array as da
import numpy as np
import pytest

import kantensor as kt
from dask_cases import computed, random_chunks
from kantensor.backend.dask.indexing import within
from test_getitem_readings import SLICES, WHERE, meets, shape_at

SIZES = range(13)


def _case(result, sizes):
    """The case of ``result`` (of eval_shape) whose conditions hold at ``sizes``."""
    for case in result.cases or (result,):
        if all(c.holds(sizes) for c in case.conditions):
            return case
    return None


def _judged(fn, text, where, sizes_of, shape_of, backends=("numpy", "check", "dask")):
    """Run ``fn`` through eval_shape (``text``, ``where``) and kt.function at every size
    of :data:`SIZES` the facts allow; return the disagreements with NumPy."""
    rng = random.Random(0)
    try:
        result = kt.eval_shape(fn, text, where=where)
    except kt.TypeInferenceError:
        result = None
    bad = []
    compiled: dict = {}
    for k in SIZES:
        sizes = sizes_of(k)
        if not meets(where, k):
            continue
        a = np.arange(float(np.prod(shape_of(k)))).reshape(shape_of(k))
        try:
            want = fn(a.copy())
        except (ValueError, IndexError):
            want = None
        if result is None:
            if want is not None:
                bad.append((k, "refused where NumPy runs"))
            continue
        covered = result.holds(sizes)
        if want is None:
            if covered:
                bad.append((k, "typed where NumPy raises"))
            continue
        if covered:
            typed = shape_at(result, sizes)
            if typed is None or len(typed) != want.ndim or any(
                    t is not None and t != w for t, w in zip(typed, want.shape, strict=True)):
                bad.append((k, "type", typed, want.shape))
        case = _case(result, sizes)
        for backend in backends:
            if backend == "check" and not covered:
                continue  # check=True refuses where the graph's types do not hold
            key = (id(case), backend)
            if key not in compiled:
                compiled[key] = kt.function(list(case.inputs), list(case.outputs),
                                            backend="dask", allow_rechunk=True) \
                    if backend == "dask" else \
                    kt.function(list(case.inputs), list(case.outputs),
                                check=backend == "check")
            f = compiled[key]
            try:
                if backend == "dask":
                    chunks = random_chunks(a.shape, rng)
                    y = f(a.copy(), chunks=chunks)[0]
                    blocks, got = computed(y)
                    if not blocks == y.chunks == f.chunks(chunks)[0]:
                        bad.append((k, backend, "chunks", blocks, y.chunks, f.chunks(chunks)))
                else:
                    got = f(a.copy())[0]
            except Exception as exc:  # noqa: BLE001 - any refusal is a disagreement
                bad.append((k, backend, f"{type(exc).__name__}: {exc}"))
                continue
            if got.shape != want.shape or not np.array_equal(got, want):
                bad.append((k, backend, got, want))
    return bad


@pytest.mark.parametrize("name", list(SLICES))
def test_a_slice_by_sizes_runs_as_numpy_on_both_backends(name):
    index = SLICES[name]
    for where in WHERE:
        bad = _judged(lambda x: x[index(x.shape[0])], "float64[n]", where,
                      lambda k: {"n": k}, lambda k: (k,))
        assert not bad, (name, where, bad)


def _shift(x):
    n = x.shape[0]
    x[:n - 5] = x[5:]
    return x


def _every_other_from_the_end(x):
    n = x.shape[0]
    x[n - 3::-2] = 1.0
    return x


def _add_inside(x):
    n = x.shape[0]
    x[1 - n:n - 2] += 2.0
    return x


def _element(x):
    return x[x.shape[0] - 3]


def _set_element(x):
    x[x.shape[0] - 4] = 7.0
    return x


def _arange(x):
    n = x.shape[0]
    return np.arange(n - 5) + np.arange(n - 5, 2 * n - 10)


PROGRAMS = {f.__name__: f for f in (_shift, _every_other_from_the_end, _add_inside,
                                    _element, _set_element, _arange)}


@pytest.mark.parametrize("where", [None, "n <= 4", "n >= 5", "n == 2", "n == 3"], ids=str)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_assignments_indices_and_ranges_by_sizes_run_as_numpy(name, where):
    """Assignments into slices by sizes (a negative step too), an int index that is a
    size, and ``arange(n - 5)`` (empty below 5, as NumPy's; it was typed ``n - 5``
    assuming ``n >= 5``)."""
    bad = _judged(PROGRAMS[name], "float64[n]", where, lambda k: {"n": k}, lambda k: (k,))
    assert not bad, bad


@pytest.mark.parametrize("where", [None, "n <= 2", "n >= 3"], ids=str)
def test_two_axes_each_sliced_by_a_size(where):
    """``x[m - 3:, :n - 2:-1]`` of ``x[n, m]``: two bounds, two names, a negative step."""
    bad = _judged(lambda x: x[x.shape[1] - 3:, :x.shape[0] - 2:-1], "float64[n,m]", where,
                  lambda k: {"n": k, "m": (3 * k + 1) % 7},
                  lambda k: (k, (3 * k + 1) % 7))
    assert not bad, bad


def test_check_names_the_choice_that_fails():
    """check=True where the graph was typed under the other sign's reading: the choice,
    the sizes, and what NumPy computes instead."""
    n = kt.Dim("n")
    x = kt.tensor("x", "float64", (n,))
    f = kt.function([x], x[:n - 5], check=True)
    np.testing.assert_array_equal(f(np.arange(7.0)), [0.0, 1.0])
    with pytest.raises(kt.TypeInferenceError, match=r"getitem\{index=\(:n - 5,\)\} was typed "
                       r"under a choice, n - 5 >= 0, which fails at n = 3 in input 0 \(x\) "
                       r"\(axis 0\): NumPy computes another length"):
        f(np.arange(3.0))
    np.testing.assert_array_equal(kt.function([x], x[:n - 5])(np.arange(3.0)), [0.0])


def test_dasks_slicing_of_a_negative_step_is_numpys():
    """Dask 2026.8 reads a negative step's start before the axis' start as its first
    element (``x[-6::-3]`` of 5 elements: two, NumPy none); the backend writes the
    bounds by their positions first."""
    cases, sliced = [], []
    for n in range(6):
        a = np.arange(2.0 * n).reshape(n, 2)
        x = da.from_array(a, chunks=2)
        for start in (*range(-8, 8), None):
            for stop in (*range(-8, 8), None):
                for step in (1, 2, -1, -3):
                    index = (None, slice(start, stop, step), Ellipsis)
                    cases.append((n, start, stop, step, a[index]))
                    sliced.append(x[within(index, x.shape)])
    # (one compute of all the slices: each is its own graph, and one scheduler call
    # instead of 6,936 takes a fifth of the time)
    bad = [case[:4] for case, got in zip(cases, dask.compute(*sliced, scheduler="sync"),
                                         strict=True)
           if got.shape != case[4].shape or not np.array_equal(got, case[4])]
    assert not bad, bad[:5]
