"""NumPy's and Python's entries that cannot dispatch, as ``eval_shape`` answers them.

NumPy hands a call to kantensor only when an argument is a tensor (NEP 13, NEP 18).
``np.zeros(x.shape)``, ``np.arange(n)`` or ``np.random.randn(n, d)`` have no tensor
argument, and ``len(x)``, ``int(h / 2)``, ``range(n)`` and ``math.sqrt(d)`` are Python's,
which must return ints or floats. As tracers do (torch.fx's patcher, ``torch.fx.wrap``),
the traced code finds replacements of these entries (:mod:`.namespaces` says where):
NumPy's creation functions (:data:`CREATION`), ``np.random``'s samplers and a random
generator's (:data:`RANDOM`, :data:`GENERATOR`), ``math``'s functions (:data:`MATH`),
and ``len``, ``int``, ``float``, ``range``, ``round``, ``min``, ``max`` and ``reversed``
(:data:`BUILTINS`).

A replacement calls the original entry whenever the calling thread is not tracing, and
(except the creation functions and samplers, whose results are traced values so that
code can write into them) whenever no argument is a size or a tensor.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import ops
from ..graph.basic import Variable
from ..types.dim import Dim
from ..types.dimminmax import dim_max, dim_min
from ..types.sizenum import Ratio, size_tensor
from ..types.variable import as_tensor_variable
from .arrays import array as _array
from .arrays import asarray as _asarray
from .arrays import ascontiguousarray as _ascontiguousarray
from .arrays import symbolic as _symbolic
from .loops import iterated, marked, range_turns, reversed_range, turns
from .pymath import MATH, python_int
from .ranges import arange as _arange
from .ranges import index_of as _index
from .ranges import is_size as _size
from .trace import current


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


def _eye(N: Any, M: Any = None, k: int = 0, dtype: Any = None, **kw: Any) -> Any:  # noqa: N803
    if kw or not _size(N) or (M is not None and not _size(M)):
        return NotImplemented
    return ops.eye(N, M, k, dtype=_dtype(dtype))


def _identity(n: Any, dtype: Any = None, **kw: Any) -> Any:
    return ops.eye(n, dtype=_dtype(dtype)) if _size(n) and not kw else NotImplemented


def _tri(N: Any, M: Any = None, k: int = 0, dtype: Any = None, **kw: Any) -> Any:  # noqa: N803
    if kw or not _size(N) or (M is not None and not _size(M)):
        return NotImplemented
    rows, cols = dim_max(N, 0), dim_max(N if M is None else M, 0)  # NumPy's tri is of
    # arange(N) against arange(M): a negative size gives no rows (or columns), no error
    return ops.tril(ops.ones((rows, cols), dtype=_dtype(dtype)), k)


def _linspace(start: Any, stop: Any, num: Any = 50, endpoint: bool = True,
              retstep: bool = False, dtype: Any = None, axis: int = 0) -> Any:
    if isinstance(num, Dim) or any(isinstance(v, Dim | Ratio) for v in (start, stop)):
        # NumPy's start + arange(num) * step, a count or bounds that are sizes
        if retstep or axis or np.dtype(_dtype(dtype)).kind != "f" or not all(
                isinstance(v, int | float | Dim | Ratio) for v in (start, stop)):
            raise TypeError("numpy.linspace with sizes (a count, start or stop) takes real "
                            "numbers (or sizes) start and stop and a float dtype here (no "
                            "retstep, axis); for n evenly spaced values write start + "
                            "np.arange(n) * step")
        step = (stop - start) / dim_max(num - 1 if endpoint else num, 1)
        # (zeros of num: NumPy refuses a negative count, which arange would read as 0)
        out = ops.zeros(num) + ops.arange(num, dtype="float64") * step + start
        return out.astype(np.dtype(_dtype(dtype)).name)
    if retstep or axis or _symbolic((start, stop)):
        return NotImplemented
    return ops.linspace(start, stop, num, endpoint, dtype=_dtype(dtype))


def _sampler(distribution: str, low: Any = 0.0, high: Any = 1.0, size: Any = None,
             dtype: str = "float64") -> Any:
    """Samples of ``size`` (ints and sizes) as a typed source, the ``random`` Op. Bounds
    that are numbers of the graph (a size used as a number, ``np.sqrt(6 / fan_in)``, a
    tensor) shift and scale a standard sample, broadcast against ``size`` as NumPy does."""
    bounds = _symbolic((low, high))
    if size is None and bounds:
        size = ()
    if size is None or not _shape(size):
        return NotImplemented
    if distribution == "integers":
        if not bounds:
            return _plain(distribution, low, high, size, dtype)
        if not all(_size(v) for v in (low, high)):
            return NotImplemented
        u = ops.random(size) * size_tensor(high - low)  # integers below a size
        return (np.floor(u) + size_tensor(low)).astype(dtype)
    if not bounds:
        return _plain(distribution, low, high, size, dtype)
    low, high = as_tensor_variable(low), as_tensor_variable(high)
    base = ops.random(size, distribution=distribution)
    out = low + (high - low) * base if distribution == "uniform" else low + high * base
    return out if out.type.dtype == dtype else out.astype(dtype)


def _plain(distribution: str, low: Any, high: Any, size: Any, dtype: str) -> Any:
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


class Concatenator:
    """``np.r_[a, b]`` (along the first axis, each made 1-d at least) and ``np.c_[a, b]``
    (along the last, vectors as columns) of tensors, in a thread that traces; anything
    else (slices, directives, plain arrays) is NumPy's own object's."""

    def __init__(self, original: Any, columns: bool):
        self.__kantensor_traced__ = original
        self.columns = columns

    def __getitem__(self, key: Any) -> Any:
        items = key if isinstance(key, tuple) else (key,)
        if current() is None or not _symbolic(items) or any(
                isinstance(k, slice | str) for k in items):
            return self.__kantensor_traced__[key]
        parts = [as_tensor_variable(v) if not isinstance(v, Variable) else v for v in items]
        if self.columns:
            parts = [p.reshape(1, 1) if not p.type.ndim else p[:, None] if p.type.ndim == 1
                     else p for p in parts]
            return ops.concatenate(parts, axis=-1)
        return ops.concatenate([p.reshape(1) if not p.type.ndim else p for p in parts])

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__kantensor_traced__, name)


#: ``np.r_`` and ``np.c_`` as the traced code finds them.
INDEX_TRICKS = {"r_": Concatenator(np.r_, False), "c_": Concatenator(np.c_, True)}

def _lexsort(keys: Any, axis: int = -1) -> Any:
    """``np.lexsort([a, b])``: NumPy dispatches on the keys of a tuple only."""
    if isinstance(keys, list) and _symbolic(tuple(keys)):
        return np.lexsort(tuple(keys), axis=axis)
    return NotImplemented


def _diag_indices(n: Any, ndim: int = 2) -> Any:
    """``np.diag_indices(n)`` of a size: NumPy's ``(np.arange(n),) * ndim``."""
    if not isinstance(n, Dim) or _index(ndim) is None:
        return NotImplemented
    return (ops.arange(n, dtype="int64"),) * operator.index(ndim)


