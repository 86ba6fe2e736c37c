"""TensorVariable and TensorConstant (with NumPy's Python operators), the methods
registered on them, and the constructors of variables and constants.

The operators' Op table is :mod:`kantensor.types.operators`; the key of an unknown
``x.shape[i]`` is :mod:`kantensor.types.axissize` (both importable from here too)."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ..graph.basic import Constant, Variable
from ..graph.hooks import Hook
from .axissize import AxisSize as AxisSize
from .axissize import axis_size
from .converting import refuse_masked
from .dim import Dim
from .display import variable_html
from .dtypename import dtype_name
from .dtypes import get_default_dtype, normalize_dtype, python_dtype
from .operators import (
    COMPARABLE,
    METHODS,
    NUMBER_CLASSES,
    At,
    apply_operator,
    binary,
    inplace,
    python_part,
    python_result,
)
from .operators import OPERATORS as OPERATORS
from .operators import register_operator as register_operator
from .protocol import REBIND, array_function, array_ufunc
from .sizenum import Ratio, size_tensor
from .type import ShapeEntry, TensorType

#: ``ndarray`` attributes a symbolic tensor has not (its memory, in-place changes, Python
#: values), with what to write instead: reading one raises an AttributeError saying so
#: (``data`` is a constant's own slot). A method registered later replaces its entry.
UNSUPPORTED_ATTRIBUTES = {
    "flat": "x.ravel() (or x.reshape(-1)) for the flat elements, x.ravel()[i] for one",
    "flags": "", "strides": "", "ctypes": "", "base": "",
    "tolist": "a tensor's values exist when its graph runs (kt.function)",
    "tobytes": "a tensor's values exist when its graph runs (kt.function)",
    "fill": "np.full_like(x, value)", "put": "x.at[index].set(values)",
    "resize": "np.resize(x, shape) or x.reshape(shape)",
    "byteswap": "", "choose": "", "dump": "", "dumps": "", "getfield": "",
    "setfield": "", "setflags": "", "tofile": ""}


def _unsupported(name: str, instead: str) -> property:
    def refuse(self: Any) -> Any:
        hint = f": use {instead}" if instead else ""
        raise AttributeError(f"{type(self).__name__}.{name} (ndarray.{name}) is not "
                             f"supported on symbolic tensors (a graph has no memory, "
                             f"in-place changes or values){hint}")
    return property(refuse, doc=f"Not supported on symbolic tensors{': ' if instead else ''}"
                    f"{instead}.")


def register_method(name: str, fn: Callable[..., Any]) -> None:
    """Make ``x.name(*args, **kwargs)`` call ``fn(x, *args, **kwargs)``.

    The method is set on the class (unless that would hide an attribute of ours), so
    that ``x.sum`` is found by plain lookup: the class has no ``__getattr__``, which
    would make every attribute read of every TensorVariable (``.type``, ``.owner``:
    refine reads millions) a slow generic one that Python cannot specialize."""
    METHODS[name] = fn
    if name in _INSTALLED or not hasattr(_TensorOperators, name):
        if inspect.isfunction(fn):  # a function binds to the instance by itself
            method = fn
        else:
            def method(self, *args: Any, **kwargs: Any) -> Any:
                return fn(self, *args, **kwargs)
            method.__name__ = method.__qualname__ = name
            method.__doc__ = getattr(fn, "__doc__", None)
            try:  # x.sum? shows sum's parameters after the tensor itself
                params = list(inspect.signature(fn).parameters.values())
                method.__signature__ = inspect.Signature(
                    [inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY),
                     *params[1:]])
            except (TypeError, ValueError):
                pass
        setattr(_TensorOperators, name, method)
        _INSTALLED.add(name)


def _array_function(self: Any, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
    """NEP 18 (:func:`.protocol.array_function`); ``np.real``/``np.imag`` of a Python
    number is a Python number (:func:`.operators.python_part`)."""
    return python_part(func, args, array_function(self, func, types, args, kwargs))


#: The methods register_method has set on _TensorOperators.
_INSTALLED: set[str] = set()


class _TensorOperators:
    """Python operators shared by TensorVariable and TensorConstant."""

    __slots__ = ()
    __array_priority__ = 1000  # NumPy arrays on the left defer to us
    __array_ufunc__ = array_ufunc  # np.exp(x) builds a graph (NEP 13)
    __array_function__ = _array_function  # np.sum(x), np.concatenate([x, y]) (NEP 18)

    __add__, __radd__ = binary("add"), binary("add", True)
    __sub__, __rsub__ = binary("sub"), binary("sub", True)
    __mul__, __rmul__ = binary("mul"), binary("mul", True)
    __truediv__, __rtruediv__ = binary("true_divide"), binary("true_divide", True)
    __floordiv__, __rfloordiv__ = binary("floor_divide"), binary("floor_divide", True)
    __mod__, __rmod__ = binary("mod"), binary("mod", True)
    def __divmod__(self, o: Any) -> Any: return self // o, self % o  # as np.divmod
    def __rdivmod__(self, o: Any) -> Any: return o // self, o % self
    __pow__, __rpow__ = binary("pow"), binary("pow", True)
    __matmul__, __rmatmul__ = binary("matmul"), binary("matmul", True)
    __lt__, __le__ = binary("lt"), binary("le")
    __gt__, __ge__ = binary("gt"), binary("ge")
    __and__, __rand__ = binary("and"), binary("and", True)
    __or__, __ror__ = binary("or"), binary("or", True)
    __xor__, __rxor__ = binary("xor"), binary("xor", True)
    __lshift__, __rlshift__ = binary("lshift"), binary("lshift", True)
    __rshift__, __rrshift__ = binary("rshift"), binary("rshift", True)

    def __neg__(self):
        return python_result(apply_operator("neg", self), self)

    def __pos__(self):
        return python_result(apply_operator("pos", self), self)

    def __invert__(self):
        return apply_operator("invert", self)

    def __abs__(self):
        return python_result(apply_operator("abs", self), self)

    def __getitem__(self, index):
        fn = OPERATORS.get("getitem")
        return fn(self, index) if fn is not None else apply_operator("getitem", self, index)

    def __setitem__(self, index, value):
        """During ``eval_shape``, ``x[index] = value`` rebinds x to ``x.at[index].set(value)``;
        elsewhere a symbolic tensor is a value, never changed in place."""
        rebind = REBIND.fn
        if rebind is None or not rebind(self, lambda: self.at[index].set(value)):
            raise TypeError("a symbolic tensor cannot be changed in place (a graph computes "
                            "new values): write y = x.at[i].set(v) (or .add(v)) instead of "
                            "x[i] = v; eval_shape turns x[i] = v into that by itself")

    __iadd__, __isub__, __imul__ = inplace("add"), inplace("sub"), inplace("mul")
    __itruediv__, __ifloordiv__ = inplace("true_divide"), inplace("floor_divide")
    __imod__, __ipow__, __imatmul__ = inplace("mod"), inplace("pow"), inplace("matmul")
    __iand__, __ior__, __ixor__ = inplace("and"), inplace("or"), inplace("xor")

    @property
    def at(self) -> At:
        """``x.at[index].set(v)``, ``.add(v)``, ``.get()``: functional updates."""
        return At(self)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """A constant's values; a symbolic tensor has none (NumPy would read its rows)."""
        if isinstance(self, Constant):
            return np.array(self.data, dtype=dtype, copy=copy)
        raise TypeError(f"a symbolic tensor of type {self.type} has no values until its graph "
                        "runs: compute it with kt.function, or apply kantensor Ops to it")

    def __len__(self) -> int:
        """The first size if a known int, as in NumPy (``x.shape[0]`` is any size)."""
        if not self.type.ndim:
            raise TypeError(f"len() of a 0-d tensor ({self.type}), as in NumPy")
        if isinstance(n := self.type.shape[0], int):
            return n
        raise TypeError(f"len() of a tensor of type {self.type}: its first size is "
                        f"{'unknown' if n is None else n} until the graph runs, and len() "
                        "must return an int; use x.shape[0], a size that computes with "
                        "the graph")

    def __iter__(self):
        """``x[0], x[1], ...`` when the first dim is a known int (without this, Python
        would call ``x[i]`` until it fails, forever if the length is unknown)."""
        n = self.type.shape[0] if self.type.ndim else None
        found = None if n is None else ROWS.fn(self)
        if found is not None:  # (during eval_shape: turn by turn)
            return found
        if not isinstance(n, int):
            raise TypeError(f"cannot iterate over a tensor of type {self.type}: its first "
                            "size is not a known int (for a loop over it, give it as an int)")
        return iter([self[i] for i in range(n)])

    @property
    def ndim(self) -> int:
        return self.type.ndim

    @property
    def dtype(self) -> str:  # (its name, equal to what NumPy's dtype equals: .dtypename)
        return dtype_name(self.type.dtype)

    @property
    def shape(self) -> tuple[int | Dim, ...]:
        """The shape as sizes to compute with: an int or a Dim per axis. A size that is
        unknown when the graph is built (None in ``x.type.shape``) is the Dim "x's size
        along that axis" (printed ``x.shape[0]``), so ``x.reshape(x.shape[0], -1)``,
        ``kt.zeros((x.shape[0], 5))`` and ``B, T, C = x.shape; x.reshape(B * T, C)``
        work as in NumPy: the graph ties those sizes to x's, and they take x's values
        when it runs. ``x.type.shape`` is the static shape, None where unknown."""
        return tuple(axis_size(self, i) for i in range(self.type.ndim))

    @property
    def T(self):
        return apply_operator("transpose", self)

    @property
    def mT(self):
        """The last two axes swapped (a stack of transposed matrices), as ``ndarray.mT``."""
        return apply_operator("matrix_transpose", self)

    @property
    def real(self):
        return apply_operator("real", self)

    @property
    def imag(self):
        return apply_operator("imag", self)

    @property
    def size(self) -> Any:
        """The number of elements: an int, or a Dim expression over the sizes of
        :attr:`shape` (named and unknown ones), usable as a size parameter."""
        total: Any = 1
        for n in self.shape:
            total = total * n
        return total

    def conjugate(self) -> Any:
        """``x.conj()`` (``ndarray.conjugate``)."""
        return self.conj()

    @property
    def itemsize(self) -> int:
        """The bytes of one element (``ndarray.itemsize``)."""
        return np.dtype(self.type.dtype).itemsize

    @property
    def nbytes(self) -> Any:
        """The bytes of the elements, ``size * itemsize`` (a Dim expression where the
        size is one)."""
        return self.size * self.itemsize

    def __dir__(self) -> list[str]:
        """Attributes plus the registered methods, so IPython completes ``x.su<Tab>``
        (not the ndarray attributes it refuses)."""
        return sorted({*super().__dir__(), *METHODS} - (
            UNSUPPORTED_ATTRIBUTES.keys() - METHODS.keys()))

    def _repr_html_(self) -> str:
        return variable_html(self)

    # Graph nodes hashed by identity (dict keys); ``==``/``!=`` compare elements as
    # NumPy's arrays do, in every mode: code that means identity says ``is``.
    __hash__ = object.__hash__

    def __eq__(self, other):
        """The ``eq`` node; NotImplemented (identity) for no array-like ``other``."""
        return apply_operator("eq", self, other) if isinstance(other, COMPARABLE) \
            else NotImplemented

    def __ne__(self, other):
        return apply_operator("ne", self, other) if isinstance(other, COMPARABLE) \
            else NotImplemented

    def __bool__(self):
        raise TypeError("a symbolic tensor has no truth value (its value is only known "
                        "when the graph runs); compare variables with `is`")


