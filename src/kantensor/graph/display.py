"""HTML building blocks for the rich displays of every layer (notebooks call ``_repr_html_``).

Each layer has a ``display`` module that renders its own objects with these helpers, so a
class's ``_repr_html_`` only needs modules of its own layer or lower ones.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

#: One class on the outer element of every kantensor display, for notebook CSS.
CSS_CLASS = "kantensor"

#: Styles inlined on the elements (notebooks strip <style> blocks from untrusted output).
_TABLE = "border-collapse:collapse;margin:2px 0"
_CELL = "border:1px solid #ccc;padding:2px 8px;text-align:left;font-family:monospace"
_HEAD = _CELL + ";background:#f3f3f3"

#: How symbolic sizes are highlighted, and unknown ones dimmed, wherever they appear
#: (the HTML displays and the compact pictures).
SYMBOLIC_COLOR = "#b5179e"
UNKNOWN_COLOR = "#888888"  # Graphviz takes six digits only; CSS's short form below
SYMBOLIC_STYLE = f"color:{SYMBOLIC_COLOR};font-weight:bold"
UNKNOWN_STYLE = "color:#888"


def entry_text(entry: object) -> str:
    """One entry of a type's shape as the type's text says it (``float32[n,min(64,seq)]``):
    ``?`` for an unknown size, a size without spaces. The displays and pictures show a
    type's sizes with it, so what a user reads is the type's ``str``."""
    return "?" if entry is None else str(entry).replace(" ", "")


def value_text(value: object) -> str:
    """A parameter's value as its user would write it: a tuple of its entries, a size
    by its name or expression (``2*n``, not ``Dim<2*n>``), a string quoted; a value of a
    tuple's subclass (a slice item, ``1:n``) as it prints itself."""
    if type(value) is tuple:
        inner = ", ".join(value_text(v) for v in value)
        return f"({inner}{',' * (len(value) == 1)})"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return str(value)


def esc(value: object) -> str:
    """``str(value)`` escaped for HTML text."""
    return html.escape(str(value), quote=True)


def code(text: object, title: str | None = None, style: str = "") -> str:
    """``text`` as inline code; ``title`` becomes a tooltip."""
    tip = f' title="{esc(title)}"' if title else ""
    css = f' style="{style}"' if style else ""
    return f"<code{tip}{css}>{esc(text)}</code>"


def table(head: Sequence[str], rows: Iterable[Sequence[str]], caption: str = "") -> str:
    """A table of HTML cells (already escaped) under plain-text column names."""
    th = "".join(f'<th style="{_HEAD}">{esc(h)}</th>' for h in head)
    body = "".join("<tr>" + "".join(f'<td style="{_CELL}">{c}</td>' for c in row) + "</tr>"
                   for row in rows)
    cap = f'<caption style="caption-side:bottom;text-align:left">{caption}</caption>' \
        if caption else ""
    return f'<table style="{_TABLE}">{cap}<thead><tr>{th}</tr></thead><tbody>{body}</tbody>' \
           "</table>"


def block(kind: str, title_html: str, *parts: str) -> str:
    """The outer element of a display: a bold ``kind`` label, a title, then the parts."""
    inner = "".join(f"<div>{p}</div>" for p in parts if p)
    name = re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")
    return (f'<div class="{CSS_CLASS} {CSS_CLASS}-{name}">'
            f"<b>{esc(kind)}</b> {title_html}{inner}</div>")


def pre(text: object, style: str = "") -> str:
    """Preformatted text (error messages with carets keep their alignment)."""
    css = f' style="{style}"' if style else ""
    return f"<pre{css}>{esc(text)}</pre>"


#: A caret line under the line it points into (``      ^``).
_CARET_LINE = re.compile(r" *\^+ *")


def message(text: object, style: str = "") -> str:
    """An error message as preformatted text that wraps its long lines (a conflict chain
    of ``refine`` reads without scrolling sideways, in a notebook and in its HTML export),
    except a line with a caret line under it: those two never wrap, so the caret stays
    under its word (if wider than the output, they scroll sideways together)."""
    lines = str(text).split("\n")
    parts, i = [], 0
    while i < len(lines):
        if i + 1 < len(lines) and _CARET_LINE.fullmatch(lines[i + 1]):
            parts.append(f'<span style="white-space:pre">{esc(lines[i])}\n'
                         f"{esc(lines[i + 1])}</span>")
            i += 2
        else:
            parts.append(esc(lines[i]))
            i += 1
    css = "white-space:pre-wrap;overflow-x:auto" + (f";{style}" if style else "")
    return f'<pre style="{css}">' + "\n".join(parts) + "</pre>"


def symbolic(text: object) -> str:
    """A symbolic size (a name or an expression of names), highlighted."""
    return (f'<span class="{CSS_CLASS}-symbolic" style="{SYMBOLIC_STYLE}" '
            f'title="symbolic size">{esc(text)}</span>')


def _variable_cell(v: object) -> str:
    name = getattr(v, "name", None)
    return code(f"{name}: {getattr(v, 'type', '?')}" if name else getattr(v, "type", v))


def apply_html(node: object) -> str:
    """An Apply: its Op, then each input and output with its type."""
    rows = [["input", str(i), _variable_cell(v)] for i, v in enumerate(node.inputs)]
    rows += [["output", str(i), _variable_cell(v)] for i, v in enumerate(node.outputs)]
    return block("Apply", code(node.op), table(["", "#", "variable: type"], rows))


def fgraph_html(fgraph: object, max_rows: int = 50) -> str:
    """A FunctionGraph: its inputs and outputs, then its Apply nodes in order (the first
    ``max_rows``), each as ``op(inputs) -> outputs`` types."""
    nodes = fgraph.toposort()
    rows = [[str(k), code(n.op), ", ".join(_variable_cell(v) for v in n.inputs),
             ", ".join(_variable_cell(v) for v in n.outputs)]
            for k, n in enumerate(nodes[:max_rows])]
    title = ", ".join(f"{n} {what}{'s' * (n != 1)}" for n, what in (
        (len(fgraph.inputs), "input"), (len(fgraph.outputs), "output"),
        (len(nodes), "Apply node")))
    caption = f"showing {max_rows} of {len(nodes)} Apply nodes" if len(nodes) > max_rows \
        else ""
    return block("FunctionGraph", esc(title),
                 table(["#", "op", "inputs", "outputs"], rows, caption=esc(caption)))
