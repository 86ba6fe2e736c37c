"""Rich (HTML) display of a compiled Function: its signature as a table."""

from __future__ import annotations

from typing import Any

from ..graph.display import block, code, esc, table
from ..types.display import type_inline
from .plan import Plan


def function_html(f: Any, backend: str = "NumPy") -> str:
    """One row per input and output: its kind, position, name and type."""
    rows = [["input", str(i), code(v), type_inline(v.type)]
            for i, v in enumerate(f.fgraph.inputs)]
    rows += [["output", str(i), code(v), type_inline(v.type)]
             for i, v in enumerate(f.fgraph.outputs)]
    nodes = f.fgraph.toposort()
    n = len(nodes)
    text = f"{n} Apply node{'s' * (n != 1)}, {backend} backend"
    plan = getattr(f, "plan", None)
    if isinstance(plan, Plan):  # a NumPy Function's memory plan
        actions = [plan.action(i) for i in range(n)]
        blocked = sum(a.startswith("block run") for a in actions)
        written = sum(a.startswith(("in place", "into the dead")) for a in actions)
        text += (f"; memory plan: {blocked} in block runs, {written} written into dead "
                 f"buffers, every intermediate released after its last use")
    return block("Function", code(f.signature),
                 table(["", "#", "variable", "type"], rows), esc(text))
