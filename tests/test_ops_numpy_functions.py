"""The functions of issue 12 that are not elementwise, against NumPy (conformance.py):
reductions (cumprod, count_nonzero, median, quantile), the max-shifted logsumexp, softmax
and log_softmax (against the naive formulas, where those do not overflow).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from conformance import ALL_DTYPES, arrays, conform, hidden_mask, shapes
from test_ops_reductions import axis_args, one_axis_args

CASES = settings(max_examples=150, deadline=None)


def case(data: st.DataObject, name: str, params: Any, reference: Any,
         dtypes: tuple[str, ...] = ALL_DTYPES, method: bool = False) -> None:
    """One conformance case: a random array, parameters drawn from ``params(ndim)``,
    ``kt.name(x, **kw)`` (or ``x.name(**kw)``) against ``reference(a, **kw)``."""
    shape = data.draw(shapes(), label="shape")
    x = data.draw(arrays(data.draw(st.sampled_from(dtypes), label="dtype"), shape))
    kw = data.draw(params(len(shape)), label="params")
    if method and data.draw(st.booleans(), label="as method"):
        def build(v):
            return getattr(v, name)(**kw)
    else:
        def build(v):
            return getattr(kt, name)(v, **kw)
    conform(name, build, lambda a: reference(a, **kw), [x],
            [data.draw(hidden_mask(len(shape)), label="hidden")])


@st.composite
def quantile_args(draw, ndim: int) -> dict[str, Any]:
    q = draw(st.one_of(st.floats(0, 1), st.lists(st.floats(0, 1), min_size=1, max_size=3),
                       st.sampled_from([-0.5, 1.5]),
                       # q of any rank (its shape leads the result's) and integer q (for
                       # method="linear" NumPy then picks elements: x's dtype)
                       st.lists(st.lists(st.floats(0, 1), min_size=2, max_size=2),
                                min_size=1, max_size=3),
                       st.sampled_from([0, 1, [0, 1], [[1], [0]], [[0.25, 1.0]]])))
    method = draw(st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest",
                                   "inverted_cdf", "hazen", "weibull"]))
    return {"q": q, **draw(axis_args(ndim)), "method": method}


@st.composite
def percentile_args(draw, ndim: int) -> dict[str, Any]:
    """quantile's arguments with q in [0, 100] (NumPy divides it by 100 first)."""
    q = draw(st.one_of(st.floats(0, 100), st.integers(-5, 105),
                       st.lists(st.integers(0, 100), min_size=1, max_size=3),
                       st.lists(st.lists(st.floats(0, 100), min_size=1, max_size=2),
                                min_size=1, max_size=2)))
    method = draw(st.sampled_from(["linear", "lower", "higher", "midpoint", "nearest",
                                   "inverted_cdf", "hazen", "weibull"]))
    return {"q": q, **draw(axis_args(ndim)), "method": method}


@st.composite
def softmax_args(draw, ndim: int) -> dict[str, Any]:
    axis = draw(st.one_of(st.none(), st.integers(-ndim - 1, ndim),
                          st.lists(st.integers(-ndim - 1, ndim), max_size=2).map(tuple)))
    return {} if draw(st.booleans()) else {"axis": axis}


def _real_only(a: np.ndarray) -> np.ndarray:
    """kantensor's logsumexp/softmax take real numbers (SciPy's take complex ones too)."""
    if a.dtype.kind == "c":
        raise TypeError("complex input")
    return a.astype(np.float64)


