"""The parameter kinds whose values may hold sizes: :data:`SIZED_KINDS` (of sizes only,
:data:`SIZES_ONLY_KINDS`, or of sizes among other things, :data:`SIZES_AMONG_KINDS`).

A size, a shape, a repeat count, integers or numbers known in part, a basic index: each
entry an int or a Dim (``Dim("n")``, ``n + 1``, an entry of ``x.shape``), which the call
carries in an input of its own (:mod:`kantensor.ops.sizes`; ``shape``'s the builder
writes over the call's axes). Apart from :mod:`kantensor.ops.params` (the plain kinds)
because these read sizes: a Ratio's sign, a slice step's sign where sizes are large.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..types.dim import Dim
from ..types.dimorder import asked
from ..types.sizenum import Ratio
from ..types.symbols import sign_when_large
from .params import ParamError, as_int, as_number
from .paramvalues import ArrayRef, SliceItem

_UNKNOWN_SIZE = ("a size None (unknown) cannot be a size parameter: its value would not be "
                 "known when the graph runs; use x.shape[i] (not x.type.shape[i]), whose "
                 "unknown sizes are taken from x when the graph runs, or give that axis a "
                 "name (kt.Dim) in the input's type")


def _size(value: Any) -> int | Dim:
    """One size: an int, or a Dim or Dim expression (an entry of ``x.shape``), which the
    call carries in an input (see :mod:`kantensor.ops.sizes`)."""
    if isinstance(value, Dim):
        return value
    if value is None:
        raise ParamError(_UNKNOWN_SIZE)
    return as_int(value, "an int or a Dim")


def _shape(value: Any) -> tuple[int | Dim, ...]:
    """A shape of ints and Dims (``x.shape`` and its entries among them): one size or a
    sequence of them."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(_size(v) for v in value)
    return (_size(value),)


def _count(value: Any) -> int | Dim:
    """A repeat count: a size, or a float (a Python float of sizes too) that NumPy casts
    to an int toward zero (``np.repeat(x, 2.5)`` repeats twice, ``n / 2`` is ``n // 2``
    times); a Ratio's truncation asks its sign where a trace may answer it."""
    if isinstance(value, float | np.floating) and np.isfinite(value):
        return int(value)
    if isinstance(value, Ratio):  # its numerator's sign asked at the program's line
        negative = asked("<=", value.num, -1) if isinstance(value.num, Dim) else None
        value = -math.trunc(-value) if negative is True else math.trunc(value)
    return _size(value)


def _maybe_size(value: Any) -> int | Dim | None:
    return None if value is None else _size(value)


def _partial_sizes(value: Any) -> tuple[int | Dim | None, ...] | None:
    """Integers known in part (an ONNX shape input folded from ``Shape`` nodes): None
    (nothing known), or a sequence of ints, Dims and None (that entry unknown). Each Dim
    is carried by an input, as for ``sizes``."""
    if value is None:
        return None
    if not isinstance(value, Sequence) or isinstance(value, str):
        value = (value,)
    return tuple(None if v is None else _size(v) for v in value)


def _partial_values(value: Any) -> tuple[int | float | Dim | None, ...] | None:
    """Numbers known in part (an ONNX input's value read with the model): None, or a
    sequence of numbers, Dims and None (unknown). Each Dim is carried by an input."""
    if value is None:
        return None
    if not isinstance(value, Sequence) or isinstance(value, str):
        value = (value,)
    return tuple(v if v is None or isinstance(v, Dim) else as_number(v) for v in value)


def _index(value: Any) -> tuple:
    """A basic index (ints, slices, None, ``...``) as a hashable tuple; a slice
    becomes ``("slice", start, stop, step)``. Positions and slice bounds may be sizes
    (Dims, entries of ``x.shape``): the call carries them in inputs of their own (see
    :mod:`kantensor.ops.sizes`)."""
    items = value if isinstance(value, tuple) else (value,)
    out: list[Any] = []
    for item in items:
        if item is None or item is Ellipsis or isinstance(item, ArrayRef):
            out.append(item)
        elif isinstance(item, tuple) and len(item) == 4 and item[0] == "slice":
            out.append(_index(slice(*item[1:]))[0])  # already normalised
        elif isinstance(item, slice):
            parts = [None if p is None else p if isinstance(p, Dim) else
                     as_int(p, "slice bounds and steps that are ints or None (or sizes)")
                     for p in (item.start, item.stop, item.step)]
            if isinstance(parts[2], Dim) and sign_when_large(parts[2]) != 1:
                raise ParamError(f"a slice step that is a size must be positive where its "
                                 f"sizes are large (x[::n]), got {parts[2]}")
            if type(parts[2]) is int and parts[2] == 0:
                raise ParamError("slice step cannot be zero")
            for bound in parts[:2]:
                if isinstance(bound, Dim) and not sign_when_large(bound):
                    asked(">=", bound, 0)  # (SliceItem)
            out.append(SliceItem(*parts))
        elif isinstance(item, Dim):  # x[n - 1]: a size as a position
            out.append(item)
        else:
            try:
                out.append(as_int(item))
            except ParamError:
                raise ParamError(f"only basic indexing is supported (ints, slices, None, "
                                 f"...); got {item!r}") from None
    if sum(i is Ellipsis for i in out) > 1:
        raise ParamError("an index can only have a single ellipsis ('...')")
    return tuple(out)


#: The kinds whose values are sizes and nothing else (one size, or a sequence of them):
#: normaliser from a user's value to a hashable prop value (``shape`` and ``sizes`` read
#: alike; the call carries their Dims apart). A command line writes their names as
#: named sizes (``shape=(n,3)``: :mod:`kantensor.commands.words`).
SIZES_ONLY_KINDS: dict[str, Callable[[Any], Any]] = {
    "shape": _shape,
    "size": _size,
    "count": _count,
    "maybe_size": _maybe_size,
    "sizes": _shape,
}

#: The kinds whose values hold sizes among other things (None for unknown, numbers,
#: slices): normaliser as for :data:`SIZES_ONLY_KINDS`.
SIZES_AMONG_KINDS: dict[str, Callable[[Any], Any]] = {
    "partial_sizes": _partial_sizes,
    "partial_values": _partial_values,
    "index": _index,
}

#: The kinds whose values may hold sizes: those of sizes only, then those of sizes among
#: other things.
SIZED_KINDS: dict[str, Callable[[Any], Any]] = {**SIZES_ONLY_KINDS, **SIZES_AMONG_KINDS}
