"""``pad`` on Dask, in every mode of ``numpy.pad``, judged by NumPy on random chunks.

The catalogue's ``pad`` takes the constant mode; its lowering is written for every mode
NumPy has (another mode is a change of its catalogue entry away): ``dask.array.pad``
where Dask computes NumPy's values for that mode and those widths
(``algorithms._dask_pads``), else the Op's blockwise, NumPy's own pad on every padded
axis whole. Dask's differs from NumPy's where a pad is wider than the axis (``reflect``,
``symmetric``, ``wrap``: NumPy repeats, Dask slices once), in ``mean`` and
``linear_ramp`` (corners), ``median`` (Dask has none) and ``reflect_type="odd"`` (Dask
reflects evenly). Each case lowers the node of ``kt.pad`` as the backend does
(:func:`kantensor.backend.dask.function.lower`), its Op's parameters set to the mode's:
what a catalogue entry of that mode would give.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import dask.array as da
import numpy as np
import pytest

import kantensor as kt
from kantensor.backend.dask.algorithms import ALGORITHMS
from kantensor.backend.dask.function import lower
from kantensor.backend.dask.lower import Session, node_call

MODES = ("constant", "edge", "empty", "linear_ramp", "maximum", "mean", "median",
         "minimum", "reflect", "symmetric", "wrap")


class _Moded:
    """The pad Op with its parameters replaced (every other attribute the Op's)."""

    def __init__(self, op: Any, params: dict[str, Any]):
        self._op = op
        self.params = tuple(params.items())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._op, name)

    def __str__(self) -> str:
        return f"pad{dict(self.params)}"


def _chunks(n: int, rng: random.Random) -> tuple[int, ...]:
    cuts = sorted(rng.sample(range(1, n), rng.randint(0, min(n - 1, 3)))) if n > 1 else []
    edges = [0, *cuts, n]
    return tuple(b - a for a, b in zip(edges, edges[1:], strict=False))


def _pad(v: np.ndarray, chunks: tuple, pairs: tuple, extra: dict, known: bool) -> Any:
    """The Dask array the backend lowers ``np.pad(v, pairs, **extra)`` to, and whether
    it ran ``dask.array.pad`` (else the Op's blockwise)."""
    shape = v.shape if known else (None,) * v.ndim
    x = kt.TensorType(str(v.dtype), shape)("x")
    node = kt.pad(x, pairs).owner
    session = Session(run=True, allow_rechunk=True)
    call = node_call(node, (kt.TensorType(str(v.dtype), v.shape),), session)
    params = {k: w for k, w in call.op.params if k != "constant_values"}
    if extra.get("mode", "constant") == "constant":
        params["constant_values"] = dict(call.op.params)["constant_values"]
    params.update(extra)
    call = replace(call, op=_Moded(call.op, params))
    used = ALGORITHMS["pad"].applies(call.op, (x.type,))
    return lower(call, [da.from_array(v, chunks=chunks)])[0], used


@pytest.mark.parametrize("mode", MODES)
def test_pad_modes_as_numpy(mode: str) -> None:
    rng = random.Random(f"pad-{mode}")
    ran_dask = ran_numpy = 0
    for _ in range(40):
        ndim = rng.choice((1, 2, 3))
        shape = tuple(rng.choice((1, 2, 3, 5)) for _ in range(ndim))
        dtype = rng.choice(("float64", "int16"))
        v = np.random.default_rng(rng.randrange(2**32)).integers(-50, 50, shape).astype(dtype)
        chunks = tuple(_chunks(n, rng) for n in shape)
        pairs = tuple((rng.choice((0, 1, 2, 4, 7)), rng.choice((0, 1, 3, 6)))
                      for _ in range(ndim))
        extra: dict[str, Any] = {"mode": mode}
        if mode in ("reflect", "symmetric") and rng.random() < 0.3:
            extra["reflect_type"] = "odd"
        if mode in ("maximum", "minimum", "mean") and rng.random() < 0.3:
            extra["stat_length"] = ((rng.choice((1, 2, 4, 9)), rng.choice((1, 3, 8))),)
        known = rng.random() < 0.8
        expected = np.pad(v, pairs, **extra)
        y, used = _pad(v, chunks, pairs, extra, known)
        got = y.compute()
        ran_dask += used
        ran_numpy += not used
        assert got.shape == expected.shape == y.shape, (shape, chunks, pairs, extra)
        assert got.dtype == expected.dtype
        if mode != "empty":  # NumPy's empty leaves the pads' values undefined
            np.testing.assert_array_equal(got, expected, err_msg=str((shape, chunks, pairs,
                                                                      extra, used)))
    if mode in ("constant", "edge", "empty"):  # Dask's pad, whatever the widths
        assert ran_numpy == 0
    elif mode in ("maximum", "minimum", "reflect", "symmetric", "wrap"):
        assert ran_dask > 0 and ran_numpy > 0  # by the widths, sizes and parameters
    else:
        assert ran_dask == 0


def test_reflect_wider_than_the_axis_is_numpy_pad() -> None:
    """A reflection wider than the axis: NumPy reflects again and again; dask.array.pad
    slices the edge once (a smaller array), so the lowering runs NumPy's pad (the axis
    whole), and Dask's where the pad fits."""
    v = np.arange(6.0).reshape(3, 2)
    wide, used = _pad(v, ((1, 2), (2,)), ((3, 0), (0, 0)), {"mode": "reflect"}, True)
    assert not used
    np.testing.assert_array_equal(wide.compute(),
                                  np.pad(v, ((3, 0), (0, 0)), mode="reflect"))
    fits, used = _pad(v, ((1, 2), (2,)), ((2, 0), (0, 0)), {"mode": "reflect"}, True)
    assert used
    np.testing.assert_array_equal(fits.compute(),
                                  np.pad(v, ((2, 0), (0, 0)), mode="reflect"))