def naive_logsumexp(a: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    return np.log(np.sum(np.exp(_real_only(a)), axis=axis, keepdims=keepdims))


def naive_softmax(a: np.ndarray, axis: Any = -1) -> np.ndarray:
    e = np.exp(_real_only(a))
    return e / np.sum(e, axis=axis, keepdims=True)


def naive_log_softmax(a: np.ndarray, axis: Any = -1) -> np.ndarray:
    return np.log(naive_softmax(a, axis))


CONFORMANCE = {
    "cumprod": (lambda n: one_axis_args(n, keepdims=False), np.cumprod, True),
    "count_nonzero": (axis_args, np.count_nonzero, False),
    "median": (axis_args, np.median, False),
    "quantile": (quantile_args, np.quantile, False),
    "percentile": (percentile_args, np.percentile, False),
    "logsumexp": (axis_args, naive_logsumexp, False),
    "softmax": (softmax_args, naive_softmax, False),
    "log_softmax": (softmax_args, naive_log_softmax, False),
}


@pytest.mark.parametrize("name", sorted(CONFORMANCE))
@CASES
@given(data=st.data())
def test_conformance(name, data):
    params, reference, method = CONFORMANCE[name]
    case(data, name, params, reference, method=method)


# ------------------------------------------------------------- stability of the exp family

def test_logsumexp_is_max_shifted():
    x = kt.matrix("x", "float64")
    f = kt.function([x], [kt.logsumexp(x, axis=1), kt.softmax(x), kt.log_softmax(x)])
    big = np.array([[1000.0, 1000.0], [-1000.0, -1000.0], [0.0, -np.inf]])
    lse, sm, lsm = f(big)
    np.testing.assert_allclose(lse, [1000 + np.log(2), -1000 + np.log(2), 0.0], rtol=1e-15)
    np.testing.assert_allclose(sm, [[0.5, 0.5], [0.5, 0.5], [1.0, 0.0]], rtol=1e-15)
    np.testing.assert_allclose(lsm, [[-np.log(2)] * 2, [-np.log(2)] * 2, [0.0, -np.inf]])
    with np.errstate(over="ignore"):
        assert np.isinf(np.log(np.sum(np.exp(big[:1]))))   # the naive formula overflows


def test_softmax_of_tiny_logits_keeps_log_accuracy():
    """log_softmax is not log(softmax): a probability that rounds to 0 keeps its log."""
    x = kt.vector("x", "float32", shape=(2,))
    (lsm,) = kt.function([x], [kt.log_softmax(x)])(np.array([0.0, -200.0], np.float32))
    assert lsm[1] == pytest.approx(-200.0, rel=1e-6)


def test_empty_and_all_minus_infinity():
    x = kt.tensor("x", "float64", (2, None))
    f = kt.function([x], kt.logsumexp(x, axis=1))
    assert f(np.zeros((2, 0))).tolist() == [-np.inf, -np.inf]
    assert f(np.full((2, 2), -np.inf)).tolist() == [-np.inf, -np.inf]


def test_dtypes():
    assert str(kt.softmax(kt.tensor("i", "int8", (2, 3))).type) == "float32[2,3]"
    assert str(kt.logsumexp(kt.tensor("h", "float16", (2, 3)), axis=0).type) == "float16[3]"
    assert str(kt.quantile(kt.tensor("f", "float32", (5,)), 0.5).type) == "float32[]"
    assert str(kt.quantile(kt.tensor("f", "float32", (5,)), [0.5]).type) == "float64[1]"


# ---------------------------------------------------------------------------- creation

DTYPE_ARGS = st.sampled_from(ALL_DTYPES)


@CASES
@given(data=st.data())
def test_creation(data):
    """zeros, ones, eye, arange, linspace: no tensor inputs, the parameters decide."""
    name = data.draw(st.sampled_from(["zeros", "ones", "eye", "arange", "linspace"]))
    dtype = data.draw(st.one_of(st.none(), DTYPE_ARGS))
    kw: dict[str, Any] = {} if dtype is None else {"dtype": dtype}
    if name in ("zeros", "ones"):
        args: tuple = (data.draw(st.one_of(st.integers(-1, 4), st.lists(
            st.integers(0, 4), max_size=3).map(tuple))),)
    elif name == "eye":
        args = (data.draw(st.integers(0, 4)),)
        kw.update(M=data.draw(st.one_of(st.none(), st.integers(0, 4))),
                  k=data.draw(st.integers(-4, 4)))
    elif name == "arange":
        args = tuple(data.draw(st.lists(st.integers(-6, 6), min_size=1, max_size=3)))
    else:
        args = (data.draw(st.integers(-3, 3)), data.draw(st.integers(-3, 3)),
                data.draw(st.integers(0, 6)))
        kw["endpoint"] = data.draw(st.booleans())
        if dtype is not None and np.dtype(dtype).kind in "biuc":
            kw["dtype"] = "float32"   # NumPy's linspace into integers truncates its way
    conform(name, lambda: getattr(kt, name)(*args, **kw),
            lambda: getattr(np, name)(*args, **kw), [])


@CASES
@given(data=st.data())
def test_full(data):
    shape = data.draw(st.lists(st.integers(0, 3), max_size=3).map(tuple))
    fill = data.draw(arrays(data.draw(DTYPE_ARGS), ()))
    dtype = data.draw(st.one_of(st.none(), DTYPE_ARGS))
    conform("full", lambda f: kt.full(shape, f, dtype=dtype),
            lambda f: np.full(shape, f, dtype=dtype), [fill])


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "full_like"])
@CASES
@given(data=st.data())
def test_like(name, data):
    shape = data.draw(shapes(), label="shape")
    x = data.draw(arrays(data.draw(DTYPE_ARGS), shape))
    dtype = data.draw(st.one_of(st.none(), DTYPE_ARGS))
    hidden = [data.draw(hidden_mask(len(shape)))]
    if name == "full_like":
        fill = data.draw(arrays(data.draw(DTYPE_ARGS), ()))
        conform(name, lambda v, f: kt.full_like(v, f, dtype=dtype),
                lambda a, f: np.full_like(a, f, dtype=dtype), [x, fill], hidden)
    else:
        conform(name, lambda v: getattr(kt, name)(v, dtype=dtype),
                lambda a: getattr(np, name)(a, dtype=dtype), [x], hidden)


