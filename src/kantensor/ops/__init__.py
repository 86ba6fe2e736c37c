"""The built-in Ops, made from the catalogue in ``signatures/`` at import.

Every entry becomes a module attribute (``kantensor.ops.add``) and, where it
declares one, the implementation of a TensorVariable operator or method. The
submodules hold what the catalogue refers to that NumPy does not have:
implementations with NumPy's exact semantics under another calling
convention, and the *builders* that render template signatures.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Callable
from typing import Any

from ..types.dim import Dim
from ..types.protocol import KANTENSOR_NAMES, register_numpy
from ..types.variable import register_method, register_operator
from .advanced import subscript
from .catalogue import load_all

CATALOGUE: dict[str, Any] = {}

#: Methods that, like NumPy's, also take their tuple as separate ints:
#: ``x.reshape(2, -1)`` is ``x.reshape((2, -1))``.
VARIADIC_METHODS = frozenset({"reshape", "transpose"})


def _variadic(fn: Callable[..., Any]) -> Callable[..., Any]:
    def method(x: Any, *args: Any, **kwargs: Any) -> Any:
        # builtins.all: this module's globals get the Ops all, any, abs, max, min...
        if len(args) > 1 and builtins.all(
                (isinstance(a, int | Dim) or a is None) and not isinstance(a, bool)
                for a in args):
            args = (args,)
        return fn(x, *args, **kwargs)
    method.__doc__ = fn.__doc__
    return method

for _entry in load_all():
    _op = _entry.make_op()
    CATALOGUE[_entry.name] = _op
    globals()[_entry.name] = _op
    if _entry.operator:
        register_operator(_entry.operator, _op)
    for _method in _entry.method:
        register_method(_method, _variadic(_op) if _method in VARIADIC_METHODS else _op)
    for _fn in _entry.numpy:
        register_numpy(_fn, _op)
    KANTENSOR_NAMES.add(_entry.name)

# x[index] on a tensor: basic indices build getitem, indices holding arrays build index.
register_operator("getitem", functools.partial(subscript, CATALOGUE["getitem"],
                                               CATALOGUE["index"]))

__all__ = sorted(CATALOGUE)