for _name, _instead in UNSUPPORTED_ATTRIBUTES.items():
    if not hasattr(_TensorOperators, _name):
        setattr(_TensorOperators, _name, _unsupported(_name, _instead))
        _INSTALLED.add(_name)  # (register_method may set a method there)


class TensorVariable(_TensorOperators, Variable):
    """A Variable of TensorType with NumPy-like operators."""

    __slots__ = ()


class TensorConstant(_TensorOperators, Constant):
    """A read-only tensor value in a graph."""

    __slots__ = ()

    def __bool__(self):
        return _TensorOperators.__bool__(self)


class PythonNumber(TensorVariable):
    """A Python number the graph computes: a Python operator's result on Python numbers
    only (``n * 1.5``, ``-(d ** -0.5)``; :func:`~.operators.python_result`): *wrapped*,
    as the Python float NumPy code had there (weak in NumPy's promotion, NEP 50)."""

    __slots__ = ()
    wrapped = True


class SizeNumber(PythonNumber):
    """The 0-d int64 number of a size (``size_number``'s output, see
    :mod:`kantensor.types.sizenum`): *wrapped*, as the Python int NumPy code had there."""

    __slots__ = ()


NUMBER_CLASSES[:] = [TensorVariable, PythonNumber]


TensorType.variable_type = TensorVariable
TensorType.constant_type = TensorConstant


