"""Index arrays whose values are made of sizes: what NumPy's bounds check needs of them.

An integer array that indexes a tensor is looked up value by value, and NumPy raises
IndexError at a value out of ``[-n, n)``. Where the array is data, its values are the
data's and no size condition says them; where it is made of sizes alone (``x[np.arange(k)
% 2]``, ``x[np.arange(k)[::-1]]``, ``x[np.arange(2, k, 3) * 2 - 1]``), they are decided
by the sizes, so the program runs only where they are in bounds: :func:`index_bounds`
reads their least and greatest values (:func:`~kantensor.ops.families.values.value_range`,
the one home of those bounds, which the index Op's relation states itself where they are
ints or sizes it reads)
and states ``max(hi + 1, -lo) <= n`` where the array is not empty. Values it does not
read (``np.arange(k) ** 2``) are an assumption on an unknown, named as such:
``ShapeResult.holds`` then says it cannot answer, not True.
"""

from __future__ import annotations

from ..graph.basic import Apply
from ..ops.families.indexing import index as advanced_index
from ..ops.families.values import made_of_sizes, value_range
from ..ops.paramvalues import ArrayRef
from ..types.conditions import Condition, Source
from ..types.dim import DimLike, unknown
from ..types.dimminmax import dim_max, dim_min


class UnreadValues:
    """The key of the unknown bound of an index array's values that are made of sizes
    in a way :func:`~kantensor.ops.families.values.value_range` does not read: named by
    where it indexes."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def index_bounds(node: Apply, op: str = "index") -> list[Condition]:
    """What ``node`` (an ``index`` of a tensor by arrays) needs of the sizes for its
    integer arrays made of sizes to be in bounds (see the module's doc)."""
    if getattr(node.op, "impl", None) is not advanced_index:
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
        if item.bounds is not None or item.reach is not None or \
                item.counting and t.type.ndim == 1 or item.along is not None:
            continue  # (stated by the index Op's relation: one home)
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
