"""Reductions against NumPy (see conformance.py).

Every Op is checked on random shapes (0- and 1-sized dims, 0-d inputs), all 14
dtypes, hidden (unknown) dims and its parameters in every form NumPy takes,
including out-of-range, repeated and tuple axes (which NumPy rejects). Half of
the cases call the Op as a TensorVariable method (``x.max(axis=0)``).
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from conformance import ALL_DTYPES, arrays, conform, hidden_mask, shapes
from kantensor.types.dtypes import DEFAULT_RANGE
from kantensor.types.numpy_dtypes import numpy_dtype

CASES = settings(max_examples=200, deadline=None)

#: Ops whose ``axis`` is None, an int or a tuple of ints, with ``keepdims``.
MULTI_AXIS = ("sum", "prod", "mean", "var", "std", "max", "min", "all", "any")
#: Ops whose ``axis`` is None or one int.
ONE_AXIS = ("argmax", "argmin", "cumsum")


@st.composite
def axis_args(draw, ndim: int) -> dict[str, Any]:
    """axis in every form NumPy takes (some out of range or repeated) and keepdims."""
    axis = draw(st.one_of(st.none(), st.integers(-ndim - 1, ndim),
                          st.lists(st.integers(-ndim - 1, ndim), max_size=3).map(tuple)))
    return {"axis": axis, "keepdims": draw(st.booleans())}


@st.composite
def one_axis_args(draw, ndim: int, keepdims: bool = True) -> dict[str, Any]:
    """axis None or an int (some out of range); sometimes a tuple, which these
    NumPy functions reject with a TypeError."""
    axis = draw(st.one_of(st.none(), st.integers(-ndim - 1, ndim), st.integers(-ndim - 1, ndim),
                          st.lists(st.integers(-ndim - 1, ndim), max_size=2).map(tuple)))
    kw: dict[str, Any] = {"axis": axis}
    if keepdims:
        kw["keepdims"] = draw(st.booleans())
    return kw


def run(data: st.DataObject, name: str, params: Any) -> None:
    """One conformance case of Op ``name``: a random array and parameters drawn from
    ``params(ndim)``, built by ``kt.name(x, **kw)`` or ``x.name(**kw)``."""
    shape = data.draw(shapes(), label="shape")
    x = data.draw(arrays(data.draw(st.sampled_from(ALL_DTYPES), label="dtype"), shape))
    kw = data.draw(params(len(shape)), label="params")
    if data.draw(st.booleans(), label="as method"):
        def build(v):
            return getattr(v, name)(**kw)
    else:
        def build(v):
            return getattr(kt, name)(v, **kw)
    conform(name, build, lambda a: getattr(np, name)(a, **kw), [x],
            [data.draw(hidden_mask(len(shape)), label="hidden")])


@st.composite
def var_args(draw, ndim: int) -> dict[str, Any]:
    """axis and keepdims, and ddof: negative, 0, or up to beyond the reduced size
    (NumPy then gives inf or nan, not an error)."""
    return {**draw(axis_args(ndim)), "ddof": draw(st.integers(-1, 5))}


def cumsum_args(ndim: int) -> st.SearchStrategy[dict[str, Any]]:
    return one_axis_args(ndim, keepdims=False)


#: The parameter strategy of every Op.
PARAMS = {**dict.fromkeys(MULTI_AXIS, axis_args), "var": var_args, "std": var_args,
          "argmax": one_axis_args, "argmin": one_axis_args, "cumsum": cumsum_args}


@pytest.mark.parametrize("name", sorted(PARAMS))
@CASES
@given(data=st.data())
def test_conformance(name, data):
    run(data, name, PARAMS[name])


# --------------------------------------------------------------------------- edge cases
# The corners that random shapes reach only now and then, run for every Op.

#: (shape, axis) pairs around 0-d inputs (where NumPy's functions disagree with each
#: other), empty axes and repeated axes.
EDGES = [((), None), ((), 0), ((), -1), ((), 1), ((), -2), ((), ()), ((), (0,)),
         ((3, 0), 0), ((3, 0), 1), ((3, 0), None), ((0, 3), -1), ((0, 0), ()),
         ((2, 0, 0), 0), ((2, 3), (0, 0)), ((2, 3), (1, -1)), ((2, 3), (0, -1)),
         ((2, 3), 2), ((2, 3), -3)]


@pytest.mark.parametrize("name", MULTI_AXIS + ONE_AXIS)
@pytest.mark.parametrize(("shape", "axis"), EDGES)
@pytest.mark.parametrize("hidden", [False, True])
def test_edges(name, shape, axis, hidden):
    kw: dict[str, Any] = {"axis": axis}
    x = np.arange(np.prod(shape), dtype="float64").reshape(shape) % 3
    conform(name, lambda v: getattr(kt, name)(v, **kw),
            lambda a: getattr(np, name)(a, **kw), [x], [(hidden,) * len(shape)])


# --------------------------------------------------------------------------- dtype rules

@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", MULTI_AXIS + ONE_AXIS)
def test_dtype_rule(name, dtype):
    """The inferred dtype is NumPy's result dtype, for every dtype."""
    x = kt.TensorType(dtype, (2, 3))()
    want = getattr(np, name)(np.ones((2, 3), dtype), axis=0).dtype
    assert getattr(kt, name)(x, axis=0).type.dtype == want


