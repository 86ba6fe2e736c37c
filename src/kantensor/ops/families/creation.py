"""Tensors made from parameters (``signatures/creation.toml``): zeros, ones, full, the
``*_like`` functions, arange, linspace and eye.

The builders render shapes from the parameters only; a Dim among them is the length of a
SizeOp input (``{sizes}``, see :mod:`kantensor.ops.sizes`), so ``zeros((n, 3))`` renders
``(s0)->(s0,3):float64`` and the relation types it ``float64[n,3]``. Dtypes are decided by the
signatures: a ``dtype`` the user passes fills ``{dtype}``; without one, ``full`` and the
``*_like`` functions take their input's dtype (a type variable) and the others NumPy's
default (``float64``, ``int64`` for arange), written as the parameter's default.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...syntax.ast import FixedDim, chosen, dim_max
from ...syntax.template import Operands
from ...types.dim import Dim
from ...types.intervals import nonnegative
from ...types.symbols import sign_when_large
from ..params import ParamError
from ..pyints import fits
from ..sizes import SizeNames, concrete
from ..templates import dims, reads_ranks

Size = int | Dim


def _sizes(shape: tuple[Size, ...]) -> tuple[Size, ...]:
    if any(isinstance(s, int) and s < 0 for s in shape):
        raise ParamError(f"negative dimensions are not allowed, got {shape}")
    return shape


@reads_ranks
def made(types: tuple, shape: tuple[Size, ...], **_: Any) -> dict[str, Any]:
    """zeros/ones: the output shape is the parameter."""
    sizes = SizeNames(shape)
    return {"sizes": sizes.patterns(), "y": [sizes.expr(s) for s in _sizes(shape)]}


@reads_ranks
def like(types: tuple, dtype: str | None = None, **_: Any) -> dict[str, Any]:
    """``*_like``: the input's shape; the input's dtype ``t`` unless one is passed."""
    x = types[0]
    return {"x": dims("a", x.ndim), "dt": dtype or "t"}


def empty_like(a: np.ndarray, dtype: str | None = None) -> np.ndarray:
    """``numpy.empty_like``, whose values are not to be read: zeros here, under a function
    of its own so that nothing reads them as zeros (:mod:`.values`: any values)."""
    return np.zeros_like(a, dtype=dtype)


@reads_ranks
def filled(types: tuple, shape: tuple[Size, ...], dtype: str | None = None,
           **_: Any) -> dict[str, Any]:
    """full: the fill value's dtype ``x`` unless one is passed."""
    sizes = SizeNames(shape)
    return {"sizes": sizes.patterns(), "y": [sizes.expr(s) for s in _sizes(shape)],
            "dt": dtype or "x"}


