"""Index arrays whose values are made of sizes: what NumPy's bounds check needs of them.

An integer array that indexes a tensor is looked up value by value, and NumPy raises
IndexError at a value out of ``[-n, n)``. Where the array is data, its values are the
data's and no size condition says them; where it is made of sizes alone (``x[np.arange(k)
% 2]``, ``x[np.arange(k)[::-1]]``, ``x[np.arange(2, k, 3) * 2 - 1]``), they are decided
by the sizes, so the program runs only where they are in bounds: :func:`index_bounds`
reads their least and greatest values (:func:`value_range`, interval arithmetic over
``arange``, ``+ - * // %`` by ints, ``minimum``/``maximum`` and the Ops that only move
or repeat values) and states ``max(hi + 1, -lo) <= n`` where the array is not empty (the
index Op's own relation states only a constant's values and ``arange(k)``'s). Values it
does not read (``np.arange(k) ** 2``) are an assumption on an unknown, named as such:
``ShapeResult.holds`` then says it cannot answer, not True.
"""

from __future__ import annotations

import numpy as np

from ..graph.basic import Apply, Constant, Variable
from ..ops.params import ArrayRef
from ..ops.pyints import size_of_number
from ..types.conditions import Condition, Source
from ..types.dim import Dim, DimLike, dim_max, dim_min, unknown
from ..types.dtypes import integer_range, is_integer
from ..types.intervals import interval
from ..types.variable import SizeNumber

Range = tuple[DimLike, DimLike]

#: Ops whose values are some of their first input's (moved, repeated, viewed).
_SAME_VALUES = frozenset({"copy", "getitem", "flip", "reshape", "ravel", "flatten",
                          "broadcast_to", "transpose", "permute_dims", "matrix_transpose",
                          "expand_dims", "squeeze", "repeat", "tile", "roll", "sort"})
#: Ops whose values are some of all their inputs'.
_UNION = frozenset({"concatenate", "stack", "vstack", "hstack"})
#: Ops whose values are data (not decided by sizes) though they take no data input.
_DATA = frozenset({"random", "empty_like"})