#: ``numpy`` entries traced during eval_shape (they have no tensor argument to dispatch on).
CREATION: dict[str, Callable[..., Any]] = {
    "zeros": _zeros, "ones": _ones, "empty": _zeros, "full": _full, "arange": _arange,
    "eye": _eye, "identity": _identity, "tri": _tri, "linspace": _linspace,
    "array": _array, "asarray": _asarray, "asanyarray": _asarray,
    "ascontiguousarray": _ascontiguousarray,
    "lexsort": _lexsort, "diag_indices": _diag_indices}

def _generator_random(size: Any = None, dtype: Any = "float64", out: Any = None) -> Any:
    if out is not None:
        return NotImplemented
    return _sampler("uniform", size=size, dtype=np.dtype(dtype).name)


def _generator_normal(size: Any = None, dtype: Any = "float64", out: Any = None) -> Any:
    if out is not None:
        return NotImplemented
    return _sampler("normal", size=size, dtype=np.dtype(dtype).name)


def _integers(low: Any, high: Any = None, size: Any = None, dtype: Any = "int64",
              endpoint: bool = False) -> Any:
    low, high = (0, low) if high is None else (low, high)
    return _sampler("integers", low, high + 1 if endpoint else high, size,
                    np.dtype(dtype).name)


#: ``numpy.random`` samplers traced during eval_shape: random tensors of their shape and
#: dtype (the ``random`` Op), when given a size. They are also the methods of a
#: ``RandomState`` (the legacy generator those functions use).
RANDOM: dict[str, Callable[..., Any]] = {
    "rand": _rand, "randn": _randn, "random": _random, "random_sample": _random,
    "ranf": _random, "sample": _random, "uniform": _uniform, "normal": _normal,
    "standard_normal": _standard_normal, "randint": _randint}

