"""Hand-written elementwise Ops (add, sub, mul, true_divide).

They exercise the graph until signatures drive make_node; their type rule is
NumPy broadcasting on static shapes plus the promotion rule of dtypes.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Apply
from ..graph.op import Op
from .basic_ops import cast_array
from .dim import Dim
from .dtypes import Category, category, get_default_dtype, result_type
from .type import ShapeEntry, TensorType
from .variable import as_tensor_variable, register_operator


def broadcast_sizes(sizes: list[ShapeEntry], axis: int) -> ShapeEntry:
    """The broadcast of one axis' static sizes: 1s drop out, None stays unknown
    unless a size other than 1 is known, and two different ints are an error."""
    known = [s for s in sizes if s != 1]
    if not known:
        return 1
    ints = {s for s in known if isinstance(s, int)}
    if len(ints) > 1:
        raise TypeError(f"cannot broadcast sizes {sorted(ints)} at axis {axis} (from the right)")
    if ints:
        return ints.pop()
    if None in known:
        return None
    dims = set(known)  # only Dims left
    return known[0] if len(dims) == 1 else None


def broadcast_shapes(*shapes: tuple[ShapeEntry, ...]) -> tuple[ShapeEntry, ...]:
    """NumPy broadcasting of static shapes (right-aligned)."""
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    return tuple(broadcast_sizes([p[i] for p in padded], i - ndim) for i in range(ndim))


class Elemwise(Op):
    """An elementwise NumPy function of ``nin`` inputs, broadcasting."""

    __props__ = ("name",)

    def __init__(self, name: str, fn: Callable[..., np.ndarray], nin: int = 2,
                 float_result: bool = False):
        self.name, self.fn, self.nin, self.float_result = name, fn, nin, float_result

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != self.nin:
            raise TypeError(f"{self.name} takes {self.nin} inputs, got {len(inputs)}")
        inputs = [as_tensor_variable(x) for x in inputs]
        dtype = result_type(*inputs)
        if self.float_result and category(dtype) < Category.FLOATING:
            dtype = get_default_dtype()
        shape = broadcast_shapes(*(x.type.shape for x in inputs))
        return Apply(self, inputs, [TensorType(dtype, shape)()])

    def perform(self, node: Apply, inputs: list, output_storage: list[list]) -> None:
        dtype = node.outputs[0].type.dtype
        with np.errstate(all="ignore"):
            out = self.fn(*(cast_array(x, dtype) for x in inputs))
        output_storage[0][0] = cast_array(out, dtype)

    def __str__(self) -> str:
        return self.name


add = Elemwise("add", np.add)
sub = Elemwise("sub", np.subtract)
mul = Elemwise("mul", np.multiply)
true_divide = Elemwise("true_divide", np.true_divide, float_result=True)

for _op in (add, sub, mul, true_divide):
    register_operator(_op.name, _op)

__all__ = ["Dim", "Elemwise", "add", "broadcast_shapes", "mul", "sub", "true_divide"]
