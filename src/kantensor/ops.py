"""The built-in Ops, made from the catalogue in ``signatures/`` at import.

Every entry becomes a module attribute (``kantensor.ops.add``) and, where it
declares one, the implementation of a TensorVariable operator.
"""

from __future__ import annotations

from .signature.catalogue import load_all
from .signature.op import SignatureOp
from .tensor.variable import register_operator

CATALOGUE: dict[str, SignatureOp] = {}

for _entry in load_all():
    _op = _entry.make_op()
    CATALOGUE[_entry.name] = _op
    globals()[_entry.name] = _op
    if _entry.operator:
        register_operator(_entry.operator, _op)

__all__ = sorted(CATALOGUE)
