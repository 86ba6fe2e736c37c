"""``refine``: every node's relation, run to a fixpoint over the whole graph.

A worklist, never one conjunction over the whole graph: each unit (a node, a
SpecifyShape, a given type) runs its own relation on the sizes known now; what it
decides binds a symbol of :class:`~kantensor.refinement.sizes.Sizes`, and the units of the
Variables that mention that symbol run again. A symbol is bound at most once, so the
work is linear in the graph for the usual shapes of graphs.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from ..graph.basic import Variable
from ..graph.progress import Progress
from ..graph.walk import ancestors, toposort
from ..types.type import TensorType
from .explain import Conflict, RefinementError, explain_conflict, undefined_size
from .relations import UNIFY, Operand, Unit, describe, node_relation, run
from .result import Refinement
from .sizes import Hole, Sizes, symbol_dim, symbols_of

__all__ = ["refine"]


def refine(outputs: Variable | Sequence[Variable],
           given: Mapping[Variable, TensorType | str] | None = None) -> Refinement:
    """The most specific type of every Variable of the graph of ``outputs`` (inputs,
    intermediates and outputs) that every node's relation allows, solved jointly.

    ``given`` maps Variables of the graph to types they must have (TensorTypes or
    compact text such as ``"float32[5,?]"``; Dims allowed), for example a required
    output type, which then propagates back to the inputs. A contradiction raises
    :class:`RefinementError` (a TypeInferenceError) whose message, and ``chain``
    attribute, give the nodes, operands, axes and values that lead to it.
    """
    outs = [outputs] if isinstance(outputs, Variable) else list(outputs)
    for i, v in enumerate(outs):
        if not isinstance(v, Variable) or not isinstance(v.type, TensorType):
            raise TypeError(f"refine: output {i} must be a tensor Variable of a graph, "
                            f"got {v!r}")
    variables = ancestors(outs)
    nodes = toposort(outs)
    sizes = Sizes()
    for v in variables:
        sizes.add(v)
    for node in nodes:  # every output of a node, also those the outputs do not use
        for o in node.outputs:
            sizes.add(o)
    units = [_given_unit(v, t, sizes) for v, t in _read_given(given, sizes)]
    for node in nodes:
        relation = node_relation(node)
        if relation is not None:
            units.append(_node_unit(node, relation))
    _fixpoint(sizes, units)
    order = [v for v in variables if v.owner is None]
    order += [o for node in nodes for o in node.outputs]
    return Refinement(outs, {v: sizes.type_of(v) for v in order})


def _read_given(given: Mapping | None, sizes: Sizes) -> list[tuple[Variable, TensorType]]:
    if given is None:
        return []
    if not isinstance(given, Mapping):
        raise TypeError(f"refine: given must map Variables to types, got "
                        f"{type(given).__name__}")
    out = []
    for v, t in given.items():
        if not isinstance(v, Variable) or v not in sizes.entries:
            raise ValueError(f"refine: given names {v!r}, which is not a Variable of the "
                             "graph of the outputs")
        if isinstance(t, str):
            try:
                t = TensorType.parse(t)
            except ValueError as exc:
                raise ValueError(f"refine: the type given for {describe(v)}: {exc}") from None
        if not isinstance(t, TensorType):
            raise TypeError(f"refine: the type given for {describe(v)} must be a "
                            f"TensorType or text such as 'float32[3,?]', got {t!r}")
        out.append((v, t))
    return out


def _given_unit(v: Variable, t: TensorType, sizes: Sizes) -> Unit:
    label = f"given {describe(v)}: {t}"
    if t.dtype != v.type.dtype or t.ndim != v.type.ndim:
        about = "dtype" if t.dtype != v.type.dtype else "rank"
        raise RefinementError((), Conflict(label, (), f"{describe(v)} is {v.type} in the "
                                           "graph; refine refines sizes, not dtypes or ranks"),
                              f"the given {about} contradicts the graph")
    return Unit(UNIFY, (Operand(v, v.type.dtype, v.wrapped),
                        Operand(None, t.dtype, v.wrapped, tuple(
                            symbol_dim(object()) if e is None else e for e in t.shape))),
                1, None, label)


def _node_unit(node: Any, relation: Any) -> Unit:
    return Unit(relation, tuple(Operand(v, v.type.dtype, v.wrapped)
                                for v in node.inputs + node.outputs), len(node.inputs), node)


def _fixpoint(sizes: Sizes, units: list[Unit]) -> None:
    touching: dict[Variable, list[Unit]] = {}
    for u in units:
        for op in u.operands:
            if op.variable is not None:
                touching.setdefault(op.variable, []).append(u)
    queue = deque(units)
    queued = set(map(id, units))
    progress = Progress("refine: relations solved")
    try:
        while queue:
            progress.step()
            unit = queue.popleft()
            queued.discard(id(unit))
            try:
                operands = [(op.dtype, op.wrapped, op.fixed if op.variable is None
                             else sizes.current(op.variable)) for op in unit.operands]
            except ZeroDivisionError:  # a size of the graph's types divides by 0 here
                raise undefined_size(sizes, unit) from None
            found = run(unit, operands)
            if found is None:
                raise explain_conflict(sizes, unit)
            for symbol, value in found.items():
                if symbol in sizes.bindings or not isinstance(symbol, str | Hole):
                    continue  # bound meanwhile, or an unknown of a given type (no axis)
                value = sizes.resolve(value)
                if symbol in symbols_of(value):  # no news, or not a value of its own
                    continue
                for v in sizes.bind(symbol, value, unit):
                    for other in touching.get(v, ()):
                        if other is not unit and id(other) not in queued:
                            queued.add(id(other))
                            queue.append(other)

    finally:
        progress.close()
