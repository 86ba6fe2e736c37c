"""``np.unique`` with every parameter (``return_index``, ``return_inverse``,
``return_counts``, ``axis``, ``equal_nan``, ``sorted``) and the array API's
``np.unique_values``, ``unique_counts``, ``unique_inverse`` and ``unique_all``: NumPy's
definitions, compositions of the catalogue's Ops around one boolean mask.

The input (flattened, or its slices along ``axis`` made rows) is put in order by a
stable sort (``argsort``; ``argsort_rows`` for slices, compared as NumPy compares them,
lexicographically), and the mask of first occurrences marks each element (row) that
differs from the one before it, and the first: its count is the number of unique values,
a size the data decide, which the ``index`` Op's relation bounds by ``min(1, n) <= m <=
n`` (the mask is true at its first element: :func:`.counted.kept`). Every output
selected by that one mask has that one count (the values, the indices of the first
occurrences, the counts), so ``values * counts`` needs nothing. The counts are each
group's length, read where a group starts (``searchsorted`` of the running group
numbers); the inverse is the group number of each element put back in the input's order
(by the inverse permutation), of the input's shape (``axis`` None: NumPy 2's) or of
the axis's length. The indices, the inverse and the counts are int64 (NumPy's intp).

NaNs: ``equal_nan`` (NumPy's default True) makes all NaNs one value where no axis is
given; along an axis each slice holding a NaN is distinct, as NumPy compares the slices.
The values are always sorted (``sorted=False`` and ``unique_values`` give them sorted
too: NumPy >= 2.3 may give them in an order its hashing decides, which the array API
leaves unspecified). NumPy's errors are kept: an axis out of range (a 0-d input has
none).
"""

from __future__ import annotations

import math
import operator
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..graph.basic import Variable
from ..types.dtypes import is_inexact
from ..types.protocol import register_numpy
from .arraylike import as_array
from .counted import kept
from .params import normalize_axis


class UniqueAllResult(NamedTuple):
    """``np.unique_all``'s result (the array API's fields)."""

    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class UniqueCountsResult(NamedTuple):
    """``np.unique_counts``'s result."""

    values: Any
    counts: Any


class UniqueInverseResult(NamedTuple):
    """``np.unique_inverse``'s result."""

    values: Any
    inverse_indices: Any


#: The catalogue's ``argsort_rows`` Op, once :func:`register` is given it.
_ROWS: list[Callable[..., Any]] = []


def _positions(n: Any) -> Any:
    """0 .. n - 1 along a 1-d tensor of ``n`` elements (int64)."""
    return np.cumsum(np.ones_like(n, dtype=np.int64)) - 1


def _flat_order(x: Any, equal_nan: bool) -> tuple[Any, Any, Any]:
    """The flattened input's stable order, its sorted values and their first-occurrence
    mask (NaNs one value where ``equal_nan``)."""
    flat = np.ravel(x)
    order = np.argsort(flat)
    s = flat[order]
    before = np.roll(s, 1)
    first = _positions(s) == 0
    differs = s != before
    if equal_nan:
        differs = differs & ~(np.isnan(s) & np.isnan(before))
    return order, s, differs | first


def _row_order(x: Any, axis: int) -> tuple[Any, Any, Any]:
    """The slices along ``axis`` as rows: their stable lexicographic order, the slices
    in that order (the axis first) and their first-occurrence mask."""
    y = np.moveaxis(x, axis, 0)
    rows = np.reshape(y, (y.shape[0], math.prod(y.shape[1:])))
    order = _ROWS[0](rows)
    s = rows[order]
    first = _positions(order) == 0
    mask = np.any(s != np.roll(s, 1, axis=0), axis=1) | first
    return order, y[order], mask


