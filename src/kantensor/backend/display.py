"""Rich (HTML) display of a compiled Function: its signature as a table."""

from __future__ import annotations

from typing import Any

from ..graph.display import block, code, esc, table
from ..types.display import type_inline


def function_html(f: Any, backend: str = "NumPy") -> str:
    """One row per input and output: its kind, position, name and type."""
    rows = [["input", str(i), code(v), type_inline(v.type)]
            for i, v in enumerate(f.fgraph.inputs)]
    rows += [["output", str(i), code(v), type_inline(v.type)]
             for i, v in enumerate(f.fgraph.outputs)]
    n = len(f.fgraph.toposort())
    return block("Function", code(f.signature),
                 table(["", "#", "variable", "type"], rows),
                 esc(f"{n} Apply node{'s' * (n != 1)}, {backend} backend"))
