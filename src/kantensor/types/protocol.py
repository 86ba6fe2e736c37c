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

import numpy as np

from ..graph.hooks import Hook
from .dtypes import CATEGORIES
from .numpy_dtypes import can_cast
from .numpyargs import Plan, plan, signature

#: NumPy function or ufunc object -> the kantensor Op (or OpFamily) it maps to.
NUMPY_OPS: dict[Any, Callable[..., Any]] = {}

#: Names of kantensor functions, for "use kt.<name>" suggestions.
KANTENSOR_NAMES: set[str] = set()


def _not_tracing(x: Any, build: Callable[[], Any]) -> bool:
    """No trace runs (``eval_shape`` is not loaded): nothing is rebound."""
    return False


REBIND: Hook[Callable[[Any, Callable[[], Any]], bool]] = Hook(
    "rebind", "kantensor.evalshape.trace",
    "rebind(x, build) -> bool: during eval_shape in this thread, make the Python object x "
    "stand for build() from now on (a functional update: x[i] = v, x += y, "
    "np.add.at(x, i, v), out=x), and say True; False elsewhere (and before "
    "kantensor.evalshape is loaded, which kt.eval_shape does on first use)", _not_tracing)

def _no_scalars(x: Any) -> bool:
    """No trace runs: no value is a NumPy scalar of a traced program."""
    return False


NUMPY_SCALAR: Hook[Callable[[Any], bool]] = Hook(
    "numpy_scalar", "kantensor.evalshape.scalars",
    "numpy_scalar(x) -> bool: during eval_shape, whether NumPy gives the traced program a "
    "scalar where x stands (x.sum(), x[0], a ufunc of 0-d values), not a 0-d array; a "
    "scalar is immutable, so x op= y rebinds the name to x op y", _no_scalars)


def written(value: Any, x: Any) -> Any:
    """``value`` cast to x's dtype to be written into x (``x op= y``, ``out=x``), as
    NumPy's ufuncs cast: ``same_kind`` (``int_array += 0.5`` raises UFuncTypeError, a
    TypeError: a float result is not written into an integer array)."""
    have, want = value.type.dtype, x.type.dtype
    if have == want:
        return value
    if not can_cast(have, want, "same_kind"):
        raise TypeError(f"cannot write the {have} result into {x.type} (NumPy's ufuncs "
                        f"cast with casting='same_kind', and {have} -> {want} is not one: "
                        "UFuncTypeError); compute into a new array: y = x op other")
    return value.astype(want)


WRITE_BACK: Hook[Callable[[Any, Any], Any]] = Hook(
    "write_back", "kantensor.ops",
    "write_back(value, x) -> value broadcast onto x's shape: what NumPy writes into x "
    "(x op= y, out=x) cannot grow it, so the result must broadcast onto it")

#: Keyword arguments that ask NumPy to write into existing memory or to skip elements:
#: a graph has no memory to write into, so their non-default values are refused.
_OUT_OF_GRAPH = {"out": None, "where": True}


def register_numpy(numpy_fn: Any, op: Callable[..., Any]) -> None:
    """Make ``numpy_fn`` applied to symbolic tensors call ``op``."""
    NUMPY_OPS[numpy_fn] = op


def _size(a: Any, axis: Any = None) -> Any:
    if axis is None:
        return a.size
    total: Any = 1
    for i in (axis if isinstance(axis, tuple) else (axis,)):
        total = total * a.shape[i]
    return total


#: NumPy functions a tensor answers itself, computing nothing: its shape (ints and Dims,
#: as ``x.shape``), size, number of dimensions and kind of dtype.
for _fn, _answer in ((np.shape, lambda a: a.shape), (np.ndim, lambda a: a.ndim),
                     (np.size, _size),
                     (np.iscomplexobj, lambda x: x.dtype in CATEGORIES["complex"]),
                     (np.isrealobj, lambda x: x.dtype not in CATEGORIES["complex"])):
    NUMPY_OPS[_fn] = _answer


def view(x: Any, dtype: Any = None, type: Any = None) -> Any:  # noqa: A002 - NumPy's names
    """``x.view()`` / ``x.view(np.ndarray)``: x itself (a graph value is no array of any
    class); a view as another dtype reinterprets bytes, which a graph does not do."""
    kind = dtype if isinstance(dtype, _TYPE) else type
    if (dtype is None or kind is dtype) and (kind is None or issubclass(kind, np.ndarray)):
        return x
    raise TypeError(f"x.view({dtype!r}) reinterprets the bytes of a tensor, which a graph "
                    "does not do; use x.astype(dtype) to convert the values")


_TYPE = type


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


