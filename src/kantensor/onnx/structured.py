"""ONNX ops that no signature over tensors types: those whose values are sequences or
optionals, and those that hold subgraphs (If, Loop, Scan, SequenceMap).

Such an op's entry names a :class:`Structured` handler (see :mod:`.registry`). When the
importer meets the node, the handler reads the node's inputs (their types and the values
known when the model is read) and subgraphs in the importer's scope, decides the types
of the outputs from the element types and from the typed subgraphs (each node of a
subgraph typed by its own relation), and applies a :class:`StructuredOp`: an Op whose
output types are those, and whose implementation computes the values when the graph
runs (a subgraph runs as a compiled kantensor function).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import onnx

from ..graph.basic import Apply, Variable
from ..graph.op import Op
from ..graph.type import Type
from ..types.containers import OptionalType, SequenceType
from ..types.numpy_dtypes import numpy_dtype
from ..types.type import TensorType
from .contradiction import lasting

__all__ = ["Structured", "StructuredOp", "as_value", "needed"]


class Structured:
    """Types and builds one kind of ONNX node (see the module's doc).

    ``attributes`` maps each attribute the handler takes to its kind (``int``, ``ints``,
    ``float``, ``str``, ``graph``, ``type``, ``tensor``); ``iterates`` whether the node
    runs its body a number of times the model decides (Loop, Scan: that count is a size
    no input gives, which a contract bounds by what the node states of it); :meth:`read`
    returns, for each output of the node, its Variable and its value when known now (or
    None)."""

    attributes: ClassVar[dict[str, str]] = {}
    iterates: ClassVar[bool] = False

    def read(self, scope: Any, node: onnx.NodeProto, label: str
             ) -> list[tuple[Variable, np.ndarray | None]]:
        raise NotImplementedError


class StructuredOp(Op):
    """An Op whose output types were decided when the model was read (by a
    :class:`Structured` handler); ``impl(*values, **params)`` computes its outputs (a
    tuple when there are several). Equal when its name, implementation, types and
    parameters are."""

    __props__ = ("name", "impl", "types", "params")

    def __init__(self, name: str, impl: Callable[..., Any], types: tuple[Type, ...],
                 **params: Any):
        self.name = name
        self.impl = impl
        self.types = tuple(types)
        self.params = tuple(sorted(params.items()))

    def make_node(self, *inputs: Variable) -> Apply:
        for v in inputs:
            if not isinstance(v, Variable):
                raise TypeError(f"{self.name}: inputs must be Variables, got {v!r}")
        return Apply(self, list(inputs), [t() for t in self.types])

    def perform(self, node: Apply, inputs: list, output_storage: list[list]) -> None:
        result = self.impl(*inputs, **dict(self.params))
        results = (result,) if len(node.outputs) == 1 else tuple(result)
        for cell, out, value in zip(output_storage, node.outputs, results, strict=True):
            cell[0] = as_value(out.type, value)

    def __str__(self) -> str:
        return self.name


def as_value(t: Type, value: Any) -> Any:
    """``value`` as a value of ``t``: an array of its dtype (a tensor), a list of them (a
    sequence), None or the element's value (an optional)."""
    if isinstance(t, TensorType):
        array = np.asarray(value)
        dtype = numpy_dtype(t.dtype)
        return array if array.dtype == dtype else array.astype(dtype)
    if isinstance(t, SequenceType):
        element = TensorType(t.dtype, ())
        return [as_value(element, v) for v in value]
    if isinstance(t, OptionalType):
        return None if value is None else as_value(t.element, value)
    return value


def needed(scope: Any, outs: list, needs: tuple) -> None:
    """Record what a node (``outs``: its outputs) needs of the sizes (for its subgraphs,
    see :mod:`.needs`; a non-empty sequence to concatenate) as its conditions and the
    model's, and as facts for later nodes (but a choice's: where it fails the model may
    run, with other types after it)."""
    if needs:
        outs[0].owner.conditions = needs
        scope.conditions.extend(needs)
        scope.facts = scope.facts.with_(*lasting(needs))