class UnreadValues:
    """The key of the unknown bound of an index array's values that are made of sizes
    in a way :func:`value_range` does not read: named by where it indexes."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _name(v: Variable) -> str | None:
    return getattr(v.owner.op, "name", None) if v.owner is not None else None


def _int_range(c: Constant) -> Range | None:
    data = np.asarray(c.data)
    if data.dtype.kind not in "iub" or data.size == 0:
        return None
    return int(data.min()), int(data.max())


def _constant(v: Variable) -> int | None:
    if isinstance(v, Constant):
        r = _int_range(v)
        if r is not None and r[0] == r[1]:
            return r[0]
    return None


def _nonnegative(x: DimLike) -> bool:
    low = interval(x)[0] if isinstance(x, Dim) else x
    return low is not None and low >= 0


def value_range(v: Variable, memo: dict | None = None) -> Range | None:
    """The least and greatest value of the integer array ``v`` made of sizes, as ints
    or Dims (exact bounds or wider ones), where ``v`` has values; None where it does not
    read them (see the module's doc)."""
    memo = {} if memo is None else memo
    if v in memo:
        return memo[v]
    memo[v] = None  # (a graph has no cycles; this only guards the recursion)
    found = _range(v, memo)
    memo[v] = found
    return found


def _range(v: Variable, memo: dict) -> Range | None:
    if isinstance(v, Constant):
        return _int_range(v)
    if isinstance(v, SizeNumber):
        d = size_of_number(v)
        return (d, d) if d is not None else None
    name = _name(v)
    if name is None or not is_integer(v.type.dtype) or \
            integer_range(v.type.dtype)[1] < 2**31 - 1:  # (a narrow dtype may wrap)
        return None
    node = v.owner
    ins = node.inputs
    if name == "arange":
        p = dict(node.op.params)
        start, step = p.get("start"), p.get("step")
        if not isinstance(start, int | Dim) or type(step) is not int or not v.type.ndim:
            return None
        count = v.type.shape[0]
        if not isinstance(count, int | Dim):
            return None
        last = start + (count - 1) * step
        return (start, last) if step > 0 else (last, start)
    if name in _SAME_VALUES or name == "cast":
        return value_range(ins[0], memo)
    ranges = [value_range(x, memo) for x in ins]
    if name in _UNION:
        if any(r is None for r in ranges) or not ranges:
            return None
        return dim_min(*(r[0] for r in ranges)), dim_max(*(r[1] for r in ranges))
    if len(ins) == 1 and name in ("neg", "negative") and ranges[0] is not None:
        return -ranges[0][1], -ranges[0][0]
    if len(ins) != 2 or ranges[0] is None:
        return None
    (alo, ahi), b = ranges[0], ranges[1]
    c = _constant(ins[1])
    if name in ("add", "sub", "minimum", "maximum") and b is not None:
        blo, bhi = b
        if name == "add":
            return alo + blo, ahi + bhi
        if name == "sub":
            return alo - bhi, ahi - blo
        pick = dim_min if name == "minimum" else dim_max
        return pick(alo, blo), pick(ahi, bhi)
    if c is None:
        return None
    if name == "mul":
        return (alo * c, ahi * c) if c >= 0 else (ahi * c, alo * c)
    if name == "floor_divide" and c > 0:
        return alo // c, ahi // c
    if name == "mod" and c > 0:  # NumPy's mod by a positive int is in 0 .. c - 1
        return (0, dim_min(ahi, c - 1)) if _nonnegative(alo) else (0, c - 1)
    return None


def made_of_sizes(v: Variable) -> bool:
    """Whether ``v``'s values are decided by sizes alone: nothing it is computed from is
    data (a graph input's values, a sampler's); ``shape_of(x)`` reads only x's length."""
    seen, todo = set(), [v]
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, Constant):
            continue
        seen.add(id(x))
        name = _name(x)
        if x.owner is None or name in _DATA:
            return False
        if name != "shape_of":
            todo.extend(x.owner.inputs)
    return True


def index_bounds(node: Apply, op: str = "index") -> list[Condition]:
    """What ``node`` (an ``index`` of a tensor by arrays) needs of the sizes for its
    integer arrays made of sizes to be in bounds (see the module's doc)."""
    if getattr(node.op, "name", None) != "index":
        return []
    pattern = dict(node.op.params).get("index", ())
    x, arrays = node.inputs[0], node.inputs[1:]
    shape = x.type.shape
    used = sum(arrays[i.position].type.ndim if isinstance(i, ArrayRef) and
               arrays[i.position].type.dtype == "bool" else 1
               for i in pattern if i is not None and i is not Ellipsis)
    axis, out = 0, []
    for item in pattern:
        if item is None:
            continue
        if item is Ellipsis:
            axis += len(shape) - used
            continue
        if not isinstance(item, ArrayRef):
            axis += 1
            continue
        t = arrays[item.position]
        if t.type.dtype == "bool":
            axis += t.type.ndim
            continue
        n = shape[axis] if axis < len(shape) else None
        axis += 1
        if n is None or not made_of_sizes(t):
            continue
        if item.bounds is not None or item.counting and t.type.ndim == 1:
            continue  # (stated by the index Op's relation)
        if any(s is None for s in t.type.shape):
            continue
        count: DimLike = 1
        for s in t.type.shape:
            count = count * s
        where = f"index {item.position} of {op}"
        r = value_range(t)
        if r is None:
            need: DimLike = unknown(UnreadValues(
                f"max(hi + 1, -lo) of the values lo..hi of {where}, made of sizes"))
            detail = f"{where} is made of sizes in a way kantensor does not read"
        else:
            need = dim_max(r[1] + 1, -r[0])
            detail = f"the values of {where} are {r[0]} .. {r[1]}"
        bound = dim_min(count, 1) * need
        if isinstance(bound, int) and isinstance(n, int) and bound <= n:
            continue
        out.append(Condition(bound, "<=", n, Source(op="index", detail=detail)))
    return out
