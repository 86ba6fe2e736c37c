"""NumPy functions whose result's length the data decide, as compositions of the
``index`` Op's boolean mask: ``np.nonzero``, ``np.where(c)`` (one argument),
``np.argwhere``, ``np.flatnonzero``, ``np.compress`` (and, with :func:`kept`, the
unique values of :mod:`kantensor.ops.uniques`).

A boolean mask selects a number of elements no size gives: the index Op leaves it a size
of its own, at most the mask's size (``m <= N*D``: a fact of that size, not a condition
on the inputs; see :mod:`kantensor.evalshape.assumptions`), unknown in the type (``?``)
as every size the data decide. ``np.nonzero(x)`` selects the columns of one grid of
positions (``grid[:, x != 0]``, int64 as NumPy's intp; one node for one tensor, however
often called) and splits its rows. Each value computed from such a length has a ``?`` of
its own; eval_shape names the ones its relations make equal alike
(:mod:`kantensor.evalshape.sameaxes`: ``rows + cols`` needs nothing), so what code needs
of two counts (``x[x > 0] + y[y > 0]``), or of one
(``np.zeros(3)[len(np.flatnonzero(x))]``), is an assumption ``holds`` says it cannot
decide, never dropped.

The compositions compute NumPy's values (positions in C order, the elements kept in
order). NumPy's errors are kept: a 0-d input to ``nonzero``/``where`` (ValueError), a
condition of ``compress`` that is not 1-d. A ``compress`` condition longer than its axis
is refused (NumPy runs it where the extra entries are false, which no size says).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.protocol import register_numpy
from ..types.variable import as_tensor_variable, register_method
from .arraylike import as_array
from .arraylike import ndim as _ndim
from .params import normalize_axis
from .paramvalues import ArrayRef

#: id of a tensor -> weak references to it and to the positions of its nonzero elements:
#: one value has one set of positions, so ``np.nonzero(x)`` twice (``np.argwhere(x)``
#: after it) is one node, whose count is one size. By identity (``==`` of tensors
#: compares elements), weak both ways: an entry goes with its tensor.
_POSITIONS: dict[int, tuple[weakref.ref, weakref.ref]] = {}


def _positions(a: Any) -> Any:
    """The (ndim, k) int64 positions of a's nonzero elements (k the data decide), C order
    (the same node for the same tensor: :data:`_POSITIONS`)."""
    known = _POSITIONS.get(id(a)) if isinstance(a, Variable) else None
    if known is not None and known[0]() is a and known[1]() is not None:
        return known[1]()
    ones = np.ones_like(a, dtype=np.int64)
    grid = np.stack([np.cumsum(ones, axis=i) - 1 for i in range(_ndim(a))])
    out = grid[(slice(None), a != 0)]
    if isinstance(a, Variable) and isinstance(out, Variable):
        key = id(a)
        _POSITIONS[key] = (weakref.ref(a, lambda _, k=key: _POSITIONS.pop(k, None)),
                           weakref.ref(out))
    return out


def _nonzero(a: Any) -> tuple[Any, ...]:
    a = as_array(a)
    if _ndim(a) == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead.")
    rows = _positions(a)
    return tuple(rows[i] for i in range(_ndim(a)))


def _argwhere(a: Any) -> Any:
    """(k, ndim): a 0-d input is one element of no axes (NumPy: k is 0 or 1, no columns)."""
    a = as_array(a)
    if _ndim(a) == 0:
        return _argwhere(np.reshape(a, (1,)))[:, :0]
    return np.transpose(_positions(a))


def _flatnonzero(a: Any) -> Any:
    flat = np.ravel(as_array(a))
    return (np.cumsum(np.ones_like(flat, dtype=np.int64)) - 1)[flat != 0]


def _compressing(arange: Callable[..., Any]) -> Callable[..., Any]:
    """``np.compress`` with the ``arange`` Op (see :func:`_compress`)."""
    def compress(condition: Any, a: Any, axis: int | None = None) -> Any:
        return _compress(arange, condition, a, axis)
    return compress


def _compress(arange: Callable[..., Any], condition: Any, a: Any, axis: int | None
              ) -> Any:
    """``a``'s entries along ``axis`` (of the flattened ``a`` for None, as for a 0-d
    ``a``) where the 1-d ``condition`` is true: its true positions where its values are
    known, the mask itself where it has the axis's length; else the first ``len(c)``
    entries (``a[..., np.arange(len(c))]``, which needs ``len(c) <= n``) masked. NumPy
    also runs a longer condition whose extra entries are all false, which no size
    says: refused there (a condition on the sizes, at the user's line), never typed
    where NumPy raises IndexError."""
    c, a = as_array(condition), as_array(a)
    if _ndim(c) != 1:
        raise ValueError("condition must be a 1-d array")
    if axis is None or _ndim(a) == 0:
        if axis is not None:
            normalize_axis(axis, 1)
        a, axis = np.ravel(a), 0
    axis = normalize_axis(axis, _ndim(a))
    before = (slice(None),) * axis
    if isinstance(c, np.ndarray):  # known values: known positions
        return np.take(a, np.flatnonzero(c), axis=axis)
    a = as_tensor_variable(a)  # (a NumPy array, masked by a tensor)
    if c.shape[0] != a.shape[axis]:
        a = a[(*before, arange(c.shape[0]))]
    return a[(*before, c != 0)]


def kept(s: Any, mask: Any) -> Any:
    """``s[mask]`` where ``mask`` (of ``s``'s shape, 1-d) is true at its first element
    whenever it has one (the first occurrences of sorted values): the ``index`` Op told
    so (:attr:`ArrayRef.leading`), so its relation bounds the count ``min(1, n) <= m <=
    n``, which every front end reads."""
    if isinstance(mask, Variable) and _INDEX:
        return _INDEX[0](s, mask, index=(ArrayRef(0, leading=True),))
    return s[mask]


#: NumPy function -> its composition.
COUNTED: dict[Any, Callable[..., Any]] = {
    np.nonzero: _nonzero, np.argwhere: _argwhere, np.flatnonzero: _flatnonzero}

#: The catalogue's ``index`` Op, once :func:`register` is given it.
_INDEX: list[Callable[..., Any]] = []


def nonzero(a: Any) -> tuple[Any, ...]:
    """``np.nonzero(a)`` (and ``np.where(a)``) on a tensor: one int64 index array per
    axis, all of one length the data decide."""
    return _nonzero(a)


def register(ops: dict[str, Any]) -> None:
    """Make the NumPy functions of :data:`COUNTED` (and ``np.compress``, with the
    catalogue's ``arange`` of ``ops``) build their compositions, and the methods
    ``x.nonzero()``, ``x.compress(condition, axis)`` too."""
    for fn, composition in COUNTED.items():
        register_numpy(fn, composition)
    _INDEX[:] = [ops["index"]]
    compress = _compressing(ops["arange"])
    register_numpy(np.compress, compress)
    register_method("nonzero", _nonzero)
    register_method("compress", lambda a, condition, axis=None: compress(condition, a, axis))
