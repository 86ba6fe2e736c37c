"""A bool as an axis, as NumPy takes it per function: ``np.flip(x, axis=True)`` flips
axis 1 (NumPy reads the axis with ``operator.index``), where ``np.sum(x, axis=True)``
raises "an integer is required". One table says which (``params.BOOL_AXES``); main
refused a bool everywhere.

Judged by NumPy, on every catalogue function with an axis parameter
(tests/axiscalls.py): the table is the set of parameters NumPy accepts True for (called
on a 3-d array), and eval_shape at edge sizes (0-d, 0, 1 and sizes that all differ) with
True, False, (True,), [True] and (False, True) types where NumPy runs, with its shape
and dtype, and raises where NumPy raises, naming the user's line (np.True_: never typed
where NumPy raises)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import axiscalls
from axiscalls import CALLS, numpy_result, typed_as_numpy
from kantensor.ops.params import BOOL_AXES


def test_the_table_is_what_numpy_takes_a_bool_for() -> None:
    x = np.ones((3, 2, 4))
    taken = {key: numpy_result(lambda v, call=call: call(v, [True]), x) is not None
             for key, call in CALLS.items()
             if numpy_result(lambda v, call=call: call(v, True), x) is not None}
    taken.pop(("diff", "axis"))  # (np.diff reads its axis itself: ops/diffs.py)
    assert taken == BOOL_AXES


@settings(max_examples=400, deadline=None)
@given(key=st.sampled_from(sorted(CALLS)),
       shape=st.lists(st.sampled_from([0, 1, 2, 3, 5]), max_size=3).map(tuple),
       dtype=st.sampled_from(["float32", "int64", "bool", "float16"]),
       axis=st.sampled_from([True, False, (True,), (False, True), [True], np.True_]))
def test_a_bool_axis_is_typed_where_numpy_takes_it(key, shape, dtype, axis) -> None:
    call = CALLS[key]

    def fn(x):
        return call(x, axis)
    # (np.True_, which NumPy takes in a few functions only (np.linalg.norm), is refused
    # in all: a refusal, not a wrong type)
    refused = typed_as_numpy(fn, shape, dtype, may_refuse=axis is np.True_)
    if refused is not None:  # (the user's line: the NumPy call's, in CALLS)
        assert f"{axiscalls.__file__}, line" in str(refused), refused
