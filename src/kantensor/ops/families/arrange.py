"""Builders for rearranging Ops (``signatures/arrange.toml``): swapaxes, moveaxis,
matrix_transpose, flip, roll, tile, repeat, tril/triu, diag, sort/argsort, vstack/hstack,
dot and linalg.norm.

As in :mod:`kantensor.ops.families.shape`, every input axis gets a name (``a0, a1, ...``) and the
output shape is written over those names; negative or omitted axes are resolved into
explicit parameters, so the implementation computes exactly what the type says. No
builder decides a dtype: the signatures in the catalogue do.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import numpy as np

from ...syntax.ast import DimVar, DTypeVar, FixedDim, InCategory, dim_max, dim_min
from ...syntax.template import Operands
from ...types.dim import Dim
from ...types.dtypes import CATEGORIES, LINALG_AS_FLOAT, LINALG_IN_FLOAT64
from ..params import AxisError, ParamError, normalize_axes, normalize_axis
from ..sizes import SizeNames, concrete
from ..templates import checked, dims, rank_error, reads_ranks, size_of, typed
from .lapack import unsupported


def _one(types: tuple) -> tuple[Any, list[DimVar]]:
    (x,) = types
    return x, dims("a", x.ndim)


@reads_ranks
def swapped(types: tuple, axis1: int, axis2: int, **_: Any) -> dict[str, Any]:
    """swapaxes: two axes exchanged."""
    x, a = _one(types)
    i, j = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    out = list(a)
    out[i], out[j] = out[j], out[i]
    return {"x": a, "y": out, "params": {"axis1": i, "axis2": j}}


@reads_ranks
def moved(types: tuple, source: Any, destination: Any, **_: Any) -> dict[str, Any]:
    """moveaxis: the ``source`` axes go to the positions ``destination``, the others keep
    their order."""
    x, a = _one(types)
    src = source if isinstance(source, tuple) else (source,)
    dst = destination if isinstance(destination, tuple) else (destination,)
    if src is None or dst is None or len(src) != len(dst):
        raise ParamError("source and destination must have the same number of axes, got "
                         f"{source!r} and {destination!r}")
    s = [normalize_axis(a, x.ndim) for a in src]
    d = [normalize_axis(a, x.ndim) for a in dst]
    if len(set(s)) != len(s) or len(set(d)) != len(d):
        raise AxisError(f"repeated axis in source {source!r} or destination {destination!r}")
    order = [i for i in range(x.ndim) if i not in s]
    for dest, axis in sorted(zip(d, s, strict=True)):
        order.insert(dest, axis)
    return {"x": a, "y": [a[i] for i in order],
            "params": {"source": tuple(s), "destination": tuple(d)}}


@reads_ranks
def matrix_transposed(types: tuple, **_: Any) -> dict[str, Any]:
    """matrix_transpose (``x.mT``): the last two axes exchanged; needs 2 dimensions."""
    x, a = _one(types)
    if x.ndim < 2:
        raise rank_error("matrix_transpose", f"needs at least 2 dimensions, got {x.ndim}")
    return {"x": a, "y": [*a[:-2], a[-1], a[-2]]}


@reads_ranks
def same_axes(types: tuple, axis: Any = None, **_: Any) -> dict[str, Any]:
    """flip: the shape unchanged; ``axis`` (None: all) resolved."""
    x, a = _one(types)
    axes = normalize_axes(axis, x.ndim)
    return {"x": a, "params": {"axis": axes}}


@reads_ranks
def rolled(types: tuple, shift: Any, axis: Any, **_: Any) -> dict[str, Any]:
    """roll: the shape unchanged. With ``axis=None`` one shift of the flattened tensor,
    several int shifts their sum (NumPy rolls the flattened tensor by each in turn: its
    axis 0 broadcast against them), several with a size among them kept as given (the
    implementation gives NumPy the values, which it sums so); else shifts and axes
    broadcast against each other (repeated axes add up). A shift that is a size (of
    either sign) changes no size: its inputs carry it to the implementation."""
    x, a = _one(types[:1])
    shift = shift if isinstance(shift, tuple) else (shift,)  # resolved once already
    if axis is None and len(shift) != 1 and all(type(s) is int for s in shift):
        shift = (sum(shift),)
    more = SizeNames(shift).patterns()
    if axis is None:
        return {"x": a, "sizes": more, "params": {"shift": shift[0] if len(shift) == 1
                                                  else shift}}
    axes = axis if isinstance(axis, tuple) else (axis,)
    if x.ndim == 0:  # (NumPy rolls a 0-d array on axis=None only; () fails unpacking)
        raise ParamError(f"a 0-d tensor rolls on axis=None only, got axis={axis}")
    if len(shift) != len(axes) and 1 not in (len(shift), len(axes)):
        raise ParamError(f"shift {shift} and axis {axes} do not broadcast")
    resolved = tuple(normalize_axis(a, x.ndim) for a in axes)
    return {"x": a, "sizes": more, "params": {"shift": shift, "axis": resolved}}


@reads_ranks
def tiled(types: tuple, reps: tuple[int | Dim, ...], **_: Any) -> dict[str, Any]:
    """tile: the shape and reps are aligned at the end (the shorter padded with 1s in
    front) and multiply. A Dim of ``reps`` is the length of a SizeOp input."""
    x, a = _one(types[:1])
    sizes = SizeNames(reps)
    if any(isinstance(r, int) and r < 0 for r in reps):
        raise ParamError(f"reps must be non-negative, got {reps}")
    n = max(x.ndim, len(reps))
    padded_dims = [FixedDim(1)] * (n - x.ndim) + a
    padded_reps = (1,) * (n - len(reps)) + tuple(reps)
    out = [d if isinstance(r, int) and r == 1 else d * sizes.expr(r)
           for d, r in zip(padded_dims, padded_reps, strict=True)]
    return {"x": a, "sizes": sizes.patterns(), "y": out}


@reads_ranks
def repeated(types: tuple, repeats: int | Dim, axis: int | None, **_: Any) -> dict[str, Any]:
    """repeat: every element ``repeats`` times along ``axis`` (None: of the flattened
    tensor). A Dim ``repeats`` is the length of a SizeOp input."""
    x, a = _one(types[:1])
    sizes = SizeNames(repeats)
    if isinstance(repeats, int) and repeats < 0:
        raise ParamError(f"repeats must be non-negative, got {repeats}")
    r, more = sizes.expr(repeats), sizes.patterns()
    if axis is None or (x.ndim == 0 and axis in (0, -1)):  # a scalar's only "axis"
        return {"x": a, "sizes": more, "y": [size_of(a) * r], "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    out = [d * r if i == ax else d for i, d in enumerate(a)]
    return {"x": a, "sizes": more, "y": out, "params": {"axis": ax}}


def tril(x: np.ndarray, *sizes: np.ndarray, k: int | Dim = 0) -> np.ndarray:
    """``numpy.tril``; a Dim ``k`` is read from the lengths of ``sizes``."""
    return np.tril(x, concrete([k], sizes)[0])


def triu(x: np.ndarray, *sizes: np.ndarray, k: int | Dim = 0) -> np.ndarray:
    """``numpy.triu``; a Dim ``k`` is read from the lengths of ``sizes``."""
    return np.triu(x, concrete([k], sizes)[0])


def roll(x: np.ndarray, *sizes: np.ndarray, shift: Any, axis: Any = None) -> np.ndarray:
    """``numpy.roll``; the Dims of ``shift`` are read from the lengths of ``sizes``."""
    return np.roll(x, concrete([shift], sizes)[0], axis=axis)


def tile(x: np.ndarray, *sizes: np.ndarray, reps: tuple[int | Dim, ...]) -> np.ndarray:
    """``numpy.tile``; the Dims of ``reps`` are the lengths of ``sizes``."""
    return np.tile(x, concrete([reps], sizes)[0])


def repeat(x: np.ndarray, *sizes: np.ndarray, repeats: int | Dim, axis: int | None
           ) -> np.ndarray:
    """``numpy.repeat``; a Dim ``repeats`` is the length of ``sizes[0]``."""
    return np.repeat(x, concrete([repeats], sizes)[0], axis=axis)


@reads_ranks
def triangle(types: tuple, k: int | Dim = 0, **_: Any) -> dict[str, Any]:
    """tril/triu: the shape unchanged, except that a vector is broadcast to a square
    matrix (as NumPy does); a 0-d tensor has no triangle. A diagonal ``k`` that is a
    size (of either sign: ``x.shape[1] - 2``, ``-n``) changes no size: its inputs
    carry it to the implementation."""
    x, a = _one(types[:1])
    more = SizeNames(k).patterns()
    if x.ndim == 0:
        raise rank_error("tril/triu", "needs at least 1 dimension, got 0")
    if x.ndim == 1:
        return {"x": a, "sizes": more, "y": [a[0], a[0]]}
    return {"x": a, "sizes": more, "y": a}


@reads_ranks
def diagonal_or_matrix(types: tuple, k: int, **_: Any) -> dict[str, Any]:
    """diag: a vector gives the square matrix with it on the k-th diagonal; a matrix
    gives its k-th diagonal (empty past the corner)."""
    x, a = _one(types)
    if x.ndim == 1:
        n = a[0] + abs(k) if k else a[0]
        return {"x": a, "y": [n, n]}
    if x.ndim != 2:
        raise rank_error("diag", f"input must be 1-d or 2-d, got {x.ndim} dimensions")
    m, n = a
    size = dim_max(0, dim_min(m, n - k)) if k >= 0 else dim_max(0, dim_min(m - (-k), n))
    return {"x": a, "y": [size]}


@reads_ranks
def argsorted(types: tuple, axis: int | None, **_: Any) -> dict[str, Any]:
    """argsort: as :func:`sorted_along`, but like NumPy a 0-d input takes axis 0 or -1
    (and gives one index, as if flattened)."""
    (x,) = types
    return sorted_along(types, None if x.ndim == 0 and axis in (0, -1) else axis)


@reads_ranks
def sorted_along(types: tuple, axis: int | None, **_: Any) -> dict[str, Any]:
    """sort/argsort: the same shape along ``axis``; None flattens first."""
    x, a = _one(types)
    if axis is None:
        return {"x": a, "y": [size_of(a)], "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    return {"x": a, "y": a, "params": {"axis": ax}}


@reads_ranks
def vstacked(types: tuple, **_: Any) -> dict[str, Any]:
    """vstack: vectors become rows, then everything is concatenated along axis 0."""
    return _padded_join(types, 2, lambda n: 0, "vstack")


@reads_ranks
def hstacked(types: tuple, **_: Any) -> dict[str, Any]:
    """hstack: concatenated along axis 1, or along axis 0 when the inputs are 1-d."""
    if types and all(t.ndim <= 1 for t in types):
        return _padded_join(types, 1, lambda n: 0, "hstack")
    return _padded_join(types, 1, lambda n: 1, "hstack")


def _padded_join(types: tuple, at_least: int, ax_of: Any, op: str) -> dict[str, Any]:
    """Inputs padded with leading 1s up to ``at_least`` dimensions (NumPy's atleast_1d/
    atleast_2d), then joined along an axis. A shared axis that some input only has as a
    padded 1 is 1 everywhere."""
    if not types:
        raise ParamError(f"{op} needs at least one tensor")
    ndim = max(at_least, *(t.ndim for t in types))
    if any(max(t.ndim, at_least) != ndim for t in types):
        raise rank_error(op, "all the input tensors must have the same number of "
                         f"dimensions, got {[t.ndim for t in types]}")
    ax = ax_of(ndim)
    pads = [ndim - t.ndim for t in types]
    shared: list[Any] = [FixedDim(1) if any(j < p for p in pads) else d
                         for j, d in enumerate(dims("d", ndim))]
    inputs, along = [], []
    for i, pad in enumerate(pads):
        full = [DimVar(f"c{i}") if j == ax else shared[j] for j in range(ndim)]
        along.append(FixedDim(1) if ax < pad else full[ax])
        inputs.append(typed(full[pad:]))
    out = [functools.reduce(operator.add, along) if j == ax else d
           for j, d in enumerate(shared)]
    return {"inputs": Operands(inputs), "y": out}


@reads_ranks
def dotted(types: tuple, **_: Any) -> dict[str, Any]:
    """dot: a product of 0-d tensors; vector . vector; matrix products; an N-d tensor
    times a vector sums over the last axis; N-d . M-d sums the last axis of a with the
    second-to-last of b, keeping all the others (a's first)."""
    a, b = types
    da, db = dims("a", a.ndim), dims("b", b.ndim)
    if a.ndim == 0 or b.ndim == 0:
        return {"a": da, "b": db, "y": da or db}
    k = DimVar("k")
    if b.ndim == 1:
        da[-1] = db[0] = k
        return {"a": da, "b": db, "y": da[:-1]}
    da[-1] = db[-2] = k
    return {"a": da, "b": db, "y": da[:-1] + db[:-2] + db[-1:]}


@reads_ranks
def normed(types: tuple, ord: Any, axis: Any, keepdims: bool, **_: Any) -> dict[str, Any]:  # noqa: A002
    """linalg.norm: axis None is the whole tensor (flattened) when ord is None, else
    the vector or matrix norm of a 1-d or 2-d tensor; else one axis (a vector norm:
    ord a number) or a pair of axes (a matrix norm: None, 'fro', 'nuc', +-1, +-2,
    +-inf), as NumPy checks them."""
    x, a = _one(types)
    if axis is None:
        if ord is not None and x.ndim not in (1, 2):
            raise ParamError("Improper number of dimensions to norm.")
        axes: tuple[int, ...] = tuple(range(x.ndim))
    else:
        normalize_axes(axis, x.ndim)  # (distinct, in range)
        axes = tuple(normalize_axis(i, x.ndim) for i in
                     ((axis,) if isinstance(axis, int) else axis))  # in the given order:
        if len(axes) not in (1, 2):  # (row, column) of a matrix norm
            raise ParamError(f"norm takes one axis or a pair of axes, got {axis!r}")
    matrix = len(axes) == 2 and (axis is not None or ord is not None)
    if not matrix and ord is not None and len(axes) == 1 and isinstance(ord, str):
        raise ParamError(f"Invalid norm order '{ord}' for vectors")
    if matrix and ord not in (None, "fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise ParamError("Invalid norm order for matrices.")
    kept = [1 if i in axes else d for i, d in enumerate(a)] if keepdims else \
        [d for i, d in enumerate(a) if i not in axes]
    resolved = None if axis is None else (axes[0] if len(axes) == 1 else axes)
    singular = matrix and ord in (2, -2, "nuc")  # (singular values: LAPACK's svd)
    return {"x": a, "y": kept, "params": {"axis": resolved, "ord": ord},
            "nonempty": _least_of(a, axes, ord, matrix),
            "numpys": [checked(InCategory(DTypeVar("t"), _SVD_DTYPES if singular else
                                          _NUMPY_INEXACT), unsupported)],
            "lacked": [checked(InCategory(DTypeVar("t"), _LACKED), unsupported)]}


#: NumPy's inexact dtypes (its norm keeps their real dtype), those its svd takes (not
#: float16: "array type float16 is unsupported in linalg"), and the dtypes its norm
#: computes in float64 (``x.astype(float)``): integers, bool and the inexact dtypes
#: NumPy lacks.
_NUMPY_INEXACT = tuple(d for d in CATEGORIES["inexact"] if d not in LINALG_IN_FLOAT64)
_SVD_DTYPES = tuple(d for d in _NUMPY_INEXACT if d in LINALG_AS_FLOAT)
_LACKED = (*(d for d in CATEGORIES["inexact"] if d in LINALG_IN_FLOAT64),
           *CATEGORIES["integer"], *CATEGORIES["bool"])


def _least_of(a: list[DimVar], axes: tuple[int, ...], ord: Any, matrix: bool  # noqa: A002
              ) -> list[Any]:
    """The axes NumPy's norm takes a minimum over, which must not be empty (a minimum has
    no identity; the maxima start at 0): a vector's for ``ord=-inf``; of a matrix
    ``(row, column)``, the column's for -1 (the least column sum), the row's for -inf,
    both for -2 (the least singular value)."""
    if matrix:
        row, col = axes
        least = {-1: (col,), -2: (row, col)}.get(ord, (row,) if ord == -math.inf else ())
    else:
        least = axes[:1] if ord == -math.inf and len(axes) == 1 else ()
    return [checked(a[i] >= 1, lambda _, types, i=i: (
        f"zero-size array to reduction operation minimum which has no identity: axis {i} "
        f"of {types[0]} has size 0")) for i in least]
