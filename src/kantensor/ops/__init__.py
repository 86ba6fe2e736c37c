"""The built-in Ops, made from the catalogue in ``signatures/`` at import.

Every entry becomes a module attribute (``kantensor.ops.add``) and, where it
declares one, the implementation of a TensorVariable operator or method. The
submodules hold what the catalogue refers to that NumPy does not have:
implementations with NumPy's exact semantics under another calling
convention, and the *builders* that render template signatures.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from ..types.variable import register_method, register_operator
from .catalogue import load_all

CATALOGUE: dict[str, Any] = {}

#: The Op names of each catalogue file ("elementwise", "linalg", ...), in file order.
FAMILIES: dict[str, list[str]] = {}

#: Methods that, like NumPy's, also take their tuple as separate ints:
#: ``x.reshape(2, -1)`` is ``x.reshape((2, -1))``.
VARIADIC_METHODS = frozenset({"reshape", "transpose"})


def _variadic(fn: Callable[..., Any]) -> Callable[..., Any]:
    def method(x: Any, *args: Any, **kwargs: Any) -> Any:
        # builtins.all: this module's globals get the Ops all, any, abs, max, min...
        if len(args) > 1 and builtins.all(isinstance(a, int) and not isinstance(a, bool)
                                          for a in args):
            args = (args,)
        return fn(x, *args, **kwargs)
    method.__doc__ = fn.__doc__
    return method

for _entry in load_all():
    _op = _entry.make_op()
    CATALOGUE[_entry.name] = _op
    FAMILIES.setdefault(_entry.file.removesuffix(".toml"), []).append(_entry.name)
    globals()[_entry.name] = _op
    if _entry.operator:
        register_operator(_entry.operator, _op)
    if _entry.method:
        register_method(_entry.method,
                        _variadic(_op) if _entry.method in VARIADIC_METHODS else _op)

__all__ = sorted(CATALOGUE)
