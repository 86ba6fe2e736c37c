"""Rich (HTML) display of what :func:`kantensor.eval_shape` found: the types it gives,
then a table of the inputs and outputs, symbolic sizes highlighted as in a TensorType's
own display."""

from __future__ import annotations

from typing import Any

from ..graph.display import block, code, esc, symbolic, table
from ..types.dim import Dim
from ..types.display import type_inline


def shape_result_html(result: Any) -> str:
    """The result's types as its title; one row per input and output (kind, position,
    variable, type); the symbolic sizes and the size of the graph traced."""
    shown = result.type if isinstance(result.type, tuple) else (result.type,)
    rows = [[kind, str(i), code(v), type_inline(v.type)]
            for kind, side in (("input", result.inputs), ("output", result.outputs))
            for i, v in enumerate(side)]
    variables = (*result.inputs, *result.outputs)
    symbols = dict.fromkeys(str(d) for v in variables for d in v.type.shape
                            if isinstance(d, Dim))
    n = len(result.graph.toposort())
    facts = esc(f"{n} Apply node{'s' * (n != 1)} traced")
    if symbols:
        facts += "; symbolic sizes " + ", ".join(map(symbolic, symbols))
    return block("ShapeResult", ", ".join(map(type_inline, shown)),
                 table(["", "#", "variable", "type"], rows), facts)