#: Type and read-only array of wrapped Python numbers already seen (``z + 1.0`` in a
#: loop makes one), keyed by type, value, sign (0.0 == -0.0) and the default dtype.
_WRAPPED: dict[tuple, tuple[TensorType, np.ndarray]] = {}
_WRAPPED_MAX = 4096


#: The Python number types whose values become wrapped constants (exactly these types).
PYTHON_NUMBERS = frozenset({bool, int, float})


def wrapped_number(value: bool | int | float, default: str,
                   name: str | None = None) -> TensorConstant:
    """``constant(value)`` for a Python bool, int or float (its type one of
    :data:`PYTHON_NUMBERS`), a float taking ``default`` (the default dtype the caller
    read once), from a memo."""
    kind = type(value)
    key = (kind, value, math.copysign(1.0, value) if kind is float else 0, default)
    hit = _WRAPPED.get(key)
    if hit is None:
        dtype = default if kind is float else python_dtype(value)
        if dtype == "int64" and not -2**63 <= value < 2**63:
            raise OverflowError(f"Python int {value} does not fit int64")
        with np.errstate(all="ignore"):  # 1e300 as float32 is inf, as before
            arr = np.asarray(value).astype(dtype)
        arr.setflags(write=False)
        hit = (TensorType(dtype, ()), arr)
        if value == value:  # nan never equals a key: do not store one per call
            if len(_WRAPPED) >= _WRAPPED_MAX:
                _WRAPPED.clear()
            _WRAPPED[key] = hit
    return TensorConstant(hit[0], hit[1], name=name, wrapped=True)


