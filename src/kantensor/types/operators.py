"""The Python operators of tensor variables: the table of Op constructors behind them
(filled by the layer that defines the Ops, so this layer imports none) and the methods
that call it: binary and reflected operators, in-place operators (a rebinding during
``eval_shape``), and ``x.at[index]``'s functional updates. :class:`TensorVariable
<kantensor.types.variable.TensorVariable>` takes them as its operators."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph.basic import Variable
from .dim import Dim
from .protocol import NUMPY_SCALAR, REBIND, WRITE_BACK, written
from .sizenum import Ratio

#: Op constructors behind the Python operators, keyed by name ("add", "matmul",
#: ...). Filled by the layer that defines the Ops, so this layer imports none.
OPERATORS: dict[str, Callable[..., Any]] = {}


#: Named methods of TensorVariables (``x.sum(axis=0)``, ``x.reshape(2, -1)``), filled
#: the same way.
METHODS: dict[str, Callable[..., Any]] = {}


def register_operator(name: str, fn: Callable[..., Any]) -> None:
    """Make ``fn`` the implementation of operator ``name`` on TensorVariables."""
    OPERATORS[name] = fn


def apply_operator(name: str, *args: Any) -> Any:
    """The registered Op of operator ``name`` applied to ``args``."""
    try:
        fn = OPERATORS[name]
    except KeyError:
        raise NotImplementedError(f"no Op registered for operator {name!r}") from None
    return fn(*args)


#: ``(plain, python)``: the class of an Op's output and the class of one that is a Python
#: number of the code (wrapped): set by the variable layer, which defines both.
NUMBER_CLASSES: list[type] = []
_PYTHON_TYPES = frozenset({bool, int, float, complex})


def _is_python(x: Any) -> bool:
    """Whether ``x`` is a Python number of the code: a Python bool, int, float or complex
    (not a NumPy scalar), a size, a Ratio, or a wrapped 0-d variable (``n * 1.5``)."""
    return type(x) in _PYTHON_TYPES or isinstance(x, Dim | Ratio) or (
        isinstance(x, Variable) and x.wrapped and x.type.ndim == 0)


def python_result(result: Any, *operands: Any) -> Any:
    """``result`` of a Python operator on ``operands``, made a Python number (wrapped: weak
    in promotion, as NEP 50 says) where every operand is one, as Python computes it:
    ``n * 1.5`` is a Python float in NumPy code, ``np.multiply(n, 1.5)`` a NumPy scalar."""
    if NUMBER_CLASSES and type(result) is NUMBER_CLASSES[0] and all(map(_is_python, operands)):
        result.__class__ = NUMBER_CLASSES[1]
    return result


#: NumPy functions that give a Python number's own part back (``val.real``): a Python
#: number too, weak as the operand was (``np.real(float(n))`` is the Python float).
_PARTS = frozenset({np.real, np.imag})


def python_part(func: Any, args: tuple, result: Any) -> Any:
    """``result`` of ``func(*args)`` (NEP 18), a Python number where ``func`` is
    ``np.real`` or ``np.imag`` of one (:func:`python_result`); NumPy's ufunc ``np.conj``
    gives a NumPy scalar instead, strong."""
    return python_result(result, *args) if func in _PARTS and len(args) == 1 else result


def binary(name: str, reflected: bool = False):
    """The method of operator ``name`` (``x + y``; ``reflected``: ``y + x``'s ``__radd__``)."""
    if reflected:
        def method(self, other):
            fn = OPERATORS.get(name)
            return python_result(fn(other, self) if fn is not None else
                                 apply_operator(name, other, self), self, other)
    else:
        def method(self, other):
            fn = OPERATORS.get(name)
            return python_result(fn(self, other) if fn is not None else
                                 apply_operator(name, self, other), self, other)
    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


#: What ``x == other`` compares elementwise: tensors, arrays, numbers, sizes and lists.
COMPARABLE = (Variable, np.ndarray, np.generic, bool, int, float, complex, Dim, Ratio,
               list, tuple)


def inplace(name: str):
    """``x op= y``: during ``eval_shape``, x is rebound to ``x op y`` cast to x's dtype
    (NumPy writes into the array x); elsewhere, and where NumPy's x is a scalar (``s =
    x.sum(); s += 0.5``: a scalar is immutable, see :data:`~.protocol.NUMPY_SCALAR`),
    Python falls back to ``x = x op y``."""
    def method(self, other):
        rebind = REBIND.fn
        if rebind is not None and not NUMPY_SCALAR.fn(self) and rebind(
                self, lambda: _same_dtype(self, apply_operator(name, self, other))):
            return self
        return NotImplemented
    method.__name__ = f"__i{name}__"
    return method


def _same_dtype(x: Any, value: Any) -> Any:
    """``value`` written into x: of x's dtype, and broadcast onto x's shape (NumPy's
    in-place operators cannot grow x: :data:`~.protocol.WRITE_BACK`)."""
    value = written(value, x)
    if WRITE_BACK.fn is not None:
        value = WRITE_BACK.fn(value, x)
    return x.type.filter_variable(value)


class _Update:
    """``x.at[index]``: :meth:`set`, :meth:`add` and :meth:`get` of the elements at an
    index, as new values (JAX's spelling of NumPy's ``x[index] = v``)."""

    __slots__ = ("x", "index")

    def __init__(self, x: Any, index: Any):
        self.x, self.index = x, index

    def set(self, value: Any) -> Any:
        """x with ``x[index] = value``."""
        return apply_operator("set_at", self.x, self.index, value)

    def add(self, value: Any) -> Any:
        """x with value added at index (repeated indices add up, as ``np.add.at``)."""
        return apply_operator("add_at", self.x, self.index, value)

    def get(self) -> Any:
        """``x[index]``."""
        return self.x[self.index]


class At:
    """``x.at``: indexed by ``x.at[index]``, the updates of those elements."""

    __slots__ = ("x",)

    def __init__(self, x: Any):
        self.x = x

    def __getitem__(self, index: Any) -> _Update:
        return _Update(self.x, index)
