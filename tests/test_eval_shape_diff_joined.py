"""``np.diff`` with ``prepend`` / ``append`` (:mod:`kantensor.ops.diffs`), judged by NumPy
at every size of the box (tests/npprograms.py's judge): the type where NumPy runs, with
NumPy's dtype (a Python number is an array of NumPy's dtype for it); refused where NumPy
raises. They were refused everywhere (the catalogue's diff has no such parameters)."""

from __future__ import annotations

import pytest

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