def constant(value: Any, dtype: Any = None, name: str | None = None) -> TensorConstant:
    """A TensorConstant holding ``value`` (cast to ``dtype`` if given).

    Python numbers become *wrapped* constants (lowest promotion priority)
    when no dtype is given; arrays and NumPy scalars never do.
    """
    refuse_masked(value, "a constant")
    if dtype is None and type(value) in PYTHON_NUMBERS:
        return wrapped_number(value, get_default_dtype(), name)
    if isinstance(value, Dim):
        raise TypeError(f"the size {value} is symbolic, not a number a graph can compute "
                        "with: sizes are parameters of Ops (kt.zeros((n, 3)), "
                        "x.reshape(n, -1), kt.arange(n)); kt.as_tensor_variable(size) is "
                        "the number")
    wrapped = dtype is None and isinstance(value, bool | int | float | complex) \
        and not isinstance(value, np.generic)
    if wrapped:
        dtype = python_dtype(value)
        if dtype == "int64" and not -2**63 <= value < 2**63:
            raise OverflowError(f"Python int {value} does not fit int64")
    if dtype is None:
        arr = np.asarray(value)
        dtype = arr.dtype
    else:
        dtype = normalize_dtype(dtype)
        arr = np.asarray(value)
        if arr.dtype != np.dtype(dtype):
            with np.errstate(all="ignore"):
                arr = arr.astype(dtype)
    ttype = TensorType(dtype, arr.shape)
    return TensorConstant(ttype, arr, name=name, wrapped=wrapped)


