"""The contract of a graph: what its nodes' conditions need of its inputs' sizes.

Every node keeps the conditions its build could not decide (``Apply.conditions``), over
the graph's named sizes and, for an input's axis of unknown size, the unknown of its
:class:`~kantensor.ops.located.VariableAxis`. :func:`contract_of` makes a
:class:`~kantensor.types.contracts.Contract` of such conditions over given inputs (an
input's unknown axis named ``x.shape[1]``); :func:`contract` collects them from a graph.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from itertools import chain

from ..graph.basic import Apply, Constant, Variable
from ..graph.walk import graph_inputs, toposort
from ..types.conditions import Clause
from ..types.contracts import Contract, merged_atoms
from ..types.contracts.atoms import Reaches
from ..types.dim import Dim
from ..types.symbols import DataSymbol, free_symbols
from ..types.type import TensorType
from .located import VariableAxis, relocated

__all__ = ["contract", "contract_given", "contract_of", "input_sizes"]


def input_sizes(inputs: Sequence[Variable], clauses: Iterable[Clause] = ()
                ) -> list[tuple[str, Hashable]]:
    """The sizes of ``inputs`` in order, as ``(name, symbol)``: the named sizes their
    types name, and each axis of unknown size as ``x.shape[k]`` (its
    :class:`VariableAxis`); then the named sizes only ``clauses`` name. A size the data
    decide (a :class:`~kantensor.types.symbols.DataSymbol`: a model's NonZero count) is
    no input: no caller gives it."""
    out: list[tuple[str, Hashable]] = []
    seen: set = set()

    def add(name: str, symbol: Hashable) -> None:
        if symbol not in seen and type(symbol) is not DataSymbol:
            seen.add(symbol)
            out.append((name, symbol))

    for i, v in enumerate(inputs):
        label = v.name or f"input{i}"
        if not isinstance(v.type, TensorType):  # a sequence or an optional: no axes here
            continue
        for axis, d in enumerate(v.type.shape):
            if d is None:
                add(f"{label}.shape[{axis}]", VariableAxis(v, axis))
            elif isinstance(d, Dim):
                for s in sorted(free_symbols(d), key=str):
                    if isinstance(s, str):
                        add(s, s)
    for c in clauses:
        for s in sorted(c.symbols(), key=str):
            if isinstance(s, str):
                add(s, s)
    return out


def contract_of(conditions: Iterable[Clause], inputs: Sequence[Variable],
                notes: Sequence[str] = (), inputs_only: bool = False,
                reaches: Reaches | None = None) -> Contract:
    """The contract of ``conditions`` (nodes' conditions, in node order) over the sizes
    of ``inputs`` (and the named sizes only the conditions name, unless ``inputs_only``:
    then those are sizes the graph makes, such as a Loop's count, which no input gives);
    ``notes`` say what the conditions may lack; ``reaches`` which nodes read which
    (:func:`~kantensor.types.contracts.atoms.merged_atoms`)."""
    clauses = list(conditions)
    sizes = input_sizes(inputs, () if inputs_only else clauses)
    return Contract(merged_atoms(clauses, {s for _, s in sizes}, reaches), sizes, notes=notes,
                    reaches=reaches)


def contract(outputs: Variable | Sequence[Variable],
             inputs: Sequence[Variable] | None = None) -> Contract:
    """The input sizes under which every node computing ``outputs`` holds: a
    :class:`~kantensor.types.contracts.Contract` over the named sizes and the unknown
    axes of ``inputs`` (by default the graph's inputs, constants left out).

    >>> import kantensor as kt
    >>> N, D = kt.dims("N D")
    >>> x = kt.tensor("x", "float32", (N, D))
    >>> print(kt.contract(x @ x).dsl())
    where D == N
    """
    outs = [outputs] if isinstance(outputs, Variable) else list(outputs)
    for i, v in enumerate(outs):
        if not isinstance(v, Variable):
            raise TypeError(f"contract: output {i} must be a Variable of a graph, got {v!r}")
    if inputs is None:
        ins = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
        nodes: list[Apply] = toposort(outs)
    else:
        ins = list(inputs)
        before = {id(n) for n in toposort(ins)}
        nodes = [n for n in toposort(outs) if id(n) not in before]
    return contract_of([*chain.from_iterable(map(_named, nodes))], ins,
                       reaches=_reaches(nodes))


def contract_given(inputs: Sequence[Variable], nodes: Sequence[Apply],
                   given: Sequence[Clause], notes: Sequence[str] = ()) -> Contract:
    """:func:`contract` of a graph walked already (its ``inputs``, constants left out,
    and its ``nodes`` in topological order: refine's walk, not two more) with the
    conditions ``given`` beside the nodes' (what ``refine``'s given types need of the
    graph's sizes: ``c == max(a,b)*min(1,a,b)`` where ``float32[c]`` is required of a
    sum typed ``float32[max(a,b)*min(1,a,b)]``); ``notes`` say what they may lack."""
    return contract_of([*chain.from_iterable(map(_named, nodes)), *given], list(inputs), notes,
                       reaches=_reaches(nodes))


def _reaches(nodes: Sequence[Apply]) -> Reaches:
    """``reaches(a, b)`` over the nodes a graph names (``node.tag["name"]``, a model's):
    whether node ``b`` reads, through any path, what node ``a`` computes; None where a
    name is no node's of ``nodes`` or more than one's. As
    :func:`kantensor.onnx.reaches.node_reaches` says it of the model, for the graph read
    from it: one answer for both contracts."""
    named: dict[str, Apply | None] = {}
    ancestors: dict[int, set[int]] = {}

    def reaches(a: str, b: str) -> bool | None:
        if a == b:
            return True
        if not named:
            for n in nodes:
                name = n.tag.get("name")
                if name:
                    named[name] = None if name in named else n
        na, nb = named.get(a), named.get(b)
        if na is None or nb is None:
            return None
        if id(nb) not in ancestors:
            seen: set[int] = set()
            todo = [nb]
            while todo:
                for v in todo.pop().inputs:
                    if v.owner is not None and id(v.owner) not in seen:
                        seen.add(id(v.owner))
                        todo.append(v.owner)
            ancestors[id(nb)] = seen
        return id(na) in ancestors[id(nb)]

    return reaches


def _named(node: Apply) -> tuple[Clause, ...]:
    """``node``'s conditions, each naming the node where the graph names it (a node
    read from a model: ``node.tag["name"]``)."""
    found = node.conditions  # (a property, placed when first read: read once)
    if not found:
        return found
    name = node.tag.get("name")
    return relocated(found, [], name) if name else found
