"""FunctionGraph: a graph with fixed inputs and outputs and a client index."""

from __future__ import annotations

from collections.abc import Sequence

from .basic import Apply, Constant, Variable
from .display import fgraph_html
from .walk import clone as clone_graph
from .walk import graph_inputs, toposort


class FunctionGraph:
    """The subgraph between ``inputs`` and ``outputs``, with who-uses-what.

    ``clients[var]`` lists ``(apply_node, input_index)`` for every use of
    ``var`` as a node input and ``("output", i)`` for its use as output ``i``.
    With ``clone=True`` the graph is copied first, so edits leave the
    caller's graph alone.
    """

    def _repr_html_(self) -> str:
        return fgraph_html(self)


    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 clone: bool = True):
        inputs, outputs = list(inputs), list(outputs)
        for i, v in enumerate(inputs):
            if isinstance(v, Constant):
                raise TypeError(f"input {i} ({v}) is a Constant; constants cannot be inputs")
            if v.owner is not None:
                raise ValueError(f"input {i} ({v}) is computed by {v.owner.op}, not a graph input")
        if len({id(v) for v in inputs}) != len(inputs):
            raise ValueError("the same variable is given twice as an input")
        if clone:
            inputs, outputs = clone_graph(inputs, outputs)
        self.inputs = inputs
        self.outputs = outputs
        self.clients: dict[Variable, list[tuple[Apply | str, int]]] = {}
        self.apply_nodes: set[Apply] = set()
        self.variables: set[Variable] = set()
        for v in inputs:
            self._add_variable(v)
        self._order: list[Apply] | None = toposort(outputs, inputs)  # reset by replace
        self._import_nodes(self._order)
        for i, v in enumerate(outputs):
            self._add_variable(v)
            self.clients[v].append(("output", i))
        self._check_closed()

    def _add_variable(self, var: Variable) -> None:
        if var not in self.variables:
            self.variables.add(var)
            self.clients[var] = []

    def _import_nodes(self, nodes: Sequence[Apply]) -> None:
        for node in nodes:
            if node in self.apply_nodes:
                continue
            self.apply_nodes.add(node)
            for i, v in enumerate(node.inputs):
                self._add_variable(v)
                self.clients[v].append((node, i))
            for v in node.outputs:
                self._add_variable(v)

    def _check_closed(self) -> None:
        inputs = set(self.inputs)
        for v in self.variables:
            if v.owner is None and v not in inputs and not isinstance(v, Constant):
                raise ValueError(
                    f"variable {v} of type {v.type} is needed to compute the outputs "
                    "but is not among the inputs"
                )

    def toposort(self) -> list[Apply]:
        """The Apply nodes in an order where each comes after its inputs' owners."""
        if self._order is None:
            self._order = toposort(self.outputs, self.inputs)
        return list(self._order)

    def replace(self, var: Variable, new_var: Variable, reason: str | None = None) -> None:
        """Make every client of ``var`` use ``new_var`` instead.

        ``new_var`` goes through ``var.type.filter_variable`` first, so it is
        converted (e.g. with SpecifyShape) or rejected with a TypeError.
        """
        if var not in self.variables:
            raise ValueError(f"{var} is not in this FunctionGraph")
        new_var = var.type.filter_variable(new_var)
        if new_var is var:
            return
        inputs = set(self.inputs)
        for v in graph_inputs([new_var]):
            if v not in inputs and not isinstance(v, Constant):
                raise ValueError(f"cannot replace {var} by {new_var}: it depends on {v}, "
                                 "which is not an input of this graph")
        self._order = None
        if new_var.owner is not None:
            self._import_nodes(toposort([new_var], self.inputs))
        self._add_variable(new_var)
        for client, i in list(self.clients[var]):
            if client == "output":
                self.outputs[i] = new_var
            else:
                client.inputs[i] = new_var
            self.clients[new_var].append((client, i))
        self.clients[var] = []
        self._prune()
        self._check_closed()

    def _prune(self) -> None:
        """Forget nodes and variables that no longer reach an output."""
        live_nodes = set(self.toposort())
        live_vars = set(self.inputs) | set(self.outputs)
        for node in live_nodes:
            live_vars.update(node.inputs)
            live_vars.update(node.outputs)
        for v in list(self.variables - live_vars):
            self.variables.discard(v)
            del self.clients[v]
        self.apply_nodes = live_nodes
        for v, cl in self.clients.items():
            self.clients[v] = [(c, i) for c, i in cl if c == "output" or c in live_nodes]

    def __repr__(self) -> str:
        return f"FunctionGraph({', '.join(map(str, self.outputs))})"
