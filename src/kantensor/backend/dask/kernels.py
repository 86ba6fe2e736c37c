"""What the Dask tasks run: module-level callables holding only picklable data.

A task ships its kernel to a worker (another process on a ``dask.distributed`` cluster),
so a kernel holds the Op's NumPy implementation (a module-level function or a NumPy
ufunc, pickled by reference), its keyword parameters, the dtypes its inputs are cast to
and the dtype of its result: never the Op, the node or the graph. Every callable a task
of the lowering names lives here, or is NumPy's own composed (a take by chunks' tasks,
written in :mod:`.taking`), and this module imports NumPy and the cast alone: a
worker that unpickles a task imports ``kantensor`` and this module, never the lowering
(``kantensor.backend.dask`` loads its names on first use) nor dask.array through it.

Most tasks need not even that. Importing ``kantensor`` costs a worker about 12 MiB
(about 200 modules: the catalogue, the solver, the parser), on workers that hold about
200 MB in the benchmark (``docs/dask.rst``). A kernel that calls one of NumPy's own
functions (:func:`numpy_own`), or an implementation of kantensor's that says which of
NumPy's calls it is for its parameters (:data:`AS_NUMPY`: ``einsum`` where no operand
repeats a subscript), with no input to cast and a result NumPy gives in the type's
dtype, pickles as the same call written with NumPy's functions, ``functools.partial``
and ``toolz.compose`` (:meth:`Block.numpy_form`): a worker unpickles it, as it
unpickles dask.array's tasks, without importing kantensor. In this process the kernel
stays a :class:`Block` (its name in the graph, its token, its report); the tests
compare both forms' results.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from operator import itemgetter
from typing import Any

import numpy as np
from toolz import compose

from ...types.basic_ops import cast_array
from ...types.numpy_dtypes import numpy_dtype

__all__ = ["AS_NUMPY", "NUMPY_NAMESPACES", "Block", "Partial", "broadcast_block", "count_nonzero",
           "numpy_own"]

#: The modules whose functions a worker unpickles without importing kantensor: an
#: implementation found in one of them, as the same object, is NumPy's own.
NUMPY_NAMESPACES = (np, np.linalg, np.fft)


def numpy_own(fn: Any) -> bool:
    """Whether ``fn`` is NumPy's own function (the object one of :data:`NUMPY_NAMESPACES`
    holds under its name): pickled by reference to NumPy, never to kantensor."""
    name = getattr(fn, "__name__", None)
    return isinstance(name, str) and any(getattr(ns, name, None) is fn
                                         for ns in NUMPY_NAMESPACES)


#: The attribute an implementation of kantensor's may carry: ``impl.as_numpy(kwargs)``
#: is one of NumPy's own functions (a ``functools.partial`` of one) that computes what
#: ``impl(*blocks, **kwargs)`` computes, value and dtype, for those parameters, or None
#: where it does not (the implementation checks or computes more than NumPy's call).
AS_NUMPY = "as_numpy"


def _numpy_call(impl: Callable[..., Any], kwargs: dict[str, Any]
                ) -> Callable[..., Any] | None:
    """``impl`` with ``kwargs`` bound as NumPy's own call, or None (see :data:`AS_NUMPY`)."""
    if numpy_own(impl):
        return partial(impl, **kwargs) if kwargs else impl
    same = getattr(impl, AS_NUMPY, None)
    call = same(kwargs) if callable(same) else None
    if call is None or not numpy_own(getattr(call, "func", call)):
        return None
    return call


