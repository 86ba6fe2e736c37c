"""ONNX's indexing ops: Gather, GatherElements, ScatterElements, TensorScatter, OneHot,
NonZero, Compress, Unique, Trilu and ReverseSequence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...ops.params import ParamError, normalize_axis
from ...ops.sizes import SizeNames
from ...ops.templates import (
    alternative,
    builder,
    checked,
    dims,
    reads_ranks,
    shifted,
    signed,
    size_of,
    typed,
)
from ...syntax.alternative import Alternative
from ...syntax.ast import Clause, Compare, DimVar, DTypeVar, InCategory
from ...types.dim import Dim
from ..floatsizes import float_sizes
from ..intervals import stated
from ..shared import NotKnown

#: An unknown size of an output (a count known only when the graph runs).
U = DimVar("u")


@reads_ranks
def build_gather(types: tuple, axis: int, indices_bounds: Any = None, **_: Any
                 ) -> dict[str, Any]:
    """Gather: the indices' axes replace ``axis``; where the interval of the indices'
    values is known (``indices_bounds``, :mod:`kantensor.onnx.intervals`), each index fits
    that axis (no condition on indices that are empty)."""
    x, i = types[:2]  # then the inputs carrying the sizes of the bounds
    ax = normalize_axis(axis, x.ndim)
    a, idx = dims("a", x.ndim), dims("i", i.ndim)
    return {"sig": _fitting(a, idx, a[:ax] + idx + a[ax + 1:], a[ax], indices_bounds),
            "params": {"axis": ax}}


_INTEGER = InCategory(DTypeVar("I"), "integer")


def _fitting(x: list, idx: list[DimVar], y: list, n: DimVar, bounds: Any,
             ties: Sequence[Clause] = (), updates: bool = False) -> list[Alternative]:
    """The alternatives of a gather of ``x`` by indices ``idx`` along an axis of size
    ``n`` (each with the clauses ``ties``; ``updates``: a scatter's, of the indices'
    shape, after them): where the interval ``bounds`` = (lo, end) of the indices' values
    is known, the indices fit: ``end <= n`` and ``lo >= -n``; where it is not (indices
    that are data), some value fits: ``n >= 1`` (:func:`some_fit`); or there are no
    indices."""
    inputs, out = [typed(x, "T"), typed(idx, "I")], [typed(y, "T")]
    if updates:
        inputs.append(typed(idx, "T"))
    if not stated(bounds):  # (unknown, or a size that is no name: not said)
        return some_fit(inputs, out, [_INTEGER, *ties], [n], idx)
    lo, end = bounds
    # the size inputs are those the call makes of ``bounds`` (ops.sizes.symbolic): an
    # input carries ``seq + 3`` itself, not ``seq``
    sizes = SizeNames(bounds)
    inputs += sizes.patterns()
    clauses = [signed(sizes.expr(end)) <= n]
    if not (isinstance(lo, int) and lo >= 0):
        low = sizes.expr(lo)
        clauses.append((shifted(n, low) if isinstance(low, int) else low + n) >= 0)
    fits = alternative(inputs, out, [_INTEGER, *ties, *clauses])
    if not idx:  # one index: it must fit (indices of an interval of ints may be none: a
        return [fits]  # known Range expanded to [B, 5] has none at B == 0)
    return [fits, alternative(inputs, out, [_INTEGER, *ties, size_of(idx).eq(0)])]


def some_fit(inputs: list, out: list, clauses: list[Clause], axes: Sequence[DimVar],
              idx: Sequence[Any]) -> list[Alternative]:
    """The alternatives of indices that are data (their values unknown) into ``axes``:
    each of those axes has an entry (``>= 1``), or there are no indices (``idx``, the dims
    whose product counts them, has a 0). Where an axis is empty no index fits it, and
    onnxruntime fails whatever the values; where none is, index 0 fits every axis."""
    fits = alternative(inputs, out, [*clauses, *(a >= 1 for a in axes)])
    if not axes:
        return [alternative(inputs, out, clauses)]
    if not idx:  # one index: it must fit
        return [fits]
    return [fits, alternative(inputs, out, [*clauses, size_of(idx).eq(0)])]


@float_sizes
def gather(x: np.ndarray, i: np.ndarray, *sizes: np.ndarray, axis: int, **_: Any
           ) -> np.ndarray:
    i = np.where(i < 0, i + x.shape[axis], i) if i.dtype != object else i
    return np.take(x, i, axis=axis)


@reads_ranks
def build_gather_elements(types: tuple, axis: int, indices_bounds: Any = None, **_: Any
                          ) -> dict[str, Any]:
    """GatherElements: the indices' shape, of data's rank, each size at most data's
    except along ``axis`` (:func:`_within`); each index fits the axis where the interval
    of their values is known (as Gather's)."""
    x, i = types[:2]
    if x.ndim != i.ndim:
        raise ParamError(f"data has {x.ndim} axes but indices {i.ndim}")
    ax = normalize_axis(axis, x.ndim)
    a, idx = dims("a", x.ndim), dims("i", i.ndim)
    return {"sig": _fitting(a, idx, idx, a[ax], indices_bounds, _within(idx, a, ax)),
            "params": {"axis": ax}}


def _within(idx: list[DimVar], a: list[DimVar], axis: int) -> list[Clause]:
    """``idx[k] <= a[k]`` for each axis but ``axis``: onnxruntime's rule for the indices
    of GatherElements and ScatterElements (even empty ones)."""
    return [checked(i <= d, lambda v, _, i=i.name, d=d.name, k=k: (
        f"indices' axis {k} has size {v[i]}, more than data's {v[d]}"))
        for k, (i, d) in enumerate(zip(idx, a, strict=True)) if k != axis]


def gather_elements(x: np.ndarray, i: np.ndarray, *sizes: np.ndarray, axis: int,
                    **_: Any) -> np.ndarray:
    i = np.where(i < 0, i + x.shape[axis], i)
    return np.take_along_axis(x, i, axis=axis)


@reads_ranks
def build_scatter_elements(types: tuple, axis: int = 0, indices_bounds: Any = None,
                           **_: Any) -> dict[str, Any]:
    """ScatterElements (and Scatter): data, indices and updates of one rank, updates of
    the indices' shape, each of its sizes at most data's except along ``axis``; each
    index fits that axis where the interval of their values is known (as Gather's: a
    constant, a Range), else data has an entry along ``axis``, or there are none
    (:func:`_fitting`)."""
    x, i, u = types[:3]  # then the inputs carrying the sizes of the bounds
    if not x.ndim == i.ndim == u.ndim:
        raise ParamError(f"data, indices and updates must have one rank, got {x.ndim}, "
                         f"{i.ndim} and {u.ndim}")
    ax = normalize_axis(axis, x.ndim)
    a, idx = dims("a", x.ndim), dims("i", i.ndim)
    return {"sig": _fitting(a, idx, a, a[ax], indices_bounds, _within(idx, a, ax), True),
            "params": {"axis": ax}}


def scatter_elements(x: np.ndarray, i: np.ndarray, u: np.ndarray, *sizes: np.ndarray,
                     axis: int = 0, reduction: str = "none", **_: Any) -> np.ndarray:
    y = x.copy()
    i = np.where(i < 0, i + x.shape[axis], i)
    idx = list(np.indices(i.shape, sparse=True))
    idx[axis] = i
    ufunc = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
    if reduction == "none":
        y[tuple(idx)] = u
    else:
        ufunc[reduction].at(y, tuple(idx), u)
    return y


@reads_ranks
def build_tensor_scatter(types: tuple, axis: int = -2, **_: Any) -> dict[str, Any]:
    """TensorScatter: the update has the cache's shape but along ``axis`` (the sequence,
    at most the cache's, which is not the batch axis 0); write_indices one per batch."""
    past, update = types[:2]
    if past.ndim != update.ndim or past.ndim < 2:
        raise ParamError(f"past_cache and update must have one rank of 2 or more, got "
                         f"{past.ndim} and {update.ndim}")
    ax = normalize_axis(axis, past.ndim)
    if ax == 0:
        raise ParamError("axis cannot be the batch axis 0")
    a = dims("a", past.ndim)
    (u,) = dims("u")
    fits = [checked(u <= a[ax], lambda v, _, p=a[ax].name: (
        f"the update's sequence ({v['u']}) is longer than the cache's ({v[p]})"))]
    return {"p": a, "u": [*a[:ax], u, *a[ax + 1:]],
            "rest": [typed([a[0]], "int64")] * (len(types) - 2), "fits": fits}


def tensor_scatter(past: np.ndarray, update: np.ndarray, *idx: np.ndarray, axis: int = -2,
                   mode: str = "linear") -> np.ndarray:
    out = past.copy()
    ax = axis % past.ndim
    n, m = past.shape[ax], update.shape[ax]
    starts = idx[0].tolist() if idx else [0] * past.shape[0]
    for b, start in enumerate(starts):
        where = np.arange(start, start + m)
        if mode == "circular":
            where = where % n
        target = [slice(None)] * past.ndim
        target[0], target[ax] = b, where
        out[tuple(target)] = np.take(update[b], np.arange(m), axis=ax - 1)
    return out


@builder
def build_one_hot(types: tuple, axis: int, depth_value: Any, indices_bounds: Any = None,
                  **_: Any) -> dict[str, Any]:
    """OneHot: the indices' shape with the depth inserted at ``axis``. The depth is a
    scalar or a tensor of one entry (the spec), a float one truncated (onnxruntime casts
    it to int64); onnxruntime refuses a depth below 1, so an int one is checked now and
    a size (``Shape(x)[0]``, a Loop's iteration number) is needed >= 1.
    ``indices_bounds`` (OneHot-9's, :func:`build_one_hot_9`) only names its size inputs."""
    i = types[0]
    n = i.ndim + 1
    ax = normalize_axis(axis, n)
    a = dims("a", i.ndim)
    depth = depth_value[0] if depth_value and len(depth_value) == 1 else None
    depth = int(depth) if isinstance(depth, float) else depth
    # (the size inputs of the call's size parameters, in its order: the depth's, then
    # those of the indices' interval, which the relation does not read)
    sizes = SizeNames(depth if isinstance(depth, Dim) else None, indices_bounds)
    out: list[Any] = list(a)
    clauses: list[Clause] = []
    if isinstance(depth, int):
        if depth < 1:
            raise ParamError(f"depth {depth} is below 1 (onnxruntime refuses it)")
        out.insert(ax, depth)
    elif isinstance(depth, Dim):
        at = sizes.expr(depth)
        out.insert(ax, at)
        clauses = [Compare(">=", at, 1)]
    else:
        out.insert(ax, U)
        clauses = [U >= 0]
    return {"i": a, "depth": [1] if types[1].ndim == 1 else [], "sizes": sizes.patterns(), "y": out,
            "fits": clauses, "params": {"axis": ax}}


@builder
def build_one_hot_9(types: tuple, axis: int, depth_value: Any, indices_bounds: Any = None,
                    **_: Any) -> dict[str, Any]:
    """OneHot-9 (opsets 9 and 10): OneHot's relation, and indices with a negative entry
    (``indices_bounds``, the interval of their values where the model states it) leave
    the node untyped, its contract undecided. onnx's inference, which onnxruntime runs as
    it loads a model, refuses them where they are a constant ("must be non-negative for
    OneHot opset < 11"), while its kernel runs computed ones; an interval does not tell
    the two apart."""
    if indices_bounds is not None and isinstance(indices_bounds[0], int) \
            and indices_bounds[0] < 0:
        raise NotKnown(f"OneHot before opset 11 of indices whose least entry is "
                       f"{indices_bounds[0]}: onnxruntime refuses a constant one, runs one "
                       "that is computed")
    return build_one_hot(types, axis, depth_value, indices_bounds)


def one_hot(indices: np.ndarray, depth: np.ndarray, values: np.ndarray, *sizes: np.ndarray,
            axis: int, **_: Any) -> np.ndarray:
    """OneHot: indices cast to int64 first (the spec; a float index truncated toward
    zero, as onnxruntime reads it: -2.7 is -2), a negative one counting from the end (from
    opset 11; onnxruntime reads it so at every opset), one out of range a row of
    ``values[0]``."""
    d = int(np.asarray(depth).ravel()[0])
    i = np.asarray(indices).astype(np.int64)
    i = np.where(i < 0, i + d, i)
    hot = np.expand_dims(i, axis) == np.arange(d).reshape([d if j == axis else 1
                                                          for j in range(i.ndim + 1)])
    return np.where(hot, values[1], values[0])


@reads_ranks
def build_nonzero(types: tuple, **_: Any) -> dict[str, Any]:
    x = types[0]
    a = dims("a", x.ndim)
    return {"x": a, "n": x.ndim, "size": size_of(a)}


def nonzero(x: np.ndarray) -> np.ndarray:
    return np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)


