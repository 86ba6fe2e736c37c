"""What the Dask tasks run: module-level callables holding only picklable data.

A task ships its kernel to a worker (another process on a ``dask.distributed`` cluster),
so a kernel holds the Op's NumPy implementation (a module-level function or a NumPy
ufunc, pickled by reference), its keyword parameters, the dtypes its inputs are cast to
and the dtype of its result: never the Op, the node or the graph. Every callable a task
of the lowering names lives here, and this module imports NumPy and the cast alone: a
worker that unpickles a task imports ``kantensor`` and this module, never the lowering
(``kantensor.backend.dask`` loads its names on first use) nor dask.array through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...types.basic_ops import cast_array

__all__ = ["Block", "Partial", "count_nonzero", "gather", "partial_take"]


class Block:
    """One call of an Op's implementation on blocks: ``impl(*cast inputs, **kwargs)``,
    output ``pick`` of its outputs (None: the only one), cast to ``dtype``."""

    __slots__ = ("casts", "dtype", "impl", "kwargs", "pick")

    def __init__(self, impl: Callable[..., Any], kwargs: dict[str, Any],
                 casts: tuple[str | None, ...], dtype: str, pick: int | None = None):
        self.impl = impl
        self.kwargs = dict(kwargs)
        self.casts = tuple(casts)
        self.dtype = dtype
        self.pick = pick

    def __call__(self, *blocks: Any) -> Any:
        args = [b if c is None else cast_array(b, c)
                for b, c in zip(blocks, self.casts, strict=True)]
        result = self.impl(*args, **self.kwargs)
        if self.pick is not None:
            result = result[self.pick]
        return cast_array(result, self.dtype)

    def __getstate__(self) -> tuple:
        return self.impl, self.kwargs, self.casts, self.dtype, self.pick

    def __setstate__(self, state: tuple) -> None:
        self.impl, self.kwargs, self.casts, self.dtype, self.pick = state

    def __dask_tokenize__(self) -> tuple:
        impl = getattr(self.impl, "__module__", ""), getattr(self.impl, "__qualname__",
                                                             repr(self.impl))
        return "kantensor.Block", impl, repr(self.kwargs), self.casts, self.dtype, self.pick

    def __repr__(self) -> str:
        return f"Block({getattr(self.impl, '__name__', self.impl)})"


class Partial:
    """A :class:`Block` whose result gets ``k`` trailing axes of size 1: the partial
    result of a contraction over one chunk of each of its ``k`` contracted labels, to be
    summed over those axes."""

    __slots__ = ("block", "k")

    def __init__(self, block: Block, k: int):
        self.block = block
        self.k = k

    def __call__(self, *blocks: Any) -> Any:
        result = np.asarray(self.block(*blocks))
        return result.reshape(result.shape + (1,) * self.k)

    def __getstate__(self) -> tuple:
        return self.block, self.k

    def __setstate__(self, state: tuple) -> None:
        self.block, self.k = state

    def __dask_tokenize__(self) -> tuple:
        return "kantensor.Partial", self.block.__dask_tokenize__(), self.k

    def __repr__(self) -> str:
        return f"Partial({self.block!r}, {self.k})"


# -- a take by chunks' tasks (kantensor.backend.dask.taking) ---------------------------
def _normalised(indices: np.ndarray, size: int, axis: int) -> np.ndarray:
    """The indices as positions 0 .. size - 1; IndexError (NumPy's words) for one out of
    bounds."""
    flat = np.asarray(indices).astype(np.int64).ravel()
    bad = (flat < -size) | (flat >= size)
    if bad.any():
        raise IndexError(f"index {flat[bad][0]} is out of bounds for axis {axis} with "
                         f"size {size}")
    return np.where(flat < 0, flat + size, flat)


def partial_take(block: np.ndarray, indices: np.ndarray, offset: np.ndarray, size: int,
                 axis: int) -> np.ndarray:
    """The elements of one chunk of ``x`` (starting at ``offset``) at the indices of one
    block that fall in it, in the indices' order (flattened)."""
    flat = np.asarray(indices).astype(np.int64).ravel()
    flat = np.where(flat < 0, flat + size, flat) - int(np.asarray(offset).ravel()[0])
    inside = flat[(flat >= 0) & (flat < block.shape[axis])]
    return np.take(block, inside, axis=axis)


def gather(indices: np.ndarray, pieces: np.ndarray, sizes: tuple[int, ...],
           axis: int) -> np.ndarray:
    """One block of the result: the pieces of every chunk of ``x`` (concatenated along
    the axis, in chunk order) put in the order of the index block ``indices``."""
    flat = _normalised(indices, sum(sizes), axis)
    order = np.zeros(flat.shape, dtype=np.int64)
    start = done = 0
    for n in sizes:
        inside = (flat >= start) & (flat < start + n)
        order[inside] = done + np.arange(np.count_nonzero(inside))
        start += n
        done += int(np.count_nonzero(inside))
    taken = np.take(pieces, order, axis=axis)
    shape = pieces.shape[:axis] + np.shape(indices) + pieces.shape[axis + 1:]
    return taken.reshape(shape)


def count_nonzero(block: np.ndarray) -> np.ndarray:
    """A mask block's count of true entries, as a one-element block (the masked rows'
    chunk sizes, computed where the user allows it: a task of its own, so it lives here,
    beside the other kernels a worker unpickles, not in the lowering)."""
    return np.array([np.count_nonzero(block)], dtype=np.int64)
