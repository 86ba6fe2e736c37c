"""``x.eval()`` and ``float(x)``: a TensorVariable's value, computed by the NumPy backend.

PyTensor users' habit: ``x.eval({a: 1.0})`` compiles ``x`` as a function of its graph's
inputs and runs it on the given values (a constant-foldable ``x``, whose graph has no
inputs, needs none); ``float(x)`` and ``int(x)`` do the same for a tensor of one element.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..graph.basic import Constant, Variable
from ..graph.walk import graph_inputs
from ..types.variable import register_method
from .compiled import function

__all__ = ["evaluate"]


def evaluate(x: Variable, inputs_to_values: Mapping[Any, Any] | None = None) -> np.ndarray:
    """The value of ``x`` given values for its graph's inputs (Variables, or their names)."""
    given = dict(inputs_to_values or {})
    inputs = [v for v in graph_inputs([x]) if not isinstance(v, Constant)]
    values, missing = [], []
    for v in inputs:
        if v in given:
            values.append(given[v])
        elif v.name is not None and v.name in given:
            values.append(given[v.name])
        else:
            missing.append(v.name or f"<{v.type}>")
    if missing:
        raise ValueError(f"eval needs a value for every input of the graph: "
                         f"{', '.join(missing)} (x.eval({{{missing[0]}: ...}}))")
    return function(inputs, x)(*values)


def _float(x: Variable) -> float:
    """``float(x)``: a one-element tensor whose graph has no inputs (constant-foldable)."""
    value = evaluate(x) if not isinstance(x, Constant) else x.data
    if np.size(value) != 1:
        raise TypeError(f"only a tensor of one element converts to float, got {x.type}")
    return float(np.asarray(value).reshape(()))


def _int(x: Variable) -> int:
    """``int(x)``: as :func:`_float`, truncated toward zero as ``int`` of a NumPy scalar."""
    value = evaluate(x) if not isinstance(x, Constant) else x.data
    if np.size(value) != 1:
        raise TypeError(f"only a tensor of one element converts to int, got {x.type}")
    return int(np.asarray(value).reshape(()))


register_method("eval", evaluate)
register_method("__float__", _float)
register_method("__int__", _int)
