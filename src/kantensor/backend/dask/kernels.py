"""What the Dask tasks run: module-level callables holding only picklable data.

A task ships its kernel to a worker (another process on a ``dask.distributed`` cluster),
so a kernel holds the Op's NumPy implementation (a module-level function or a NumPy
ufunc, pickled by reference), its keyword parameters, the dtypes its inputs are cast to
and the dtype of its result: never the Op, the node or the graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...types.basic_ops import cast_array

__all__ = ["Block", "Partial"]


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
