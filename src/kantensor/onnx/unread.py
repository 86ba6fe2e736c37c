"""What a contract of an ONNX model lacks where a node's types depend on a value computed
from sizes that is not known when the model is read (:func:`unread`)."""

from __future__ import annotations

from typing import Any, NamedTuple

import onnx

from .calls import call_plan
from .intervals import input_bounds, stated
from .registry import UnsupportedOp, lookup
from .shared import FloatSize

__all__ = ["graph_unread", "unread"]

#: The value inputs of which every value is valid: the types depend on them, not what
#: the node accepts (Slice's bounds are clamped)
_ANY_VALUE = frozenset({("Slice", "starts"), ("Slice", "ends")})


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


class _Plan(NamedTuple):
    """What :func:`graph_unread` reads of a graph's structure, the same at every read of
    it (a Loop's body is read several times: its symbolic typing, the fixpoint, ...)."""

    around: tuple[str, ...]  # the names it reads from around it, and its inputs
    found: frozenset[str]  # its initializers (computed from constants)
    #: per node: the names it reads (its subgraphs' from around them too), its outputs,
    #: whether its kernel reads only its inputs' shapes
    steps: tuple[tuple[tuple[str, ...], tuple[str, ...], bool], ...]
    #: per node whose types may depend on a value input (its entry's, not structured):
    #: the node, its entry, and per such input its name, its parameter, and its position
    #: in ``entry.bounded`` (None: no interval read)
    checks: tuple[tuple[onnx.NodeProto, Any, tuple[tuple[str, str, int | None], ...]], ...]


def _plan(graph: onnx.GraphProto, opset: int | None) -> _Plan:
    """The :class:`_Plan` of ``graph`` (``opset``: the model's)."""
    made = {o for n in graph.node for o in n.output}
    inputs = {i.name for i in graph.input}
    steps, checks, around = [], [], dict.fromkeys(sorted(inputs))
    for node in graph.node:
        read = (*node.input, *_captured(node))
        around.update(dict.fromkeys(n for n in read if n and n not in made))
        steps.append((read, tuple(node.output), _reads_shapes(node, opset)))
        if node.domain not in ("", "ai.onnx"):
            continue
        try:
            entry = lookup(node.op_type, node.domain, opset, node.name)
        except UnsupportedOp:
            continue
        if entry.structured:
            continue
        asked = tuple((node.input[k], name, None if bounds is None else
                       entry.bounded.index(k))
                      for k, variadic, name, value, bounds in call_plan(entry).inputs
                      if not variadic and k < len(node.input) and node.input[k] and
                      value is not None and (node.op_type, name) not in _ANY_VALUE)
        # (a Gather's indices, value None: their interval is exact where it is known, and
        # a slice of a table's ids has none: not noted)
        if asked:
            checks.append((node, entry, asked))
    return _Plan(tuple(around), frozenset(t.name for t in graph.initializer), tuple(steps),
                 tuple(checks))


def _of_sizes(plan: _Plan, given: frozenset[str]) -> set[str]:
    """The names of a graph's values computed from sizes and constants alone
    (initializers, Constant nodes, the outputs of ops whose kernel reads only their
    inputs' shapes, ``reads_only = "shapes"``: Shape and Size, of anything, and what
    nodes compute from those), not from the data of its inputs (``plan``: the graph's;
    ``given``: names from around a subgraph, or its inputs, that are so)."""
    found = set(plan.found | given)
    for read, outputs, shapes in plan.steps:
        if shapes or all(not n or n in found for n in read):
            found.update(outputs)
    return found


def graph_unread(graph: onnx.GraphProto, reader: Any) -> list[str]:
    """Notes for the contract: each node whose types depend on an input's value that is
    computed from sizes alone but not known when the model is read (a Reshape's shape
    from a size cast to float and back, which is not folded; a Range's delta cast to
    float, which its builder does not read). Its conditions on that
    value (a volume, entries >= 0) are checked when the model runs, so ``holds`` is
    undecided where every atom holds. A value of the data (a graph input's) is the
    data's business, and so are a Gather's indices of unknown interval:
    docs/contracts.rst. An input whose intervals the node states (GatherND's index
    tuples computed from sizes, each column's interval known) needs nothing more.
    The graph's :class:`_Plan` is made once per model (``reader.unread_plans``)."""
    key = id(graph)
    if key not in reader.unread_plans:  # (the graph is kept beside its plan: no id reused)
        reader.unread_plans[key] = (graph, _plan(graph, reader.opset))
    plan = reader.unread_plans[key][1]
    if not plan.checks:
        return []
    found = _of_sizes(plan, frozenset(n for n in plan.around if reader.parent is not None
                                      and reader.value(n) is not None))  # (a subgraph's:
    # a known value from around it is computed from sizes and constants, the data's never
    # being known)
    notes = []
    for node, entry, asked in plan.checks:
        if any(o in reader.untyped for o in node.output):
            continue
        for source, name, bounded in asked:
            if source not in found:
                continue
            if bounded is not None and stated(input_bounds(reader, entry, node.input)[
                    bounded]):  # (GatherND's columns: what it needs of them is stated
                continue  # exactly)
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
