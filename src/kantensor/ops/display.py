"""What an Op is, for people: its signature, doc and parameters, as HTML and as text.

The Op classes describe themselves as :class:`OpFacts` (``op.facts()``); the REPL's
``help OP`` and the notebooks' rich display of an Op both render those facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..graph.display import block, code, esc, table
from ..signature.display import signature_table


@dataclass(frozen=True)
class OpFacts:
    """An Op described. ``params`` are (name, kind, default or bound value) rows;
    ``parsed`` is the Signature object when there is one (a template has none)."""

    name: str
    kind: str
    signature: str
    doc: str
    params: tuple[tuple[str, str, str], ...] = ()
    call: str = ""
    parsed: Any = None


def op_text(f: OpFacts) -> str:
    """``help OP`` in the REPL: call, signature, doc and parameters as plain text."""
    lines = [f.call or f.name, f"  signature: {' '.join(f.signature.split())}"]
    if f.params:
        lines.append("  parameters:")
        lines += [f"    {n}: {k}" + (f" = {d}" if d else "") for n, k, d in f.params]
    if f.doc:
        lines += ["", *("  " + line for line in f.doc.splitlines())]
    return "\n".join(lines)


def op_html(f: OpFacts) -> str:
    """An Op: name, signature (each alternative), doc and parameters."""
    parts = [f"signature {code(f.signature)}"]
    if f.parsed is not None:
        parts.append(signature_table(f.parsed))
    if f.params:
        parts.append(table(["parameter", "kind", "default" if f.call else "value"],
                           [[code(n), esc(k), code(d) if d else "&ndash;"]
                            for n, k, d in f.params]))
    if f.doc:
        parts.append(f'<div style="white-space:pre-wrap">{esc(f.doc)}</div>')
    return block(f.kind, code(f.call or f.name), *parts)
