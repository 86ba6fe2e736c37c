"""Tensors made from parameters (``signatures/creation.toml``): zeros, ones, full, the
``*_like`` functions, arange, linspace and eye.

The builders render shapes from the parameters only. Dtypes are decided by the
signatures: a ``dtype`` the user passes fills ``{dtype}``; without one, ``full`` and the
``*_like`` functions take their input's dtype (a type variable) and the others NumPy's
default (``float64``, ``int64`` for arange), written as the parameter's default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .params import ParamError
from .pyints import fits
from .templates import names, operand


def _sizes(shape: tuple[int, ...]) -> tuple[int, ...]:
    if any(s < 0 for s in shape):
        raise ParamError(f"negative dimensions are not allowed, got {shape}")
    return shape


def made(types: tuple, shape: tuple[int, ...], **_: Any) -> dict[str, Any]:
    """zeros/ones/full: the output shape is the parameter."""
    return {"y": operand(_sizes(shape))}


def like(types: tuple, dtype: str | None = None, **_: Any) -> dict[str, Any]:
    """``*_like``: the input's shape; the input's dtype ``t`` unless one is passed."""
    x = types[0]
    return {"x": operand(names("a", x.ndim)), "dt": dtype or "t"}


def filled(types: tuple, shape: tuple[int, ...], dtype: str | None = None,
           **_: Any) -> dict[str, Any]:
    """full: the fill value's dtype ``x`` unless one is passed."""
    return {"y": operand(_sizes(shape)), "dt": dtype or "x"}


def ranged(types: tuple, start: int, stop: int | None, step: int, dtype: str = "int64",
           **_: Any) -> dict[str, Any]:
    """arange of ints: ``arange(n)`` or ``arange(start, stop, step)``. Like NumPy 2, a
    first or second value that ``dtype`` cannot hold is refused (later values past the
    dtype's range wrap around, as NumPy's do)."""
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ParamError("step must not be zero")
    n = max(0, -(-(stop - start) // step))
    if dtype == "bool" and n > 2:
        raise ParamError(f"a bool arange has at most 2 values (NumPy's rule), got {n}")
    # NumPy converts the first two values to the dtype (and computes on from them).
    for name, value in (("start", start), ("start + step", start + step))[:n]:
        if not fits(value, dtype):
            raise ParamError(f"{name} {value} is out of bounds for {dtype} (NumPy 2 "
                             "refuses it too)")
    return {"y": operand([n]), "params": {"start": start, "stop": stop}}


def spaced(types: tuple, start: Any, stop: Any, num: int, **_: Any) -> dict[str, Any]:
    """linspace of real numbers: ``num`` samples."""
    for value in (start, stop):
        if isinstance(value, complex):
            raise ParamError(f"linspace takes real bounds here, got {value!r}")
    if num < 0:
        raise ParamError(f"num must be non-negative, got {num}")
    return {"y": operand([num])}


def identity(types: tuple, N: int, M: int | None, **_: Any) -> dict[str, Any]:
    """eye: an N x M matrix (M = N by default)."""
    m = N if M is None else M
    _sizes((N, m))
    return {"y": operand([N, m]), "params": {"M": m}}


def full(fill_value: np.ndarray, shape: tuple[int, ...], dtype: str | None) -> np.ndarray:
    """``numpy.full`` with the fill value (a tensor input) first."""
    return np.full(shape, fill_value, dtype=dtype or np.asarray(fill_value).dtype)


def full_like(a: np.ndarray, fill_value: np.ndarray, dtype: str | None) -> np.ndarray:
    """``numpy.full_like`` (the fill value is a tensor input)."""
    return np.full_like(a, fill_value, dtype=dtype)


def arange(start: int, stop: int, step: int, dtype: str | None) -> np.ndarray:
    return np.arange(start, stop, step, dtype=dtype or "int64")
