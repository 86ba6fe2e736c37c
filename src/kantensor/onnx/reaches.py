"""Which nodes of a model's main graph read which: :func:`node_reaches`, the ``reaches``
a contract asks (a need on a branch the node that chose does not reach is no choice, see
:func:`~kantensor.types.contracts.atoms.merged_atoms`)."""

from __future__ import annotations

from collections.abc import Iterator

import onnx

from ..types.contracts.atoms import Reaches
from .protos import label

__all__ = ["node_reaches"]


def node_reaches(graph: onnx.GraphProto) -> Reaches:
    """``reaches(a, b)``: whether the node labelled ``b`` (as messages name it,
    :func:`.protos.label`) reads, through any path, a value the node labelled ``a``
    computes; a node reaches itself. None where a label names no node of ``graph`` or
    more than one (a subgraph's node, a name given twice). A node with a subgraph reads
    every name its subgraph does (its outer values among them). The graph is walked once
    a first question asks, and each ``b``'s ancestors once."""
    nodes = list(graph.node)
    labels: dict[str, int | None] = {}
    producer: dict[str, int] = {}
    reads: list[list[str]] = []
    ancestors: dict[int, set[int]] = {}

    def walk() -> None:
        for i, node in enumerate(nodes):
            text = label(node)
            labels[text] = None if text in labels else i
            producer.update((name, i) for name in node.output if name)
            reads.append([name for name in _read(node) if name])

    def reaches(a: str, b: str) -> bool | None:
        if a == b:
            return True
        if not labels:
            walk()
        ia, ib = labels.get(a), labels.get(b)
        if ia is None or ib is None:
            return None
        if ib not in ancestors:
            seen: set[int] = set()
            todo = [ib]
            while todo:
                for name in reads[todo.pop()]:
                    j = producer.get(name)
                    if j is not None and j not in seen:
                        seen.add(j)
                        todo.append(j)
            ancestors[ib] = seen
        return ia in ancestors[ib]

    return reaches


def _read(node: onnx.NodeProto) -> Iterator[str]:
    """The names ``node`` reads: its inputs, and every input of its subgraphs' nodes."""
    yield from node.input
    for attr in node.attribute:
        for g in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
            for inner in g.node:
                yield from _read(inner)
