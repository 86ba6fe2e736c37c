"""The one home of index arrays' value bounds (kantensor.ops.families.values), judged by
NumPy's values at every size k in 0..6.

``value_range`` reads sizes (Dims) and known numbers alike; its bounds must hold every
value NumPy computes (sound), be exactly the least and greatest where they can be, and
be unknown where the dtype may wrap the values around. The index Op (known numbers) and
eval_shape (sizes) both read them here.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import kantensor as kt
from kantensor.ops.families.values import value_bounds, value_range
from kantensor.types.symbols import substitute

#: (expression of k = y.shape[0], how the bounds meet NumPy's values): "exact" (the
#: least and greatest), "need" (max(hi + 1, -lo), what an index needs, is exact),
#: "wide" (hold the values), None (unknown: the dtype may wrap them).
MADE_OF_SIZES = [
    ("np.arange(k)", "exact"),
    ("np.arange(k) + 1", "exact"),
    ("(np.arange(k) + 1) % 3", "need"),
    ("np.arange(k) % -3", "wide"),
    ("-np.arange(k) % -3", "exact"),
    ("np.arange(k) // -2", "exact"),
    ("np.arange(k) // 2", "exact"),
    ("np.arange(1, k, 2) * -3", "exact"),
    ("np.arange(k, 0, -1)", "exact"),
    ("np.minimum(np.arange(k), 2) - np.maximum(np.arange(k) - 5, 0)", "wide"),
    ("np.concatenate([np.arange(k), [7]])", "need"),
    ("np.tile(np.arange(k)[::-1], 2).reshape(2, -1)", "exact"),
    ("np.sort(np.arange(k) * 2 % 5)", "wide"),
    ("np.tril(np.ones((k, k), int) * 3)", "wide"),
    ("np.arange(k) * 0 + k - 1", "exact"),
    ("np.arange(k, dtype=np.uint32) - 1", None),
    ("np.arange(k, dtype=np.int16)", None),
    ("np.arange(k) ** 2", None),
]


def _traced(expr: str):
    got = []

    def fn(y):
        got.append(eval(expr, {"np": np, "k": y.shape[0]}))
        return got[-1]
    kt.eval_shape(fn, "float32[k]")
    return got[0]


def _values(expr: str, k: int) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(eval(expr, {"np": np, "k": k}))


@pytest.mark.parametrize(("expr", "kind"), MADE_OF_SIZES)
def test_value_range_of_sizes_holds_numpys_values(expr, kind):
    found = value_range(_traced(expr))
    if kind is None:
        assert found is None, expr
        return
    assert found is not None, expr
    for k in range(7):
        values = _values(expr, k)
        if not values.size:
            continue
        lo, hi = (int(substitute(end, {"k": k})) for end in found)
        least, greatest = int(values.min()), int(values.max())
        assert lo <= least and greatest <= hi, (expr, k, (lo, hi), (least, greatest))
        if kind == "exact":
            assert (lo, hi) == (least, greatest), (expr, k)
        elif kind == "need":
            assert max(hi + 1, -lo) == max(greatest + 1, -least), (expr, k)


#: Known numbers only: the bounds are ints, exact (or unknown where the dtype wraps).
KNOWN = [
    ("np.arange(4) % -3", True),
    ("np.arange(-5, 4) % 3", True),
    ("(np.arange(6) - 3) // -2", True),
    ("np.tri(3).astype(int) * -2", True),
    ("np.full(3, 4) - np.arange(3)", True),
    ("np.minimum(np.arange(6), 2) - 1", True),
    ("np.maximum(np.arange(-3, 3), -1)", True),
    ("np.arange(100).astype(np.int8) * 3", False),
    ("np.arange(5, dtype=np.uint8) - 1", False),
    # float16 holds the integers exactly only up to 2048: NumPy's values reach 2062
    ("np.arange(2040, 2060, dtype=np.float16) + 1", False),
]


@pytest.mark.parametrize(("expr", "exact"), KNOWN)
def test_value_bounds_of_known_numbers_are_numpys(expr, exact):
    got = []

    def fn(y):
        got.append(eval(expr, {"np": np}))
        return y
    kt.eval_shape(fn, "float32[k]")
    values = _values(expr, 0)
    found = value_bounds(got[0])
    assert found == ((int(values.min()), int(values.max())) if exact else None), expr


def test_a_remainder_of_values_made_of_a_size_is_no_constant_bound():
    """``x[(np.arange(k) + 1) % 3]`` runs at m = 2, k = 1 (its one value is 1): the
    bounds 0 .. 2 that the index Op read from ``% 3`` refused it at every k."""
    fn = lambda x, y: x[(np.arange(y.shape[0]) + 1) % 3]  # noqa: E731
    assert np.shape(fn(np.zeros(2), np.zeros(1))) == (1,)
    r = kt.eval_shape(fn, "float32[m]", "float32[k]")
    assert r.holds({"m": 2, "k": 1})
    assert not r.holds({"m": 2, "k": 3})


TAKEN = ["(np.arange(y.shape[0]) + 1) % 3", "np.arange(y.shape[0])[::-1] * 2",
         "np.minimum(np.arange(y.shape[0]), 2) - 3", "np.arange(y.shape[0]) ** 2"]


@pytest.mark.parametrize("index", TAKEN)
def test_take_of_values_made_of_sizes_holds_where_numpy_runs(index):
    """``np.take(x, (np.arange(k) + 1) % 3)`` held at m = 2, k = 3 (values 1, 2, 0:
    NumPy raises IndexError) once the index Op no longer read the bounds 0 .. 2, and
    ``np.take(x, np.arange(k) ** 2)`` held there too: a take of integers made of sizes
    is the index, whose bounds eval_shape states (or assumes, on a named unknown, where
    it does not read them: holds then says it cannot answer, never a wrong True)."""
    fn = eval(f"lambda x, y: np.take(x, {index})", {"np": np})
    r = kt.eval_shape(fn, "float32[m]", "float32[k]")
    for m, k in itertools.product(range(5), repeat=2):
        try:
            fn(np.zeros(m, "float32"), np.zeros(k, "float32"))
            runs = True
        except IndexError:
            runs = False
        try:
            holds = r.holds({"m": m, "k": k})
        except ValueError as exc:
            assert "cannot say" in str(exc), (index, exc)
            continue
        assert holds == runs, (index, m, k)