ROWS: Hook[Callable[[Any], Any]] = Hook(
    "rows", "kantensor.evalshape.loops",
    "rows(x) -> an iterator over the rows of x (a range's ints, or x[0], x[1], ... where "
    "its first size is symbolic) where the code iterating it is traced by eval_shape "
    "(turn by turn), or None", lambda x: None)

SIZED_LIST: Hook[Callable[[Any], Any]] = Hook(
    "sized_list", "kantensor.evalshape.arrays",
    "sized_list(obj) -> the tensor NumPy's array of the (nested) list or tuple obj of "
    "numbers holding sizes is during eval_shape (x + [n, 1.5]), or None",
    lambda obj: None)


def as_tensor_variable(x: Any, name: str | None = None) -> Variable:
    """``x`` if it already is a Variable, else a constant made from it (a list holding
    sizes: :data:`SIZED_LIST`'s tensor)."""
    if isinstance(x, Variable):
        return x
    if isinstance(x, Dim | Ratio):  # a size used as a number (see types.sizenum)
        return size_tensor(x)
    if isinstance(x, list | tuple):
        made = SIZED_LIST.fn(x)
        if made is not None:
            return made
    if isinstance(x, TensorType):
        raise TypeError(f"expected a value or a Variable, got the type {x}; call it to make "
                        "a variable: TensorType(...)()")
    return constant(x, name=name)


def tensor(name: str | None = None, dtype: Any = None,
           shape: Iterable[ShapeEntry] | None = None) -> TensorVariable:
    """A symbolic tensor; dtype defaults to the default float dtype."""
    if isinstance(shape, str):
        raise TypeError("shape must be a sequence of sizes, not a string")
    return TensorType(dtype or get_default_dtype(), shape or ())(name)


def scalar(name: str | None = None, dtype: Any = None) -> TensorVariable:
    return tensor(name, dtype, ())


def _ranked(kind: str, ndim: int, shape: Any) -> Any:
    if isinstance(shape, str) or not isinstance(shape, Iterable):
        raise TypeError(f"a {kind}'s shape must be a sequence of {ndim} size"
                        f"{'s' * (ndim != 1)}, got {shape!r}")
    shape = tuple(shape)
    if len(shape) != ndim:
        raise TypeError(f"a {kind} has {ndim} dimension{'s' * (ndim != 1)}, but shape "
                        f"{shape} has {len(shape)}; use kt.tensor(name, dtype, shape) for "
                        "any number of dimensions")
    return shape


def vector(name: str | None = None, dtype: Any = None,
           shape: tuple[ShapeEntry] = (None,)) -> TensorVariable:
    return tensor(name, dtype, _ranked("vector", 1, shape))


def matrix(name: str | None = None, dtype: Any = None,
           shape: tuple[ShapeEntry, ShapeEntry] = (None, None)) -> TensorVariable:
    return tensor(name, dtype, _ranked("matrix", 2, shape))


# Theano-style shortcuts: prefix letter = dtype, suffix = shape.
_PREFIX = {"b": "int8", "w": "int16", "i": "int32", "l": "int64", "f": "float32",
           "d": "float64", "c": "complex64", "z": "complex128"}
_SUFFIX = {"scalar": (), "vector": (None,), "row": (1, None), "col": (None, 1),
           "matrix": (None, None), "tensor3": (None,) * 3, "tensor4": (None,) * 4}


def _shortcut(dtype: str, shape: tuple) -> Callable[..., TensorVariable]:
    def make(name: str | None = None) -> TensorVariable:
        return TensorType(dtype, shape)(name)
    return make


SHORTCUTS = {p + s: _shortcut(d, shape) for p, d in _PREFIX.items()
             for s, shape in _SUFFIX.items()}
for _name, _fn in SHORTCUTS.items():
    _fn.__name__ = _fn.__qualname__ = _name
    _fn.__doc__ = f"A symbolic {_name} (Theano-style shortcut)."