def _check_kwargs(name: str, kwargs: dict[str, Any], taken: tuple[str, ...] = ()
                  ) -> dict[str, Any]:
    """``kwargs`` less ``out=`` and ``where=`` at their defaults; TypeError at another
    value, unless the function takes it (``taken``: a composition's ``takes``, such as
    ``np.sum``'s ``where=``, ops/masked.py)."""
    for key, default in _OUT_OF_GRAPH.items():
        if key in kwargs and key not in taken:
            value = kwargs.pop(key)
            ufunc_default = key == "out" and isinstance(value, tuple) \
                and all(v is None for v in value)
            if value is not default and not ufunc_default:
                raise TypeError(f"{name}: {key}= is not supported on symbolic tensors (a "
                                f"graph computes new values; it has no arrays to write into "
                                f"or to skip); leave {key} at its default {default!r}")
    return kwargs


def _traced_out(kwargs: dict[str, Any]) -> Any:
    """The tensor of ``out=`` (``out=t`` or ``out=(t,)``) that ``eval_shape`` can rebind,
    removed from kwargs; None if there is none."""
    out = kwargs.get("out")
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if REBIND.fn is None or not hasattr(out, "owner"):
        return None
    del kwargs["out"]
    return out


def _write(out: Any, result: Any) -> Any:
    """``out=``: rebind ``out`` to the result, cast to out's dtype (as NumPy writes)."""
    def value() -> Any:
        cast = written(result, out)
        return cast if WRITE_BACK.fn is None else WRITE_BACK.fn(cast, out)
    if not REBIND.fn(out, value):
        raise TypeError("out= is not supported on symbolic tensors outside eval_shape (a "
                        "graph computes new values); use the result")
    return out


def _ufunc_at(ufunc: Any, name: str, op: Any, inputs: tuple) -> None:
    """``np.add.at(x, index, v)``: during ``eval_shape``, x becomes x.at[index].add(v)."""
    if op is None or op.name != "add" or len(inputs) != 3 or not hasattr(inputs[0], "at"):
        raise TypeError(f"{name}.at is not supported on symbolic tensors: only numpy.add.at "
                        "is (x.at[index].add(v))")
    x, index, value = inputs
    rebind = REBIND.fn
    if rebind is None or not rebind(x, lambda: x.at[index].add(value)):
        raise TypeError(f"{name}.at writes into its first argument, which a symbolic tensor "
                        "cannot be outside eval_shape: use y = x.at[index].add(v)")


def array_ufunc(self: Any, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """NEP 13: ``np.<ufunc>(..., tensor, ...)`` calls the kantensor Op of that ufunc."""
    name = numpy_name(ufunc)
    op = NUMPY_OPS.get(ufunc)
    if method == "at":
        return _ufunc_at(ufunc, name, op, inputs)
    if method != "__call__":
        mapped = f" (numpy.{ufunc.__name__} itself is kt.{op.name})" if op else ""
        raise TypeError(f"{name}.{method} is not supported on symbolic tensors: only calling "
                        f"a ufunc is{mapped}")
    if op is None:
        raise _unsupported(ufunc, name)
    kwargs = dict(kwargs)
    out = _traced_out(kwargs)
    kwargs = _check_kwargs(name, kwargs)
    taken = getattr(op, "takes", ())  # (a composition's: np.vecdot's axis=, ops/vecdots.py)
    if set(kwargs) - set(taken):
        kwargs = {k: v for k, v in kwargs.items() if k not in taken}
        raise TypeError(f"{name}: keyword argument{'s' * (len(kwargs) > 1)} "
                        f"{', '.join(sorted(kwargs))} not supported on symbolic tensors "
                        f"(kt.{getattr(op, 'name', name)} takes the tensors only)")
    return op(*inputs, **kwargs) if out is None else _write(out, op(*inputs, **kwargs))


#: NumPy function -> (its Op, the Plan that passes NumPy's arguments to it), made on
#: first use (a composition may wrap a function's Op after the catalogue registered it).
_PLANS: dict[Any, tuple[Any, Plan | None]] = {}


def _plan(func: Any, op: Any) -> Plan | None:
    known = _PLANS.get(func)
    if known is None or known[0] is not op:
        known = _PLANS[func] = (op, plan(signature(func), op, numpy_name(func),
                                          frozenset(_OUT_OF_GRAPH)))
    return known[1]


def array_function(self: Any, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    """NEP 18: ``np.<function>(..., tensor, ...)`` calls the kantensor Op of that
    function, with the same arguments."""
    op = NUMPY_OPS.get(func)
    name = numpy_name(func)
    if op is None:
        raise _unsupported(func, name)
    steps = _plan(func, op)
    if steps is not None:
        args, kwargs = steps.arguments(args, kwargs)
    kwargs = dict(kwargs)
    out = _traced_out(kwargs)
    result = op(*args, **_check_kwargs(name, kwargs, getattr(op, "takes", ())))
    return result if out is None else _write(out, result)
