"""Ops the type system itself needs: SpecifyShape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..graph.basic import Apply
from ..graph.op import Op
from .dtypes import NUMPY_STRING
from .type import ShapeEntry, TensorType
from .variable import as_tensor_variable


class SpecifyShape(Op):
    """Assert a shape: the output is the input, with a more specific static type.

    ``shape`` holds ints (checked at run time), ``None`` (no claim) and Dims
    (bound per call by the backend). A claim that contradicts the input's
    static shape is an error when the node is built, not when it runs.
    """

    __props__ = ("shape",)

    def __init__(self, shape: Sequence[ShapeEntry]):
        self.shape = tuple(shape)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim != len(self.shape):
            raise TypeError(f"specify_shape: {x} has {x.type.ndim} dimensions but the shape "
                            f"{self.shape} has {len(self.shape)}")
        claimed = TensorType(x.type.dtype, self.shape)
        try:
            out_type = x.type.most_specific(claimed)
        except TypeError as exc:
            raise TypeError(f"specify_shape: {x} of type {x.type} cannot have shape "
                            f"{claimed}: {exc}") from None
        return Apply(self, [x], [out_type()])

    def perform(self, node: Apply, inputs: list, output_storage: list[list]) -> None:
        (x,) = inputs
        for axis, want in enumerate(node.outputs[0].type.shape):
            if isinstance(want, int) and x.shape[axis] != want:
                raise ValueError(f"specify_shape: axis {axis} has length {x.shape[axis]}, "
                                 f"expected {want} (array of shape {x.shape})")
        output_storage[0][0] = x

    def __str__(self) -> str:
        return "SpecifyShape"


def specify_shape(x: Any, shape: Sequence[ShapeEntry]):
    """``x`` with its static shape refined to ``shape``."""
    return SpecifyShape(shape)(x)


@TensorType.register_transfer
def _specify_shape_transfer(ttype: TensorType, var: Any) -> Any | None:
    """``var`` as a variable of ``ttype``: SpecifyShape with the most specific of both
    types (a contradiction raises TypeError at once)."""
    if not isinstance(var.type, TensorType):
        return None
    return specify_shape(var, ttype.most_specific(var.type).shape)


def cast_array(value: Any, dtype: str) -> np.ndarray:
    """``value`` as an ndarray of ``dtype``, integers wrapping around like C (``string``
    is NumPy's StringDType)."""
    arr = value if type(value) is np.ndarray else np.asarray(value)
    if dtype == "string":  # a name NumPy does not know
        dtype = NUMPY_STRING
    if arr.dtype == dtype:
        return arr
    with np.errstate(all="ignore"):
        return arr.astype(dtype)
