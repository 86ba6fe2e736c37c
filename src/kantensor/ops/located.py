"""The conditions of a built node in the graph's terms: each says which Op needs it, an
input's unknown size is named by that input's axis, and a size of the node's own that
nothing defines (NonZero's count) by that node."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any

from ..graph.basic import Apply, Variable
from ..types.conditions import AnyOf, Clause, Condition, InnerSize, InputAxis, Source
from ..types.dim import unknown

__all__ = ["NodeSize", "VariableAxis", "located", "portable", "relocated"]


class VariableAxis:
    """The unknown size of axis ``axis`` of the graph Variable ``variable``: the key of
    the unknown a node's condition names it by (identity by the Variable)."""

    __slots__ = ("variable", "axis")

    def __init__(self, variable: Variable, axis: int) -> None:
        self.variable, self.axis = variable, axis

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VariableAxis) and other.variable is self.variable \
            and other.axis == self.axis

    def __hash__(self) -> int:
        return hash((id(self.variable), self.axis))

    def __str__(self) -> str:
        return f"{self.variable}.shape[{self.axis}]"

    __repr__ = __str__


class NodeSize:
    """A size that node ``owner``'s relation introduces and nothing defines, ``inner`` (a
    data-dependent count: NonZero's, TopK's ``k``): the key of the unknown a node's
    condition names it by, one per node, written after the node (``/model/NonZero.u_0``).
    ``owner`` is the graph's Apply (identity by it) or a model node's name."""

    __slots__ = ("owner", "inner")

    def __init__(self, owner: Apply | str, inner: InnerSize) -> None:
        self.owner, self.inner = owner, inner

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NodeSize) and other.inner == self.inner and (
            other.owner is self.owner or type(self.owner) is str and other.owner == self.owner)

    def __hash__(self) -> int:
        return hash((self.owner if type(self.owner) is str else id(self.owner), self.inner))

    def __str__(self) -> str:
        node = self.owner
        if type(node) is not str:
            node = node.tag.get("name") or (str(node.outputs[0]) if node.outputs
                                            else str(getattr(node.op, "name", "node")))
        return f"{node}.{self.inner}"

    __repr__ = __str__


def located(conditions: tuple[Clause, ...], node: Apply) -> tuple[Clause, ...]:
    """``conditions`` of a build (over its inputs' sizes) as ``node``'s: each with its Op
    in its source, an input's unknown axis as that input Variable's axis, a size of the
    build's own as the node's (:class:`NodeSize`)."""
    op = str(getattr(node.op, "name", node.op))
    names: dict[Hashable, Any] = {}

    def own(c: Condition) -> Condition:
        keys = [k for k in c.symbols() if isinstance(k, InputAxis | InnerSize)]
        for k in keys:
            if k not in names:
                names[k] = unknown(VariableAxis(node.inputs[k.input], k.axis)
                                   if isinstance(k, InputAxis) else NodeSize(node, k))
        if keys:
            c = c.substitute({k: names[k] for k in keys})
        return c.with_source(_with_op(c.source, op))

    out: list[Clause] = []
    for c in conditions:
        if isinstance(c, Condition):
            out.append(own(c))
        else:
            out.append(AnyOf(tuple(tuple(own(x) for x in case) for case in c.cases),
                             _with_op(c.source, op)))
    return tuple(out)


def _with_op(source: Source | None, op: str) -> Source:
    return Source(op=op) if source is None else replace(source, op=source.op or op)


def portable(conditions: tuple[Clause, ...], positions: dict[int, int]) -> tuple[Clause, ...]:
    """``conditions`` of a node with each input Variable's unknown axis written as the
    unknown of an :class:`~kantensor.types.facts.InputAxis` of position
    ``positions[id(variable)]``, and its own sizes as the build's (to be
    :func:`relocated` to another node's inputs)."""
    def move(c: Condition) -> Condition:
        keys = [k for k in c.symbols() if isinstance(k, NodeSize) or
                isinstance(k, VariableAxis) and id(k.variable) in positions]
        if not keys:
            return c
        return c.substitute({k: unknown(k.inner if isinstance(k, NodeSize) else
                                        InputAxis(positions[id(k.variable)], k.axis))
                             for k in keys})
    return _each(conditions, move)


def relocated(conditions: tuple[Clause, ...], variables: list[Variable], node: str = ""
              ) -> tuple[Clause, ...]:
    """:func:`portable` conditions over ``variables`` (by position), each saying it is
    ``node``'s (a name in a model, say), the build's own sizes named after it."""
    def place(c: Condition) -> Condition:
        keys = [k for k in c.symbols() if isinstance(k, InputAxis) or
                node and isinstance(k, InnerSize)]
        if keys:
            c = c.substitute({k: unknown(VariableAxis(variables[k.input], k.axis)
                                         if isinstance(k, InputAxis) else NodeSize(node, k))
                              for k in keys})
        return c.with_source(_with_node(c.source, node)) if node else c
    return _each(conditions, place, (lambda src: _with_node(src, node)) if node else None)


def _with_node(source: Source | None, node: str) -> Source:
    return Source(node=node) if source is None else replace(source, node=node)


def _each(conditions: tuple[Clause, ...], f: Any, source: Any = None) -> tuple[Clause, ...]:
    """``f`` applied to every condition of ``conditions`` (``source`` to a disjunction's
    own source, when given)."""
    out: list[Clause] = []
    for c in conditions:
        if isinstance(c, Condition):
            out.append(f(c))
        else:
            src = c.source if source is None else source(c.source)
            out.append(AnyOf(tuple(tuple(f(x) for x in case) for case in c.cases), src))
    return tuple(out)
