"""Pictures of graphs: ``dprint`` (indented text) and ``graphviz`` (a drawing)."""

from __future__ import annotations

import html
import inspect
import sys
from collections.abc import Iterable
from typing import Any, TextIO

from .graph.basic import Apply, Constant, Variable
from .graph.display import SYMBOLIC_STYLE
from .graph.picture import COLORS, GraphPicture, digraph
from .graph.walk import toposort
from .ops import CATALOGUE
from .types.dim import Dim

#: Deeper levels than this are not indented further (a 100,000-node chain
#: would otherwise print gigabytes of spaces); their lines say their depth.
MAX_INDENT = 32


def _label(n: int) -> str:
    """A, B, ..., Z, BA, BB, ... (base-26 without a zero digit ambiguity)."""
    digits = []
    while True:
        n, r = divmod(n, 26)
        digits.append(chr(ord("A") + r))
        if n == 0:
            break
    return "".join(reversed(digits))


def _roots(obj: Any) -> list[Variable]:
    if isinstance(obj, Variable):
        return [obj]
    if isinstance(obj, Apply):
        return list(obj.outputs)
    if hasattr(obj, "fgraph"):
        obj = obj.fgraph
    if hasattr(obj, "outputs") and hasattr(obj, "inputs"):
        return list(obj.outputs)
    if isinstance(obj, Iterable) and not isinstance(obj, str | bytes):
        return [v for item in obj for v in _roots(item)]
    raise TypeError(f"cannot print {type(obj).__name__}: expected Variables, an Apply, "
                    "a FunctionGraph or a Function")


def _describe(var: Variable) -> str:
    if var.owner is not None:
        op = str(var.owner.op)
        return op if len(var.owner.outputs) == 1 else f"{op}.{var.index}"
    if isinstance(var, Constant):
        return str(var)
    return var.name if var.name is not None else f"<{var.type}>"


def dprint(obj: Any, print_type: bool = False, file: TextIO | str | None = None,
           depth: int | None = None) -> str | None:
    """Print a graph as indented text, one line per variable with an ``[id X]`` label.

    A node reached a second time is printed once more without its inputs
    (``···``). ``depth`` limits how deep to go. With ``file="str"`` the text
    is returned instead of printed.
    """
    labels: dict[int, str] = {}
    expanded: set[int] = set()
    lines: list[str] = []
    # Stack items: (variable, prefix for this line, prefix for its children, depth).
    stack: list[tuple[Variable, str, str, int]] = [
        (r, "", "", 0) for r in reversed(_roots(obj))
    ]
    while stack:
        var, head, indent, level = stack.pop()
        key = id(var.owner) if var.owner is not None else id(var)
        label = labels.setdefault(key, _label(len(labels)))
        text = f"{head}{_describe(var)} [id {label}]"
        if print_type:
            text += f" <{var.type}>"
        repeated = var.owner is not None and key in expanded
        if repeated:
            text += " ···"
        lines.append(text)
        if var.owner is None or repeated or (depth is not None and level + 1 >= depth):
            continue
        expanded.add(key)
        inputs = var.owner.inputs
        if level + 1 >= MAX_INDENT:
            child_indent = indent
            heads = [f"{indent}⋮ (depth {level + 1}) "] * len(inputs)
        else:
            heads = [f"{indent} ├─ "] * (len(inputs) - 1) + [f"{indent} └─ "]
            child_indent = None
        for i in reversed(range(len(inputs))):
            last = i == len(inputs) - 1
            nxt = child_indent if child_indent is not None else \
                indent + ("    " if last else " │  ")
            stack.append((inputs[i], heads[i], nxt, level + 1))
    text = "\n".join(lines)
    if file == "str":
        return text
    print(text, file=file or sys.stdout)
    return None


#: Graphs with more nodes than this (Variables and Apply nodes) are drawn compact.
COMPACT_ABOVE = 12
#: The highlight of a symbolic size, as in the HTML displays.
_SYMBOLIC_COLOR = SYMBOLIC_STYLE.split("color:")[1].split(";")[0]