@pytest.mark.parametrize("name", ["mean", "var", "std"])
def test_integer_mean_is_float64_under_any_default(name, default_float64):
    """NumPy's mean/var/std of integers are float64 whatever kantensor's default
    float dtype is (the rule is not float(x))."""
    x = kt.TensorType("int16", (4,))()
    assert getattr(kt, name)(x).type.dtype == "float64"
    kt.set_default_dtype("float32")
    assert getattr(kt, name)(x).type.dtype == "float64"


def test_resolved_params_and_names():
    """Axes are normalised once the rank is known, so equal calls share an Op."""
    x = kt.TensorType("float32", (2, 3, 4))()
    assert str(kt.max(x, axis=(-1, 0)).owner.op) == "max{axis=(0, 2), keepdims=False, initial=None}"
    assert str(x.argmin(-2).owner.op) == "argmin{axis=1, keepdims=False}"
    assert str(x.cumsum(axis=-1).owner.op) == "cumsum{axis=2}"
    assert str(x.var(ddof=1).owner.op) == "var{axis=(0, 1, 2), keepdims=False, ddof=1}"


def test_unknown_dims_checked_at_run_time():
    """An empty reduced axis that is unknown statically fails when the graph runs
    (NumPy's own error), and is rejected at build time once it is known."""
    x = kt.TensorType("float64", (None, 3))()
    f = kt.function([x], [kt.max(x, axis=0)])
    assert f(np.ones((2, 3)))[0].tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="no identity"):
        f(np.ones((0, 3)))
    with pytest.raises(kt.TypeInferenceError, match="a0 >= 1"):
        kt.max(kt.TensorType("float64", (0, None))(), axis=0)


def test_keepdims_is_keyword_only_for_argmax():
    """As in NumPy, argmax(x, axis, keepdims) takes keepdims only by keyword."""
    x = kt.TensorType("float64", (2, 3))()
    with pytest.raises(TypeError):
        kt.argmax(x, 0, True)
    assert kt.argmax(x, 0, keepdims=True).type.shape == (1, 3)


#: Ops that take axes, each with NumPy's own call: the value of ``axis`` is the last
#: argument. Some of NumPy's functions refuse a list of axes, others take one.
AXES_CALLS = {
    "sum": np.sum, "prod": np.prod, "mean": np.mean, "var": np.var, "std": np.std,
    "max": np.max, "min": np.min, "all": np.all, "any": np.any,
    "count_nonzero": np.count_nonzero, "median": np.median,
    "norm": lambda x, axis: np.linalg.norm(x, axis=axis),
    "squeeze": lambda x, axis: np.squeeze(x[:1], axis=axis),
    "flip": np.flip, "expand_dims": np.expand_dims, "transpose": np.transpose,
    "permute_dims": np.permute_dims, "roll": lambda x, axis: np.roll(x, (1,) * len(axis),
                                                                    axis=axis),
    "quantile": lambda x, axis: np.quantile(x, 0.5, axis=axis),
}


