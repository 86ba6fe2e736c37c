"""Axis arguments in the forms NumPy reads them, on every catalogue function with an axis
parameter (tests/axiscalls.CALLS): a tuple of one axis for
``np.cumulative_sum``/``np.cumulative_prod`` (a ufunc's accumulate takes it; main
refused it), and forms NumPy raises on that were typed: ``np.expand_dims(x, range(1))``
(it makes anything but a tuple or list one axis) and ``np.take`` of a 0-d tensor with
``axis=np.array([0])`` (``axis in (0, -1)`` compared the array).

Judged by NumPy at edge shapes (0-d, 0, 1, sizes that all differ): never a type where
NumPy raises; NumPy's rank, dtype and sizes where both run; and where NumPy runs a
cumulative function of an axis tuple, a type."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from axiscalls import CALLS, typed_as_numpy

FORMS = [(0,), [0], (-1,), (1,), (0, 1), (), np.int64(0), np.array(0), np.array([0]),
         (np.int64(0),), range(1), range(0), -1, np.int32(1), 0.0]


@settings(max_examples=500, deadline=None)
@given(key=st.sampled_from(sorted(CALLS)),
       shape=st.lists(st.sampled_from([0, 1, 2, 3, 5]), max_size=3).map(tuple),
       dtype=st.sampled_from(["float32", "int64", "bool"]),
       axis=st.sampled_from(FORMS))
def test_axis_forms_are_typed_as_numpy_reads_them(key, shape, dtype, axis) -> None:
    call = CALLS[key]

    def fn(x):
        return call(x, axis)
    # (where NumPy runs a cumulative function of an axis tuple: a type, never a refusal)
    typed_as_numpy(fn, shape, dtype, may_refuse=not (key[0].startswith("cumulative")
                                                     and isinstance(axis, tuple)))
