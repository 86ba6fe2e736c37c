"""Advanced indexing with NumPy's rules: ``x[i]``, ``x[i, :, j]``, ``x[mask]``.

An index holding integer arrays (tensors, NumPy arrays, lists) or boolean masks is
*advanced*. :func:`subscript_operator` (``x[...]`` on a tensor variable) sends basic indices to
``getitem`` and advanced ones to the ``index`` Op, whose tensor inputs are ``x`` and the
index arrays, and whose ``index`` parameter is the index with each array replaced by an
:class:`ArrayRef` (its position among the inputs).

The builder follows NumPy: integer arrays (and ints, once there is an array) broadcast
together; a boolean mask stands for the integer arrays of its true positions, one per
axis it covers, whose common length is unknown until the graph runs (a 0-d mask covers
none: one array of length 0 or 1, a new axis where it stands alone); the broadcast
dims replace the indexed axes where the advanced indices are adjacent, and go first
otherwise. Broadcasting is written with ``max`` and where-clauses, so it is decided
when sizes are known and checked by NumPy otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...graph.basic import Variable
from ...syntax.ast import Clause, DimVar, DTypeVar, InCategory, TensorPattern, dim_max, dim_min
from ...types.dim import Dim
from ...types.dtypes import integer_range, is_integer
from ...types.sizenum import size_tensor
from ..fastcall import Miss
from ..params import ParamError
from ..paramvalues import ArrayRef, SliceItem
from ..sizes import SizeNames
from ..templates import alternative, checked, dims, rank_error, reads_ranks, size_of, typed
from .creation import ranged
from .indexing import readings, sized_bounds, sliced, values_need
from .values import permutation_axis, value_bounds, value_range, value_reach

_ARRAYS = (Variable, np.ndarray, list, range)
_NO_KEYWORDS: dict[str, Any] = {}  # never mutated


def _is_array(item: Any) -> bool:
    return isinstance(item, _ARRAYS)


def subscript_operator(getitem: Any, index_op: Callable[..., Any]
                       ) -> Callable[[Any, Any], Any]:
    """``x[index]`` on a tensor variable: basic indices to the ``getitem`` family,
    indices with arrays to ``index``. A basic index seen before is answered by
    getitem's cached call for two positional arguments (see :mod:`.fastcall`) before
    anything looks for arrays: ``x[1:, ::2]`` in a loop is that lookup and an Apply."""
    fast_calls = getitem.fast

    def subscript(x: Any, index: Any) -> Any:
        fast = fast_calls.get(2)
        if fast is not None:
            out = fast((x, index), _NO_KEYWORDS)
            if out is not None and type(out) is not Miss:
                return out
        return _build_subscript(getitem, index_op, x, index)
    return subscript


def split_index(index: Any) -> tuple[list[Any], tuple | None]:
    """``(arrays, pattern)`` of an index holding arrays (tensors, NumPy arrays, lists,
    ranges): the pattern has an :class:`ArrayRef` where each array was. ``([], None)``
    for a basic index."""
    items = index if isinstance(index, tuple) else (index,)
    for i in items:  # a loop, not any(...): every first x[1:, ::2] of a type comes here
        if isinstance(i, _ARRAYS):
            break
    else:
        return [], None
    arrays: list[Any] = []
    pattern: list[Any] = []
    for item in items:
        if _is_array(item):
            value = listed_index(item) if isinstance(item, list | range) else item
            pattern.append(array_ref(len(arrays), value))
            arrays.append(value)
        else:
            pattern.append(item)
    return arrays, tuple(pattern)


def listed_index(item: list | tuple | range) -> Any:
    """A list (or range) index as NumPy reads it: an empty one is an integer index
    (``x[[]]`` is empty along the axis; ``np.asarray([])`` alone would be float64). One
    holding sizes (``x[[len(y) - 1, 0]]``: NumPy runs it where the sizes are ints) is the
    tensor of their numbers, stacked as ``np.array`` stacks them during eval_shape; one
    holding tensors is refused naming them (NumPy would make it an object array, refused
    as a dtype)."""
    value = np.asarray(item)
    if value.dtype == object and any(isinstance(v, Dim | Variable) for v in value.flat):
        if all(isinstance(v, Dim | int | np.integer) and not isinstance(v, bool)
               for v in value.flat):
            return _stacked(item)
        raise TypeError(f"an index list holding tensors ({item!r}) is not supported as a "
                        "list: make it a tensor, np.array([...]) inside eval_shape "
                        "(kt.stack outside)")
    return value.astype(np.intp) if value.size == 0 and value.dtype.kind == "f" else value


def _stacked(item: Any) -> Any:
    """A nested list of sizes and ints as one int64 tensor of their numbers."""
    if isinstance(item, list | tuple):
        return np.stack([_stacked(v) for v in item])
    return size_tensor(item) if isinstance(item, Dim) else np.int64(item)


def array_ref(position: int, value: Any) -> ArrayRef:
    """The :class:`ArrayRef` of the index array ``value`` (input ``position`` + 1): the
    bounds of a constant's values, or of values the graph computes from known numbers
    (:func:`~kantensor.ops.families.values.value_bounds`: ints; where they are sizes,
    :func:`~kantensor.ops.families.values.value_reach`, a size of the call); ``arange(k)``
    counts 0 .. k - 1, ``arange(k) % m`` 0 .. min(k, m) - 1 (a cap, where bounds 0 .. m
    - 1 would refuse k < m on an axis of k); an ``argsort`` permutes its own axis
    (:attr:`ArrayRef.along`, exact whether that axis is known or not)."""
    if isinstance(value, np.ndarray):
        bounds = (int(value.min()), int(value.max())) if value.dtype.kind in "iu" and \
            value.size else None
        return ArrayRef(position, bounds)
    if _counting(value):
        return ArrayRef(position, None, True)
    along = permutation_axis(value)
    if along is not None and along < value.type.ndim:
        return ArrayRef(position, along=along)
    node = getattr(value, "owner", None)
    if node is not None and getattr(node.op, "impl", None) is np.remainder and \
            len(node.inputs) == 2 and _counting(node.inputs[0]):
        m = value_bounds(node.inputs[1])
        if m is not None and m[0] == m[1] and m[0] > 0 and _wide_integer(value.type.dtype):
            return ArrayRef(position, None, True, m[0])
    found = value_range(value)  # (once: bounds that are ints, else a reach)
    if found is not None and type(found[0]) is int and type(found[1]) is int:
        return ArrayRef(position, found)
    return ArrayRef(position, reach=value_reach(value, found))


def _counting(value: Any) -> bool:
    """Whether ``value`` is ``arange(k)`` (of an integer dtype of 32 bits or more, which
    does not wrap around at any size an axis has): its values are 0 .. k - 1
    (:class:`ArrayRef`)."""
    node = getattr(value, "owner", None)
    if node is None or getattr(node.op, "builder", None) is not ranged:
        return False
    params = dict(node.op.params)
    start, step = params.get("start"), params.get("step")
    return type(start) is int and start == 0 and type(step) is int and step == 1 and \
        _wide_integer(params.get("dtype"))


def _wide_integer(dtype: Any) -> bool:
    return isinstance(dtype, str) and is_integer(dtype) and integer_range(dtype)[1] >= 2**31 - 1


def _build_subscript(getitem: Callable[..., Any], index_op: Callable[..., Any], x: Any,
                     index: Any) -> Any:
    """``getitem(x, index)`` for a basic index, else ``index(x, *arrays, index=...)``
    with each array of the index replaced by its :class:`ArrayRef`."""
    arrays, pattern = split_index(index)
    if pattern is None:
        return getitem(x, index)
    return index_op(x, *arrays, index=pattern)


def _consumed(item: Any, t: Any) -> int:
    """How many axes of x an index item uses."""
    if item is None or item is Ellipsis:
        return 0
    if isinstance(item, ArrayRef) and t[item.position].dtype == "bool":
        return t[item.position].ndim  # (a 0-d mask: none)
    return 1


@reads_ranks
def advanced_index(types: tuple, index: tuple, **_: Any) -> dict[str, Any]:
    """``x, *arrays`` -> ``y`` for an advanced index (see the module docstring)."""
    out = []
    for reading in readings(sized_bounds(index)):
        operands, y, clauses, sizes = advanced_selection(types[0], types[1:], index, reading)
        out.append(alternative([*operands, *sizes.patterns()], [typed(y, "t")], clauses))
    return {"sig": out}


def advanced_selection(x: Any, arrays: tuple, index: tuple,
                       reading: tuple[bool, ...] | None = ()
                       ) -> tuple[list[TensorPattern], list, list[Clause], SizeNames]:
    """For an advanced index of ``x`` with index ``arrays`` (followed by the size inputs
    of the index, if any): the operands of x and the arrays, the dims of ``x[index]``,
    the where-clauses (those that fail in NumPy's words), and the names of the sizes
    the index holds; ``reading``: how the signs of the slices' size bounds are read
    (:func:`~kantensor.ops.families.indexing.selection`)."""
    refs = [i for i in index if isinstance(i, ArrayRef)]
    sizes = SizeNames(index)
    given = len(arrays) - len(sizes.dims)
    arrays = arrays[:given]
    if sorted(r.position for r in refs) != list(range(given)):
        raise ParamError(f"the index refers to arrays {[r.position for r in refs]} but "
                         f"{given} were given")
    used = sum(_consumed(i, arrays) for i in index)
    if used > x.ndim:
        raise rank_error("index", f"too many indices for tensor: tensor is {x.ndim}-"
                                  f"dimensional, but {used} were indexed")
    full = SliceItem(None, None, None)
    items: list[Any] = []
    for item in index:  # an Ellipsis of no axes still parts the advanced indices (NumPy)
        items.extend(([full] * (x.ndim - used) or [Ellipsis]) if item is Ellipsis else [item])
    if Ellipsis not in index:
        items.extend([full] * (x.ndim - used))
    a = dims("a", x.ndim)
    operands = [typed(a, "t")]
    clauses: list[Clause] = []
    groups: list[list[DimVar]] = []   # the shape of every advanced index
    basic_before: list = []
    basic: list = []
    advanced_at: list[int] = []
    looked_up: list[DimVar] = []     # the axes integer arrays look values up in
    fitting: list[tuple[DimVar, Any]] = []  # (axis, least size) for known values
    flips = iter(reading or ())
    axis = 0
    for position, item in enumerate(items):
        if item is Ellipsis:
            continue
        if item is None:
            basic.append(1)
            continue
        if isinstance(item, ArrayRef | int | Dim) and not advanced_at:
            basic_before = list(basic)
        if isinstance(item, ArrayRef):
            t = arrays[item.position]
            k = item.position
            advanced_at.append(position)
            kind = DTypeVar(f"u{k}")
            if t.dtype == "bool":
                # each axis of the mask is the axis it indexes, or 0: NumPy checks only
                # a mask's axes of one element or more (x[np.zeros(0, bool)] of a (3, 2)
                # array is (0, 2))
                own = dims(f"k{k}_", t.ndim)
                operands.append(typed(own, kind))
                clauses.append(InCategory(kind, "bool"))
                clauses.extend(checked(((m - n) * m).eq(0), _mask_mismatch(k, j, axis + j))
                               for j, (m, n) in enumerate(zip(own, a[axis:], strict=False)))
                # the number of true values: unknown, at most the mask's size (a 0-d
                # mask uses no axis of x and counts 0 or 1: x[m] is x[None] or
                # x[None][:0], as NumPy reads it, even beside other index arrays)
                (count,) = dims(f"m{k}")
                clauses.append(count <= size_of(own))
                if item.leading:  # true at its first element: at least one where any
                    clauses.append(count >= dim_min(1, size_of(own)))
                groups.append([count])
                axis += t.ndim
            else:
                own = dims(f"i{k}_", t.ndim)
                operands.append(typed(own, kind))
                clauses.append(InCategory(kind, "integer"))
                groups.append(own)
                need = values_need(item, own, sizes)
                if need is not None:  # (which says the axis is not empty)
                    fitting.append((a[axis], need))
                if t.ndim:
                    if not (item.counting and t.ndim == 1 or item.along is not None):
                        looked_up.append(a[axis])
                else:  # NumPy looks a 0-d index up as an int, even beside empty arrays
                    clauses.append(a[axis] >= 1)
                axis += 1
        elif isinstance(item, int | Dim):
            advanced_at.append(position)
            groups.append([])
            if isinstance(item, Dim):  # of either sign, as in basic indexing
                size = sizes.expr(item)
                clauses += [a[axis] >= size + 1, a[axis] + size >= 0]
            else:
                clauses.append(a[axis] >= (item + 1 if item >= 0 else -item))
            axis += 1
        else:
            basic.append(sliced(a[axis], item, sizes, clauses,
                                None if reading is None else flips, f"u{axis}"))
            axis += 1
    adjacent = advanced_at == list(range(advanced_at[0], advanced_at[-1] + 1))
    broadcast = _broadcast(groups, clauses)
    # NumPy looks every index value up (so an empty axis fails) unless the broadcast
    # result is empty.
    clauses.extend(dim_min(size_of(broadcast), 1) <= n for n in looked_up)
    clauses.extend(dim_min(size_of(broadcast), 1) * need <= n for n, need in fitting)
    if adjacent:
        out = basic_before + broadcast + basic[len(basic_before):]
    else:
        out = broadcast + basic
    return operands, out, clauses, sizes


def _mask_mismatch(k: int, j: int, axis: int) -> Callable[[Any, tuple], str]:
    """NumPy's words for axis ``j`` of mask ``k`` (input ``k + 1``) that is neither 0 nor
    the size of the axis ``axis`` of x it indexes."""
    def message(_: Any, types: tuple) -> str:
        x, mask = types[0].shape, types[k + 1].shape
        n, m = (None if s is None else s[i] for s, i in ((x, axis), (mask, j)))
        return f"boolean index did not match indexed array along axis {axis}; size of " \
               f"axis is {'?' if n is None else n} but size of corresponding boolean " \
               f"axis is {'?' if m is None else m}"
    return message


def _shape_mismatch(_: Any, types: tuple) -> str:
    """NumPy's words for index arrays whose shapes do not broadcast (the arrays are the
    inputs after the indexed tensor)."""
    shapes = " ".join("(" + ",".join("?" if n is None else str(n) for n in t.shape)
                      + ("," if len(t.shape) == 1 else "") + ")" for t in types[1:])
    return f"shape mismatch: indexing arrays could not be broadcast together with shapes " \
           f"{shapes}"


def _broadcast(groups: list[list[DimVar]], clauses: list[Clause]) -> list:
    """NumPy's broadcast shape of index arrays with these dims; every dim must be 1 or
    the result (a where-clause when several meet)."""
    ndim = max((len(g) for g in groups), default=0)
    out: list = []
    for j in range(ndim):
        sizes = [g[len(g) - ndim + j] for g in groups if len(g) - ndim + j >= 0]
        if len(sizes) == 1:
            out.append(sizes[0])
            continue
        # the result o is every size that is not 1 (so one known size other than 1
        # decides it, as NumPy's broadcasting does): their max, or 0 where one is 0 (1
        # against 0 is 0), and 1 when all are 1; a mask's count (m...) is bound by no
        # input, so beside one that expression itself is the result
        value = dim_max(*sizes) * dim_min(1, *sizes)
        if any(s.name[0] == "m" for s in sizes):
            size = value
        else:
            (size,) = dims(f"o{j}")
            clauses.append(size.eq(value))
        for s in sizes:
            clauses.append(checked(((s - 1) * (s - size)).eq(0), _shape_mismatch))
        out.append(size)
    return out
