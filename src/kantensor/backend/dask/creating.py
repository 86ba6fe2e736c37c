"""Creation Ops (``zeros``, ``ones``, ``full``, ``arange``, ``eye``) as Dask's own
functions, chunked by Dask's ``"auto"`` rule, where their sizes are known when the graph
is lowered: ints, or Dims bound from the inputs' shapes (``zeros((n,))``,
``arange(n)``, ``eye(n)``), whose values the size inputs' lengths give (their data is
never read). Lowered as the Op's blockwise instead, such an array was one task holding
the whole output (``eye(n)`` at n = 20,000: 2.98 GiB in one task) while the plan
promised Dask's automatic chunks.

Where Dask's function would not compute NumPy's values the node stays the Op's blockwise
(one chunk, as the plan then says): a fill value the data gives (a Dask array), an
``arange`` of a floating dtype (NumPy fills it as ``start + i * delta`` in that dtype;
Dask's blocks start from their own first values).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask.array as da
import numpy as np
from dask.array.core import normalize_chunks

from ...ops.sizes import SizeOp, concrete
from .blockwise import blockwise, casts, typed
from .lower import NodeCall

__all__ = ["arange", "creation", "eye", "integer_arange"]


def _split(call: NodeCall, values: list[Any]) -> tuple[list[Any], list[Any]]:
    """The node's size inputs (SizeOp outputs: only their lengths mean anything) and its
    other inputs (``full``'s fill value)."""
    sizes, rest = [], []
    for v, x in zip(call.node.inputs, values, strict=True):
        (sizes if v.owner is not None and isinstance(v.owner.op, SizeOp) else rest).append(x)
    return sizes, rest


def creation(fn: Callable[..., Any]) -> Callable[[NodeCall, list[Any]], list[Any]]:
    """``zeros``, ``ones``, ``full`` of a shape known from the output type (its Dims
    bound by the inputs): Dask's function, Dask's automatic chunks; a fill value is cast
    to the output dtype once, as the Op's compute mode casts it. A size the data decides,
    or a fill value that is a Dask array: the Op's blockwise."""
    def lower(call: NodeCall, values: list[Any]) -> list[Any]:
        t = call.out_types[0]
        sizes, rest = _split(call, values)
        if None in t.shape or any(isinstance(x, da.Array) for x in rest):
            return blockwise(call, values)
        if rest:  # full's fill value, a constant of the graph
            cast, _ = casts(call, values)
            fill = np.asarray(cast[0])
            return [typed(call, fn(t.shape, fill, dtype=t.numpy_dtype, chunks="auto"))]
        return [typed(call, fn(t.shape, dtype=t.numpy_dtype, chunks="auto"))]
    return lower


def integer_arange(op: Any, types: tuple) -> bool:
    """Dask's arange computes NumPy's values for an integer dtype (see :func:`arange`)."""
    return np.dtype(dict(op.params).get("dtype") or "int64").kind in "iu"


def arange(call: NodeCall, values: list[Any]) -> list[Any]:
    """``arange`` of an integer dtype: Dask's, computed in int64 (uint64 for uint64) and
    cast, which wraps past a narrow dtype's range exactly as NumPy's fill does (its first
    two values, which must fit, are the Op's to check when it is built)."""
    t = call.out_types[0]
    sizes, rest = _split(call, values)
    params = call.params
    if None in t.shape or rest:
        return blockwise(call, values)
    start, stop, step = concrete([params["start"], params["stop"], params.get("step", 1)],
                                 sizes)
    wide = np.dtype("uint64") if t.numpy_dtype == np.dtype("uint64") else np.dtype("int64")
    y = da.arange(start, stop, step, chunks="auto", dtype=wide)
    if y.shape != t.shape:  # never expected: the type says the length
        return blockwise(call, values)
    return [typed(call, y)]


def eye(call: NodeCall, values: list[Any]) -> list[Any]:
    """``eye(N, M, k)``: Dask's, in square blocks of the side Dask's automatic chunks give
    a square matrix of the larger side (the type gives N and M), made with N >= M (else
    the transpose of ``eye(M, N, -k)``). Dask 2026.8's ``eye`` takes its first row
    chunk for the side of its blocks, and makes a graph that misses blocks where that
    chunk is not the side (``da.eye(7, M=23)``, ``da.eye(7, chunks=23, M=23)``: "Missing
    dependency" when computed)."""
    t = call.out_types[0]
    if None in t.shape:  # (no elements: the Op's own, see algorithms.ALGORITHMS)
        return blockwise(call, values)
    n, m = t.shape
    given = call.size_params("N", "M", "k")
    if given is None:
        return blockwise(call, values)
    k = given[2] or 0
    long, short = max(n, m), min(n, m)
    side = min(normalize_chunks("auto", (long, long), dtype=t.numpy_dtype)[0][0], long)
    y = da.eye(long, chunks=side, M=short, k=k if n >= m else -k, dtype=t.numpy_dtype)
    return [typed(call, y if n >= m else y.T)]


def unseeded(op: Any, types: tuple) -> bool:
    """``random`` without a seed, whose values are any draws: Dask's generator computes
    them block by block (with a seed, NumPy's one stream of that seed, which Dask's
    blocks do not reproduce: the Op's blockwise, one block)."""
    return dict(op.params).get("seed") is None


def random(call: NodeCall, values: list[Any]) -> list[Any]:
    """``random`` of a shape known from the output type, no seed: a fresh Dask
    generator's draws (each call of the Function a new one), Dask's automatic chunks,
    cast to the dtype as the Op's implementation casts NumPy's."""
    t = call.out_types[0]
    if None in t.shape:
        return blockwise(call, values)
    params = call.params
    rng = da.random.default_rng()
    low, high = params.get("low", 0.0), params.get("high", 1.0)
    distribution = params.get("distribution", "uniform")
    if distribution == "integers":
        y = rng.integers(low, high, size=t.shape, chunks="auto")
    else:
        draw = rng.uniform if distribution == "uniform" else rng.normal
        y = draw(low, high, size=t.shape, chunks="auto")
    return [y.astype(t.numpy_dtype)]
