"""What a contract of an ONNX model lacks where a node's types depend on a value computed
from sizes that is not known when the model is read (:func:`unread`)."""

from __future__ import annotations

from typing import Any

import onnx

from .calls import call_plan
from .intervals import input_bounds, stated
from .registry import UnsupportedOp, lookup
from .shared import FloatSize

__all__ = ["graph_unread", "of_sizes", "unread"]

#: The value inputs of which every value is valid: the types depend on them, not what
#: the node accepts (Slice's bounds are clamped)
_ANY_VALUE = frozenset({("Slice", "starts"), ("Slice", "ends")})

def of_sizes(graph: onnx.GraphProto, opset: int | None,
             given: frozenset[str] = frozenset()) -> set[str]:
    """The names of ``graph``'s values computed from sizes and constants alone
    (initializers, Constant nodes, the outputs of ops whose kernel reads only their
    inputs' shapes, ``reads_only = "shapes"``: Shape and Size, of anything, and what
    nodes compute from those), not from the data of its inputs (``opset``: the
    model's; ``given``: names from around a subgraph, or its inputs, that are so)."""
    inputs = {i.name for i in graph.input} - {t.name for t in graph.initializer}
    found = ({t.name for t in graph.initializer} - inputs) | given
    for node in graph.node:
        if _reads_shapes(node, opset) or all(not n or n in found for n in (
                *node.input, *_captured(node))):
            found.update(node.output)
    return found


def _reads_shapes(node: onnx.NodeProto, opset: int | None) -> bool:
    """Whether ``node``'s entry reads only its inputs' shapes (no entry: False)."""
    if node.domain not in ("", "ai.onnx"):
        return False
    try:
        return lookup(node.op_type, "", opset, node.name).reads_shapes
    except UnsupportedOp:
        return False


def _captured(node: onnx.NodeProto) -> set[str]:
    """The names ``node``'s subgraphs read from the scopes around them."""
    names: set[str] = set()
    for attr in node.attribute:
        for g in (attr.g,) if attr.type == onnx.AttributeProto.GRAPH else attr.graphs:
            made = {i.name for i in g.input} | {t.name for t in g.initializer}
            for inner in g.node:
                names.update(n for n in (*inner.input, *_captured(inner)) if n not in made)
                made.update(inner.output)
    return names


def unread(proto: onnx.ModelProto, reader: Any) -> list[str]:
    """:func:`graph_unread` of the main graph, and the notes of the subgraphs read under
    it (``reader.unread_notes``, gathered by :meth:`.scope.Scope.child`), each once."""
    return list(dict.fromkeys([*graph_unread(proto.graph, reader), *reader.unread_notes]))


def graph_unread(graph: onnx.GraphProto, reader: Any) -> list[str]:
    """Notes for the contract: each node whose types depend on an input's value that is
    computed from sizes alone but not known when the model is read (a Reshape's shape
    from a size cast to float and back, which is not folded; a Range's delta cast to
    float, which its builder does not read). Its conditions on that
    value (a volume, entries >= 0) are checked when the model runs, so ``holds`` is
    undecided where every atom holds. A value of the data (a graph input's) is the
    data's business, and so are a Gather's indices of unknown interval:
    docs/contracts.rst. An input whose intervals the node states (GatherND's index
    tuples computed from sizes, each column's interval known) needs nothing more."""
    made = {o for n in graph.node for o in n.output}
    around = {n for node in graph.node for n in (*node.input, *_captured(node))
              if n and n not in made} | {i.name for i in graph.input}
    given = frozenset(n for n in around if reader.parent is not None and
                      reader.value(n) is not None)  # (a subgraph's: a known value
    # there is computed from sizes and constants, the data's never being known)
    sized = of_sizes(graph, reader.opset, given)
    notes = []
    for node in graph.node:
        if any(o in reader.untyped for o in node.output) or node.domain not in ("",
                                                                                 "ai.onnx"):
            continue
        try:
            entry = lookup(node.op_type, node.domain, reader.opset, node.name)
        except UnsupportedOp:
            continue
        if entry.structured:
            continue
        for k, variadic, name, value, bounds in call_plan(entry).inputs:
            source = node.input[k] if k < len(node.input) else ""
            if variadic or source not in sized or (node.op_type, name) in _ANY_VALUE:
                continue
            if value is None:  # (a Gather's indices: their interval is exact where it
                continue  # is known, and a slice of a table's ids has none: not noted)
            if bounds is not None and stated(input_bounds(reader, entry, node.input)[
                    entry.bounded.index(k)]):  # (GatherND's columns: what it needs of
                continue  # them is stated exactly)
            known = reader.value(source)  # (a float of sizes, FloatSize, is folded, but
            # no builder reads one: it takes the value as not known, .values.as_param)
            if known is None or (known.dtype == object and any(
                    e is None or isinstance(e, FloatSize) for e in known.ravel().tolist())):
                notes.append(f"node {node.name or node.op_type!r} ({node.op_type}): its "
                             f"{name} is computed from sizes but not known when the model "
                             "is read, so what it needs of it is checked when the model "
                             "runs")
                break
    return notes