#: The samplers of a ``numpy.random.Generator`` traced during eval_shape.
GENERATOR: dict[str, Callable[..., Any]] = {
    "random": _generator_random, "standard_normal": _generator_normal, "normal": _normal,
    "uniform": _uniform, "integers": _integers}

#: numpy entries without dispatch that eval_shape does not trace: given a size or a
#: tensor, they say so and name what to use.
UNSUPPORTED: dict[str, str] = {
    "fromfunction": "kt.arange and broadcasting", "indices": "kt.arange and broadcasting",
    "tril_indices": "kt.tril of kt.ones and a mask",
    "triu_indices": "kt.triu of kt.ones and a mask",
    "logspace": "base ** np.linspace(start, stop, n)",
    "geomspace": "start * (stop / start) ** np.linspace(0, 1, n)"}

UNSUPPORTED_RANDOM: dict[str, str] = {
    "choice": "kt.random(..., distribution='integers') as indices",
    "permutation": "kt.argsort(kt.random(n))", "shuffle": "x[kt.argsort(kt.random(n))]"}


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
        raise TypeError(f"int() of the symbolic tensor {x} of type {x.type}: its value is "
                        "only known when the graph runs; keep it a tensor "
                        "(x.astype('int64')), or compute a size with // instead of /")
    return x if isinstance(x, Dim) else math.trunc(x)


def _float(x: Any = 0.0) -> Any:
    if not isinstance(x, Dim | Ratio | Variable):
        return NotImplemented
    return (size_tensor(x) if isinstance(x, Dim | Ratio) else x) * 1.0


def _range(*args: Any) -> Any:
    """``range`` of sizes: ``kt.arange`` (an index, an array), or, iterated at once (a
    ``for`` loop, a comprehension), Python's ints turn by turn (:mod:`.loops`)."""
    if not any(isinstance(a, Dim) for a in args):
        return NotImplemented
    if len(args) == 3 and not isinstance(args[2], int):
        return NotImplemented
    if 1 <= len(args) <= 3 and all(_size(a) for a in args) and (
            len(args) < 3 or args[2] != 0):
        bounds = (0, *args) if len(args) == 1 else args
        bounds = bounds if len(bounds) == 3 else (*bounds, 1)
        return turns(*bounds) if iterated() else marked(ops.arange(*args), *bounds)
    return ops.arange(*args)


def _round(x: Any, ndigits: Any = None) -> Any:
    """``round`` of a size (itself), of a traced 0-d number (a Python int, as NumPy's
    scalars give it: :func:`.pymath.python_int`), or to ``ndigits`` (NumPy's round)."""
    if isinstance(x, Dim) and ndigits is None:
        return x
    if not isinstance(x, Variable):
        return NotImplemented
    return python_int(x, "round") if ndigits is None else np.round(x, ndigits)


def _extreme(fn: Callable[..., Any], python: Callable[..., Any]) -> Callable[..., Any]:
    """``max``/``min`` (``python``) of sizes: ``fn`` of them; of a ``range`` of sizes,
    of its ints turn by turn (:func:`.loops.range_turns`), as Python's iterates it."""
    def traced(*args: Any, **kw: Any) -> Any:
        turned = range_turns(args[0]) if len(args) == 1 and not kw else None
        if turned is not None:
            values = list(turned)
            if not values:
                raise ValueError(f"{python.__name__}() iterable argument is empty")
            return fn(*values) if any(isinstance(v, Dim) for v in values) else python(values)
        values = args[0] if len(args) == 1 and isinstance(args[0], list | tuple) else args
        if kw or not values or not any(isinstance(v, Dim) for v in values) \
                or not all(_size(v) for v in values):
            return NotImplemented
        return fn(*values)
    return traced


def _reversed(x: Any) -> Any:
    """``reversed`` of a tensor: ``x[::-1]``; of a ``range`` of sizes, its ints from the
    last, turn by turn (:func:`.loops.reversed_range`), as Python's iterator gives."""
    if not isinstance(x, Variable) or not x.type.ndim:
        return NotImplemented
    found = reversed_range(x)
    return x[::-1] if found is None else found


#: Builtins wrapped in the module globals of the traced code during eval_shape.
BUILTINS: dict[str, Callable[..., Any]] = {
    "len": _len, "int": _int, "float": _float, "range": _range, "round": _round,
    "max": _extreme(dim_max, max), "min": _extreme(dim_min, min), "reversed": _reversed}


# -- SciPy's functions that kantensor has, when the traced code uses SciPy ----------------

