"""NumPy's dispatch protocols (NEP 13 ``__array_ufunc__``, NEP 18 ``__array_function__``)
for symbolic tensors: ``np.exp(x)`` or ``np.sum(x, axis=1)`` on a TensorVariable builds
the graph of the matching kantensor Op.

Which NumPy function maps to which Op is data: the ``numpy`` key of the catalogue
entries (``signatures/*.toml``). The layer that makes the Ops fills :data:`NUMPY_OPS`
(NumPy function object -> Op) and :data:`KANTENSOR_NAMES` (the name of every public
kantensor function, for suggestions), so this layer imports none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: NumPy function or ufunc object -> the kantensor Op (or OpFamily) it maps to.
NUMPY_OPS: dict[Any, Callable[..., Any]] = {}

#: Names of kantensor functions, for "use kt.<name>" suggestions.
KANTENSOR_NAMES: set[str] = set()

#: Keyword arguments that ask NumPy to write into existing memory or to skip elements:
#: a graph has no memory to write into, so their non-default values are refused.
_OUT_OF_GRAPH = {"out": None, "where": True}


def register_numpy(numpy_fn: Any, op: Callable[..., Any]) -> None:
    """Make ``numpy_fn`` applied to symbolic tensors call ``op``."""
    NUMPY_OPS[numpy_fn] = op


def numpy_name(fn: Any) -> str:
    """``numpy.linalg.det``, ``numpy.exp``: the dotted name users write."""
    module = getattr(fn, "__module__", None) or "numpy"
    name = getattr(fn, "__name__", None) or repr(fn)
    return f"{module}.{name}"


def _unsupported(fn: Any, what: str = "") -> TypeError:
    name = what or numpy_name(fn)
    short = getattr(fn, "__name__", "")
    hint = f"; use kt.{short}" if short in KANTENSOR_NAMES else ""
    return TypeError(f"{name} is not supported on symbolic tensors: kantensor has no Op for "
                     f"it{hint}")


def _check_kwargs(name: str, kwargs: dict[str, Any]) -> dict[str, Any]:
    for key, default in _OUT_OF_GRAPH.items():
        if key in kwargs:
            value = kwargs.pop(key)
            ufunc_default = key == "out" and isinstance(value, tuple) \
                and all(v is None for v in value)
            if value is not default and not ufunc_default:
                raise TypeError(f"{name}: {key}= is not supported on symbolic tensors (a "
                                f"graph computes new values; it has no arrays to write into "
                                f"or to skip); leave {key} at its default {default!r}")
    return kwargs


def array_ufunc(self: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """NEP 13: ``np.<ufunc>(..., tensor, ...)`` calls the kantensor Op of that ufunc."""
    name = numpy_name(ufunc)
    op = NUMPY_OPS.get(ufunc)
    if method != "__call__":
        mapped = f" (numpy.{ufunc.__name__} itself is kt.{op.name})" if op else ""
        raise TypeError(f"{name}.{method} is not supported on symbolic tensors: only calling "
                        f"a ufunc is{mapped}")
    if op is None:
        raise _unsupported(ufunc, name)
    kwargs = _check_kwargs(name, dict(kwargs))
    if kwargs:
        raise TypeError(f"{name}: keyword argument{'s' * (len(kwargs) > 1)} "
                        f"{', '.join(sorted(kwargs))} not supported on symbolic tensors "
                        f"(kt.{op.name} takes the tensors only)")
    return op(*inputs)


def array_function(self: Any, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    """NEP 18: ``np.<function>(..., tensor, ...)`` calls the kantensor Op of that
    function, with the same arguments."""
    op = NUMPY_OPS.get(func)
    name = numpy_name(func)
    if op is None:
        raise _unsupported(func, name)
    return op(*args, **_check_kwargs(name, dict(kwargs)))
