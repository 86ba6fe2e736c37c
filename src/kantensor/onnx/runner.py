"""Subgraphs compiled to run by the NumPy backend: the bodies and branches of control
flow (a :class:`Runner`, compiled when its node first runs) and a subgraph given as an
attribute (:func:`subgraph_function`, FlexAttention's ``score_mod``).

Apart from typing (:mod:`.subgraph`): only the families that run subgraphs
(:mod:`.controlflow`, :mod:`.preview`) import this module, so reading a model loads the
backend only when one of them is used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import onnx

from ..backend import function
from ..graph.basic import Variable
from ..graph.type import Type
from ..ops.paramvalues import GraphParam
from .importer import _Reader
from .loading import Tensors

__all__ = ["Runner", "runner", "subgraph_function"]


class Runner:
    """A subgraph compiled to run: its function of its formal inputs and of the outer
    values it captures (compiled on the first call). Equal only to itself."""

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 captured: Sequence[str], label: str):
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.captured = tuple(captured)
        self.label = label
        self._fn: Any = None

    def __call__(self, *values: Any) -> list:
        if self._fn is None:
            self._fn = function(self.inputs, self.outputs)
        result = self._fn(*values)
        return result if isinstance(result, list) else [result]

    def __repr__(self) -> str:
        return f"<subgraph {self.label}>"

    def __reduce__(self) -> tuple:  # pickled as its graph, compiled again when it runs
        return Runner, (self.inputs, self.outputs, self.captured, self.label)


def runner(sub: Any, label: str) -> Runner:
    """The function running a subgraph read with ``graph=True``: its own inputs, then the
    outer values it captures."""
    inputs = [sub.vars[i.name] for i in sub.proto.input
              if i.name in sub.vars and i.name not in sub.captured]
    outputs = [sub.output(info.name) for info in sub.proto.output]
    captured = list(sub.captured)
    return Runner([*inputs, *(sub.captured[n] for n in captured)], outputs, captured, label)


def subgraph_function(graph: GraphParam, formal: list[Type]) -> Any:
    """A subgraph given as a parameter (an attribute a kernel runs, such as FlexAttention's
    ``score_mod``) compiled to a function of inputs of the types ``formal``; its nodes
    read at the operator sets it was given with. It may use no value of the graph around
    it."""
    proto = onnx.GraphProto.FromString(graph.data)
    model = onnx.helper.make_model(proto, opset_imports=[
        onnx.helper.make_opsetid(d, v) for d, v in graph.opsets])
    reader = _Reader(model, Tensors(None, "a graph attribute"))
    inputs, names = reader.read_graph(formal)
    return function(inputs, [reader.output(n) for n in names])
