"""Pictures of graphs as ``graphviz.Digraph``s, drawn like the seed's diagram.

Theano's "Graph Structures" page draws Variables as red boxes, Apply nodes as blue boxes,
Ops as green circles and Types as purple boxes; :func:`digraph` does the same. Building
the picture only needs the Python package ``graphviz``; rendering it (SVG in notebooks)
needs Graphviz's ``dot`` program.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

from .basic import Constant, Variable
from .display import value_text
from .walk import toposort

if TYPE_CHECKING:
    import graphviz

#: The seed's colours.
COLORS = {"variable": "red", "apply": "blue", "op": "darkgreen", "type": "purple"}
SHAPES = {"variable": "box", "apply": "box", "op": "circle", "type": "box"}

NO_DOT = ("drawing a graph needs Graphviz's `dot` program, which is not on the PATH: "
          "install it (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; "
          "conda: conda install graphviz). Without it, the picture's DOT text is in .source")


@cache
def picture_class() -> type:
    """``GraphPicture``: a ``graphviz.Digraph`` whose rendering says how to get ``dot``
    when it is missing. Made on the first picture: importing ``graphviz`` costs about
    8 ms that ``import kantensor`` and the ``kantensor`` command need not pay (a lazy
    import for start-up speed; nothing here would make a cycle)."""
    import graphviz as gv

    class GraphPicture(gv.Digraph):
        __doc__ = picture_class.__doc__
        __module__ = __name__
        __qualname__ = "GraphPicture"  # found by pickle through the module's __getattr__

        #: A label's text as DOT shows it literally: its backslashes are not DOT's
        #: escapes (a name ending in one broke the DOT text, ``x\\n`` drew a line
        #: break) and ``<...>`` is not an HTML-like label (``<b>`` drew a bare b).
        literal = staticmethod(gv.escape)

        def pipe(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().pipe(*args, **kwargs)
            except gv.ExecutableNotFound as exc:
                raise RuntimeError(NO_DOT) from exc

        def render(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return super().render(*args, **kwargs)
            except gv.ExecutableNotFound as exc:
                raise RuntimeError(NO_DOT) from exc

    return GraphPicture


def new_picture(name: str) -> graphviz.Digraph:
    """An empty :func:`picture_class` picture named ``name``."""
    return picture_class()(name=name)


def __getattr__(name: str) -> Any:
    """``GraphPicture`` is :func:`picture_class`'s class, made when first asked for."""
    if name == "GraphPicture":
        return picture_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _style(kind: str) -> dict[str, str]:
    color = COLORS[kind]
    return {"shape": SHAPES[kind], "color": color, "fontcolor": color}


def _variable_label(var: Variable) -> str:
    if var.name is not None or isinstance(var, Constant):
        return str(var)
    if var.owner is not None:
        op = _op_name(var.owner.op)
        return f"{op}.out" if len(var.owner.outputs) == 1 else f"{op}.{var.index}"
    return "<input>"


def _op_name(op: Any) -> str:
    return getattr(op, "name", None) or str(op)


def _op_text(op: Any) -> str:
    """The Op as its ``str`` says it, each parameter's value as the user would write it
    (``zeros{shape=(2*?0, 3), dtype='float64'}``, not ``Dim<2*?0>``)."""
    params = getattr(op, "params", None)
    if not isinstance(params, tuple) or not params or \
            not all(isinstance(p, tuple) and len(p) == 2 for p in params):
        return str(op)
    said = ", ".join(f"{key}={value_text(value)}" for key, value in params)
    return f"{_op_name(op)}{{{said}}}"


def digraph(outputs: Iterable[Variable], types: bool = True, name: str = "graph",
            size: str | None = None) -> graphviz.Digraph:
    """The picture of every node the ``outputs`` depend on.

    Edges run from inputs to Apply nodes to outputs, as the data flows; dashed edges
    join an Apply to its Op and (with ``types``) a Variable to its Type. Equal Types
    share one box. ``types=False`` leaves them out, for big graphs; ``size`` is
    Graphviz's size attribute (inches, ``"4,4"``).
    """
    dot = new_picture(name)
    dot.attr(rankdir="TB", fontname="Helvetica")
    if size:
        dot.attr(size=size)
    dot.attr("node", fontname="Helvetica", fontsize="11")
    dot.attr("edge", fontname="Helvetica", fontsize="9")
    outs = list(outputs)
    literal = dot.literal
    var_ids: dict[int, str] = {}
    type_ids: dict[Any, str] = {}

    def variable(v: Variable) -> str:
        vid = var_ids.get(id(v))
        if vid is None:
            vid = var_ids[id(v)] = f"v{len(var_ids)}"
            dot.node(vid, literal(_variable_label(v)), **_style("variable"))
            if types:
                tid = type_ids.get(v.type)
                if tid is None:
                    tid = type_ids[v.type] = f"t{len(type_ids)}"
                    dot.node(tid, literal(str(v.type)), **_style("type"))
                dot.edge(vid, tid, label="type", style="dashed", color=COLORS["type"],
                         arrowhead="none")
        return vid

    for k, node in enumerate(toposort(outs)):
        inputs = [variable(v) for v in node.inputs]
        aid = f"a{k}"
        dot.node(aid, "Apply", **_style("apply"))
        # A long Op (sum{axis=(0,), keepdims=False}) would blow the circle up: the
        # circle holds its name and the parameters go beside it.
        name, full = _op_name(node.op), _op_text(node.op)
        extra = {"xlabel": literal(full[len(name):])} \
            if full.startswith(name) and full != name else {}
        dot.node(f"o{k}", literal(name if extra else full), **_style("op"), **extra)
        dot.edge(aid, f"o{k}", label="op", style="dashed", color=COLORS["op"],
                 arrowhead="none")
        for i, vid in enumerate(inputs):
            dot.edge(vid, aid, label=str(i) if len(inputs) > 1 else "")
        for out in node.outputs:
            dot.edge(aid, variable(out))
    for v in outs:
        variable(v)
    return dot
