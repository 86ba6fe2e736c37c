"""``np.array``'s keywords during eval_shape: ``np.array(x, ndmin=3)`` and
``np.array([n, 1.5], ndmin=3)`` were typed [n,2] and [2] (the traced entry took
``*args, **kw`` and dropped them) where NumPy gives (1, n, 2) and (1, 1, 2); and
``np.ascontiguousarray`` of a 0-d value was typed 0-d where NumPy gives (1,). Each
entry now takes NumPy's own signature (:mod:`kantensor.evalshape.arrays`). Judged by
NumPy: shape and dtype at every size of a box; where NumPy raises, the same error."""

from __future__ import annotations

import numpy as np
import pytest

import kantensor as kt
from npprograms import compile_program, judge, returning, run_numpy

TYPED = [
    ("np.array(x0, ndmin=3)", ["float32[A,2]"]),
    ("np.array([len(x0), 1.5], ndmin=3)", ["float32[A,2]"]),
    ("np.array([x0, x0], ndmin=4, dtype=np.int8)", ["float32[A]"]),
    ("np.array(x0.sum(), ndmin=1)", ["float32[A,2]"]),
    ("np.array(x0, ndmin=1)", ["float32[A,2]"]),
    ("np.array(x0, copy=False, order='A', subok=True)", ["float32[A,2]"]),
    ("np.array(x0.T, copy=False)", ["float32[A,2]"]),
    ("np.asarray(x0, 'float64', 'C', device='cpu')", ["float32[A,2]"]),
    ("np.ascontiguousarray(x0.sum())", ["float32[A,2]"]),
    ("np.ascontiguousarray(x0, np.int16)", ["float32[A,2]"]),
]

REFUSED = [  # (as NumPy: its error type and the key of its message)
    ("np.array([x0, x0], copy=False)", ValueError, "Unable to avoid copy"),
    ("np.array(x0, np.float64, copy=False)", ValueError, "Unable to avoid copy"),
    ("np.array(x0, order='X')", ValueError, "order must be one of"),
    ("np.array(x0, ndmin=65)", ValueError, "ndmin must be <= ndmax"),
    ("np.array(x0, ndmin=2.0)", TypeError, "integer"),
    ("np.array(x0, None, True)", TypeError, "positional argument"),
    ("np.asarray(x0, ndmin=2)", TypeError, "ndmin"),
    ("np.ascontiguousarray(x0, order='C')", TypeError, "order"),
]


@pytest.mark.parametrize(("source", "types"), TYPED)
def test_array_keywords_are_typed_as_numpy_runs_them(source: str, types: list[str]) -> None:
    verdict = judge(returning(source, len(types)), types)
    assert verdict.status == "typed", verdict.note
    assert not verdict.wrong, verdict.wrong[:3]


@pytest.mark.parametrize(("source", "error", "key"), REFUSED)
def test_what_numpy_refuses_is_refused_alike(source: str, error: type, key: str) -> None:
    fn = compile_program(returning(source, 1))
    got = run_numpy(fn, ["float32[A,2]"], {"A": 3})
    assert isinstance(got, error) and key in str(got), got
    with pytest.raises(error, match=key):
        kt.eval_shape(fn, "float32[A,2]")


@pytest.mark.parametrize("source", ["np.array(x0.sum(), copy=False)",
                                    "np.array(x0, copy=False, order='F')"])
def test_copy_false_where_numpy_copies_by_layout_is_refused(source: str) -> None:
    """NumPy raises here at A = 3 (a scalar, a C array read as F) but not for a 0-d
    array or at A = 1: what a type does not say, so refused as unsupported."""
    fn = compile_program(returning(source, 1))
    got = run_numpy(fn, ["float32[A,2]"], {"A": 3})
    assert isinstance(got, ValueError) and "Unable to avoid copy" in str(got), got
    assert np.array(np.zeros((1, 2)), copy=False, order="F").shape == (1, 2)
    with pytest.raises(TypeError, match=r"copy=False\) of a 0-d x, or with order"):
        kt.eval_shape(fn, "float32[A,2]")