class Block:
    """One call of an Op's implementation on blocks: ``impl(*cast inputs, **kwargs)``,
    output ``pick`` of its outputs (None: the only one), cast to ``dtype``. ``exact``:
    the implementation's own result has ``dtype`` (every compute mode but "wider", whose
    result NumPy may give in a wider dtype: see ``kantensor.ops.op.COMPUTE_MODES``)."""

    __slots__ = ("casts", "dtype", "exact", "impl", "kwargs", "pick")

    def __init__(self, impl: Callable[..., Any], kwargs: dict[str, Any],
                 casts: tuple[str | None, ...], dtype: str, pick: int | None = None,
                 exact: bool = True):
        self.impl = impl
        self.kwargs = dict(kwargs)
        self.casts = tuple(casts)
        self.dtype = dtype
        self.pick = pick
        self.exact = exact

    def __call__(self, *blocks: Any) -> Any:
        args = [b if c is None else cast_array(b, c)
                for b, c in zip(blocks, self.casts, strict=True)]
        result = self.impl(*args, **self.kwargs)
        if self.pick is not None:
            result = result[self.pick]
        return cast_array(result, self.dtype)

    def numpy_form(self) -> tuple[Callable[..., Any], ...] | None:
        """The same call as NumPy's own functions, outermost first (to compose), or None
        where it needs kantensor: an implementation of kantensor's with no NumPy call
        for these parameters (:data:`AS_NUMPY`), an input to cast, or a result to cast
        (not ``exact``). The result goes through ``np.asarray(..., dtype)``, which makes
        a 0-d result an array and is otherwise a no-op: NumPy's result has the type's
        dtype (``function(..., check=True)`` checks it), so nothing is cast outside
        :func:`cast_array`'s ``errstate`` (a cast there would warn where the NumPy
        backend does not)."""
        if any(c is not None for c in self.casts) or not self.exact:
            return None
        call = _numpy_call(self.impl, self.kwargs)
        if call is None:
            return None
        steps: list[Callable[..., Any]] = [partial(np.asarray, dtype=numpy_dtype(self.dtype))]
        if self.pick is not None:
            steps.append(itemgetter(self.pick))
        steps.append(call)
        return tuple(steps)

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickled as :meth:`numpy_form` composed where there is one (a worker then
        imports no kantensor to unpickle it), else as this Block."""
        steps = self.numpy_form()
        return super().__reduce_ex__(protocol) if steps is None else (compose, steps)

    def __copy__(self) -> Block:
        return self  # immutable: a copy is the Block itself, never its pickled form

    def __deepcopy__(self, memo: dict) -> Block:
        return self

    def __getstate__(self) -> tuple:
        return self.impl, self.kwargs, self.casts, self.dtype, self.pick, self.exact

    def __setstate__(self, state: tuple) -> None:
        self.impl, self.kwargs, self.casts, self.dtype, self.pick, self.exact = state

    def __dask_tokenize__(self) -> tuple:
        impl = getattr(self.impl, "__module__", ""), getattr(self.impl, "__qualname__",
                                                             repr(self.impl))
        return ("kantensor.Block", impl, repr(self.kwargs), self.casts, self.dtype,
                self.pick, self.exact)

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

    def numpy_form(self) -> tuple[Callable[..., Any], ...] | None:
        """As :meth:`Block.numpy_form`, the ``k`` axes added by ``np.expand_dims``."""
        steps = self.block.numpy_form()
        if steps is None:
            return None
        return (partial(np.expand_dims, axis=tuple(range(-self.k, 0))), *steps)

    def __reduce_ex__(self, protocol: Any) -> Any:
        steps = self.numpy_form()
        return super().__reduce_ex__(protocol) if steps is None else (compose, steps)

    def __copy__(self) -> Partial:
        return self

    def __deepcopy__(self, memo: dict) -> Partial:
        return self

    def __getstate__(self) -> tuple:
        return self.block, self.k

    def __setstate__(self, state: tuple) -> None:
        self.block, self.k = state

    def __dask_tokenize__(self) -> tuple:
        return "kantensor.Partial", self.block.__dask_tokenize__(), self.k

    def __repr__(self) -> str:
        return f"Partial({self.block!r}, {self.k})"


#: A mask block's count of true entries, as a one-element int64 block (the masked rows'
#: chunk sizes, computed where the user allows it: a task of its own, so it lives here,
#: beside the other kernels a worker unpickles, not in the lowering). NumPy's functions
#: composed: a worker unpickles it without importing kantensor.
count_nonzero = compose(partial(np.full, (1,), dtype=np.int64), np.count_nonzero)


def broadcast_block(block: np.ndarray, shape: tuple) -> np.ndarray:
    """NumPy's ``broadcast_to`` of one block to ``shape``, a None there being the block's
    own size on that axis (axes counted from the end, as broadcasting aligns them): a
    ``broadcast_to`` that keeps an axis of unknown chunk sizes block for block (a
    mask's rows), whose sizes only the block knows."""
    lead = len(shape) - block.ndim
    return np.broadcast_to(block, tuple(block.shape[a - lead] if n is None else n
                                        for a, n in enumerate(shape)))
