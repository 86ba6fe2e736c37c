"""NumPy functions that are compositions of catalogue Ops.

``np.atleast_2d``, ``np.column_stack``, ``np.fliplr``, ``np.insert``, ``np.kron``, ... are
NumPy's own compositions of reshapes, flips, concatenations and products. On symbolic
tensors they build the graph of the same composition (by calling NumPy's functions on
the tensors, which dispatch to the catalogue's Ops), so every node is typed by its Op's
relation; nothing here decides a type. Each follows NumPy's definition, including its
errors; :func:`register` maps the NumPy functions to them.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..graph.basic import Variable
from ..types.dim import Dim
from ..types.dimminmax import dim_min
from ..types.dtypes import COMPLEX, category, is_low_precision
from ..types.numpyargs import numpy_method
from ..types.protocol import NUMPY_OPS, register_numpy
from ..types.variable import METHODS, as_tensor_variable, register_method
from .arraylike import as_array as _tensor
from .arraylike import ndim as _ndim
from .arraylike import shape as _shape
from .clipping import clipped
from .counted import nonzero
from .itemat import item_at
from .knowntake import known_along, known_take
from .masked import masked
from .pads import padded
from .params import AxisError, normalize_axis


def _conj(op: Callable[..., Any]) -> Callable[..., Any]:
    """The ``conj`` method (``op``, the catalogue's): ``ndarray.conjugate`` gives a real
    array of NumPy's back as it is (a bool array stays bool, where the ufunc
    ``np.conjugate`` of it is int8); complex and low-precision dtypes take the ufunc."""
    @functools.wraps(op)
    def conj(x: Any) -> Any:
        dtype = x.type.dtype
        return x if category(dtype) is not COMPLEX and not is_low_precision(dtype) else op(x)
    return conj


def _each(fn: Callable[[Any], Any]) -> Callable[..., Any]:
    """``atleast_kd(*arys)``: one array, or a tuple of them for several (as NumPy)."""
    def apply(*arys: Any) -> Any:
        out = tuple(fn(_tensor(a)) for a in arys)
        return out[0] if len(out) == 1 else out
    return apply


def _atleast_1d(a: Any) -> Any:
    return np.reshape(a, (1,)) if _ndim(a) == 0 else a


def _atleast_2d(a: Any) -> Any:
    n = _ndim(a)
    return np.reshape(a, (1, 1)) if n == 0 else a[None, :] if n == 1 else a


def _atleast_3d(a: Any) -> Any:
    n = _ndim(a)
    if n == 0:
        return np.reshape(a, (1, 1, 1))
    if n == 1:
        return a[None, :, None]
    return a[..., None] if n == 2 else a


def _column_stack(tup: Sequence[Any]) -> Any:
    """1-d (and 0-d) arrays as columns, 2-d as they are, side by side."""
    cols = []
    for a in map(_tensor, tup):
        n = _ndim(a)
        cols.append(np.reshape(a, (1, 1)) if n == 0 else a[:, None] if n == 1 else a)
    return np.concatenate(cols, axis=1)


def _dstack(tup: Sequence[Any]) -> Any:
    return np.concatenate([_atleast_3d(_tensor(a)) for a in tup], axis=2)


def _fliplr(m: Any) -> Any:
    if _ndim(m) < 2:
        raise ValueError("Input must be >= 2-d.")
    return np.flip(m, axis=1)


def _flipud(m: Any) -> Any:
    if _ndim(m) < 1:
        raise ValueError("Input must be >= 1-d.")
    return np.flip(m, axis=0)


def _rot90(m: Any, k: int = 1, axes: Sequence[int] = (0, 1)) -> Any:
    """NumPy's rot90: k quarter turns from the first axis towards the second."""
    axes = tuple(axes)
    n = _ndim(m)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == n:
        raise ValueError("Axes must be different.")
    if not all(-n <= a < n for a in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={n}.")
    k = operator.index(k) % 4
    if k == 0:
        return m
    if k == 2:
        return np.flip(np.flip(m, axes[0]), axes[1])
    order = list(range(n))
    a0, a1 = axes[0] % n, axes[1] % n
    order[a0], order[a1] = order[a1], order[a0]
    if k == 1:
        return np.transpose(np.flip(m, axes[1]), order)
    return np.flip(np.transpose(m, order), axes[1])


def _append(arr: Any, values: Any, axis: int | None = None) -> Any:
    arr, values = _tensor(arr), _tensor(values)
    if axis is None:
        return np.concatenate([np.ravel(arr), np.ravel(values)])
    return np.concatenate([arr, values], axis=axis)


def _position(obj: Any, length: Any, what: str) -> Any:
    """A scalar index of ``insert``/``delete`` along an axis of ``length``, made
    non-negative, checked as NumPy checks it where the length is known (where it is a
    size, the caller states it: an index of the axis, whose relation needs it)."""
    if isinstance(obj, Dim):
        return obj
    try:
        i = operator.index(obj)
    except TypeError:
        raise TypeError(f"numpy.{what} on symbolic tensors takes one int (or size) "
                        f"position, got {obj!r}") from None
    if isinstance(length, int):
        top = length if what == "insert" else length - 1
        if not -length <= i <= top:
            raise IndexError(f"index {i} is out of bounds for axis with size {length}")
        return i + length if i < 0 else i
    return i if i >= 0 else length + i


def _axis_of(arr: Any, axis: int | None) -> tuple[Any, int]:
    if axis is None:
        return np.ravel(arr), 0
    return arr, normalize_axis(axis, _ndim(arr))


def _insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """NumPy's insert at one position: ``values`` (of arr's dtype) with a leading axis
    moved to ``axis`` and broadcast to arr's other axes, put before position ``obj``."""
    arr, axis = _axis_of(_tensor(arr), axis)
    n = _ndim(arr)
    i = _position(obj, _shape(arr)[axis], "insert")
    if isinstance(obj, int | np.integer) and obj != 0 and isinstance(arr, Variable) and \
            not isinstance(_shape(arr)[axis], int):  # -length <= obj <= length: the
        arr[(slice(None),) * axis + (obj - 1 if obj > 0 else obj,)]  # position's relation
    elif isinstance(obj, Dim) and isinstance(arr, Variable):  # the same of a size: two
        # positions of arr with one more entry, obj (<= length) and obj - 1 (>= -length)
        longer = np.pad(arr, [(0, 1) if k == axis else (0, 0) for k in range(n)])
        longer[(slice(None),) * axis + (obj,)]
        longer[(slice(None),) * axis + (obj - 1,)]
    if not isinstance(values, Variable):  # made an array of arr's dtype, as NumPy does
        values = as_tensor_variable(np.asarray(values, dtype=np.dtype(arr.dtype)))
    values = np.reshape(values, (1,) * (n - _ndim(values)) + tuple(_shape(values)))
    values = np.moveaxis(values, 0, axis)
    shape = list(_shape(arr))
    shape[axis] = _shape(values)[axis]
    while _ndim(values) > n:  # NumPy's assignment drops leading axes of length 1
        if _shape(values)[0] != 1:
            raise ValueError(f"could not broadcast input array from shape "
                             f"{tuple(_shape(values))} into shape {tuple(shape)}")
        values = values[0]
    values = np.broadcast_to(values, tuple(shape))
    if values.dtype != arr.dtype:
        values = values.astype(arr.dtype)
    before = (slice(None),) * axis
    return np.concatenate([arr[(*before, slice(None, i))], values,
                           arr[(*before, slice(i, None))]], axis=axis)


def _delete(arr: Any, obj: Any, axis: int | None = None) -> Any:
    """NumPy's delete of one position, or of any positions where the axis's length is
    known (the others kept by an index)."""
    arr, axis = _axis_of(_tensor(arr), axis)
    length = _shape(arr)[axis]
    before = (slice(None),) * axis
    if isinstance(obj, Dim) or np.ndim(obj) == 0 and not isinstance(obj, slice):
        i = _position(obj, length, "delete")
        arr[(*before, i)]  # the position's own relation: i < length (a condition if unknown)
        return np.concatenate([arr[(*before, slice(None, i))],
                               arr[(*before, slice(i + 1, None))]], axis=axis)
    if not isinstance(length, int):
        raise TypeError("numpy.delete of several positions needs the axis's length known; "
                        "delete one position at a time")
    kept = np.delete(np.arange(length), obj)
    return arr[(*before, kept)]


def _split_at(axis: int, least: int, name: str) -> Callable[..., Any]:
    def split(ary: Any, indices_or_sections: Any) -> Any:
        if _ndim(ary) < least:
            raise ValueError(f"{name} only works on arrays of {least} or more dimensions")
        along = 0 if name == "hsplit" and _ndim(ary) == 1 else axis  # a vector's only axis
        return np.split(ary, indices_or_sections, axis=along)
    return split


def _array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[Any]:
    """Sections of sizes ``n//k + 1`` (the first ``n % k``) and ``n//k``, or the pieces
    between the given positions."""
    axis = normalize_axis(axis, _ndim(ary))
    n = _shape(ary)[axis]
    before = (slice(None),) * axis
    if np.ndim(indices_or_sections) == 1:
        bounds = [0, *indices_or_sections, n]
    else:
        if isinstance(indices_or_sections, Dim):
            raise TypeError(f"numpy.array_split into {indices_or_sections} sections, a size: "
                            "the number of pieces (a Python list) must be known; split "
                            "into an int number of sections, or slice the pieces")
        k = operator.index(indices_or_sections)
        if k <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = n // k, n % k
        bounds = [i * each + dim_min(i, extra) for i in range(k + 1)]
    return [ary[(*before, slice(a, b))] for a, b in zip(bounds, bounds[1:], strict=False)]


def _inner(a: Any, b: Any) -> Any:
    a, b = _tensor(a), _tensor(b)
    if _ndim(a) == 0 or _ndim(b) == 0:
        return np.multiply(a, b)
    return np.tensordot(a, b, axes=([-1], [-1]))


def _vdot(a: Any, b: Any) -> Any:
    """The dot product of the flattened arrays, a conjugated if complex."""
    a, b = _tensor(a), _tensor(b)
    if np.iscomplexobj(a):
        a = np.conj(a)
    return np.matmul(np.ravel(a), np.ravel(b))


def _kron(a: Any, b: Any) -> Any:
    """Every product of an element of a and one of b, blocks laid out as a's."""
    a, b = _tensor(a), _tensor(b)
    nd = max(_ndim(a), _ndim(b))
    sa = (1,) * (nd - _ndim(a)) + tuple(_shape(a))
    sb = (1,) * (nd - _ndim(b)) + tuple(_shape(b))
    a = np.reshape(a, tuple(x for s in sa for x in (s, 1)))
    b = np.reshape(b, tuple(x for s in sb for x in (1, s)))
    return np.reshape(a * b, tuple(p * q for p, q in zip(sa, sb, strict=True)))


def _diagflat(v: Any, k: int = 0) -> Any:
    return np.diag(np.ravel(_tensor(v)), k)


def _rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    n = _ndim(a)
    axis = normalize_axis(axis, n)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was "
                        "passed in")
    if axis < start:
        start -= 1
    return a if axis == start else np.moveaxis(a, axis, start)


