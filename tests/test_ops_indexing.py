"""Indexing against NumPy (see conformance.py): getitem (basic indexing), take,
take_along_axis, and SpecifyShape."""

from __future__ import annotations

import itertools
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import kantensor as kt
from conformance import ALL_DTYPES, arrays, conform, hidden_mask, shapes
from kantensor.ops.families.indexing import slice_length
from kantensor.ops.params import AxisError, ParamError
from kantensor.syntax.ast import DimVar, evaluate
from kantensor.syntax.ast.dims import as_expr
from kantensor.syntax.parser import parse_alternatives

CASES = settings(max_examples=200, deadline=None)

#: Index dtypes: every integer, bool (NumPy's take casts it to 0/1, take_along_axis
#: refuses it), and inexact ones that both refuse.
INDEX_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "int64", "bool", "float32", "float64", "complex64")


# --------------------------------------------------------------------------- getitem

@pytest.mark.parametrize("step", [None, 1, 2, 3, 5, -1, -2, -3, -5])
def test_slice_length_is_pythons(step):
    """The dim expression of a slice's length equals len(range(n)[slice]) for every
    small size and every start/stop, in and out of range (evaluated by the DSL's one
    evaluator, and again from its text parsed back)."""
    bounds = [None, *range(-9, 10)]
    for start, stop in itertools.product(bounds, bounds):
        size = slice_length(DimVar("n"), start, stop, step)
        (alt,) = parse_alternatives(f"(n)->({size})")
        assert alt.outputs[0].dims[0] == as_expr(size)
        for n in range(8):
            got = size if isinstance(size, int) else evaluate(size, lambda _, n=n: n)
            assert got == len(range(n)[start:stop:step]), (str(size), n, start, stop, step)


def test_getitem_symbolic_lengths():
    """With a Dim the lengths stay symbolic; with a known size they are exact; with an
    unknown size they are unknown."""
    n = kt.Dim("n")
    x = kt.tensor("x", "float32", (n, 5, None))
    assert str(x[1:].type) == "float32[max(0,n-1),5,?]"
    assert str(x[:3, ::2].type) == "float32[min(3,n),3,?]"
    assert str(x[::-1, -2:, 1:].type) == "float32[n,2,?]"
    assert str(x[..., None, 0].type) == "float32[n,5,1]"
    assert str(x[None, 0].type) == "float32[1,5,?]"
    assert str(x[-1, 1:4:2].type) == "float32[2,?]"


def test_getitem_runs_and_checks_symbolic_sizes():
    n = kt.Dim("n")
    x = kt.tensor("x", "int64", (n, 3))
    y = x[1::2, ::-1]
    f = kt.function([x], y, check=True)
    a = np.arange(15).reshape(5, 3)
    np.testing.assert_array_equal(f(a), a[1::2, ::-1])
    assert str(y.type) == "int64[n//2,3]"  # max(0, n)//2: a size is >= 0


def test_getitem_int_out_of_range_is_a_type_error():
    x = kt.tensor("x", "float32", (3, None))
    with pytest.raises(kt.TypeInferenceError, match="a0 >= 4"):
        x[3]
    with pytest.raises(kt.TypeInferenceError, match="a0 >= 4"):
        x[-4]
    assert str(x[-3, 7:].type) == "float32[?]"  # unknown: checked when it runs
    f = kt.function([x], x[:, 5])
    with pytest.raises(IndexError):
        f(np.zeros((3, 2), "float32"))


