"""Execution of graphs: the NumPy backend, the backend registry (Dask is registered
there and loaded when asked for)."""

from . import evaluate as evaluate  # registers x.eval() and float(x)
from .backends import BACKENDS, register_backend
from .checks import OutputTypeError, ShapeBindingError
from .compiled import Function, FunctionSignature, function

__all__ = ["BACKENDS", "Function", "FunctionSignature", "OutputTypeError", "ShapeBindingError",
           "function", "register_backend"]
