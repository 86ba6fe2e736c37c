"""docs/numpy.rst's lists of what is refused match what is: every call of its section
"What is refused" runs in NumPy and is refused by ``kt.eval_shape`` with an error (no
crash, no type); and its list of entries with no counterpart is the trace's own
(``evalshape.patches.UNSUPPORTED`` and ``UNSUPPORTED_RANDOM``). When one of them comes to
be supported, this fails until the page says so."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import kantensor as kt
from kantensor.evalshape.patches import UNSUPPORTED, UNSUPPORTED_RANDOM

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "numpy.rst").read_text()


def _section(title: str) -> str:
    start = PAGE.index(f"\n{title}\n") + len(title) + 2
    end = PAGE.index("\n-----", start + len(title) + 2)
    return PAGE[start:PAGE.rindex("\n", start, end)]


def _refused_calls() -> list[str]:
    bullets = re.split(r"\n\* ", _section("What is refused"))[1:]
    calls = []
    for bullet in bullets:  # the calls, then ``: why``
        head = " ".join(bullet.split())
        calls += re.findall(r"``(.+?)``", head[:head.index("``: ") + 2])
    return calls


CALLS = _refused_calls()


def test_the_list_is_read():
    assert len(CALLS) >= 25 and "np.mean(x, where=x > 0)" in CALLS


@pytest.mark.parametrize("call", CALLS)
def test_each_listed_call_runs_in_numpy_and_is_refused(call):
    fn = eval(f"lambda x: {call}", {"np": np})
    fn(np.arange(12.0).reshape(3, 4))  # NumPy runs it
    with pytest.raises((TypeError, ValueError)) as info:
        kt.eval_shape(fn, "float64[n,m]")
    said = str(info.value)  # it says what is refused
    assert any(w in said for w in ("not supported", "parameter", "keyword argument",
                                   "position", "sections")), said


def test_the_entries_with_no_counterpart_are_the_traces():
    text = " ".join(PAGE.split())
    listed = text[text.index("NumPy entries with no kantensor counterpart ("):]
    listed = listed[:listed.index(")")]
    names = set(re.findall(r"``([a-z_.]+)``", listed)) - {"numpy.random"}
    assert names == set(UNSUPPORTED) | set(UNSUPPORTED_RANDOM)
