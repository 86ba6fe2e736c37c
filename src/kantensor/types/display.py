"""Rich (HTML) displays of TensorType, Dim and TensorVariable for notebooks.

Symbolic sizes are highlighted (and carry a tooltip); unknown sizes are grey. A
variable shows its type and a small picture of its graph.
"""

from __future__ import annotations

from typing import Any

from ..graph.basic import Variable
from ..graph.compact import compact
from ..graph.display import UNKNOWN_STYLE, block, code, entry_text, esc, pre, symbolic
from ..graph.picture import digraph
from ..graph.walk import toposort
from .dim import Dim

#: A variable's picture is the seed's (with its Types) up to this many Apply nodes, the
#: compact one up to PICTURE_MAX_NODES, and none beyond (``kt.graphviz`` draws any size).
PICTURE_TYPES_MAX_NODES = 2
PICTURE_MAX_NODES = 60


def size_html(entry: Any) -> str:
    """One shape entry: an int, ``?`` (unknown, grey) or a symbolic size (highlighted),
    each as the type's text says it."""
    if entry is None:
        return f'<span style="{UNKNOWN_STYLE}" title="unknown size">?</span>'
    if isinstance(entry, Dim):
        return symbolic(entry_text(entry))
    return esc(entry)


def type_inline(t: Any) -> str:
    """A type in the compact notation as inline code, sizes styled by kind."""
    shape = getattr(t, "shape", None)
    if not isinstance(shape, tuple) or not isinstance(getattr(t, "dtype", None), str):
        return code(t)
    return f"<code>{esc(t.dtype)}[{','.join(size_html(s) for s in shape)}]</code>"


def value_inline(value: Any) -> str:
    """A value as it appears in a table cell: types and sizes styled, the rest as code."""
    if value is None:
        return size_html(None)
    if isinstance(value, int | Dim):
        return f"<code>{size_html(value)}</code>"
    if isinstance(value, tuple):
        inner = ", ".join(size_html(v) if v is None or isinstance(v, int | Dim)
                          else value_inline(v) for v in value)
        return f"<code>({inner}{',' * (len(value) == 1)})</code>"
    return type_inline(value)


def tensor_type_html(t: Any) -> str:
    """A TensorType: its compact notation, dtype, rank and symbolic sizes."""
    symbols = list(dict.fromkeys(entry_text(d) for d in t.shape if isinstance(d, Dim)))
    facts = f"dtype {code(t.dtype)}, {t.ndim} dim{'s' * (t.ndim != 1)}"
    if symbols:
        facts += ", symbolic sizes " + ", ".join(
            symbolic(s) for s in symbols)
    if any(d is None for d in t.shape):
        facts += ", unknown sizes shown as ?"
    return block("TensorType", type_inline(t), facts)


def graph_svg(var: Variable) -> str:
    """A small SVG picture of the graph computing ``var`` (or a note saying why not)."""
    n = len(toposort([var]))
    if n > PICTURE_MAX_NODES:
        return esc(f"(a graph of {n} Apply nodes: kt.graphviz(x) draws it; "
                   "depth= and collapse= draw part of it)")
    picture = digraph([var], size="7,7") if n <= PICTURE_TYPES_MAX_NODES else \
        compact([var], size="7,7")
    try:
        svg = picture.pipe(format="svg", encoding="utf-8")
    except RuntimeError as exc:  # no `dot`: the type is still shown
        return pre(exc, "white-space:pre-wrap;color:#888")
    return svg[svg.find("<svg"):]


def variable_html(var: Variable) -> str:
    """A TensorVariable: its name, type and a picture of its graph."""
    name = str(var) if var.name is not None or var.owner is not None else "input"
    return block("TensorVariable", f"{code(name)} : {type_inline(var.type)}", graph_svg(var))
