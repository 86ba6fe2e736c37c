"""Pictures of graphs: ``dprint`` (indented text) and ``graphviz`` (a drawing)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TextIO

from .graph.basic import Apply, Constant, Variable
from .graph.compact import compact
from .graph.picture import digraph
from .graph.walk import ancestors, toposort

if TYPE_CHECKING:
    import graphviz as gv  # the module; this one's graphviz is the drawing function

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
        return [v for item in obj for v in _single_roots(item)]
    raise TypeError(f"cannot print {type(obj).__name__}: expected Variables, an Apply, "
                    "a FunctionGraph or a Function")


def _single_roots(obj: Any) -> list[Variable]:
    """The roots of one item of a list: a Variable, an Apply or a graph (not a list)."""
    if isinstance(obj, Iterable) and not isinstance(obj, Variable | Apply) and \
            not hasattr(obj, "outputs") and not hasattr(obj, "fgraph"):
        raise TypeError(f"cannot print {type(obj).__name__} inside a list: expected "
                        "Variables, Apply nodes, FunctionGraphs or Functions")
    return _roots(obj)


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


#: Above this many nodes (Variables and Apply nodes), ``kt.graphviz`` draws the compact
#: picture unless a style is asked for.
SEED_MAX_NODES = 12

STYLES = ("seed", "compact")


def graphviz(obj: Any, types: bool = True, style: str | None = None,
             depth: int | None = None, collapse: Iterable[str] | str = ()) -> gv.Digraph:
    """A ``graphviz.Digraph`` of a graph (``obj`` is what :func:`dprint` takes).

    ``style="seed"`` draws it as Theano's "Graph Structures" seed: Variables red
    boxes, Apply nodes blue boxes, Ops green circles and Types purple boxes
    (``types=False`` leaves the Types out). ``style="compact"`` draws one box per Apply
    with its Op and parameters (as written) inside, each Variable's type on its second
    line with symbolic sizes highlighted, Apply nodes of outputs named ``scope/...``
    framed by scope; ``collapse`` (scope names) draws those scopes as one box each, and
    ``depth`` stops that many Apply nodes above the outputs. The default is the seed's
    picture up to a dozen nodes and the compact one above (and whenever ``depth`` or
    ``collapse`` is given). Notebooks show the result inline as SVG; ``.source`` is
    the DOT text, and rendering (``.pipe()``, ``.render()``, the SVG) needs ``dot``.
    """
    roots = _roots(obj)
    if isinstance(collapse, str):
        collapse = (collapse,)
    collapse = tuple(collapse)
    if style is None:
        big = depth is not None or collapse or \
            len(ancestors(roots)) + len(toposort(roots)) > SEED_MAX_NODES
        style = "compact" if big else "seed"
    if style not in STYLES:
        raise ValueError(f"style must be one of {', '.join(map(repr, STYLES))}, got {style!r}")
    if depth is not None and (not isinstance(depth, int) or depth < 1):
        raise ValueError(f"depth must be an int >= 1, got {depth!r}")
    if style == "seed":
        if depth is not None or collapse:
            raise ValueError("depth and collapse are options of style='compact'")
        return digraph(roots, types=types)
    return compact(roots, depth=depth, collapse=collapse)