def _broadcast_arrays(*args: Any, subok: bool = False) -> tuple[Any, ...]:
    """Each array broadcast to the shape of all of them (a tuple, as NumPy 2): the
    shape is that of the arrays' ``|`` as booleans, whose relation broadcasts them."""
    arrays = [a if isinstance(a, Variable) else as_tensor_variable(np.asarray(a))
              for a in args]  # (a number or array too: NumPy gives it the shape)
    if not arrays:
        return ()
    probe = functools.reduce(np.logical_or, [np.zeros_like(a, dtype=bool) for a in arrays])
    return tuple(np.broadcast_to(a, tuple(_shape(probe))) for a in arrays)


def _in_dtype(op: Callable[..., Any], numpy_name: str) -> Callable[..., Any]:
    """``np.cumsum(a, axis, dtype)`` (``cumprod``, the methods): with ``dtype``, NumPy
    casts the elements to it and accumulates in it, which is the accumulation of the cast
    elements cast back to it (an integer's wraps, a bool's ``or``/``and``, a float's
    rounding per step are the same: NumPy's own accumulation of that dtype)."""
    @functools.wraps(op)
    def accumulated(a: Any, axis: Any = None, dtype: Any = None) -> Any:
        if dtype is None:
            return op(a, axis)
        name = np.dtype(dtype).name
        return op(_tensor(a).astype(name), axis).astype(name)
    accumulated.__name__ = numpy_name
    return accumulated


