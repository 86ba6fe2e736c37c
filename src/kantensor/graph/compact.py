"""The compact picture of a graph: one box per Apply, its Op and parameters inside.

A Variable is a box with its name and, on a second line, its type, whose symbolic
sizes are highlighted as in the HTML displays; an unnamed intermediate result is its
type alone, without a frame. Apply nodes whose outputs are named ``scope/...`` are
drawn in a frame labelled ``scope`` (a name scope); ``collapse`` draws such a scope as
one box, and ``depth`` stops that many Apply nodes above the outputs, the rest drawn
as one stub per input cut off.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .basic import Apply, Constant, Variable
from .display import SYMBOLIC_COLOR, UNKNOWN_COLOR, entry_text, value_text
from .picture import COLORS, new_picture
from .walk import toposort

if TYPE_CHECKING:
    import graphviz

#: A name scope is the part of a name before its last SEPARATOR.
SEPARATOR = "/"

#: A parameter value longer than this is cut (with an ellipsis) in its box.
MAX_VALUE_CHARS = 40

#: A font whose metrics Graphviz and browsers agree on (with Helvetica, a browser draws
#: the pieces of a label with highlighted sizes apart: looked at in Chromium).
_FONT = "DejaVu Sans"


def esc(text: object) -> str:
    """Text for a Graphviz HTML-like label."""
    return html.escape(str(text), quote=True)


def type_label(t: Any) -> str:
    """A type as label markup: ``dtype[...]`` with symbolic sizes highlighted and unknown
    ones grey (any type without ``dtype`` and ``shape`` is its text)."""
    shape, dtype = getattr(t, "shape", None), getattr(t, "dtype", None)
    if not isinstance(shape, tuple) or not isinstance(dtype, str):
        return esc(t)
    sizes = []
    for s in shape:
        if s is None:
            sizes.append(f'<font color="{UNKNOWN_COLOR}">?</font>')
        elif isinstance(s, int):
            sizes.append(str(s))
        else:  # a symbolic size: a name or an expression of names
            sizes.append(f'<font color="{SYMBOLIC_COLOR}"><b>{esc(entry_text(s))}</b></font>')
    # Graphviz misplaces a bare "]" after a <font> element; its character reference not
    return f"{esc(dtype)}[{','.join(sizes)}&#93;"


def op_label(op: Any, result: Any = None) -> str:
    """The Op's name in bold and, below, its parameters as the user wrote them, then
    the type of its ``result`` (an unnamed output drawn inside the box), if any."""
    written = getattr(op, "written", None)
    name, params = written() if callable(written) else (str(op), ())
    lines = [f"<b>{esc(name)}</b>"]
    for key, value in params:
        text = value_text(value)
        if len(text) > MAX_VALUE_CHARS:
            text = text[:MAX_VALUE_CHARS - 1] + "…"
        lines.append(f'<font point-size="9">{esc(key)}={esc(text)}</font>')
    if result is not None:
        lines.append(f'<font point-size="10">→ {type_label(result)}</font>')
    return "<" + "<br/>".join(lines) + ">"


def scope_of(var: Variable) -> str | None:
    """The name scope of a Variable (``attn`` for ``attn/scores``), or None."""
    name = var.name
    if name and SEPARATOR in name:
        return name.rsplit(SEPARATOR, 1)[0]
    return None


def _scopes(nodes: Sequence[Apply]) -> dict[int, str]:
    """Each Apply's scope: its outputs' own, else the one scope all its users share."""
    found: dict[int, str] = {}
    users: dict[int, list[Apply]] = {}
    for node in nodes:
        for v in node.inputs:
            if v.owner is not None:
                users.setdefault(id(v.owner), []).append(node)
    for node in reversed(nodes):  # users come first
        own = {scope_of(o) for o in node.outputs if o.name} - {None}
        if len(own) == 1:
            found[id(node)] = own.pop()
            continue
        if own:
            continue
        theirs = {found.get(id(u)) for u in users.get(id(node), [])}
        if len(theirs) == 1 and None not in theirs:
            found[id(node)] = theirs.pop()
    return found


def _depths(outputs: Sequence[Variable]) -> dict[int, int]:
    """Each Apply's distance from the outputs (1 for an output's own Apply)."""
    depth: dict[int, int] = {}
    frontier = [v.owner for v in outputs if v.owner is not None]
    level = 1
    while frontier:
        nxt = []
        for node in frontier:
            if id(node) in depth:
                continue
            depth[id(node)] = level
            nxt.extend(v.owner for v in node.inputs if v.owner is not None)
        frontier, level = nxt, level + 1
    return depth


def compact(outputs: Iterable[Variable], name: str = "graph", depth: int | None = None,
            collapse: Iterable[str] = (), size: str | None = None) -> graphviz.Digraph:
    """The compact picture of every node the ``outputs`` depend on (see the module)."""
    outs = list(outputs)
    nodes = toposort(outs)
    dot = new_picture(name)
    dot.attr(rankdir="TB", fontname=_FONT, nodesep="0.25", ranksep="0.3")
    if size:
        dot.attr(size=size)
    dot.attr("node", fontname=_FONT, fontsize="11", margin="0.08,0.04", height="0.3")
    dot.attr("edge", fontname=_FONT, fontsize="8", arrowsize="0.6", color="#555555")
    shown = _depths(outs) if depth is not None else {}
    cut = {id(n) for n in nodes if depth is not None and shown.get(id(n), 0) > depth}
    scopes = _scopes(nodes)
    folded = set(collapse)
    var_ids: dict[int, str] = {}
    frames: dict[str, list[tuple[str, str, dict[str, str]]]] = {}
    stubs: dict[int, str] = {}

    def place(key: str, label: str, scope: str | None, **attrs: str) -> None:
        if scope is None:
            dot.node(key, label, **attrs)
        else:
            frames.setdefault(scope, []).append((key, label, attrs))

    def folded_scope(node: Apply | None) -> str | None:
        if node is None:
            return None
        scope = scopes.get(id(node))
        while scope is not None and scope not in folded:
            scope = scope.rsplit(SEPARATOR, 1)[0] if SEPARATOR in scope else None
        return scope

    def variable(v: Variable) -> str:
        vid = var_ids.get(id(v))
        if vid is not None:
            return vid
        owner = v.owner
        if owner is not None and id(owner) in cut:
            key = stubs.get(id(owner))
            if key is None:
                key = stubs[id(owner)] = f"s{len(stubs)}"
                hidden = len(toposort([o for o in owner.outputs]))
                dot.node(key, f"<⋯ {hidden} Apply node{'s' * (hidden != 1)}<br/>"
                         f'<font point-size="9">{type_label(v.type)}</font>>',
                         shape="box", style="dashed,rounded", color="#999999",
                         fontcolor="#666666")
            var_ids[id(v)] = key
            return key
        fold = folded_scope(owner)
        if fold is not None:
            var_ids[id(v)] = f"c_{fold}"
            return var_ids[id(v)]
        vid = var_ids[id(v)] = f"v{len(var_ids)}"
        scope = scopes.get(id(owner)) if owner is not None else None
        if isinstance(v, Constant):
            text = esc(v) if len(str(v)) <= MAX_VALUE_CHARS else "constant"
            place(vid, f'<{text}<br/><font point-size="9">{type_label(v.type)}</font>>',
                  scope, shape="box", style="rounded", color="#999999", fontcolor="#444444",
                  fontsize="10")
        elif v.name is not None or owner is None or any(v is o for o in outs):
            title = esc(v.name) if v.name is not None else "input" if owner is None \
                else output_title(v)
            place(vid, f'<<b>{title}</b><br/><font point-size="10">{type_label(v.type)}'
                  "</font>>", scope, shape="box", color=COLORS["variable"],
                  fontcolor="black", penwidth="1.2")
        elif not inside(v):
            place(vid, f'<<font point-size="9">{type_label(v.type)}</font>>', scope,
                  shape="plaintext", height="0.2", margin="0.02,0.01")
        return vid

    def output_title(v: Variable) -> str:
        """An unnamed output's title: ``output``, or ``output 2`` (its place among the
        outputs) when there are several."""
        if len(outs) == 1:
            return "output"
        return f"output {next(i for i, o in enumerate(outs) if o is v)}"

    def inside(v: Variable) -> bool:
        """An unnamed output of a drawn one-output Apply: its type is in the box."""
        return (v.owner is not None and len(v.owner.outputs) == 1 and v.name is None
                and not isinstance(v, Constant) and not any(v is o for o in outs)
                and id(v.owner) not in cut and folded_scope(v.owner) is None)

    folded_drawn: set[str] = set()
    into_folded: set[tuple[str, str]] = set()
    for k, node in enumerate(nodes):
        if id(node) in cut:
            continue
        fold = folded_scope(node)
        if fold is not None:
            aid = f"c_{fold}"
            if fold not in folded_drawn:
                folded_drawn.add(fold)
                count = sum(folded_scope(n) == fold for n in nodes if id(n) not in cut)
                dot.node(aid, f"<<b>{esc(fold)}</b><br/><font point-size='9'>{count} Apply "
                         f"node{'s' * (count != 1)}</font>>".replace("'", '"'),
                         shape="box3d", color=COLORS["apply"], style="filled",
                         fillcolor="#eef2ff")
            for v in node.inputs:
                if folded_scope(v.owner) != fold and (variable(v), aid) not in into_folded:
                    into_folded.add((variable(v), aid))
                    dot.edge(variable(v), aid)
            for out in node.outputs:
                variable(out)
            continue
        inputs = [variable(v) for v in node.inputs]
        aid = f"a{k}"
        merged = inside(node.outputs[0])
        place(aid, op_label(node.op, node.outputs[0].type if merged else None),
              scopes.get(id(node)), shape="box", style="rounded,filled",
              color=COLORS["apply"], fillcolor="#eef2ff", fontcolor="#103080")
        for i, vid in enumerate(inputs):
            dot.edge(vid, aid, label=str(i) if len(inputs) > 1 else "")
        if merged:
            var_ids[id(node.outputs[0])] = aid
            continue
        for out in node.outputs:  # which result is which, when there are several
            dot.edge(aid, variable(out),
                     label=str(out.index) if len(node.outputs) > 1 else "")
    for v in outs:
        variable(v)
    _frames(dot, frames)
    return dot


def _frames(dot: graphviz.Digraph, frames: dict[str, list[tuple[str, str, dict[str, str]]]]
            ) -> None:
    """Draw each scope's nodes inside a frame, nested as the scopes are."""
    def parent(scope: str) -> str | None:
        while SEPARATOR in scope:
            scope = scope.rsplit(SEPARATOR, 1)[0]
            if scope in frames:
                return scope
        return None

    def draw(graph: Any, scope: str) -> None:
        with graph.subgraph(name=f"cluster_{scope}") as sub:
            sub.attr(label=scope, style="rounded,dashed", color="#7a7a7a",
                     fontcolor="#444444", fontsize="10", labeljust="l")
            for key, label, attrs in frames[scope]:
                sub.node(key, label, **attrs)
            for inner in sorted(frames):
                if parent(inner) == scope:
                    draw(sub, inner)

    for scope in sorted(frames):
        if parent(scope) is None:
            draw(dot, scope)
