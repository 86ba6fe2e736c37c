"""Bounds of the values of an integer index tensor that the graph computes from numbers
it knows: ``np.arange(4) + 1`` (1 .. 4), ``np.arange(n) % 2`` (0 .. 1), ``-np.arange(3)``.

An index array's values decide whether NumPy raises IndexError, so an advanced index
checks the least and greatest value of a constant array against its axis
(:class:`~kantensor.ops.params.ArrayRef`). Traced code makes such arrays with NumPy's
calls on symbols (``np.arange`` gives a graph value, so that code can write into it), and
a value computed from them was an index of unknown values, never checked: ``x[np.arange(4)
+ 1]`` held at 1 element where NumPy needs 5. :func:`value_bounds` follows the few Ops
that keep the values within known bounds (constants, ``arange`` with int parameters or
an int start and step, ``ones``, ``zeros``, ``full``, ``tril``/``triu`` (``np.tri``),
casts, ``+``, ``-``, negation, ``*`` and ``//`` by an int, ``%`` by a positive or
negative int; floats whose values are integers too), each identified by its NumPy (or
kantensor) function object; anything else is unknown (None), as an index of unknown
values is never checked. The bounds hold every value, perhaps more (an interval wider
than the values refuses more sizes, never fewer); a result its dtype could wrap around is
unknown. (``np.arange(k) % m`` is counted with a cap instead:
:func:`~kantensor.ops.families.advanced.array_ref`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...graph.basic import Constant, Variable
from ...types.dtypes import integer_range, is_integer
from .creation import full, ones, ranged, zeros
from .elementwise import cast

#: (least, greatest) value, None for a side not known.
Interval = tuple[int | None, int | None]
_UNKNOWN: Interval = (None, None)
#: How many Ops back the values are followed.
DEPTH = 12
#: Ops (by their implementation function) whose values are made whole: :func:`_made`.
_MADE = (ones, zeros, full, cast, np.tril, np.triu)


def value_bounds(v: Any) -> tuple[int, int] | None:
    """The least and greatest value of the integer tensor ``v`` (a graph value), where
    the Ops computing it keep them known; None otherwise (and for no values, and for a
    tensor of no integer dtype: a mask is no index of values)."""
    if not isinstance(v, Variable) or not is_integer(v.type.dtype):
        return None
    lo, hi = _interval(v, DEPTH)
    return None if lo is None or hi is None else (lo, hi)


def _interval(v: Any, depth: int) -> Interval:
    if not isinstance(v, Variable) or not _numeric(v.type.dtype):
        return _UNKNOWN
    if isinstance(v, Constant):
        data = np.asarray(v.data)
        if not data.size or not np.all(np.isfinite(data)) or not np.all(data == np.trunc(data)):
            return _UNKNOWN  # (a float that is no integer: no bounds in ints)
        return int(data.min()), int(data.max())
    node = v.owner
    if node is None or depth <= 0 or len(node.outputs) != 1:
        return _UNKNOWN
    op = node.op
    impl = getattr(op, "impl", None)
    if getattr(op, "builder", None) is ranged:
        found = _ranged(dict(op.params))
    elif impl in _MADE:
        found = _made(impl, node.inputs, depth - 1)
    elif v.type.dtype == "bool":
        return _UNKNOWN  # bool arithmetic is logical (True + True is True)
    else:
        found = _computed(impl, node.inputs, depth - 1)
    return found if _fits(found, v.type.dtype) else _UNKNOWN


def _numeric(dtype: str) -> bool:
    return is_integer(dtype) or dtype == "bool" or dtype in ("float16", "float32", "float64")


def _fits(found: Interval, dtype: str) -> bool:
    """Whether no value of ``found`` could be wrapped around (or rounded) by ``dtype``."""
    low, high = integer_range(dtype) if is_integer(dtype) else \
        (0, 1) if dtype == "bool" else (-(2 ** 24), 2 ** 24)  # exact in every float
    return (found[0] is None or found[0] >= low) and (found[1] is None or found[1] <= high)


def _made(impl: Any, inputs: list, depth: int) -> Interval:
    """Values made whole: ones, zeros, full, a triangle of a tensor (its values and 0), a
    cast (NumPy truncates a float: its integer values stay; to bool, 0 or 1)."""
    if impl is ones:
        return (1, 1)
    if impl is zeros:
        return (0, 0)
    if impl is full:
        return _interval(inputs[0], depth)
    lo, hi = _interval(inputs[0], depth)
    if impl is cast and lo is not None and hi is not None:
        return (lo, hi)  # (to bool: _fits keeps only values within 0 .. 1)
    if lo is not None and hi is not None:  # tril, triu
        return (min(lo, 0), max(hi, 0))
    return _UNKNOWN


def _ranged(params: dict) -> Interval:
    start, stop, step = params.get("start"), params.get("stop"), params.get("step")
    if type(start) is not int or type(step) is not int or step == 0:
        return _UNKNOWN
    if type(stop) is int:
        values = range(start, stop, step)
        return (min(values), max(values)) if values else _UNKNOWN
    return (start, None) if step > 0 else (None, start)


def _computed(impl: Any, inputs: list, depth: int) -> Interval:
    if impl is np.negative and len(inputs) == 1:
        lo, hi = _interval(inputs[0], depth)
        return (None if hi is None else -hi, None if lo is None else -lo)
    if len(inputs) != 2:
        return _UNKNOWN
    a, b = (_interval(x, depth) for x in inputs)
    if impl is np.add:
        return (_sum(a[0], b[0]), _sum(a[1], b[1]))
    if impl is np.subtract:
        return (_sum(a[0], _neg(b[1])), _sum(a[1], _neg(b[0])))
    if impl is np.multiply:
        for x, c in ((a, b), (b, a)):
            if c[0] is not None and c[0] == c[1]:  # by one known int
                k = c[0]
                ends = (None if x[0] is None else x[0] * k, None if x[1] is None else x[1] * k)
                return ends if k >= 0 else (ends[1], ends[0])
        return _UNKNOWN
    if impl is np.floor_divide and b[0] is not None and b[0] == b[1] and b[0] != 0:
        k = b[0]  # floor division by an int is monotone (decreasing for k < 0)
        ends = (None if a[0] is None else a[0] // k, None if a[1] is None else a[1] // k)
        return ends if k > 0 else (ends[1], ends[0])
    if impl is np.remainder and b[0] is not None and b[0] == b[1] and b[0] != 0:
        k = b[0]  # NumPy's (and Python's) remainder takes the divisor's sign
        within = (0, k - 1) if k > 0 else (k + 1, 0)
        if a[0] is not None and a[1] is not None and within[0] <= a[0] and a[1] <= within[1]:
            return a  # already within: the values are left as they are
        return within
    return _UNKNOWN


def _sum(x: int | None, y: int | None) -> int | None:
    return None if x is None or y is None else x + y


def _neg(x: int | None) -> int | None:
    return None if x is None else -x