def _keys(keys: Any) -> list[Any]:
    """``np.lexsort``'s keys: a sequence of arrays, or an array whose rows are the keys
    (its first axis must then have a known length: the number of keys is no size)."""
    if not isinstance(keys, Variable):
        return [_tensor(k) for k in keys]
    if keys.type.ndim == 0:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    n = keys.type.shape[0]
    if not isinstance(n, int):
        raise TypeError(f"numpy.lexsort of the rows of a {keys.type} tensor: the number of "
                        "keys is a size, not known when the graph is built; give a "
                        "sequence of keys")
    return [keys[i] for i in range(n)]


def _lexsorted(op: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(op)
    def lexsort(keys: Any, axis: int = -1) -> Any:
        found = _keys(keys)
        if not found:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        return op(found, axis=axis)
    return lexsort


#: NumPy function -> its composition of Ops.
COMPOSITIONS: dict[Any, Callable[..., Any]] = {
    np.atleast_1d: _each(_atleast_1d), np.atleast_2d: _each(_atleast_2d),
    np.atleast_3d: _each(_atleast_3d), np.column_stack: _column_stack, np.dstack: _dstack,
    np.fliplr: _fliplr, np.flipud: _flipud, np.rot90: _rot90, np.append: _append,
    np.insert: _insert, np.delete: _delete, np.hsplit: _split_at(1, 1, "hsplit"),
    np.vsplit: _split_at(0, 2, "vsplit"), np.dsplit: _split_at(2, 3, "dsplit"),
    np.array_split: _array_split, np.inner: _inner, np.vdot: _vdot, np.kron: _kron,
    np.diagflat: _diagflat, np.rollaxis: _rollaxis}


_SPLIT = inspect.signature(lambda ary, indices_or_sections, axis=0: None)


def _listed(op: Callable[..., Any]) -> Callable[..., list[Any]]:
    """``np.split`` gives a list of its sections, also of one (``np.split(x, 1)[0]`` is
    x's copy); the Op, called, gives its one output alone, which ``[0]`` would index.
    Positions that are sizes (``np.split(x, [1, n])``) are NumPy's definition, the
    slices between them (:func:`_array_split`)."""
    def split(*args: Any, **kwargs: Any) -> list[Any]:
        bound = _SPLIT.bind(*args, **kwargs).arguments
        at = bound["indices_or_sections"]
        if isinstance(at, list | tuple) and any(isinstance(i, Dim) for i in at):
            return _array_split(bound["ary"], at, bound.get("axis", 0))
        out = op(*args, **kwargs)
        return list(out) if isinstance(out, list | tuple) else [out]
    return split


#: NumPy functions whose catalogue Op may have one output where NumPy gives a list.
LISTED = (np.split,)


def _three_way(op: Callable[..., Any]) -> Callable[..., Any]:
    """``np.where(c, x, y)`` is the catalogue's where; ``np.where(c)`` alone is NumPy's
    ``nonzero(c)`` (:func:`~.counted.nonzero`: index arrays of one length the data
    decide)."""
    @functools.wraps(op)
    def where(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs:
            return nonzero(args[0])
        if len(args) + len(kwargs) == 1:
            raise TypeError("numpy.where takes the condition alone (positionally) or the "
                            "condition, x and y")
        return op(*args, **kwargs)
    return where


def register(ops: dict[str, Any]) -> None:
    """Make the NumPy functions of :data:`COMPOSITIONS` build their compositions, those
    of :data:`LISTED` (mapped to their Ops by the catalogue) give lists, ``np.where``
    of one argument give nonzero's arrays, ``np.take`` (``x.take``) of known indices
    index (:func:`~.knowntake.known_take`), ``np.take_along_axis`` check them
    (:func:`~.knowntake.known_along`), ``np.broadcast_arrays`` broadcast, ``cumsum`` and
    ``cumprod`` accumulate in a given dtype, ``np.lexsort`` take its keys as NumPy does,
    ``np.clip`` leave out a bound, ``x.item`` take positions, ``np.sum``/``np.prod``
    take ``where=`` and ``np.pad`` pick the Op of its mode (``ops``: the
    catalogue's Ops by name)."""
    for fn in LISTED:
        register_numpy(fn, _listed(NUMPY_OPS[fn]))
    register_numpy(np.where, _three_way(NUMPY_OPS[np.where]))
    register_numpy(np.take, known_take(NUMPY_OPS[np.take]))
    register_numpy(np.take_along_axis, known_along(NUMPY_OPS[np.take_along_axis]))
    register_method("take", known_take(METHODS["take"]))
    for fn, composition in COMPOSITIONS.items():
        register_numpy(fn, composition)
    register_numpy(np.broadcast_arrays, _broadcast_arrays)
    for name in ("cumsum", "cumprod"):
        register_numpy(getattr(np, name), _in_dtype(NUMPY_OPS[getattr(np, name)], name))
        register_method(name, numpy_method(name, _in_dtype(METHODS[name], name)))
    register_numpy(np.lexsort, _lexsorted(NUMPY_OPS[np.lexsort]))
    register_numpy(np.clip, clipped(NUMPY_OPS[np.clip]))
    register_method("clip", clipped(METHODS["clip"]))
    register_method("item", item_at(METHODS["item"]))
    register_method("conj", _conj(METHODS["conj"]))
    for fn, identity in ((np.sum, np.zeros_like), (np.prod, np.ones_like)):
        register_numpy(fn, masked(NUMPY_OPS[fn], identity, fn))
        register_method(fn.__name__, masked(METHODS[fn.__name__], identity))
    register_numpy(np.pad, padded(ops["pad"], ops["pad_edges"], ops["full"]))
