"""Advanced indexing against NumPy (conformance.py): integer arrays (several, broadcast
together), ints among them, slices, None and ``...`` between them, and boolean masks.
The index arrays are symbolic inputs too (with hidden dims), so the static rules
(broadcasting, adjacency, mask shapes) are checked, and NumPy's own run-time checks
(out-of-range values) fail the graph exactly when they fail NumPy.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import kantensor as kt
from conformance import ALL_DTYPES, arrays, conform, hidden_mask, shapes
from kantensor.types.symbols import substitute

CASES = settings(max_examples=300, deadline=None)
INT_INDEX = ("int8", "int16", "int32", "int64", "uint8", "uint32", "uint64")


@st.composite
def advanced(draw) -> tuple[np.ndarray, list, list[np.ndarray]]:
    """An array, an index (items: int, slice, None, ..., or a position in the list of
    index arrays) and the index arrays."""
    shape = draw(shapes(min_dims=1, max_dims=3, min_side=0, max_side=4))
    x = draw(arrays(draw(st.sampled_from(ALL_DTYPES)), shape))
    items: list[Any] = []
    index_arrays: list[np.ndarray] = []
    axis = 0
    ellipsis = False
    while axis < len(shape) and draw(st.integers(0, 3)):  # items from the first axis
        kind = draw(st.sampled_from(["array", "array", "mask", "mask0", "int", "slice",
                                     "none", "ellipsis"]))
        n = shape[axis]
        if kind == "array":
            ishape = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
            hi = max(n, 1)   # values in range (out of range is a value error: see below)
            values = draw(hnp.arrays(np.int64, ishape, elements=st.integers(-hi, hi - 1)))
            dtype = draw(st.sampled_from(INT_INDEX))
            if np.dtype(dtype).kind == "u":
                values = values % hi
            items.append(("array", len(index_arrays)))
            index_arrays.append(values.astype(dtype))
            axis += 1
        elif kind == "mask":
            k = draw(st.integers(1, len(shape) - axis))
            mshape = list(shape[axis:axis + k])
            if draw(st.integers(0, 5)) == 0:
                mshape[0] += 1          # a mismatched mask: NumPy refuses it
            elif draw(st.integers(0, 3)) == 0:  # an axis of 0: NumPy takes it on any axis
                mshape[draw(st.integers(0, k - 1))] = 0
            items.append(("array", len(index_arrays)))
            index_arrays.append(draw(hnp.arrays(bool, tuple(mshape))))
            axis += k
        elif kind == "mask0":  # a 0-d mask: an axis of 0 or 1 there, using none of x's
            items.append(("array", len(index_arrays)))
            index_arrays.append(np.array(draw(st.booleans())))
        elif kind == "int":
            items.append(draw(st.integers(-n - 1, n)))
            axis += 1
        elif kind == "slice":
            items.append(slice(draw(st.one_of(st.none(), st.integers(-5, 5))),
                               draw(st.one_of(st.none(), st.integers(-5, 5))),
                               draw(st.sampled_from([None, 1, 2, -1]))))
            axis += 1
        elif kind == "none":
            items.append(None)
        else:   # the items after ... index the last axes: only an array of the last
            items.append(Ellipsis)
            ellipsis = True
            break
    if not index_arrays:
        last = shape[-1] if ellipsis else shape[min(axis, len(shape) - 1)]
        items.append(("array", 0))
        index_arrays.append(np.array([0, -1] if last else [], dtype=np.int64))
    return x, items, index_arrays


def _key(items: list, arrays: tuple) -> tuple:
    return tuple(arrays[i[1]] if isinstance(i, tuple) else i for i in items)


@CASES
@given(data=st.data())
def test_advanced_indexing(data):
    x, items, index_arrays = data.draw(advanced())
    values = [x, *index_arrays]
    hidden = [data.draw(hidden_mask(v.ndim)) for v in values]
    conform("index", lambda v, *a: v[_key(items, a)], lambda v, *a: v[_key(items, a)],
            values, hidden)


def test_values_out_of_range_fail_when_the_graph_runs():
    x, i = kt.tensor("x", "float32", (5, 4)), kt.vector("i", "int64")
    f = kt.function([x, i], x[i, 1:])
    with pytest.raises(IndexError, match=r"index \(computing|failed at run time on inputs "
                                         r"of shapes \(5, 4\), \(2,\): index 7 is out of "
                                         r"bounds"):
        f(np.zeros((5, 4), np.float32), np.array([0, 7]))


def test_lists_and_numpy_arrays_in_the_index():
    x = kt.tensor("x", "float32", (5, 4))
    assert str(x[[0, 2, 4]].type) == "float32[3,4]"
    assert str(x[np.array([[0], [1]]), [1, 2, 3]].type) == "float32[2,3]"
    assert str(x[[True, False, True, True, False]].type) == "float32[?,4]"


def test_basic_indices_still_build_getitem():
    x = kt.tensor("x", "float32", (5, 4))
    assert x[1:3, 0].owner.op == kt.getitem.bind(index=(slice(1, 3), 0))


@pytest.mark.parametrize(("index", "message"), [
    (lambda x: x[kt.vector("f", "float32")], "index needs an integer dtype for input 1, "
                                             "got float32"),
    (lambda x: x[np.ones((4, 4), bool)], "boolean index did not match indexed array along "
                                         "axis 0; size of axis is 5 but size of "
                                         "corresponding boolean axis is 4"),  # (NumPy's)
    (lambda x: x[[0, 1], [1, 2, 3]], "shape mismatch: indexing arrays could not be broadcast "
                                     "together with shapes (2,) (3,)"),
    (lambda x: x[[0], [0], [0]], "too many indices"),
])
def test_rejected(index, message):
    x = kt.tensor("x", "float32", (5, 4))
    with pytest.raises((kt.TypeInferenceError, ValueError)) as info:
        index(x)
    assert message in str(info.value)


@pytest.mark.parametrize("shape, size, index", [
    ((1, 0), 0, lambda a, i: a[None, 0, ..., i]),
    ((2, 3), 2, lambda a, i: a[None, 0, ..., i]),
    ((2, 3, 4), 2, lambda a, i: a[None, ..., 0, i]),
    ((2, 3, 4), 2, lambda a, i: a[0, ..., i]),
])
def test_an_ellipsis_of_no_axes_still_parts_the_advanced_indices(shape, size, index):
    """NumPy puts the broadcast index axes first when an Ellipsis stands between advanced
    indices, even one that covers no axis (hypothesis found ``a[None, 0, ..., i]`` on
    ``bool[1,0]`` typed ``[1,0]`` where NumPy gives ``(0, 1)``)."""
    x, i = kt.tensor("x", "bool", shape), kt.tensor("i", "int64", (size,))
    expected = index(np.zeros(shape, bool), np.zeros(size, np.intp)).shape
    assert index(x, i).type == kt.TensorType("bool", expected)
    f = kt.function([x, i], index(x, i))
    assert f(np.zeros(shape, bool), np.zeros(size, np.int64)).shape == expected


@pytest.mark.parametrize(("shape", "index"), [
    ((), "m"), ((3,), "m"), ((3,), "m, 0"), ((3,), ":, m"), ((2, 3), "m, :, 0"),
    ((), "m, None"), ((2, 3), "[0, 1], m"), ((2, 3), "m, [0, 1]"), ((2, 3), "0, :, m"),
    ((2, 3), ":1, 0, m"), ((2, 3), "..., m"), ((2, 3), "m, m"), ((2, 3), "m, ..., m"),
    ((2, 0), "m, [[0], [1]], :"), ((0,), "m"), ((2, 3), "None, m"), ((0, 3), "m, 2")])
def test_a_0d_mask_adds_an_axis_of_0_or_1_as_numpy_does(shape, index):
    """A 0-d boolean index adds an axis of 0 or 1 where it stands, using none of x's
    axes, and broadcasts with the other index arrays as an array of that one length
    (NumPy runs ``x[m]`` for a 0-d x, and ``x[m, 0]`` of a vector). It was refused as
    unsupported (ParamError), where NumPy runs: found by tests/npprograms.py (``x[x[...,
    0] > 0]`` of a vector). Judged by NumPy at both values of the mask: the type has
    NumPy's rank and every size NumPy gives whatever the mask holds, the count's axis
    ``?``; the graph runs where NumPy does and fails where it fails."""
    fn = eval(f"lambda x, m: x[{index}]")  # noqa: S307 - the test's own text
    x, m = kt.tensor("x", "float32", shape), kt.tensor("m", "bool", ())
    outcomes = []
    for value in (np.array(True), np.array(False)):
        try:
            outcomes.append(fn(np.zeros(shape, np.float32), value).shape)
        except IndexError:
            outcomes.append(None)
    if all(o is None for o in outcomes):  # NumPy fails at every mask: so does the build
        with pytest.raises(kt.TypeInferenceError):
            fn(x, m)
        return
    y = fn(x, m)
    ran = [o for o in outcomes if o is not None]
    assert y.type.ndim == len(ran[0])
    for axis, d in enumerate(y.type.shape):
        if d is not None:  # (the count's axis is ?: sound, the data decide it)
            assert {o[axis] for o in ran} == {d}, (axis, d, outcomes)
    f = kt.function([x, m], y)
    for value, want in zip((np.array(True), np.array(False)), outcomes, strict=True):
        if want is None:
            with pytest.raises(IndexError):
                f(np.zeros(shape, np.float32), value)
        else:
            assert f(np.zeros(shape, np.float32), value).shape == want


COMPUTED_INDICES = ["x[np.arange(4) % 2]", "x[np.arange(4) + 1]", "x[np.arange(4) - 1]",
                    "x[-np.arange(3)]", "x[np.arange(4) * 2]", "x[np.arange(4) % -2]",
                    "x[np.arange(x.shape[0] + 1) % 2]", "x[2 - np.arange(3)]",
                    "x[np.arange(6).reshape(2, 3) % 4]", "x[np.arange(5, 0, -2)]",
                    "x[(np.arange(4) + 1) % 3]", "x[np.arange(4) // 2]", "x[:, np.arange(3) % 2]",
                    "np.take(x, np.arange(4) % 2)", "x[np.arange(1) % 2]",
                    "x[np.tri(x.shape[0]).astype(np.int64)]", "x[np.full(3, 2)]",
                    "x[np.ones(3, dtype=np.int64) * 2]", "x[np.triu(np.full((2, 2), 3))]",
                    "x[np.tri(x.shape[0], dtype=np.int64) * 3]", "x[np.full(2, -2)]",
                    "x[np.roll(np.arange(4), 1)]", "x[np.partition(np.arange(4) + 1, 2)]",
                    "x[np.tril(np.full((3, 3), 2), -1)]", "x[np.argpartition(x, 1)]"]


@pytest.mark.parametrize("src", COMPUTED_INDICES)
def test_an_index_computed_from_known_numbers_checks_its_values(src):
    """An index array the graph computes from known numbers (np.arange(4) + 1, % 2, ...)
    has known bounds, checked against the axis as a constant array's are: x[np.arange(4)
    + 1] held at 1 element where NumPy needs 5 (found by tests/npprograms.py, which
    indexes with np.arange(n) % 2). Judged by NumPy at every size 0..6: where eval_shape's
    result holds NumPy runs and gives its shape (never unsound)."""
    fn = eval(f"lambda x: {src}")  # noqa: S307 - the test's own text
    for text in ("float64[B]", "float64[B,C]"):
        try:
            result = kt.eval_shape(fn, text)
        except (TypeError, ValueError):
            continue
        rank = kt.TensorType.parse(text).ndim
        for sizes in itertools.product(range(7), repeat=rank):
            env = dict(zip("BC", sizes, strict=False))
            if not result.holds(env):
                continue
            want = np.shape(fn(np.zeros(sizes)))  # raises where it is unsound
            assert want == tuple(substitute(d, env) for d in result.type.shape), env


@pytest.mark.parametrize("src", ["x[np.arange(x.shape[0]) % 3]", "x[:, np.arange(x.shape[1]) % 2]",
                                 "np.take(x, np.arange(len(x)), axis=-1)",
                                 "np.take(x, np.arange(x.shape[0] + 1) % 4)"])
def test_a_counting_index_modulo_an_int_is_exact(src):
    """np.arange(k) % m looks up 0 .. min(k, m) - 1: an axis of n needs min(k, m) <= n
    (its bounds 0 .. m - 1 refused k = 1, m = 2, n = 1, where NumPy runs); np.take of
    arange(k) is checked as the index is (it held where k > n: found by
    tests/npprograms.py). Judged by NumPy at every size 0..6 both ways: the result holds
    exactly where NumPy runs, with its shape."""
    fn = eval(f"lambda x: {src}")  # noqa: S307 - the test's own text
    result = kt.eval_shape(fn, "float64[B,C]")
    for sizes in itertools.product(range(7), repeat=2):
        env = dict(zip("BC", sizes, strict=True))
        try:
            want = np.shape(fn(np.zeros(sizes)))
        except IndexError:
            want = None
        holds = bool(result.holds(env))
        assert holds == (want is not None), env
        if holds:
            assert want == tuple(substitute(d, env) for d in result.type.shape), env