#: (id of a tensor, axis, equal_nan) -> weak references to the tensor and to its order,
#: its sorted values (slices) and their first-occurrence mask: ``np.unique(x)`` twice
#: (``np.unique_values(x)`` after ``np.unique(x, equal_nan=False)``) is one mask, whose
#: count is one size, as ``np.nonzero``'s positions are (:mod:`.counted`). By identity,
#: weak both ways: an entry goes with its tensor.
_ORDERS: dict[tuple[int, Any, bool], tuple[weakref.ref, ...]] = {}


def _ordered(x: Any, axis: int | None, equal_nan: bool) -> tuple[Any, Any, Any]:
    """:func:`_flat_order` (``axis`` None) or :func:`_row_order` of ``x``, the same nodes
    for the same tensor (:data:`_ORDERS`)."""
    if axis is None and equal_nan and not is_inexact(_dtype(x)):
        equal_nan = False  # (no NaN to make one: the same mask as without)
    key = (id(x), axis, equal_nan)
    known = _ORDERS.get(key) if isinstance(x, Variable) else None
    if known is not None and known[0]() is x:
        made = tuple(ref() for ref in known[1:])
        if all(v is not None for v in made):
            return made  # type: ignore[return-value]
    made = _flat_order(x, equal_nan) if axis is None else _row_order(x, axis)
    if isinstance(x, Variable) and all(isinstance(v, Variable) for v in made):
        _ORDERS[key] = (weakref.ref(x, lambda _, k=key: _ORDERS.pop(k, None)),
                        *map(weakref.ref, made))
    return made


def _dtype(x: Any) -> str:
    return x.type.dtype if isinstance(x, Variable) else str(np.asarray(x).dtype)


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: Any = None, *, equal_nan: bool = True,
           sorted: bool = True) -> Any:  # noqa: A002 - NumPy's parameter name
    """``np.unique``: the sorted unique values (slices along ``axis``), and, as asked,
    the int64 indices of their first occurrences, the inverse and the counts."""
    x = as_array(ar)
    if axis is None:
        order, s, mask = _ordered(x, None, bool(equal_nan))
        values = kept(s, mask)
        shape = x.shape
    else:
        ax = normalize_axis(operator.index(axis), np.ndim(x))
        order, s, mask = _ordered(x, ax, False)
        values = np.moveaxis(kept(s, mask), 0, ax)
        shape = (x.shape[ax],)
    if not (return_index or return_inverse or return_counts):
        return values
    out = [values]
    group = np.cumsum(mask.astype(np.int64))
    if return_index:
        out.append(kept(order, mask))
    if return_inverse:
        out.append(np.reshape((group - 1)[np.argsort(order)], shape))
    if return_counts:
        out.append(kept(np.searchsorted(group, group, side="right") - _positions(group),
                        mask))
    return tuple(out)


def unique_values(x: Any) -> Any:
    """``np.unique_values``: the unique values, NaNs distinct (sorted, see the module)."""
    return unique(x, equal_nan=False)


def unique_counts(x: Any) -> UniqueCountsResult:
    """``np.unique_counts``: the unique values and how often each occurs."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x: Any) -> UniqueInverseResult:
    """``np.unique_inverse``: the unique values and, of x's shape, each element's."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_all(x: Any) -> UniqueAllResult:
    """``np.unique_all``: values, first indices, inverse indices and counts."""
    return UniqueAllResult(*unique(x, True, True, True, equal_nan=False))


#: NumPy function -> its composition.
UNIQUES: dict[Any, Callable[..., Any]] = {
    np.unique: unique, np.unique_values: unique_values, np.unique_counts: unique_counts,
    np.unique_inverse: unique_inverse, np.unique_all: unique_all}


def register(ops: dict[str, Any]) -> None:
    """Make the NumPy functions of :data:`UNIQUES` build their compositions (with the
    catalogue's ``argsort_rows`` of ``ops``)."""
    _ROWS[:] = [ops["argsort_rows"]]
    for fn, composition in UNIQUES.items():
        register_numpy(fn, composition)