@reads_ranks
def build_compress(types: tuple, axis: int | None = None, **_: Any) -> dict[str, Any]:
    x = types[0]
    a = dims("a", x.ndim)
    if axis is None:
        return {"x": a, "y": [U], "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    out: list[Any] = list(a)
    out[ax] = U
    return {"x": a, "y": out, "params": {"axis": ax}}


def compress(x: np.ndarray, condition: np.ndarray, *, axis: int | None = None
             ) -> np.ndarray:
    return np.compress(condition, x, axis=axis)


@reads_ranks
def build_unique(types: tuple, axis: int | None = None, **_: Any) -> dict[str, Any]:
    """Unique: the distinct entries (no axis) or slices along ``axis``, their count a
    size the data decides. Slices along ``axis`` whose inner axes (those after it) hold
    no element kill onnxruntime's process (an abort) unless X's axes up to ``axis`` hold
    none either, so the relation needs ``size(X) >= size(X.shape[:axis + 1])``
    (brute-forced over ranks 2 to 4, sizes 0 to 2, every axis)."""
    x = types[0]
    a = dims("a", x.ndim)
    if axis is None:
        return {"x": a, "y": [U], "n": size_of(a), "fits": [], "params": {"axis": None}}
    ax = normalize_axis(axis, x.ndim)
    out: list[Any] = list(a)
    out[ax] = U
    fits = [checked(size_of(a) >= size_of(a[:ax + 1]), lambda v, types, ax=ax: (
        f"Unique along axis {ax} of {types[0]}: slices of no element (onnxruntime "
        "aborts)"))] if ax < x.ndim - 1 else []
    return {"x": a, "y": out, "n": a[ax], "fits": fits, "params": {"axis": ax}}


def unique(x: np.ndarray, *, axis: int | None = None, sorted: int = 1) -> tuple:
    y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, axis=axis)
    if not sorted:
        order = np.argsort(first, kind="stable")
        rank = np.argsort(order)
        y = np.take(y, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    return y, first.astype(np.int64), inverse.reshape(-1).astype(np.int64), \
        counts.astype(np.int64)


@reads_ranks
def build_trilu(types: tuple, **_: Any) -> dict[str, Any]:
    """Trilu: the input's shape (of rank 2 or more, a batch of matrices); k, where given,
    a scalar or a vector of one entry (onnxruntime refuses any other at every value:
    "IsScalarOr1ElementVector"), of dtype ``K`` (the entry's where-clause says which)."""
    x = types[0]
    if x.ndim < 2:
        raise ParamError(f"Trilu takes an input of rank 2 or more, got {x.ndim}")
    rest = []
    for k in types[1:]:
        if k.ndim > 1:
            raise ParamError(f"Trilu's k is a scalar or a vector of one entry, got "
                             f"{k.ndim} dimensions")
        rest.append(typed([1] * k.ndim, "K"))
    return {"x": dims("a", x.ndim), "rest": rest}


def trilu(x: np.ndarray, *k: np.ndarray, upper: int = 1) -> np.ndarray:
    shift = int(k[0]) if k else 0
    return np.triu(x, shift) if upper else np.tril(x, shift)


@reads_ranks
def build_reverse_sequence(types: tuple, batch_axis: int = 1, time_axis: int = 0,
                           sequence_lens_value: Any = None, **_: Any) -> dict[str, Any]:
    """ReverseSequence: one sequence length per batch entry (the input of rank 2 or more,
    its batch and time axes 0 and 1). Constant lengths (``sequence_lens_value``) are at
    most the time axis (onnxruntime refuses a longer one, and any negative one); lengths
    that are data are not checked (what they need, ``0 <= len <= time``, the run
    decides)."""
    x = types[0]
    if x.ndim < 2 or {batch_axis, time_axis} != {0, 1}:
        raise ParamError(f"the input must have 2 axes or more and batch_axis, time_axis be "
                         f"0 and 1, got {x.ndim} axes, {batch_axis} and {time_axis}")
    a = dims("a", x.ndim)
    fits: list[Clause] = []
    if sequence_lens_value:
        if min(sequence_lens_value) < 0:
            raise ParamError(f"a sequence length is negative: {min(sequence_lens_value)}")
        fits.append(a[time_axis] >= max(sequence_lens_value))
    return {"x": a, "lens": [a[batch_axis]], "fits": fits,
            "params": {"sequence_lens_value": None}}


def reverse_sequence(x: np.ndarray, lengths: np.ndarray, *, batch_axis: int = 1,
                     time_axis: int = 0, **_: Any) -> np.ndarray:
    y = x.copy()
    for b, n in enumerate(lengths.tolist()):
        src = [slice(None)] * x.ndim
        src[batch_axis], src[time_axis] = b, slice(0, n)
        dst = list(src)
        dst[time_axis] = slice(n - 1, None, -1) if n else slice(0, 0)
        y[tuple(src)] = x[tuple(dst)]
    return y
