"""Elementwise implementations NumPy has no function for (see
``signatures/elementwise.toml``).

The Ops call them on NumPy arrays, after casting the inputs as the entry's
``compute`` mode says; they keep the dtype of their input.
"""

from __future__ import annotations

import numpy as np

from ..templates import reads_ranks


def sigmoid(x: np.ndarray) -> np.ndarray:
    """The logistic function ``1 / (1 + exp(-x))`` of an inexact array.

    For real ``x`` it is evaluated as ``1 / (1 + e)`` or ``e / (1 + e)`` with
    ``e = exp(-|x|) <= 1``, so that no intermediate overflows and results close to
    0 keep their relative accuracy; complex ``x`` uses the definition (it has poles
    at ``x = i*pi*(2k+1)``).
    """
    x = np.asarray(x)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        if x.dtype.kind == "c":
            return 1 / (1 + np.exp(-x))
        e = np.exp(-np.abs(x))
        return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def cast(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x.astype(dtype)``, without NumPy's warnings: a complex value cast to a real
    number keeps its real part (cast to bool, it is true if either part is nonzero),
    and out-of-range or nan values cast to integers give whatever NumPy's C cast gives
    (the Op's type says only what the dtype is)."""
    x = np.asarray(x)
    target = np.dtype(dtype)
    if x.dtype.kind == "c" and target.kind not in "cb":
        x = x.real
    with np.errstate(over="ignore", invalid="ignore"):
        return x.astype(target)


@reads_ranks
def rounding(types: tuple, decimals: int) -> dict[str, int]:
    """Builder of ``round``: NumPy rounds bool only to 0 decimals, a where-clause on
    ``places`` (the DSL writes no negative literals, so the clause sees ``|decimals|``)."""
    return {"places": abs(decimals)}


#: How each of Python's roundings to an int reads a float (``round``: half to even).
_ROUNDINGS = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.rint}
#: int64's bounds as floats: a float at or past them is an int int64 cannot hold.
_INT64_FLOATS = (-2.0 ** 63, 2.0 ** 63)


def python_int(x: np.ndarray, rounding: str = "trunc") -> np.ndarray:
    """The Python int ``math.floor``, ``math.ceil``, ``math.trunc`` or ``round`` makes of a
    0-d number (a complex one's real part, as NumPy's ``float()`` of it), as an int64;
    where Python raises (nan: ValueError, an infinity: OverflowError) it raises, and so
    where the int is one int64 cannot hold (never a wrapped int64)."""
    value = np.asarray(x)
    if value.dtype.kind == "c":
        value = value.real
    if value.dtype.kind not in "biu":
        value = value.astype(np.float64)
        if np.isnan(value):
            raise ValueError("cannot convert float NaN to integer")
        if np.isinf(value):
            raise OverflowError("cannot convert float infinity to integer")
        value = _ROUNDINGS[rounding](value)
        if not _INT64_FLOATS[0] <= value < _INT64_FLOATS[1]:
            raise OverflowError(f"the Python int {int(value)} does not fit int64, where the "
                                "graph holds it")
    elif value.dtype == np.uint64 and value > np.iinfo(np.int64).max:
        raise OverflowError(f"the Python int {int(value)} does not fit int64, where the "
                            "graph holds it")
    return value.astype(np.int64)
