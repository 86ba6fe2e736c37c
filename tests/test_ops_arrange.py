"""The rearranging Ops of ``signatures/arrange.toml`` against NumPy (conformance.py):
random shapes (0- and 1-sized dims), all dtypes, hidden dims, and parameters in every
form NumPy takes, including out-of-range axes (which NumPy rejects).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from conformance import ALL_DTYPES, arrays, conform, hidden_mask, shapes

CASES = settings(max_examples=150, deadline=None)


def axis(ndim: int) -> st.SearchStrategy[int]:
    return st.integers(-ndim - 1, ndim)


def axes(ndim: int, max_size: int = 3) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), axis(ndim), st.lists(axis(ndim), max_size=max_size).map(tuple))


#: name -> (parameter strategy given ndim, NumPy function, min rank, max rank)
ONE_INPUT: dict[str, tuple[Any, Any, int, int]] = {
    "swapaxes": (lambda n: st.fixed_dictionaries({"axis1": axis(n), "axis2": axis(n)}),
                 np.swapaxes, 0, 3),
    "moveaxis": (lambda n: st.fixed_dictionaries({"source": axis(n), "destination": axis(n)}),
                 np.moveaxis, 0, 3),
    "matrix_transpose": (lambda n: st.just({}), np.matrix_transpose, 0, 3),
    "flip": (lambda n: st.fixed_dictionaries({"axis": axes(n)}), np.flip, 0, 3),
    "roll": (lambda n: st.one_of(
        st.fixed_dictionaries({"shift": st.integers(-5, 5)}),
        # several shifts of the flattened tensor (NumPy rolls by each: their sum)
        st.fixed_dictionaries({"shift": st.lists(st.integers(-3, 3), max_size=3).map(tuple)}),
        st.fixed_dictionaries({"shift": st.integers(-5, 5), "axis": axis(n)}),
        st.fixed_dictionaries({"shift": st.lists(st.integers(-3, 3), min_size=2, max_size=2)
                               .map(tuple), "axis": st.lists(axis(n), min_size=2, max_size=2)
                               .map(tuple)})), np.roll, 0, 3),
    "tile": (lambda n: st.fixed_dictionaries({"reps": st.one_of(
        st.integers(0, 3), st.lists(st.integers(0, 3), max_size=4).map(tuple))}),
        np.tile, 0, 3),
    "repeat": (lambda n: st.fixed_dictionaries({"repeats": st.integers(0, 3),
                                                "axis": st.one_of(st.none(), axis(n))}),
               np.repeat, 0, 3),
    "tril": (lambda n: st.fixed_dictionaries({"k": st.integers(-3, 3)}), np.tril, 0, 3),
    "triu": (lambda n: st.fixed_dictionaries({"k": st.integers(-3, 3)}), np.triu, 0, 3),
    "diag": (lambda n: st.fixed_dictionaries({"k": st.integers(-4, 4)}), np.diag, 0, 3),
    "sort": (lambda n: st.fixed_dictionaries({"axis": st.one_of(st.none(), axis(n))}),
             np.sort, 0, 3),
    "argsort": (lambda n: st.fixed_dictionaries({"axis": st.one_of(st.none(), axis(n))}),
                lambda a, axis: np.argsort(a, axis=axis, kind="stable"), 0, 3),
    "norm": (lambda n: st.fixed_dictionaries({"axis": axes(n, 3), "keepdims": st.booleans()}),
             np.linalg.norm, 0, 3),
}


@pytest.mark.parametrize("name", sorted(ONE_INPUT))
@CASES
@given(data=st.data())
def test_one_input(name, data):
    params, reference, lo, hi = ONE_INPUT[name]
    shape = data.draw(shapes(min_dims=lo, max_dims=hi), label="shape")
    x = data.draw(arrays(data.draw(st.sampled_from(ALL_DTYPES), label="dtype"), shape))
    kw = data.draw(params(len(shape)), label="params")
    conform(name, lambda v: getattr(kt, name)(v, **kw), lambda a: reference(a, **kw), [x],
            [data.draw(hidden_mask(len(shape)), label="hidden")])


@st.composite
def stack_inputs(draw, same_rank: int | None = None) -> tuple[list[np.ndarray], list]:
    """2 or 3 arrays of one dtype and ranks >= 1, usually stackable, sometimes not."""
    ndim = draw(st.integers(1, 3)) if same_rank is None else same_rank
    base = list(draw(shapes(min_dims=ndim, max_dims=ndim)))
    dtype = draw(st.sampled_from(ALL_DTYPES))
    out, hidden = [], []
    for _ in range(draw(st.integers(2, 3))):
        shape = list(base)
        for i in range(ndim):
            if draw(st.integers(0, 4)) == 0:
                shape[i] = draw(st.integers(0, 4))
        out.append(draw(arrays(dtype, tuple(shape))))
        hidden.append(draw(hidden_mask(ndim)))
    return out, hidden


@pytest.mark.parametrize("name", ["vstack", "hstack"])
@CASES
@given(data=st.data())
def test_stacking(name, data):
    values, hidden = data.draw(stack_inputs())
    conform(name, lambda *v: getattr(kt, name)(list(v)),
            lambda *a: getattr(np, name)(list(a)), values, hidden)


@CASES
@given(data=st.data())
def test_dot(data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    a_shape = data.draw(shapes(min_dims=1, max_dims=3))
    b_shape = list(data.draw(shapes(min_dims=1, max_dims=3)))
    if data.draw(st.integers(0, 4)):  # usually a matching contracted axis
        b_shape[-2 if len(b_shape) > 1 else 0] = a_shape[-1]
    a = data.draw(arrays(dtype, a_shape))
    b = data.draw(arrays(dtype, tuple(b_shape)))
    conform("dot", kt.dot, np.dot, [a, b],
            [data.draw(hidden_mask(a.ndim)), data.draw(hidden_mask(b.ndim))])


def test_methods_and_properties():
    n = kt.Dim("n")
    x = kt.tensor("x", "float32", (n, 3, 4))
    assert x.mT.owner.op == kt.matrix_transpose.bind() and str(x.mT.type) == "float32[n,4,3]"
    assert str(x.swapaxes(0, -1).type) == "float32[4,3,n]"
    assert str(x.ravel().type) == "float32[12*n]"
    assert str(x.repeat(2, axis=0).type) == "float32[2*n,3,4]"
    assert str(x.sort(axis=1).type) == "float32[n,3,4]"
    assert str(x.argsort().type) == "int64[n,3,4]"
    assert str(x.dot(kt.tensor("w", "float32", (4, 2))).type) == "float32[n,3,2]"
    assert str(np.linalg.norm(x, axis=(1, 2)).type) == "float32[n]"
