"""Generic graph structures: nodes, types, ops, walkers."""

from .basic import Apply, Constant, Variable
from .fgraph import FunctionGraph
from .op import Op
from .terms import etuplize  # registers graphs as kanren terms
from .type import Type
from .walk import ancestors, clone, graph_inputs, toposort

__all__ = [
    "Apply", "Constant", "FunctionGraph", "Op", "Type", "Variable",
    "ancestors", "clone", "etuplize", "graph_inputs", "toposort",
]