# ------------------------------------------------- sum(dtype=), max/min(initial=), item

@CASES
@given(data=st.data())
def test_sum_dtype(data):
    dtype = data.draw(st.one_of(st.none(), DTYPE_ARGS))
    case(data, "sum", lambda n: axis_args(n).map(lambda kw: {**kw, "dtype": dtype}),
         np.sum, method=True)


@pytest.mark.parametrize("name", ["max", "min"])
@CASES
@given(data=st.data())
def test_initial(name, data):
    initial = data.draw(st.one_of(st.none(), st.integers(-3, 3), st.floats(-3, 3)))
    case(data, name, lambda n: axis_args(n).map(lambda kw: {**kw, "initial": initial}),
         getattr(np, name), dtypes=tuple(d for d in ALL_DTYPES if not d.startswith("c")),
         method=True)


@CASES
@given(data=st.data())
def test_item(data):
    shape = data.draw(shapes(max_side=2), label="shape")
    x = data.draw(arrays(data.draw(DTYPE_ARGS), shape))
    conform("item", lambda v: v.item(), lambda a: np.asarray(a.item(), dtype=a.dtype), [x],
            [data.draw(hidden_mask(len(shape)))])


# ------------------------------------------------------------ symbolic shape parameters

@CASES
@given(data=st.data())
def test_reshape_with_symbolic_sizes(data):
    """x.reshape(...) with entries of x.shape (named sizes): the static type keeps the
    names, and the compiled graph (check=True) computes NumPy's reshape."""
    shape = data.draw(shapes(min_dims=1, max_dims=3, min_side=1))
    named = [kt.Dim(f"n{i}") if data.draw(st.booleans()) else s for i, s in enumerate(shape)]
    x = kt.tensor("x", "int16", named)
    k = data.draw(st.integers(0, len(shape) - 1))
    choices = {
        "keep one, flatten the rest": ((x.shape[k], -1), (shape[k], -1)),
        "flatten the rest first": ((-1, x.shape[k]), (-1, shape[k])),
        "product of two": ((x.shape[0] * x.shape[-1], -1), (shape[0] * shape[-1], -1)),
        "all as given": (tuple(x.shape), tuple(shape)),
    }
    symbolic, concrete = choices[data.draw(st.sampled_from(sorted(choices)))]
    value = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape)
    try:
        want = value.reshape(concrete)
    except ValueError:
        with pytest.raises((kt.TypeInferenceError, ValueError)):
            kt.function([x], x.reshape(*symbolic), check=True)(value)
        return
    y = x.reshape(*symbolic)
    got = kt.function([x], y, check=True)(value)
    np.testing.assert_array_equal(got, want)
    for entry, size in zip(y.type.shape, want.shape, strict=True):
        if isinstance(entry, int):
            assert entry == size


def test_reshape_keeps_names():
    n = kt.Dim("n")
    x = kt.tensor("x", "float32", (n, 8, 4))
    assert str(x.reshape(x.shape[0], -1).type) == "float32[n,32]"
    assert str(np.reshape(x, (x.shape[0], 2, -1)).type) == "float32[n,2,16]"
    assert str(x.reshape(2 * n, 16).type) == "float32[2*n,16]"


@pytest.mark.parametrize(("shape", "target", "message"), [
    ((kt.Dim("N"), 8, 4), (5, 5), "cannot reshape float64[N,8,4] (size N*8*4) into a size of "
                                  "25: 32*k == 25 has no integer solution"),
    ((None, 3), (4,), "3*k == 4 has no integer solution"),
    ((None, 3), (None, 3), "a size None (unknown) cannot be a size parameter"),
])
def test_reshape_rejected_at_build_time(shape, target, message):
    x = kt.tensor("x", "float64", shape)
    with pytest.raises((kt.TypeInferenceError, ValueError)) as info:
        x.reshape(*target)
    assert message in str(info.value)


def test_reshape_to_another_inputs_size_is_tied_by_the_relation():
    """A size of another input (B, not among x's) comes in as an input of its own: the
    function binds it from the input that has it, and checks it when it runs."""
    x = kt.tensor("x", "float64", (kt.Dim("N"), 3))
    b = kt.tensor("b", "float64", (kt.Dim("B"),))
    y = x.reshape(kt.Dim("B"), -1)
    assert str(y.type) == "float64[B,(3*N)//B]"
    f = kt.function([x, b], y, check=True)
    values = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(f(values, np.zeros(2)), values.reshape(2, -1))
    with pytest.raises(kt.TypeInferenceError,  # NumPy too
                       match=r"cannot reshape float64\[4,3\] \(size 12\) into \(B, -1\)"):
        f(values, np.zeros(5))
    with pytest.raises(ValueError, match="no input of the function has a size B"):
        kt.function([x], y)
