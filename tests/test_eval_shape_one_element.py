"""Assignments at one element, judged by NumPy at sizes A, B, C in 0..3.

An index of integers alone at every axis (ints, sizes, 0-d integer arrays) picks one
element, and NumPy assigns a scalar there: a value of one axis or more raises ValueError
("setting an array element with a sequence"), even of one element (NumPy 2), where a
slice or an Ellipsis in the index broadcasts it. ``z[0, 0] = y`` of ``y: int64[C]`` held
at C = 1 (hunt21, a sweep of item assignments). The result must hold exactly where NumPy
runs, and the NumPy backend run the graph where it holds.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt

BODIES = ["z[0, 0] = y", "z[0, 0] = y[0]", "z[0:1, 0] = y", "z[..., 0, 0] = y",
          "z[0, 0] += y", "z[np.argmax(y), 0] = y", "z[0] = y", "z[len(y) - 1, 0] = y[:1]",
          "z[-1, x.shape[1] - 1] = y[0]", "z[0, 0] = y.sum(keepdims=True)",
          "z[np.argmax(y), 0] = y[0]"]


def _program(body: str):
    space = {"np": np}
    exec(f"def f(x, y):\n    z = x.copy()\n    {body}\n    return z\n", space)
    return space["f"]


def _runs(fn, a: int, b: int, c: int) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(np.zeros((a, b)), np.arange(c))
    except (ValueError, IndexError):
        return False
    return True


@pytest.mark.parametrize("body", BODIES)
def test_one_element_takes_a_scalar_exactly_where_numpy_does(body):
    fn = _program(body)
    try:
        r = kt.eval_shape(fn, "float64[A,B]", "int64[C]")
    except kt.TypeInferenceError:
        r = None
    for a, b, c in itertools.product(range(4), repeat=3):
        holds = r is not None and r.holds({"A": a, "B": b, "C": c})
        assert holds == _runs(fn, a, b, c), (body, a, b, c)


def test_the_backend_runs_what_the_relation_types():
    """make_node refuses the Op NumPy's assignment would fail in, at known sizes too."""
    x = kt.tensor("x", "float64", (2, 3))
    with pytest.raises(kt.TypeInferenceError, match="one element"):
        x.at[0, 1].set(kt.tensor("v", "float64", (1,)))
    y = x.at[0, 1].set(kt.tensor("v", "float64", ()))
    f = kt.function([x, *y.owner.inputs[1:2]], y)
    assert f(np.zeros((2, 3)), np.array(5.0))[0, 1] == 5.0