def graphviz(obj: Any, types: bool = True, style: str | None = None) -> GraphPicture:
    """A ``graphviz.Digraph`` of a graph.

    ``style="seed"`` draws it as in Theano's "Graph Structures" seed: Variables are red
    boxes, Apply nodes blue boxes, Ops green circles and Types purple boxes
    (``types=False`` leaves the Types out). ``style="compact"`` draws one box per Apply
    holding its Op and the parameters as given (defaults left out), and one box per
    Variable with its type as a second line, symbolic sizes highlighted as in the HTML
    displays; it is the default above :data:`COMPACT_ABOVE` nodes. ``obj`` is what
    :func:`dprint` takes. Notebooks show the result inline as SVG; ``.source`` is the
    DOT text, and rendering (``.pipe()``, ``.render()``, the SVG) needs Graphviz's
    ``dot``.
    """
    roots = _roots(obj)
    if style is None:
        nodes = toposort(roots)
        count = len(nodes) + len({id(v) for n in nodes for v in (*n.inputs, *n.outputs)})
        style = "compact" if count > COMPACT_ABOVE else "seed"
    if style == "seed":
        return digraph(roots, types=types)
    if style == "compact":
        return _compact(roots)
    raise ValueError(f"style must be 'seed', 'compact' or None, got {style!r}")


def _compact(roots: list[Variable]) -> GraphPicture:
    dot = GraphPicture(name="graph")
    dot.attr(rankdir="TB", fontname="Helvetica", nodesep="0.25", ranksep="0.3")
    dot.attr("node", fontname="Helvetica", fontsize="11", shape="box", style="rounded",
             margin="0.08,0.03")
    dot.attr("edge", fontname="Helvetica", fontsize="9", arrowsize="0.6")
    ids: dict[int, str] = {}

    def variable(v: Variable) -> str:
        vid = ids.get(id(v))
        if vid is None:
            vid = ids[id(v)] = f"v{len(ids)}"
            head = v.name if v.name is not None else (
                _constant_text(v) if isinstance(v, Constant) else None)
            lines = ([f"<b>{html.escape(head)}</b>"] if head else []) + [_type_label(v.type)]
            dot.node(vid, "<" + "<br/>".join(lines) + ">", color=COLORS["variable"])
        return vid

    for k, node in enumerate(toposort(roots)):
        inputs = [variable(v) for v in node.inputs]
        name, params = _op_text(node.op)
        label = f"<b>{html.escape(name)}</b>" + (
            f'<br/><font point-size="9">{html.escape(params)}</font>' if params else "")
        dot.node(f"a{k}", f"<{label}>", color=COLORS["apply"], fontcolor=COLORS["op"],
                 style="rounded,filled", fillcolor="#eef3ff")
        for i, vid in enumerate(inputs):
            dot.edge(vid, f"a{k}", label=str(i) if len(inputs) > 1 else "")
        for out in node.outputs:
            dot.edge(f"a{k}", variable(out))
    for v in roots:
        variable(v)
    return dot


def _constant_text(v: Constant) -> str:
    data = getattr(v, "data", None)
    if data is not None and getattr(data, "ndim", 1) == 0:
        return str(data)  # NumPy's shortest text of the value in its dtype: 1e-05
    return "constant"


def _type_label(t: Any) -> str:
    """``float32[n,4]`` as an HTML-like label, symbolic sizes highlighted."""
    shape = getattr(t, "shape", None)
    if shape is None:
        return html.escape(str(t))
    sizes = []
    for s in shape:
        if isinstance(s, Dim):
            sizes.append(f'<font color="{_SYMBOLIC_COLOR}"><b>{html.escape(str(s))}</b></font>')
        else:
            sizes.append('<font color="#888888">?</font>' if s is None else str(s))
    return f"{html.escape(str(t.dtype))}[{','.join(sizes)}]"


def _op_text(op: Any) -> tuple[str, str]:
    """An Op's name and its parameters as a user passes them: only those its call takes,
    without their defaults, a one-axis tuple as the axis (no internals)."""
    name = getattr(op, "name", None) or str(op)
    params = dict(getattr(op, "params", ()) or ())
    family = CATALOGUE.get(name)
    spec = getattr(family, "spec", None)
    if spec is None:
        return name, ", ".join(f"{k}={_value_text(v)}" for k, v in params.items())
    shown = []
    for p in spec.signature.parameters.values():
        if p.name not in params:
            continue
        value = params[p.name]
        if p.default is not inspect.Parameter.empty and _same(value, p.default):
            continue
        shown.append(f"{p.name}={_value_text(value)}")
    return name, ", ".join(shown)


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value == default) or (isinstance(value, tuple) and len(value) == 1
                                          and value[0] == default)
    except Exception:  # an array-like default: not equal
        return False


def _value_text(value: Any) -> str:
    if isinstance(value, tuple):
        if len(value) == 1 and not isinstance(value[0], tuple):
            return _value_text(value[0])
        return "(" + ", ".join(_value_text(v) for v in value) + ")"
    if isinstance(value, Dim):
        return str(value)
    return repr(value)