@reads_ranks
def ranged(types: tuple, start: Size, stop: Size | None, step: Size, dtype: str = "int64",
           **_: Any) -> dict[str, Any]:
    """arange of ints: ``arange(n)`` or ``arange(start, stop, step)``. Like NumPy 2, a
    first or second value that ``dtype`` cannot hold is refused (later values past the
    dtype's range wrap around, as NumPy's do). With a symbolic bound the length is a
    Dim expression, ``max(ceil((stop - start) / step), 0)``, and the dtype's range is
    NumPy's to check when the function runs. A step that is a size (``np.arange(0, n,
    k)``) divides the length, ``max(0, (n + k - 1)//k)``, where the step is not 0 (NumPy
    raises there; the relation's divisor rule says so, ``k >= 1``); one that may be
    negative (``k - 2``) is read as positive, the build's choice (:data:`_DOWN`), and one
    negative where its sizes are large is refused. A bool range has at most
    :data:`_BOOL_MOST` values (a where-clause of a symbolic length)."""
    if stop is None:
        start, stop = 0, start
    if isinstance(step, int) and step == 0:
        raise ParamError("step must not be zero")
    sizes = SizeNames(start, stop, step)
    if sizes:
        # (a size is never negative: -2 is written 0-2)
        a, b, d = (sizes.expr(v) if isinstance(v, Dim) or v >= 0 else FixedDim(0) - (-v)
                   for v in (start, stop, step))
        cond: list = []
        if isinstance(step, Dim):
            if sign_when_large(step) != 1:
                raise ParamError(f"a step that is a size must be positive where its sizes "
                                 f"are large (np.arange(0, n, k)), got {step}")
            # the relation's divisor rule states it is not 0 (NumPy raises there): >= 1 of
            # a size; one that may be negative also positive as its form shows, the build's
            # choice (its != 0 kept, as NumPy raises at 0 whatever the choice)
            cond = [] if nonnegative(step) else [d.ne(0), chosen(d >= 1, _DOWN)]
            n = dim_max((b - a + (d - 1)) // d, 0)
        elif isinstance(start, int) and start == 0 and step == 1:
            # arange(n - 5) is empty where n < 5, as NumPy's
            n = b if not isinstance(stop, Dim) or nonnegative(stop) else dim_max(b, 0)
        elif step > 0:
            n = dim_max((b - a + (step - 1)) // step, 0)
        else:
            n = dim_max((a - b + (-step - 1)) // -step, 0)
        if dtype == "bool":  # NumPy's rule, a TypeError past it
            cond.append(n <= _BOOL_MOST)
        return {"sizes": sizes.patterns(), "y": [n], "cond": cond,
                "params": {"start": start, "stop": stop}}
    n = max(0, -(-(stop - start) // step))
    if dtype == "bool" and n > _BOOL_MOST:
        raise ParamError(f"a bool arange has at most {_BOOL_MOST} values (NumPy's rule), "
                         f"got {n}")
    # NumPy converts the first two values to the dtype (and computes on from them).
    for name, value in (("start", start), ("start + step", start + step))[:n]:
        if not fits(value, dtype):
            raise ParamError(f"{name} {value} is out of bounds for {dtype} (NumPy 2 "
                             "refuses it too)")
    return {"sizes": Operands(), "y": [n], "cond": [],
            "params": {"start": start, "stop": stop}}


#: The most values a bool arange has: NumPy raises TypeError past it ("arange() is only
#: supported for booleans when the result has at most length 2"); linspace has no such rule.
_BOOL_MOST = 2

#: What a step that is a size gives where it is negative (its form shows it positive).
_DOWN = "another length (a negative step counts down from start)"


@reads_ranks
def spaced(types: tuple, start: Any, stop: Any, num: int, **_: Any) -> dict[str, Any]:
    """linspace of real numbers: ``num`` samples."""
    for value in (start, stop):
        if isinstance(value, complex):
            raise ParamError(f"linspace takes real bounds here, got {value!r}")
    if num < 0:
        raise ParamError(f"num must be non-negative, got {num}")
    return {"y": [num]}


@reads_ranks
def identity(types: tuple, N: Size, M: Size | None, k: Size = 0, **_: Any
             ) -> dict[str, Any]:
    """eye: an N x M matrix (M = N by default); a diagonal ``k`` that is a size (of
    either sign) changes no size: its inputs carry it to the implementation."""
    m = N if M is None else M
    _sizes((N, m))
    sizes = SizeNames(N, m, k)
    return {"sizes": sizes.patterns(), "y": [sizes.expr(N), sizes.expr(m)], "params": {"M": m}}


# The implementations get the SizeOp inputs (``*sizes``) after the tensors, and read the
# symbolic sizes of their parameters from them (see kantensor.ops.sizes.concrete).


def zeros(*sizes: np.ndarray, shape: tuple[Size, ...], dtype: str) -> np.ndarray:
    """``numpy.zeros``."""
    return np.zeros(concrete([shape], sizes)[0], dtype=dtype)


def ones(*sizes: np.ndarray, shape: tuple[Size, ...], dtype: str) -> np.ndarray:
    """``numpy.ones``."""
    return np.ones(concrete([shape], sizes)[0], dtype=dtype)


def eye(*sizes: np.ndarray, N: Size, M: Size, k: Size, dtype: str) -> np.ndarray:
    """``numpy.eye``."""
    n, m, k = concrete([N, M, k], sizes)
    return np.eye(n, m, k, dtype=dtype)


def full(fill_value: np.ndarray, *sizes: np.ndarray, shape: tuple[Size, ...],
         dtype: str | None) -> np.ndarray:
    """``numpy.full`` with the fill value (a tensor input) first."""
    return np.full(concrete([shape], sizes)[0], fill_value,
                   dtype=dtype or np.asarray(fill_value).dtype)


def full_like(a: np.ndarray, fill_value: np.ndarray, dtype: str | None) -> np.ndarray:
    """``numpy.full_like`` (the fill value is a tensor input)."""
    return np.full_like(a, fill_value, dtype=dtype)


def arange(*sizes: np.ndarray, start: Size, stop: Size, step: Size, dtype: str | None
           ) -> np.ndarray:
    """``numpy.arange`` of ints."""
    start, stop, step = concrete([start, stop, step], sizes)
    return np.arange(start, stop, step, dtype=dtype or "int64")


def random(*sizes: np.ndarray, shape: tuple[Size, ...], distribution: str, low: Any,
           high: Any, dtype: str, seed: int | None = None) -> np.ndarray:
    """Samples of ``distribution`` (a fresh generator's: new values at every run, unless
    ``seed`` is given)."""
    rng = np.random.default_rng(seed)
    shape = concrete([shape], sizes)[0]
    if distribution == "integers":
        return rng.integers(low, high, shape).astype(dtype)
    sample = rng.uniform if distribution == "uniform" else rng.normal
    return sample(low, high, shape).astype(dtype)
