"""``np.pad``: the Op of its mode (:func:`padded`), and the constant mode of widths that
are sizes, ``np.pad(x, (0, n - len(x)))`` (:func:`sized_pad`).

The ``pad`` Op takes int widths (its parameter is part of the Op). Widths that are sizes
(Dims: an entry of ``x.shape``, ``n - len(x)``) are NumPy's own definition instead: each
axis, in turn, gets a block of the constant before and after it, the concatenation of
``full`` blocks with the array, so every node is typed by its Op's relation. A width
that may be negative makes its block's ``full`` need it to be non-negative, where NumPy
raises ValueError ("index can't contain negative values"). The widths and constants are
read as NumPy's ``_as_pairs`` reads them: broadcast to one (before, after) pair per axis;
the constants written into the array's dtype as NumPy's assignment writes them (one value
300 into uint8 is 44; 300 in pairs of pairs, a Python int there, raises OverflowError).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.dim import Dim


def sized_widths(pad_width: Any) -> bool:
    """Whether ``pad_width`` (an int, a pair, pairs per axis) holds a size (a Dim)."""
    if isinstance(pad_width, Dim):
        return True
    return isinstance(pad_width, list | tuple) and any(sized_widths(w) for w in pad_width)


def _pairs(value: Any, ndim: int, what: str) -> list[tuple[Any, Any]]:
    """``value`` (ints and Dims) broadcast to ``ndim`` (before, after) pairs, as NumPy's
    ``_as_pairs``."""
    items = np.empty((), dtype=object)
    try:
        items = np.array(value, dtype=object)
        pairs = np.broadcast_to(items, (ndim, 2))
    except ValueError as exc:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {items.shape} and requested shape "
                         f"({ndim},2) ({what})") from exc
    return [(pairs[i, 0], pairs[i, 1]) for i in range(ndim)]


def _width(w: Any) -> Any:
    if isinstance(w, Dim):
        return w
    if isinstance(w, bool) or not isinstance(w, int | np.integer):
        raise TypeError(f"numpy.pad with sizes as widths takes ints and sizes, got {w!r}: "
                        "round a float width yourself")
    if w < 0:
        raise ValueError("index can't contain negative values")
    return int(w)


def _constants(value: Any, ndim: int) -> list[tuple[Any, Any]]:
    """The constant values as NumPy's ``_as_pairs`` gives them to its assignments: NumPy
    scalars for one value or one pair (cast unsafely: 300 into uint8 is 44), Python
    objects otherwise (300 into uint8 raises OverflowError)."""
    if isinstance(value, Variable) or sized_widths(value):
        raise TypeError(f"numpy.pad with sizes as widths takes numbers as constant values, "
                        f"got {value!r}")
    x = np.array(value)
    if x.ndim < 3 and (x.size == 1 or x.size == 2 and x.shape != (2, 1)):
        x = x.ravel()
        return [(x[0], x[-1])] * ndim
    return [tuple(p) for p in np.broadcast_to(x, (ndim, 2)).tolist()]


def _constant(value: Any, dtype: str) -> Any:
    """``value`` as NumPy's pad writes it into an array of ``dtype`` (its assignment)."""
    if not isinstance(value, bool | int | float | complex | np.number | np.bool_):
        raise TypeError(f"numpy.pad with sizes as widths takes numbers as constant values, "
                        f"got {value!r}")
    cell = np.zeros(1, dtype)
    cell[0] = value
    return cell[0].item()


def sized_pad(full: Any, array: Variable, pad_width: Any, constant_values: Any = 0
              ) -> Variable:
    """``np.pad(array, pad_width, constant_values=...)`` with widths that are sizes: per
    axis, blocks of the constant (``full``, the catalogue's Op) concatenated before and
    after (see the module)."""
    ndim, dtype = array.type.ndim, array.type.dtype
    widths = _pairs(pad_width, ndim, "pad_width")
    values = _constants(constant_values, ndim)
    out = array
    for axis, (pair, constants) in enumerate(zip(widths, values, strict=True)):
        before, after = (_width(w) for w in pair)
        parts = [out]
        for k, (width, value) in enumerate(((before, constants[0]), (after, constants[1]))):
            if isinstance(width, int) and width == 0:
                continue
            shape = tuple(width if a == axis else out.shape[a] for a in range(ndim))
            block = full(shape, _constant(value, dtype), dtype=dtype)
            parts.insert(0 if k == 0 else len(parts), block)
        if len(parts) > 1:
            out = np.concatenate(parts, axis=axis)
    return out


#: np.pad's keyword arguments of each mode (NumPy refuses others with ValueError).
_PAD_KEYWORDS = {"constant": ("constant_values",), "empty": (), "edge": (), "wrap": (),
                 "linear_ramp": ("end_values",), "reflect": ("reflect_type",),
                 "symmetric": ("reflect_type",), **dict.fromkeys(
                     ("maximum", "minimum", "mean", "median"), ("stat_length",))}


def padded(constant: Callable[..., Any], edges: Callable[..., Any],
           full: Callable[..., Any]) -> Callable[..., Any]:
    """``np.pad``: the constant mode is the ``pad`` Op (so is ``empty``, whose values are
    any; of widths that are sizes, blocks of ``full``: :func:`sized_pad`), the modes
    extending an axis with values made of its own (edge, reflect, ...) the ``pad_edges``
    Op, with their keywords' defaults."""
    @functools.wraps(constant)
    def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
        if mode == "empty":
            mode = "constant"
        if not isinstance(mode, str) or mode not in _PAD_KEYWORDS:
            return constant(array, pad_width, mode, **kwargs)  # (its error names modes)
        if set(kwargs) - set(_PAD_KEYWORDS[mode]):
            raise ValueError(f"unsupported keyword arguments for mode '{mode}': "
                             f"{set(kwargs) - set(_PAD_KEYWORDS[mode])}")
        if mode == "constant":
            if isinstance(array, Variable) and sized_widths(pad_width):
                return sized_pad(full, array, pad_width, **kwargs)
            return constant(array, pad_width, mode, **kwargs)
        if kwargs:
            raise TypeError(f"numpy.pad(..., mode='{mode}', {', '.join(kwargs)}=...) is not "
                            "supported on symbolic tensors: kantensor's pad_edges takes "
                            "the mode's default")
        return edges(array, pad_width, mode=mode)
    return pad
