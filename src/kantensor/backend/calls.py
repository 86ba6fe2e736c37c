"""How a kernel is called for a node, decided when a graph is compiled: which
arguments are cast when called, which constants are cast once, and whether NumPy's own
type resolution proves the result's dtype."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..graph.basic import Apply, Constant, Variable
from ..graph.op import Kernel
from ..types.basic_ops import cast_array


class Call(NamedTuple):
    """A kernel call decided at compile time. ``args``: per input, ``(REF, v)`` (the
    value as it is), ``(CONST, array)`` (a constant already cast) or ``(CAST, v,
    dtype)`` (cast when called); ``guard``: whether the result may need a cast to the
    output dtypes (False when NumPy's type resolution says it is exact)."""

    fn: Callable[..., Any]
    kwargs: dict[str, Any]
    args: tuple[tuple, ...]
    guard: bool


class Arg(Enum):
    """How a kernel's argument is passed (see :class:`Call`)."""

    REF = "the value as it is"
    CONST = "a constant cast when compiling"
    CAST = "cast when called"


REF, CONST, CAST = Arg.REF, Arg.CONST, Arg.CAST


def plan_call(node: Apply, kernel: Kernel, exact: set[Variable],
              constants: dict[tuple, np.ndarray]) -> Call:
    """How to call ``kernel`` for ``node``, given the Variables whose values surely
    have their type's dtype (``exact``, to which the node's outputs are added);
    ``constants`` keeps the constants cast so far (a chain's ``+ 1.0`` shares one)."""
    args: list[tuple] = []
    dtypes: list[np.dtype | None] = []  # what each argument surely is
    for v, dtype in zip(node.inputs, kernel.casts, strict=True):
        known = v in exact or isinstance(v, Constant)
        if dtype is None or (known and v.type.dtype == dtype):
            args.append((REF, v))
            dtypes.append(v.type.numpy_dtype if known else None)
        elif isinstance(v, Constant):  # cast once, now
            key = (id(v.data), dtype)  # the data lives as long as the graph
            if key not in constants:
                constants[key] = _read_only(cast_array(v.data, dtype))
            args.append((CONST, constants[key]))
            dtypes.append(np.dtype(dtype))
        else:
            args.append((CAST, v, dtype))
            dtypes.append(np.dtype(dtype))
    exact.update(node.outputs)
    proven = len(node.outputs) == 1 and not kernel.kwargs and _ufunc_gives(
        kernel.fn, dtypes, node.outputs[0].type)
    return Call(kernel.fn, dict(kernel.kwargs), tuple(args), not proven)


def _ufunc_gives(fn: Any, dtypes: list[np.dtype | None], out: Any) -> bool:
    """Whether NumPy's ufunc ``fn`` surely returns an ndarray of ``out``'s dtype for
    arguments of ``dtypes`` (its type resolution says so, and the result has axes)."""
    # (not ``None in dtypes``: a dtype compares equal to None, NumPy's default float64)
    if not isinstance(fn, np.ufunc) or fn.nout != 1 or out.ndim == 0 \
            or len(dtypes) != fn.nin or any(d is None for d in dtypes):
        return False
    return _resolved(fn, tuple(dtypes)) == out.numpy_dtype


@lru_cache(maxsize=4096)
def _resolved(fn: np.ufunc, dtypes: tuple[np.dtype, ...]) -> np.dtype | None:
    """The output dtype NumPy's type resolution gives ``fn`` for ``dtypes``, if any."""
    try:
        return fn.resolve_dtypes((*dtypes, None))[-1]
    except (TypeError, ValueError):
        return None


def _read_only(value: np.ndarray) -> np.ndarray:
    value.setflags(write=False)
    return value
