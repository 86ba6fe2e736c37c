"""``np.diff`` with ``prepend`` / ``append`` (:mod:`kantensor.ops.diffs`), judged by NumPy
at every size of the box (tests/npprograms.py's judge): the type where NumPy runs, with
NumPy's dtype (a Python number is an array of NumPy's dtype for it); refused where NumPy
raises. They were refused everywhere (the catalogue's diff has no such parameters)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from npprograms import judge

PROGRAMS = [
    ("float64[A,B]", "np.diff(x0, prepend=0.0)"),
    ("float32[A,B]", "np.diff(x0, 1, 0, 0.0)"),
    ("float32[A,B]", "np.diff(x0, append=x0[:, :1])"),
    ("float32[A,B]", "np.diff(x0, 2, 0, x0[:1], x0[-1:])"),
    ("int32[A]", "np.diff(x0, prepend=np.zeros(1, np.int8), append=2)"),
    ("int32[A]", "np.diff(x0, n=0, prepend=1)"),
    ("float32[A,B]", "np.diff(x0, axis=0, prepend=x0[0, 0])"),
    ("uint8[A]", "np.diff(x0, prepend=0)"),
    ("bool[A,B]", "np.diff(x0, prepend=True)"),
    ("float64[A]", "np.diff(np.zeros(3), prepend=x0)"),
    ("int64[A,B]", "np.diff(np.ones((2, 1)), n=True, append=x0[:2])"),
]


@pytest.mark.parametrize(("types", "body"), PROGRAMS)
def test_diff_with_prepend_or_append_is_numpys(types, body):
    verdict = judge(f"def program(x0):\n    return {body}\n", [types])
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


def test_what_numpy_refuses_is_refused():
    verdict = judge("def program(x0):\n    return np.diff(x0, axis=0, prepend=x0[0])\n",
                    ["float32[A,B]"])
    assert verdict.status == "refused" and not verdict.wrong


ORDERS = [0, 1, 2, 5, -1, True, False, 0.0, 1.0, np.int64(2), np.int8(0), np.array(0),
          np.float64(0), None, "1"]
AXES = [-1, 0, 1, 2, -3, None, np.int64(1), 1.0, True, "0", (0,), np.array(1)]
JOINED = [None, 0, 0.5, True, "row"]


@settings(max_examples=400, deadline=None)
@given(shape=st.sampled_from([(), (0,), (3,), (2, 0), (3, 4), (1, 2, 5)]),
       dtype=st.sampled_from(["float32", "int8", "bool", "float64"]),
       n=st.sampled_from(ORDERS), axis=st.sampled_from(AXES),
       prepend=st.sampled_from(JOINED), append=st.sampled_from(JOINED))
def test_diff_accepts_and_refuses_what_numpy_does(shape, dtype, n, axis, prepend, append):
    """``np.diff`` on random arguments, judged by NumPy: where NumPy runs, eval_shape
    gives its shape (and dtype, where nothing is joined: a Python int joined to a float32
    tensor is kantensor's promotion, docs/promotion.rst); where NumPy raises, eval_shape
    raises naming the user's line. NumPy checks ``n == 0`` first and then returns the
    input as it is, whatever the axis (``axis=None``), rank (0-d) or joined values; it
    reads ``n`` and ``axis`` with ``operator.index`` (so ``True`` is 1, ``1.0`` refused).
    Main refused n=0 with axis=None (and n=False, 0.0, np.array(0)), and True as n or
    axis, where NumPy runs."""
    kwargs: dict = {"n": n, "axis": axis}
    for key, value in (("prepend", prepend), ("append", append)):
        if value == "row":
            value = np.zeros(shape[:-1] + (1,), np.int16) if shape else None
        if value is not None:
            kwargs[key] = value

    def fn(x):
        return np.diff(x, **kwargs)
    line = fn.__code__.co_firstlineno + 1
    try:
        want = np.asarray(fn(np.zeros(shape, dtype)))
    except (ValueError, TypeError, IndexError):
        want = None
    text = f"{dtype}[{','.join(map(str, shape))}]"
    if want is None:
        with pytest.raises(Exception, match=rf"test_eval_shape_diff_joined.py, line {line}"):
            kt.eval_shape(fn, text)
        return
    got = kt.eval_shape(fn, text).type
    assert got.shape == want.shape, (got, want.shape)
    if len(kwargs) == 2:
        assert got.dtype == str(want.dtype), (got, want.dtype)