def _scipy_logsumexp(a: Any, axis: Any = None, b: Any = None, keepdims: bool = False,
                     return_sign: bool = False) -> Any:
    if not isinstance(a, Variable) or b is not None or return_sign:
        return NotImplemented
    return ops.logsumexp(a, axis=axis, keepdims=keepdims)


def _along(op: str) -> Callable[..., Any]:
    def traced(x: Any, axis: Any = None) -> Any:
        return getattr(ops, op)(x, axis=axis) if isinstance(x, Variable) else NotImplemented
    return traced


def _elementwise(op: str) -> Callable[..., Any]:
    def traced(x: Any, *rest: Any, **kw: Any) -> Any:
        if rest or kw or not isinstance(x, Variable):
            return NotImplemented
        return getattr(ops, op)(x)
    return traced


#: ``scipy.special`` functions traced during eval_shape when SciPy is imported (it is no
#: dependency): kantensor's Ops of the same meaning.
SCIPY_SPECIAL: dict[str, Callable[..., Any]] = {
    "logsumexp": _scipy_logsumexp, "softmax": _along("softmax"),
    "log_softmax": _along("log_softmax"), "expit": _elementwise("sigmoid"),
    "erf": _elementwise("erf")}


# -- the entries as the traced code finds them -------------------------------------------

def entry(original: Callable[..., Any], traced: Callable[..., Any]) -> Callable[..., Any]:
    """``original``, except in a thread that traces, where ``traced`` answers unless it
    returns NotImplemented. Only the traced code finds these entries (see
    :mod:`.namespaces`): NumPy's and kantensor's own code keeps NumPy's functions."""
    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        if current() is not None:
            result = traced(*args, **kwargs)
            if result is not NotImplemented:
                return result
        return original(*args, **kwargs)
    call.__kantensor_traced__ = original
    return call


def refusal(name: str, instead: str) -> Callable[..., Any]:
    """A traced entry refusing a size or a tensor, naming what to use instead."""
    def traced(*args: Any, **kwargs: Any) -> Any:
        if _symbolic(args) or _symbolic(tuple(kwargs.values())):
            raise TypeError(f"{name} is not supported during eval_shape (it takes no tensor "
                            f"to dispatch on, and kantensor has no Op for it); use {instead}")
        return NotImplemented
    return traced


class _AsBuiltin(type):
    """The metaclass of a wrapped builtin class: ``isinstance(3, int)``,
    ``issubclass(bool, int)`` and ``np.dtype(int)`` keep their meaning with the wrapper."""

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls.__kantensor_traced__)

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, cls.__kantensor_traced__)

    def __eq__(cls, other: object) -> Any:  # (np.dtype(a).type == np.float32)
        return True if other is cls or other is cls.__kantensor_traced__ else NotImplemented

    def __hash__(cls) -> int:
        return hash(cls.__kantensor_traced__)


def wrap_class(original: type, traced: Callable[..., Any]) -> type:
    """A subclass of the class ``original`` whose construction is ``traced`` in a thread
    that traces (see :func:`entry`); ``isinstance`` and ``issubclass`` with it keep
    their meaning."""
    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:  # noqa: N807
        if current() is not None:
            result = traced(*args, **kwargs)
            if result is not NotImplemented:
                return result
        return original(*args, **kwargs)
    attrs = {"__new__": __new__, "__kantensor_traced__": original, "__slots__": (),
             "__module__": original.__module__, "__doc__": original.__doc__}
    if original.__module__ == "builtins":
        attrs["dtype"] = np.dtype(original)  # np.dtype(int) reads a type's dtype attribute
    return _AsBuiltin(original.__name__, (original,), attrs)


def _builtin(name: str, fn: Callable[..., Any]) -> Any:
    original = getattr(builtins, name)
    wrapped = isinstance(original, type) and name not in ("range", "reversed")
    return wrap_class(original, fn) if wrapped else entry(original, fn)


#: The wrapped builtins, by name.
BUILTIN_ENTRIES: dict[str, Any] = {name: _builtin(name, fn) for name, fn in BUILTINS.items()}


#: The code of the frames between the traced code and the comparison of sizes a ``math``
#: function asks (:data:`DOMAINS`), or ``int()`` (a Ratio's sign: Ratio.__trunc__): the
#: branch hook looks past them for the user's line.
FORWARDERS = (MATH["sqrt"].__code__, entry(math.sqrt, MATH["sqrt"]).__code__, _int.__code__,
              MATH["fmod"].__code__,
              vars(BUILTIN_ENTRIES["int"])["__new__"].__func__.__code__)
