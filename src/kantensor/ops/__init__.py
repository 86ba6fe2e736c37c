"""The built-in Ops, made from the catalogue in ``signatures/`` at import.

Every entry becomes a module attribute (``kantensor.ops.add``) and, where it
declares one, the implementation of a TensorVariable operator or method. The
submodules hold what the catalogue refers to that NumPy does not have:
implementations with NumPy's exact semantics under another calling
convention, and the *builders* that render template signatures.
"""

from __future__ import annotations

from typing import Any

from ..signature.catalogue import load_all
from ..tensor.variable import register_method, register_operator

CATALOGUE: dict[str, Any] = {}

for _entry in load_all():
    _op = _entry.make_op()
    CATALOGUE[_entry.name] = _op
    globals()[_entry.name] = _op
    if _entry.operator:
        register_operator(_entry.operator, _op)
    if _entry.method:
        register_method(_entry.method, _op)

__all__ = sorted(CATALOGUE)
