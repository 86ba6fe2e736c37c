"""Builders for reductions over ``axis`` (int, negative, tuple or None) with
``keepdims``, and for cumulative sums.

Every builder names the input's axes with one dim each (``a0, a1, ...``) and
makes the output from those dims. ``nonempty`` holds where-clauses for the
reductions without an identity (max, min, argmax, argmin): NumPy rejects
them when a reduced axis has size 0, even if the result would be empty.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...syntax.ast import Clause, DimVar
from ...types.dtypes import dtype_info, is_integer
from ..params import ParamError, normalize_axes, normalize_axis
from ..pyints import fits
from ..sizes import SizeNames, concrete
from ..templates import checked, dims, reads_ranks, size_of


def _scalar_axis(ndim: int, axis: Any) -> bool:
    """True for an int axis 0 or -1 of a 0-d input: NumPy's ufunc reductions,
    argmax and cumsum treat it as the only "axis" of a scalar."""
    return ndim == 0 and isinstance(axis, int) and axis in (0, -1)


def _nonempty(axes_of: list[DimVar], axes: tuple[int, ...]) -> list[Clause]:
    """``a1 >= 1, ...`` for every reduced axis (one clause per axis, so a failure names
    the axis), each with NumPy's words for its failure."""
    return [checked(axes_of[i] >= 1, lambda _, types, i=i: (
        f"zero-size array to a reduction with no identity: axis {i} of {types[0]} has "
        "size 0")) for i in axes]


@reads_ranks
def reduce(types: tuple, axis: int | tuple[int, ...] | None, keepdims: bool,
           **_: Any) -> dict[str, Any]:
    """``x`` -> ``y`` with the reduced axes dropped (or kept as 1); ``nonempty``
    requires every reduced axis to be non-empty (reductions without identity).
    Like NumPy's ufunc reductions, an int axis 0 or -1 of a 0-d input reduces nothing."""
    (x,) = types
    if _scalar_axis(x.ndim, axis):
        axis = ()
    return reduce_strict(types, axis, keepdims)


@reads_ranks
def reduce_strict(types: tuple, axis: int | tuple[int, ...] | None, keepdims: bool,
                  **_: Any) -> dict[str, Any]:
    """:func:`reduce` without the 0-d exception (mean, var, std: NumPy normalises
    their axis against the rank, and a 0-d input has no axis 0)."""
    (x,) = types
    axes = normalize_axes(axis, x.ndim)
    a = dims("a", x.ndim)
    kept = [1 if i in axes else d for i, d in enumerate(a)] if keepdims else \
        [d for i, d in enumerate(a) if i not in axes]
    return {"x": a, "y": kept, "nonempty": _nonempty(a, axes), "params": {"axis": axes}}


@reads_ranks
def reduce_one(types: tuple, axis: int | None, keepdims: bool, **_: Any) -> dict[str, Any]:
    """Like :func:`reduce` for one axis or None (the flattened tensor): argmax and
    argmin. ``None`` needs a non-empty tensor; with ``keepdims`` every axis stays as 1.
    An int axis 0 or -1 of a 0-d input means the same as None."""
    (x,) = types
    a = dims("a", x.ndim)
    if axis is None or _scalar_axis(x.ndim, axis):
        out: list[Any] = [1] * x.ndim if keepdims else []
        return {"x": a, "y": out, "nonempty": _nonempty(a, tuple(range(x.ndim))),
                "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    out = [1 if i == ax else d for i, d in enumerate(a)] if keepdims else \
        [d for i, d in enumerate(a) if i != ax]
    return {"x": a, "y": out, "nonempty": _nonempty(a, (ax,)), "params": {"axis": ax}}


@reads_ranks
def accumulate(types: tuple, axis: int | None, **_: Any) -> dict[str, Any]:
    """cumsum: the same shape along ``axis``; ``None`` flattens first, and so does an
    int axis 0 or -1 of a 0-d input (NumPy gives shape ``(1,)`` for both)."""
    (x,) = types
    a = dims("a", x.ndim)
    if axis is None or _scalar_axis(x.ndim, axis):
        return {"x": a, "y": [size_of(a)], "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    return {"x": a, "y": a, "params": {"axis": ax}}


@reads_ranks
def reduce_in(types: tuple, axis: int | tuple[int, ...] | None, keepdims: bool,
              dtype: str | None = None, **_: Any) -> dict[str, Any]:
    """:func:`reduce`, and the accumulator: ``given`` (0 or 1) picks NumPy's rule or the
    ``dtype`` the user passed, which fills ``acc``."""
    made = reduce(types, axis, keepdims)
    made.update(given=int(dtype is not None), acc=dtype or "t")
    return made


@reads_ranks
def reduce_strict_in(types: tuple, axis: int | tuple[int, ...] | None, keepdims: bool,
                     dtype: str | None = None, **_: Any) -> dict[str, Any]:
    """:func:`reduce_strict` with :func:`reduce_in`'s accumulator (mean's ``dtype``)."""
    made = reduce_strict(types, axis, keepdims)
    made.update(given=int(dtype is not None), acc=dtype or "t")
    return made


@reads_ranks
def reduce_moment(types: tuple, axis: int | tuple[int, ...] | None, keepdims: bool,
                  ddof: int | Any = 0, **_: Any) -> dict[str, Any]:
    """:func:`reduce_strict` for var and std, whose ``ddof`` may be a size: it changes
    no size (NumPy divides by ``max(n - ddof, 0)``, a NaN or an infinity, never an
    error), so its inputs only carry it to the implementation."""
    made = reduce_strict(types[:1], axis, keepdims)
    made["sizes"] = SizeNames(ddof).patterns()
    return made


def var(x: Any, *sizes: Any, axis: Any, keepdims: bool, ddof: Any = 0) -> Any:
    """``numpy.var``; a Dim ``ddof`` is read from the lengths of ``sizes``."""
    return np.var(x, axis=axis, keepdims=keepdims, ddof=concrete([ddof], sizes)[0])


def std(x: Any, *sizes: Any, axis: Any, keepdims: bool, ddof: Any = 0) -> Any:
    """``numpy.std``; a Dim ``ddof`` is read from the lengths of ``sizes``."""
    return np.std(x, axis=axis, keepdims=keepdims, ddof=concrete([ddof], sizes)[0])


@reads_ranks
def reduce_from(types: tuple, axis: int | tuple[int, ...] | None, keepdims: bool,
                initial: Any = None, **_: Any) -> dict[str, Any]:
    """:func:`reduce` for max/min, whose ``initial`` value makes an empty reduction
    legal (it is the result)."""
    made = reduce(types, axis, keepdims)
    if initial is not None:
        made["nonempty"] = []
        dtype = types[0].dtype
        if isinstance(initial, float) and not math.isfinite(initial):
            # NumPy makes it True in bool and refuses it for an integer; a float8 or
            # float4 kind without infinities (or NaN) would make it another value
            info = dtype_info(dtype)
            held = info.infinity if math.isinf(initial) else info.nan
            if dtype != "bool" and not held:
                lacks = "infinities" if math.isinf(initial) else "NaN"
                raise ParamError(f"initial {initial!r} cannot be stored in {dtype}"
                                 + ("" if is_integer(dtype) else f", which has no {lacks}"))
        elif isinstance(initial, int | float) and not isinstance(initial, bool) \
                and is_integer(dtype) and not fits(int(initial), dtype):
            raise ParamError(f"initial {initial!r} is out of bounds for {dtype} (NumPy 2 "
                             "refuses it too)")
    return made