def test_getitem_rejects_what_is_no_index():
    """Arrays, lists and tensors in an index are advanced indexing (the index Op, see
    test_ops_advanced_indexing.py); other objects are refused."""
    x = kt.tensor("x", "float32", (3, 4))
    i = kt.tensor("i", "int64", (2,))
    for index in [i, (0, i), [0, 1], np.array([0, 1])]:
        assert x[index].owner.op.name == "index"
    for index in [True, 1.5, (slice(i, None),)]:
        with pytest.raises(ParamError, match="basic indexing|ints or None"):
            x[index]
    with pytest.raises(kt.TypeInferenceError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(ParamError, match="single ellipsis"):
        x[..., 0, ...]
    with pytest.raises(ParamError, match="step cannot be zero"):
        x[::0]


def test_getitem_accepts_numpy_integers():
    x = kt.tensor("x", "float32", (3, 4))
    assert str(x[np.int8(2), np.int64(-1):].type) == "float32[1]"


_SLICES = st.builds(slice, st.none() | st.integers(-7, 7), st.none() | st.integers(-7, 7),
                    st.none() | st.integers(-4, 4))  # step 0 included: NumPy refuses it
_ITEMS = st.one_of(st.integers(-6, 6), _SLICES, _SLICES, st.integers(-6, 6), st.none(),
                   st.just(Ellipsis))


@st.composite
def basic_indices(draw, ndim: int):
    """A basic index: a tuple of ints (in and out of range), slices, None and
    Ellipsis (sometimes two, or more items than axes), or a bare item."""
    items = draw(st.lists(_ITEMS, max_size=ndim + 2))
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


@CASES
@given(st.data())
def test_getitem(data):
    shape = data.draw(shapes())
    x = data.draw(arrays(data.draw(st.sampled_from(ALL_DTYPES)), shape))
    index = data.draw(basic_indices(len(shape)))
    conform("getitem", lambda v: v[index], lambda a: a[index], [x],
            [data.draw(hidden_mask(len(shape)))])


# --------------------------------------------------------------------------- take

def index_arrays(dtype: str, shape: tuple[int, ...], n: int) -> st.SearchStrategy:
    """Indices of ``dtype`` whose values are valid for an axis of size ``n`` (values
    out of range are a value error, not a type error). An empty axis has no valid
    index: then the values are 0 (NumPy refuses any non-empty take from it)."""
    kind = np.dtype(dtype).kind
    if n == 0:
        values = st.just(0)
    elif kind == "b":
        values = st.booleans() if n >= 2 else st.just(False)
    elif kind == "u":
        values = st.integers(0, n - 1)
    else:
        values = st.integers(-n, n - 1)
    if kind == "b":
        values = values.map(bool)
    return hnp.arrays(np.dtype(dtype), shape, elements=values)


def _take_size(shape: tuple[int, ...], axis: int | None) -> int:
    """The size NumPy's take indexes into: the flattened size for None (and for the
    axes 0/-1 of a 0-d array), the axis's size, or 1 for a bad axis."""
    ndim = len(shape)
    if axis is None or (ndim == 0 and axis in (0, -1)):
        return math.prod(shape)
    return shape[axis] if -ndim <= axis < ndim else 1


@CASES
@given(st.data())
def test_take(data):
    shape = data.draw(shapes())
    x = data.draw(arrays(data.draw(st.sampled_from(ALL_DTYPES)), shape))
    ndim = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim - 1, ndim)))
    ishape = data.draw(shapes(max_dims=2))
    indices = data.draw(index_arrays(data.draw(st.sampled_from(INDEX_DTYPES)), ishape,
                                     _take_size(shape, axis)))
    conform("take", lambda v, i: kt.take(v, i, axis=axis),
            lambda a, i: np.take(a, i, axis=axis), [x, indices],
            [data.draw(hidden_mask(ndim)), data.draw(hidden_mask(len(ishape)))])


def test_take_method_and_symbolic_sizes():
    n, k = kt.dims("n k")
    x = kt.tensor("x", "float32", (n, 3))
    i = kt.tensor("i", "uint8", (k,))
    assert str(x.take(i, axis=0).type) == "float32[k,3]"
    assert str(kt.take(x, i).type) == "float32[k]"
    with pytest.raises(kt.TypeInferenceError, match="u in integer"):
        kt.take(x, kt.tensor("f", "float64", (2,)), 1)
    empty = kt.tensor("e", "float32", (2, 0))
    with pytest.raises(kt.TypeInferenceError, match=r"min\(a0\*b0,1\) <= a1"):
        kt.take(empty, kt.tensor("j", "int64", (1,)), axis=1)


# --------------------------------------------------------------------------- take_along_axis

@st.composite
def along_shapes(draw, shape: tuple[int, ...], axis: int | None):
    """The indices' shape: for an axis, usually the same rank with each other axis
    equal, 1 or broadcasting against a 1 (sometimes anything); for None usually 1-d."""
    ndim = len(shape)
    if axis is None:
        return draw(st.one_of(shapes(1, 1), shapes(1, 1), shapes()))
    if not -ndim <= axis < ndim or draw(st.integers(0, 9)) == 0:
        return draw(shapes())
    ax = axis % ndim
    out = []
    for i, size in enumerate(shape):
        if i == ax:
            out.append(draw(st.integers(0, 4)))
        else:
            out.append(draw(st.sampled_from([size, size, 1, 0, 2]) if size == 1 else
                            st.sampled_from([size, size, 1, 3])))
    return tuple(out)


@CASES
@given(st.data())
def test_take_along_axis(data):
    shape = data.draw(shapes())
    x = data.draw(arrays(data.draw(st.sampled_from(ALL_DTYPES)), shape))
    ndim = len(shape)
    default = data.draw(st.booleans())  # NumPy's default axis is -1
    axis = -1 if default else data.draw(st.one_of(st.none(), st.integers(-ndim - 1, ndim)))
    ishape = data.draw(along_shapes(shape, axis))
    n = math.prod(shape) if axis is None else (
        shape[axis] if -ndim <= axis < ndim else 1)
    indices = data.draw(index_arrays(data.draw(st.sampled_from(INDEX_DTYPES)), ishape, n))
    kw = {} if default else {"axis": axis}
    conform("take_along_axis", lambda v, i: kt.take_along_axis(v, i, **kw),
            lambda a, i: np.take_along_axis(a, i, **kw), [x, indices],
            [data.draw(hidden_mask(ndim)), data.draw(hidden_mask(len(ishape)))])


