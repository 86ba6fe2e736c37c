"""Reductions against NumPy (see conformance.py): sum so far."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from conformance import ALL_DTYPES, arrays, conform, hidden_mask, shapes

CASES = settings(max_examples=150, deadline=None)


@st.composite
def axis_args(draw, ndim: int):
    """axis in every form NumPy takes (some out of range) and keepdims."""
    axis = draw(st.one_of(st.none(), st.integers(-ndim - 1, ndim),
                          st.lists(st.integers(-ndim - 1, ndim), max_size=3).map(tuple)))
    return {"axis": axis, "keepdims": draw(st.booleans())}


@CASES
@given(st.data())
def test_sum(data):
    shape = data.draw(shapes())
    x = data.draw(arrays(data.draw(st.sampled_from(ALL_DTYPES)), shape))
    kw = data.draw(axis_args(len(shape)))
    conform("sum", lambda v: kt.sum(v, **kw), lambda a: np.sum(a, **kw), [x],
            [data.draw(hidden_mask(len(shape)))])