@pytest.mark.parametrize("name", sorted(AXES_CALLS))
@pytest.mark.parametrize("kind", [list, tuple])
def test_a_list_of_axes_is_taken_where_numpy_takes_it(name, kind):
    """NumPy's reductions, squeeze and linalg.norm refuse ``axis=[0, 1]``; flip,
    transpose, expand_dims, median and others take it. kantensor refuses and takes it
    alike, and builds NumPy's result type when it takes it."""
    axes = kind((1, 0) if name in ("transpose", "permute_dims") else (0,))
    value = np.ones((1, 3)) if name != "roll" else np.ones((2, 3))
    x = kt.constant(value).type()
    kt_call = {
        "squeeze": lambda: kt.squeeze(x[:1], axis=axes),
        "roll": lambda: kt.roll(x, (1,) * len(axes), axis=axes),
        "quantile": lambda: kt.quantile(x, 0.5, axis=axes),
        "norm": lambda: kt.norm(x, axis=axes),
        "expand_dims": lambda: kt.expand_dims(x, axes),
        "transpose": lambda: kt.transpose(x, axes),
        "permute_dims": lambda: kt.permute_dims(x, axes),
    }.get(name, lambda: getattr(kt, name)(x, axis=axes))
    try:
        expected = AXES_CALLS[name](value, axes)
    except TypeError:
        with pytest.raises(kt.ops.params.ParamError, match="NumPy takes a tuple here"):
            kt_call()
        return
    out = kt_call()
    assert out.type == kt.TensorType(str(np.asarray(expected).dtype), np.shape(expected))


@pytest.mark.parametrize("name", ["median", "quantile"])
def test_median_and_quantile_of_empty_tensors_as_numpy(name):
    """NumPy reshapes the kept axes to ``(*kept, -1)`` when several axes but not all are
    reduced, and so refuses when a kept size is 0: kantensor's type says the same, for
    every axis tuple of every shape with sizes in {0, 1, 2} up to rank 3."""
    numpy_fn = {"median": np.median,
                "quantile": lambda x, axis: np.quantile(x, 0.5, axis=axis, method="lower")}[name]
    checked = 0
    for rank in range(1, 4):
        for shape in itertools.product((0, 1, 2), repeat=rank):
            for k in range(2, rank + 1):
                for axes in itertools.combinations(range(rank), k):
                    x = kt.tensor("x", "float64", shape)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)
                        try:
                            expected = numpy_fn(np.zeros(shape), axis=axes).shape
                        except (ValueError, IndexError):
                            expected = None
                    def call(x=x, axes=axes):
                        if name == "median":
                            return kt.median(x, axis=axes)
                        return kt.quantile(x, 0.5, axis=axes, method="lower")
                    if expected is None:
                        with pytest.raises(kt.TypeInferenceError):
                            call()
                    else:
                        assert call().type.shape == expected, (shape, axes)
                    checked += 1
    assert checked > 40


@pytest.mark.parametrize("dtype", DEFAULT_RANGE)
@pytest.mark.parametrize("initial", [-np.inf, np.inf, np.nan, 1.5, 300])
def test_max_and_min_with_an_initial_value_in_every_dtype(dtype, initial):
    """``np.max(x, initial=-np.inf)`` (issue 38): accepted exactly where NumPy (with
    ml_dtypes) stores the initial value as itself (an infinity that a float8 kind makes
    NaN is refused; an integer refuses every non-integer NumPy refuses), and then NumPy's
    value."""
    npd = numpy_dtype(dtype)
    values = np.array([1, 0, 3]).astype(npd)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = np.max(values, initial=initial)
        except (OverflowError, ValueError):
            want, kept = None, False
        else:  # a NaN or an infinity must stay itself (bool: NumPy makes it True)
            stored = complex(np.array(initial).astype(npd).astype(np.complex128))
            kept = dtype == "bool" or np.isfinite(initial) or (
                np.isnan(stored) if np.isnan(initial) else stored == initial)
    x = kt.tensor("x", dtype, (3,))
    try:
        y = np.max(x, initial=initial)
    except ValueError as exc:  # ParamError
        assert not kept, (dtype, initial, exc)
        return
    assert kept, (dtype, initial, y.type)
    got = kt.function([x], y)(values)
    assert got.dtype == npd
    assert np.array_equal(got, want, equal_nan=np.dtype(npd).kind in "fc") or (
        np.isnan(np.asarray(got, np.float64)) and np.isnan(np.asarray(want, np.float64))), \
        (dtype, initial, got, want)
