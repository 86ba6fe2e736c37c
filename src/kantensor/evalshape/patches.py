"""NumPy's and Python's entries that cannot dispatch, reached during ``eval_shape``.

NumPy hands a call to kantensor only when an argument is a tensor (NEP 13, NEP 18).
``np.zeros(x.shape)``, ``np.arange(n)`` or ``np.random.randn(n, d)`` have no tensor
argument, and ``len(x)``, ``int(h / 2)``, ``range(n)`` and ``math.sqrt(d)`` are Python's,
which must return ints or floats. As tracers do (torch.fx's patcher, ``torch.fx.wrap``),
these entries are replaced for the duration of a trace:

* NumPy's creation functions (:data:`CREATION`) and ``np.random``'s samplers
  (:data:`RANDOM`) in the ``numpy`` and ``numpy.random`` modules, and ``math``'s
  functions (:data:`MATH`) in the ``math`` module;
* ``len``, ``int``, ``float``, ``range``, ``round``, ``min`` and ``max``
  (:data:`BUILTINS`) in the module globals of the traced function (where Python looks
  names up before its builtins), unless that module defines the name itself.

A replacement calls the original entry whenever the calling thread is not tracing, and
(except the creation functions and samplers, whose results are traced values so that
code can write into them) whenever no argument is a size or a tensor. Replacements are
installed when the first trace starts and removed when the last one ends, on error as
on return; a lock guards the count. A name imported before the trace (``from numpy
import zeros``) is not replaced: call it through the module.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import ops
from ..graph.basic import Variable
from ..types.dim import Dim, dim_max, dim_min
from ..types.sizenum import Ratio, size_tensor
from ..types.variable import as_tensor_variable
from .trace import current


def _symbolic(x: Any) -> bool:
    """Whether ``x`` (or an item of a list or tuple ``x``) is a size or a tensor."""
    if isinstance(x, Dim | Ratio | Variable):
        return True
    return isinstance(x, list | tuple) and any(_symbolic(v) for v in x)


def _size(x: Any) -> bool:
    return isinstance(x, Dim) or (not isinstance(x, bool) and _index(x) is not None)


def _index(x: Any) -> int | None:
    try:
        return operator.index(x)
    except TypeError:
        return None


def _shape(shape: Any) -> bool:
    """Whether ``shape`` is a size or a sequence of sizes (ints and Dims)."""
    items = shape if isinstance(shape, list | tuple) else (shape,)
    return all(_size(s) for s in items)


def _dtype(dtype: Any, default: str = "float64") -> Any:
    return default if dtype is None else dtype


# -- NumPy's creation functions and samplers: traced values, even of int sizes -------------

def _zeros(shape: Any, dtype: Any = None, order: str = "C", **kw: Any) -> Any:
    return ops.zeros(shape, dtype=_dtype(dtype)) if _shape(shape) and not kw else NotImplemented


def _ones(shape: Any, dtype: Any = None, order: str = "C", **kw: Any) -> Any:
    return ops.ones(shape, dtype=_dtype(dtype)) if _shape(shape) and not kw else NotImplemented


def _full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", **kw: Any) -> Any:
    if not _shape(shape) or kw:
        return NotImplemented
    return ops.full(shape, fill_value, dtype=dtype)


def _arange(*args: Any, dtype: Any = None, **kw: Any) -> Any:
    if kw or not args or len(args) > 3 or not all(_size(a) for a in args):
        return NotImplemented
    if len(args) == 3 and not isinstance(args[2], int):
        return NotImplemented
    return ops.arange(*args, dtype=_dtype(dtype, "int64"))


def _eye(N: Any, M: Any = None, k: int = 0, dtype: Any = None, **kw: Any) -> Any:  # noqa: N803
    if kw or not _size(N) or (M is not None and not _size(M)):
        return NotImplemented
    return ops.eye(N, M, k, dtype=_dtype(dtype))


def _identity(n: Any, dtype: Any = None, **kw: Any) -> Any:
    return ops.eye(n, dtype=_dtype(dtype)) if _size(n) and not kw else NotImplemented


def _tri(N: Any, M: Any = None, k: int = 0, dtype: Any = None, **kw: Any) -> Any:  # noqa: N803
    if kw or not _size(N) or (M is not None and not _size(M)):
        return NotImplemented
    return ops.tril(ops.ones((N, N if M is None else M), dtype=_dtype(dtype)), k)


def _linspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True,
              retstep: bool = False, dtype: Any = None, axis: int = 0) -> Any:
    if isinstance(num, Dim):
        raise TypeError("numpy.linspace with a symbolic number of samples is not supported: "
                        "kt.linspace takes an int num; for n evenly spaced values write "
                        "start + np.arange(n) * step")
    if retstep or axis or _symbolic((start, stop)):
        return NotImplemented
    return ops.linspace(start, stop, num, endpoint, dtype=_dtype(dtype))


def _stacked(obj: Any) -> Any:
    """A nested list of tensors, sizes and numbers as one tensor (``np.array([a, b])``)."""
    if isinstance(obj, list | tuple):
        return ops.stack([_stacked(v) for v in obj])
    if isinstance(obj, Dim | Ratio):
        return size_tensor(obj)
    return as_tensor_variable(obj)


def _array(obj: Any, dtype: Any = None, *args: Any, **kw: Any) -> Any:
    """``np.array``/``np.asarray`` of a tensor (or of lists holding tensors or sizes)."""
    if not _symbolic(obj):
        return NotImplemented
    out = _stacked(obj)
    return out if dtype is None else out.astype(np.dtype(dtype).name)


def _sampler(distribution: str, low: Any = 0.0, high: Any = 1.0, size: Any = None,
             dtype: str = "float64") -> Any:
    if size is None or not _shape(size):
        return NotImplemented
    if distribution == "integers" and all(_size(v) for v in (low, high)) \
            and _symbolic((low, high)):  # integers below a size: floor(u * (high - low))
        u = ops.random(size) * size_tensor(high - low)
        return (np.floor(u) + size_tensor(low)).astype(dtype)
    if _symbolic((low, high)):
        return NotImplemented
    if not all(isinstance(v, int | float | np.number) for v in (low, high)):
        return NotImplemented
    return ops.random(size, distribution=distribution, low=low, high=high, dtype=dtype)


def _rand(*shape: Any) -> Any:
    return _sampler("uniform", size=shape) if shape else NotImplemented


def _randn(*shape: Any) -> Any:
    return _sampler("normal", size=shape) if shape else NotImplemented


def _uniform(low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
    return _sampler("uniform", low, high, size)


def _normal(loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
    return _sampler("normal", loc, scale, size)


def _random(size: Any = None) -> Any:
    return _sampler("uniform", size=size)


def _standard_normal(size: Any = None) -> Any:
    return _sampler("normal", size=size)


def _randint(low: Any, high: Any = None, size: Any = None, dtype: Any = int) -> Any:
    low, high = (0, low) if high is None else (low, high)
    return _sampler("integers", low, high, size, np.dtype(dtype).name)


#: ``numpy`` entries traced during eval_shape (they have no tensor argument to dispatch on).
CREATION: dict[str, Callable[..., Any]] = {
    "zeros": _zeros, "ones": _ones, "empty": _zeros, "full": _full, "arange": _arange,
    "eye": _eye, "identity": _identity, "tri": _tri, "linspace": _linspace,
    "array": _array, "asarray": _array, "asanyarray": _array, "ascontiguousarray": _array}

_DEFAULT_RNG = np.random.default_rng


class _Generator:
    """``np.random.default_rng(...)`` during eval_shape: its samplers given a size are
    typed sources (as :data:`RANDOM`'s); anything else is the real generator's."""

    def __init__(self, rng: Any):
        self._rng = rng

    def _or_real(self, name: str, result: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(self._rng, name)(*args, **kwargs) if result is NotImplemented \
            else result

    def random(self, size: Any = None, dtype: Any = "float64") -> Any:
        return self._or_real("random", _sampler("uniform", size=size,
                                                dtype=np.dtype(dtype).name), size, dtype)

    def standard_normal(self, size: Any = None, dtype: Any = "float64") -> Any:
        return self._or_real("standard_normal", _sampler(
            "normal", size=size, dtype=np.dtype(dtype).name), size, dtype)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: Any = None) -> Any:
        return self._or_real("normal", _normal(loc, scale, size), loc, scale, size)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: Any = None) -> Any:
        return self._or_real("uniform", _uniform(low, high, size), low, high, size)

    def integers(self, low: Any, high: Any = None, size: Any = None, dtype: Any = "int64",
                 endpoint: bool = False) -> Any:
        result = NotImplemented if endpoint else _randint(low, high, size, dtype)
        return self._or_real("integers", result, low, high, size, dtype, endpoint)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rng, name)


#: ``numpy.random`` samplers traced during eval_shape: random tensors of their shape and
#: dtype (the ``random`` Op), when given a size.
RANDOM: dict[str, Callable[..., Any]] = {
    "rand": _rand, "randn": _randn, "random": _random, "random_sample": _random,
    "ranf": _random, "sample": _random, "uniform": _uniform, "normal": _normal,
    "standard_normal": _standard_normal, "randint": _randint,
    "default_rng": lambda *a, **k: _Generator(_DEFAULT_RNG(*a, **k))}

#: numpy entries without dispatch that eval_shape does not trace: given a size or a
#: tensor, they say so and name what to use.
UNSUPPORTED: dict[str, str] = {
    "fromfunction": "kt.arange and broadcasting", "indices": "kt.arange and broadcasting",
    "tril_indices": "kt.tril of kt.ones and a mask",
    "triu_indices": "kt.triu of kt.ones and a mask"}

UNSUPPORTED_RANDOM: dict[str, str] = {
    "choice": "kt.random(..., distribution='integers') as indices",
    "permutation": "kt.argsort(kt.random(n))", "shuffle": "x[kt.argsort(kt.random(n))]"}


# -- math's functions of sizes ----------------------------------------------------------

def _math(name: str) -> Callable[..., Any]:
    ufunc = getattr(np, name)

    def traced(x: Any, *rest: Any) -> Any:
        if rest or not isinstance(x, Dim | Ratio | Variable):
            return NotImplemented
        return ufunc(size_tensor(x) if isinstance(x, Dim | Ratio) else x)
    return traced


def _floor(x: Any) -> Any:
    if isinstance(x, Dim):
        return x
    return np.floor(x) if isinstance(x, Variable) else NotImplemented


def _ceil(x: Any) -> Any:
    if isinstance(x, Dim):
        return x
    return np.ceil(x) if isinstance(x, Variable) else NotImplemented


def _pow(x: Any, y: Any) -> Any:
    return x ** (y * 1.0) if _symbolic((x, y)) else NotImplemented


#: ``math`` functions traced during eval_shape: of a size or a tensor, the graph's number.
MATH: dict[str, Callable[..., Any]] = {
    **{name: _math(name) for name in ("sqrt", "exp", "log", "log2", "log10", "sin", "cos",
                                      "tan", "tanh", "expm1", "log1p")},
    "floor": _floor, "ceil": _ceil, "trunc": _floor, "pow": _pow}


# -- builtins in the traced function's module --------------------------------------------

def _len(x: Any) -> Any:
    if not isinstance(x, Variable):
        return NotImplemented
    if not x.type.ndim:
        raise TypeError("len() of a 0-d tensor")
    return x.shape[0]


def _int(x: Any = 0, *rest: Any) -> Any:
    if rest or not isinstance(x, Dim | Ratio | Variable):
        return NotImplemented
    if isinstance(x, Variable):
        raise TypeError(f"int() of the symbolic tensor {x}: its value is only known when the "
                        "graph runs; keep it a tensor (x.astype('int64')), or compute the size "
                        "with // instead of /")
    return x if isinstance(x, Dim) else math.trunc(x)


def _float(x: Any = 0.0) -> Any:
    if not isinstance(x, Dim | Ratio | Variable):
        return NotImplemented
    return (size_tensor(x) if isinstance(x, Dim | Ratio) else x) * 1.0


def _range(*args: Any) -> Any:
    if not any(isinstance(a, Dim) for a in args):
        return NotImplemented
    if len(args) == 3 and not isinstance(args[2], int):
        return NotImplemented
    return ops.arange(*args)


def _round(x: Any, ndigits: Any = None) -> Any:
    if isinstance(x, Dim) and ndigits is None:
        return x
    return np.round(x, ndigits or 0) if isinstance(x, Variable) else NotImplemented


def _extreme(fn: Callable[..., Any]) -> Callable[..., Any]:
    def traced(*args: Any, **kw: Any) -> Any:
        values = args[0] if len(args) == 1 and isinstance(args[0], list | tuple) else args
        if kw or not values or not any(isinstance(v, Dim) for v in values) \
                or not all(_size(v) for v in values):
            return NotImplemented
        return fn(*values)
    return traced


#: Builtins wrapped in the traced function's module globals during eval_shape.
BUILTINS: dict[str, Callable[..., Any]] = {
    "len": _len, "int": _int, "float": _float, "range": _range, "round": _round,
    "max": _extreme(dim_max), "min": _extreme(dim_min)}


# -- installing and removing -------------------------------------------------------------

#: Modules whose calls are never traced: kantensor's and NumPy's own code calls NumPy too.
_LIBRARIES = ("kantensor.", "numpy.")


def _library(name: str) -> bool:
    return name.startswith(_LIBRARIES) or name == "numpy"


def _wrap(original: Callable[..., Any], traced: Callable[..., Any]) -> Callable[..., Any]:
    """``original``, except in a thread that traces, called from outside kantensor and
    NumPy, where ``traced`` answers unless it returns NotImplemented."""
    @functools.wraps(original)
    def entry(*args: Any, **kwargs: Any) -> Any:
        if current() is not None and not _library(sys._getframe(1).f_globals.get(
                "__name__", "")):
            result = traced(*args, **kwargs)
            if result is not NotImplemented:
                return result
        return original(*args, **kwargs)
    entry.__kantensor_traced__ = original
    return entry


def _refuse(original: Callable[..., Any], name: str, instead: str) -> Callable[..., Any]:
    def traced(*args: Any, **kwargs: Any) -> Any:
        if _symbolic(args) or _symbolic(tuple(kwargs.values())):
            raise TypeError(f"{name} is not supported during eval_shape (it takes no tensor "
                            f"to dispatch on, and kantensor has no Op for it); use {instead}")
        return NotImplemented
    return _wrap(original, traced)


def _module_patches() -> list[tuple[Any, str, Callable[..., Any]]]:
    out = []
    for module, table in ((np, CREATION), (np.random, RANDOM), (math, MATH)):
        out.extend((module, name, _wrap(getattr(module, name), fn))
                   for name, fn in table.items() if hasattr(module, name))
    for module, table, prefix in ((np, UNSUPPORTED, "numpy"),
                                  (np.random, UNSUPPORTED_RANDOM, "numpy.random")):
        out.extend((module, name, _refuse(getattr(module, name), f"{prefix}.{name}", use))
                   for name, use in table.items() if hasattr(module, name))
    return out


class _AsBuiltin(type):
    """The metaclass of a wrapped builtin class: ``isinstance(3, int)``,
    ``issubclass(bool, int)`` and ``np.dtype(int)`` keep their meaning with the wrapper."""

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls.__kantensor_traced__)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls.__kantensor_traced__)


def _wrap_class(original: type, traced: Callable[..., Any]) -> type:
    """A subclass of the builtin class ``original`` whose construction is ``traced``
    in a thread that traces (see :func:`_wrap`)."""
    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:  # noqa: N807
        if current() is not None:
            result = traced(*args, **kwargs)
            if result is not NotImplemented:
                return result
        return original(*args, **kwargs)
    return _AsBuiltin(original.__name__, (original,), {
        "__new__": __new__, "__kantensor_traced__": original, "__slots__": (),
        "__module__": "builtins", "__doc__": original.__doc__,
        "dtype": np.dtype(original)})  # np.dtype(int) reads a type's dtype attribute


def _builtin(name: str, fn: Callable[..., Any]) -> Any:
    original = getattr(builtins, name)
    return _wrap_class(original, fn) if isinstance(original, type) and name != "range" \
        else _wrap(original, fn)


_PATCHES = _module_patches()
_BUILTIN_ENTRIES = {name: _builtin(name, fn) for name, fn in BUILTINS.items()}
_LOCK = threading.Lock()
_USERS: dict[int, list[Any]] = {}  # id(globals) -> [count, globals, names we added]
_MODULE_USERS = [0]


class patched:  # noqa: N801 - a context manager used as a statement
    """``with patched(fn_globals):`` the entries above are installed (see the module)."""

    def __init__(self, namespaces: list[dict[str, Any]]):
        self.namespaces = namespaces

    def __enter__(self) -> None:
        with _LOCK:
            if not _MODULE_USERS[0]:
                for module, name, entry in _PATCHES:
                    setattr(module, name, entry)
            _MODULE_USERS[0] += 1
            for ns in self.namespaces:
                user = _USERS.get(id(ns))
                if user is None:
                    added = [n for n in _BUILTIN_ENTRIES if n not in ns]
                    for name in added:
                        ns[name] = _BUILTIN_ENTRIES[name]
                    user = _USERS[id(ns)] = [0, ns, added]
                user[0] += 1

    def __exit__(self, *exc: object) -> None:
        with _LOCK:
            for ns in self.namespaces:
                user = _USERS[id(ns)]
                user[0] -= 1
                if not user[0]:
                    for name in user[2]:
                        if ns.get(name) is _BUILTIN_ENTRIES[name]:
                            del ns[name]
                    del _USERS[id(ns)]
            _MODULE_USERS[0] -= 1
            if not _MODULE_USERS[0]:
                for module, name, entry in _PATCHES:
                    setattr(module, name, entry.__kantensor_traced__)