def test_take_along_axis_errors():
    x = kt.tensor("x", "float32", (2, 3))
    with pytest.raises(kt.TypeInferenceError, match="1-d"):
        kt.take_along_axis(x, kt.tensor("i", "int64", (2, 1)), axis=None)
    with pytest.raises(kt.TypeInferenceError, match=r"operands float32\[2,3\] and int64\[3,1\] "
                                                    r"could not be broadcast: axis 0 is 2 and 3"):
        kt.take_along_axis(x, kt.tensor("i", "int64", (3, 1)), axis=1)
    with pytest.raises(AxisError, match="out of bounds"):
        kt.take_along_axis(x, kt.tensor("i", "int64", (2, 1)), axis=2)
    with pytest.raises(kt.TypeInferenceError, match=r"^cannot do a non-empty take from an empty "
                                                    r"axis: axis 1 of float32\[2,0\] has size 0"):
        kt.take_along_axis(kt.tensor("e", "float32", (2, 0)),
                           kt.tensor("i", "int64", (2, 1)), axis=1)


# --------------------------------------------------------------------------- SpecifyShape

@st.composite
def claimed_shapes(draw, shape: tuple[int, ...]):
    """A shape claim for ``shape``: per axis the true size, None or any size; sometimes
    of the wrong length."""
    claim = [draw(st.sampled_from([size, size, None, draw(st.integers(0, 4))]))
             for size in shape]
    if draw(st.integers(0, 9)) == 0:
        claim = claim[:-1] if claim and draw(st.booleans()) else [*claim, 2]
    return tuple(claim)


def _specify_reference(claim: tuple):
    """NumPy's side: the array itself when its shape fits the claim, else an error."""
    def reference(a: np.ndarray) -> np.ndarray:
        if len(claim) != a.ndim or any(c is not None and c != s
                                       for c, s in zip(claim, a.shape, strict=True)):
            raise ValueError(f"shape {a.shape} does not fit {claim}")
        return a
    return reference


@CASES
@given(st.data())
def test_specify_shape(data):
    shape = data.draw(shapes())
    x = data.draw(arrays(data.draw(st.sampled_from(ALL_DTYPES)), shape))
    claim = data.draw(claimed_shapes(shape))
    conform("specify_shape", lambda v: kt.specify_shape(v, claim), _specify_reference(claim),
            [x], [data.draw(hidden_mask(len(shape)))])


def test_specify_shape_repeated_dim():
    """A Dim claimed on two axes has one size: a known size on one fixes the other."""
    n = kt.Dim("n")
    x = kt.tensor("x", "float32", (None, 3))
    assert str(kt.specify_shape(x, (n, n)).type) == "float32[3,3]"
    with pytest.raises(TypeError, match=r"dimension n would be both 2 and 3 \(axis 1\)"):
        kt.specify_shape(kt.tensor("y", "float32", (2, 3)), (n, n))
    assert str(kt.specify_shape(kt.tensor("z", "float32", (2, None)), (n, 2 * n)).type) \
        == "float32[2,4]"


@pytest.mark.parametrize("shape, indices, axis", [
    ((0, 0), (), 0), ((0, 0), (), 1), ((0, 0), (3,), 0), ((0, 0), (3,), 1), ((0, 3), (2,), 0),
    ((3, 0), (2,), 1), ((2, 0), (), 0), ((0, 2), (), 1), ((0,), (), None), ((0,), (0,), 0),
    ((2, 0), (3,), 0), ((0, 2), (3,), 1), ((0, 2, 0), (2,), 2), ((2, 0, 3), (1,), 1),
])
def test_take_from_empty_axes(shape, indices, axis):
    """Regression: NumPy checks each looked-up index, once per position of the axes
    before ``axis``, so take(zeros((0, 0)), 0, axis=0) raises though its result is
    empty."""
    x, i = np.zeros(shape, "float32"), np.zeros(indices, "int64")
    for hidden in ((), [True] * len(shape)):
        conform("take", lambda v, w: kt.take(v, w, axis=axis),
                lambda a, b: np.take(a, b, axis=axis), [x, i], [hidden])


def test_a_basic_indexing_graph_pickles_and_runs():
    x = kt.tensor("x", "float32", shape=(None, 3))
    y = x[1:, ::2]
    x2, y2 = pickle.loads(pickle.dumps((x, y)))
    assert y2.owner.op == y.owner.op and str(y2.type) == "float32[?,2]"
    xv = np.arange(12, dtype="float32").reshape(4, 3)
    np.testing.assert_array_equal(kt.function([x2], y2)(xv), xv[1:, ::2])
