"""Index arrays of positions (an argsort's permutation, argmax's positions) divided or
multiplied by a size, judged by NumPy at m, k, j in 0..4 on data that reach every
position (zeros, ones, ramps up and down along each axis).

``seqs[np.argsort(flat) // vocab]`` (a beam search's step: tests/data/numpy_models.py
``beam_step`` with its weight's axes swapped) looks up rows 0 .. size//vocab - 1 for
every data: the positions' bounds divided by the size. They were unknown (only ``//``
by an int was read), so the index was taken as one of data and held where NumPy raises
IndexError at every data (S1 == 1, V == 2). Now the result holds exactly where NumPy
runs for every data.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt

#: x is float32[m], y float32[k,j].
INDICES = ["np.argsort(y.ravel()) // y.shape[1]", "np.argsort(y, axis=None) // y.shape[0]",
           "np.argsort(y.ravel()) // len(x)", "np.argmax(y, axis=0) * y.shape[1]",
           "np.argmax(y, axis=1) * y.shape[0] // y.shape[1]",
           "np.argsort(y, axis=1) // y.shape[1] * y.shape[0]",
           "y.shape[0] * np.argsort(y.ravel()) // (y.shape[0] * y.shape[1])",
           "np.argmin(y, axis=1) // y.shape[0]"]


def _data(k: int, j: int) -> list[np.ndarray]:
    out = [np.zeros((k, j), "float32"), np.ones((k, j), "float32")]
    for axis in (0, 1):
        ramp = np.indices((k, j))[axis].astype("float32")
        out += [ramp, -ramp]
    return out


def _runs(fn, m: int, k: int, j: int) -> bool:
    """Whether NumPy runs at every data of :func:`_data`."""
    for y in _data(k, j):
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                fn(np.zeros(m, "float32"), y)
        except (IndexError, ValueError):  # (argmax of an empty axis: ValueError)
            return False
    return True


@pytest.mark.parametrize(("use", "index"), list(itertools.product(
    ["x[{i}]", "x[None][:, {i}]", "np.take(x, {i})"], INDICES)))
def test_positions_scaled_by_a_size_hold_where_numpy_runs_for_every_data(use, index):
    source = "lambda x, y: " + use.format(i=index)
    fn = eval(source, {"np": np})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = kt.eval_shape(fn, "float32[m]", "float32[k,j]")
    for m, k, j in itertools.product(range(5), repeat=3):
        sizes = {"m": m, "k": k, "j": j}
        assert r.holds(sizes) == _runs(fn, m, k, j), (source, sizes)
