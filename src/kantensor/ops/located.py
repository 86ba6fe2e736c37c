"""The conditions of a built node in the graph's terms: each says which Op needs it, an
input's unknown size is named by that input's axis, and a size of the node's own that
nothing defines (NonZero's count) by that node."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from ..graph.basic import Apply, Variable
from ..types.conditions import AnyOf, Clause, Condition, InnerSize, InputAxis, Source
from ..types.dim import unknown
from ..types.symbols import free_symbols, substitute

__all__ = ["NodeSize", "Unplaced", "VariableAxis", "located", "portable", "relocated"]


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

    def __reduce__(self) -> tuple:
        # made with its owner: a pickle reaches it again through its owner (the node whose
        # conditions name it) and hashes it there, before slot state would be restored
        return NodeSize, (self.owner, self.inner)

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
    return _placed(conditions, node, node.inputs)


class Unplaced:
    """A build's ``conditions`` for a node, :func:`located` on the node and the inputs it
    is built with when first read (:attr:`~kantensor.graph.basic.Apply.conditions`): a
    node whose conditions add no fact is made without naming them."""

    __slots__ = ("conditions", "inputs")

    def __init__(self, conditions: tuple[Clause, ...], node: Apply) -> None:
        self.conditions, self.inputs = conditions, tuple(node.inputs)

    def place(self, node: Apply) -> tuple[Clause, ...]:
        return _placed(self.conditions, node, self.inputs)


def _placed(conditions: tuple[Clause, ...], node: Apply, inputs: Sequence[Variable]
            ) -> tuple[Clause, ...]:
    op = str(getattr(node.op, "name", node.op))
    names: dict[Hashable, Any] = {}
    sources: dict[Source | None, Source] = {}  # each source once with the Op (shared ones)

    def side(x: Any) -> Any:
        """``x`` with the input axes and the build's own sizes named; a lone one directly
        (the common case, an unknown size broadcast), anything else by substitution."""
        if type(x) is int:
            return x
        keys = [k for k in free_symbols(x) if isinstance(k, InputAxis | InnerSize)]
        if not keys:
            return x
        for k in keys:
            if k not in names:
                names[k] = unknown(VariableAxis(inputs[k.input], k.axis)
                                   if isinstance(k, InputAxis) else NodeSize(node, k))
        if len(keys) == 1 and x == unknown(keys[0]):
            return names[keys[0]]
        return substitute(x, {k: names[k] for k in keys})

    def source(src: Source | None) -> Source:
        found = sources.get(src)
        if found is None:
            found = sources[src] = _with_op(src, op)
        return found

    def own(c: Condition) -> Condition:
        left, right = side(c.left), side(c.right)
        if left is c.left and right is c.right:
            return c.with_source(source(c.source))
        return Condition(left, c.op, right, source(c.source))

    out: list[Clause] = []
    for c in conditions:
        if isinstance(c, Condition):
            out.append(own(c))
        else:
            out.append(AnyOf(tuple(tuple(own(x) for x in case) for case in c.cases),
                             source(c.source)))
    return tuple(out)


def _with_op(source: Source | None, op: str) -> Source:
    if source is None:
        return Source(op=op)
    return source if source.op else source.replaced(op=op)


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
    """``source`` naming ``node``, unless it names a node already: one inside ``node``'s
    subgraph, which the importer names with it (``square in if: then_branch``)."""
    if source is None:
        return Source(node=node)
    return source if source.node else source.replaced(node=node)


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
