"""What ``refine`` returns: the refined type of every Variable, and the graph retyped."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from ..graph.basic import Constant, Variable
from ..graph.display import block, code, table
from ..graph.walk import graph_inputs, toposort
from ..types.basic_ops import specify_shape
from ..types.contracts import Contract, Sets, SizeSet
from ..types.display import type_inline
from ..types.type import TensorType
from .units import describe, is_size_carrier

__all__ = ["Refinement"]


class Refinement(Mapping):
    """``{Variable: refined TensorType}`` for every Variable of a graph, inputs first.

    ``retyped(v)`` (or ``.inputs`` and ``.outputs``) is the graph rebuilt on inputs of
    the refined types, with SpecifyShape where a node's own inference is less specific
    than the refinement, so that ``kt.function(r.inputs, r.outputs)`` checks the
    refined types when it is called.
    """

    def __init__(self, outputs: Sequence[Variable], types: dict[Variable, TensorType],
                 contract: Contract | None = None):
        self._outputs = list(outputs)
        self._types = types
        self._memo: dict[Variable, Variable] = {}
        #: the graph's contract at the refined sizes (None: the graph has no conditions)
        self.contract = contract

    def sets(self) -> Sets:
        """What the graph's contract leaves of each named size (``{name: SizeSet}``; a
        size refinement knows is its one value; empty when the graph has no
        conditions)."""
        if self.contract is None:
            return Sets({})
        fixed = {k: SizeSet.point(v) for k, v in self.contract.fixed.items()
                 if isinstance(v, int)}
        left = self.contract.sets()
        return Sets({**fixed, **left}, left.necessary)

    def __getitem__(self, variable: Variable) -> TensorType:
        return self._types[variable]

    def __iter__(self) -> Iterator[Variable]:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)

    @property
    def changed(self) -> dict[Variable, TensorType]:
        """The Variables whose refined type is more specific than their graph type."""
        return {v: t for v, t in self._types.items() if t != v.type}

    # -- the retyped graph -------------------------------------------------------------
    @property
    def inputs(self) -> list[Variable]:
        """The retyped graph's inputs (not its constants), in the order
        ``kt.graph_inputs(outputs)`` lists them."""
        return [self.retyped(v) for v in graph_inputs(self._outputs)
                if not isinstance(v, Constant)]

    @property
    def outputs(self) -> list[Variable]:
        """The retyped counterparts of the outputs given to ``refine``."""
        return [self.retyped(v) for v in self._outputs]

    def retyped(self, variable: Variable) -> Variable:
        """The counterpart of ``variable`` in the graph rebuilt with refined types."""
        if variable not in self._types:
            raise KeyError(f"{describe(variable)} is not a Variable of the refined graph")
        if variable not in self._memo:
            self._rebuild(variable)
        return self._memo[variable]

    def _rebuild(self, target: Variable) -> None:
        memo = self._memo
        for v in self._types:
            if v.owner is None and v not in memo:
                memo[v] = v if isinstance(v, Constant) else self._types[v](v.name)
        for node in toposort([target]):
            if node.outputs[0] in memo:
                continue
            new = node.clone_with_new_inputs([memo[v] for v in node.inputs], strict=False)
            for old, out in zip(node.outputs, new.outputs, strict=True):
                out.name = old.name
                want = self._types[old]
                memo[old] = out if out.type == want else specify_shape(out, want.shape)

    # -- display ------------------------------------------------------------------------
    def _rows(self) -> list[tuple[str, Variable, TensorType]]:
        """(label, variable, refined type) of each variable of the user's program (not the
        inputs that carry sizes): each labelled by its expression, numbered in graph order
        where two read alike (a chain's expressions are cut alike)."""
        shown = [v for v in self._types if not is_size_carrier(v)]
        labels = {v: describe(v) for v in shown}
        count: dict[str, int] = {}
        for label in labels.values():
            count[label] = count.get(label, 0) + 1
        nth: dict[str, int] = {}
        rows = []
        for v in shown:
            label = labels[v]
            if count[label] > 1:
                nth[label] = nth.get(label, 0) + 1
                label = f"{label} #{nth[label]}"
            rows.append((label, v, self._types[v]))
        return rows

    def __str__(self) -> str:
        rows = self._rows()
        width = max((len(label) for label, _, _ in rows), default=0)
        return "\n".join(f"{label:<{width}}  {t}" + (
            f"  (was {v.type})" if t != v.type else "") for label, v, t in rows)

    def __repr__(self) -> str:
        rows = self._rows()  # (the variables shown: sizes' carriers are not counted)
        refined = sum(t != v.type for _, v, t in rows)
        return f"<Refinement of {len(rows)} variables, {refined} refined>\n{self}"

    def _repr_html_(self) -> str:
        rows = [[code(label), type_inline(t), type_inline(v.type) if t != v.type else ""]
                for label, v, t in self._rows()]
        return block("refine", code(", ".join(describe(o) for o in self._outputs)),
                     table(["variable", "refined type", "was"], rows))
