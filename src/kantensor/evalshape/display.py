"""Rich (HTML) display of what :func:`kantensor.eval_shape` found: the types it gives,
then a table of the inputs and outputs, symbolic sizes highlighted as in a TensorType's
own display."""

from __future__ import annotations

from typing import Any

from ..graph.display import block, code, entry_text, esc, symbolic, table
from ..types.dim import Dim
from ..types.display import type_inline
from .located import described


def shape_result_html(result: Any) -> str:
    """The result's types as its title; one row per input and output (kind, position,
    variable, type); the symbolic sizes and the size of the graph traced. A result of
    several cases (a Python branch on sizes) shows one row per case: its conditions and
    its types, or the error of a case the program refused."""
    if result.cases:
        return _cases_html(result)
    shown = result.type if isinstance(result.type, tuple) else (result.type,)
    rows = [[kind, str(i), code(v), type_inline(v.type)]
            for kind, side in (("input", result.inputs), ("output", result.outputs))
            for i, v in enumerate(side)]
    variables = (*result.inputs, *result.outputs)
    symbols = dict.fromkeys(entry_text(d) for v in variables for d in v.type.shape
                            if isinstance(d, Dim))
    n = len(result.graph.toposort())
    facts = esc(f"{n} Apply node{'s' * (n != 1)} traced")
    if symbols:
        facts += "; symbolic sizes " + ", ".join(map(symbolic, symbols))
    if result.conditions:
        facts += "; where " + esc(" and ".join(map(str, result.conditions)))
    return block("ShapeResult", ", ".join(map(type_inline, shown)),
                 _assumed(result), table(["", "#", "variable", "type"], rows), facts)


def _assumed(result: Any) -> str:
    """The result's assumptions, first: each condition, its Op and line (a list)."""
    if not result.assumptions:
        return ""
    items = "".join(f"<li>{esc(described(a))}</li>" for a in result.assumptions)
    return f"assuming:<ul style=\"margin:2px 0\">{items}</ul>"


def _cases_html(result: Any) -> str:
    def types(t: Any) -> str:
        return ", ".join(map(type_inline, t if isinstance(t, tuple) else (t,)))

    rows = [[str(k), esc(" and ".join(map(str, c.conditions))), types(c.type) + (
                esc(" assuming " + " and ".join(map(str, c.assumptions)))
                if c.assumptions else "")] for k, c in enumerate(result.cases)]
    rows += [["refused", esc(" and ".join(map(str, r.conditions))),
              esc(f"raises {type(r.error).__name__}")] for r in result.refused]
    title = types(result.type) if result.type is not None else esc("the cases disagree")
    n = len(rows)
    return block("ShapeResult", title,
                 _assumed(result), table(["case", "conditions", "types"], rows),
                 esc(f"{n} cases of a Python branch on sizes"))
