"""``np.arange`` as the traced code finds it during ``eval_shape`` (see :mod:`.patches`):
of ints and sizes, the ``arange`` Op; of a fraction of sizes (``np.arange(n / 2)``) or a
number the graph makes of sizes and Python numbers (``np.arange(n * 1.0)``), NumPy's float
range of its exact value; anything else NumPy's own (NotImplemented) or refused. A step
that is a size (``np.arange(0, n, k)``) is the Op's: its length divides by it; a float
step ``1/2**k`` of size bounds (``np.arange(0, n, 0.5)``) is NumPy's float64 range of
``(stop - start) * 2**k`` values."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import ops
from ..graph.basic import Variable
from ..types.dim import Dim
from ..types.dimminmax import dim_max
from ..types.dtypes import is_integer
from ..types.sizenum import Ratio
from ..types.symbols import free_symbols
from .loops import marked
from .powers import fraction


def is_size(x: Any) -> bool:
    """Whether ``x`` is a size: an int (not a bool) or a Dim."""
    return isinstance(x, Dim) or (not isinstance(x, bool) and index_of(x) is not None)


def index_of(x: Any) -> int | None:
    """``x`` as an int where Python takes it as one (``operator.index``), else None."""
    try:
        return operator.index(x)
    except TypeError:
        return None


def arange(*args: Any, dtype: Any = None, **kw: Any) -> Any:
    """``np.arange`` during eval_shape (see the module); NotImplemented: NumPy's own.
    A ``step=`` of one or two positional bounds is its third argument."""
    if set(kw) == {"step"} and 1 <= len(args) <= 2:
        args, kw = ((0, *args) if len(args) == 1 else args) + (kw["step"],), {}
    if not kw and dtype is None and 1 <= len(args) <= 3 and any(
            isinstance(a, Ratio) for a in args) and all(
            isinstance(a, Ratio) or is_size(a) for a in args):
        return _float_arange(*args)
    if not kw and dtype is None and len(args) == 3 and _halving(args[2]) and any(
            isinstance(a, Dim) for a in args[:2]) and all(is_size(a) for a in args[:2]):
        return _halved_arange(*args)
    if any(isinstance(a, Dim) for a in args) and any(
            isinstance(a, float | np.floating) for a in args):
        raise TypeError(f"numpy.arange{tuple(args)} is not supported during eval_shape: "
                        f"its length, ceil((stop - start) / step) in floating point, is "
                        f"rounded; give an int step or one 1/2**k (0.5, 0.25)")
    if not kw and any(isinstance(a, Variable) for a in args):
        return _number_arange(args, dtype)
    if kw or not args or len(args) > 3 or not all(is_size(a) for a in args):
        return NotImplemented
    out = ops.arange(*args, dtype="int64" if dtype is None else dtype)
    bounds = (0, *args, 1) if len(args) == 1 else (*args, 1)[:3]
    if dtype is None and isinstance(bounds[2], int) and bounds[2] != 0 and any(
            isinstance(a, Dim) for a in args):  # (iterated: NumPy's np.int64 rows)
        return marked(out, *bounds, numpy=True)
    return out


def _number_arange(args: tuple, dtype: Any) -> Any:
    """``np.arange`` of numbers of the graph made of sizes and Python numbers (a size
    times a float, ``n * 1.0``): NumPy's range of their exact values
    (:func:`~.powers.fraction`), float64 where one is a float (int64 of ints); anything
    else is refused, its length a value's."""
    exact = [fraction(a) if isinstance(a, Variable) else a for a in args]
    if dtype is None and 1 <= len(args) <= 3 and all(
            e is not None and _named(e) for e in exact) and all(
            isinstance(a, Variable) and a.type.ndim == 0 or is_size(a) for a in args):
        values = [e[0] / e[1] if isinstance(e, tuple) and e[1] != 1 else
                  e[0] if isinstance(e, tuple) else e for e in exact]
        if all(is_size(v) for v in values):  # whole values: the int range (of floats
            # where a number is one: NumPy's arange of a float, of any float dtype)
            floats = any(isinstance(a, Variable) and not is_integer(a.type.dtype)
                         for a in args)
            return ops.arange(*values, dtype="float64" if floats else "int64")
        found = _float_arange(*values) if values else NotImplemented
        if found is not NotImplemented:
            return found
    raise TypeError("numpy.arange of a tensor (a number of the graph) is not supported "
                    "during eval_shape, except of sizes and Python numbers by + - * / "
                    "(np.arange(n * 1.0)) with a whole step: its length would be a "
                    "value's")


def _halving(step: Any) -> bool:
    """Whether ``step`` is a float ``±1/2**k`` (``0.5``, ``0.25``): sizes divided by it
    are exact in floating point, so NumPy's length ``ceil((stop - start) / step)`` is
    the size ``(stop - start) * 2**k``."""
    if not isinstance(step, float | np.floating) or not np.isfinite(step) or step == 0:
        return False
    p, q = float(step).as_integer_ratio()
    return abs(p) == 1 and q > 1


def _halved_arange(start: Any, stop: Any, step: Any) -> Any:
    """``np.arange(start, stop, step)`` of sizes by a step ``±1/2**k`` (:func:`_halving`):
    NumPy's float64 values ``start + i*step``, ``max(0, (stop - start)*2**k)`` of them
    (of the other sign for a negative step)."""
    p, q = float(step).as_integer_ratio()
    length = dim_max((stop - start) * q if p > 0 else (start - stop) * q, 0)
    return ops.arange(length, dtype="float64") * float(step) + start


def _named(exact: Any) -> bool:
    """Whether an exact value (a size, or ``(p, q)``) is over named sizes only: a size
    an axis of unknown length makes is held by its node as a placeholder (see
    :func:`kantensor.ops.sizes.untie`), no size to pass on."""
    p = exact[0] if isinstance(exact, tuple) else exact
    return not isinstance(p, Dim) or all(isinstance(s, str) for s in free_symbols(p))


def _float_arange(*args: Any) -> Any:
    """``np.arange`` of a float of sizes (``np.arange(n / 2)``): NumPy's float64 range,
    ``ceil((stop - start) / step)`` values ``start + i * step`` (an int step; the length
    is the exact fraction's ceiling, as Python's float of one division is correctly
    rounded, and refused where it was rounded twice: :class:`Ratio`)."""
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    if index_of(step) is None or step == 0:
        return NotImplemented
    diff = stop - start  # (a division by 1 or -1 rounds nothing: not made one)
    length = math.ceil(diff if step == 1 else -diff if step == -1 else diff / step)
    length = dim_max(length, 0)
    return ops.arange(length, dtype="float64") * step + start
