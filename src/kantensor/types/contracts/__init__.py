"""Contracts: the input sizes a graph or a model accepts, solved into sets and boxes.

:class:`Contract` (the conditions of every node, with the nodes that impose them) is
built by :func:`kantensor.contract`, :func:`kantensor.onnx.contract` and
``eval_shape(...).contract``; :class:`SizeSet` is one size's intervals and congruences.
"""

from .atoms import Atom, Sets, Verdict, merged_atoms
from .contract import Contract
from .sizeset import Piece, SizeSet

__all__ = ["Atom", "Contract", "Piece", "Sets", "SizeSet", "Verdict", "merged_atoms"]
