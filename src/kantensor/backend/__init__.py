"""NumPy execution of graphs."""

from . import evaluate as evaluate  # registers x.eval() and float(x)
from .checks import OutputTypeError, ShapeBindingError
from .compiled import Function, FunctionSignature, function

__all__ = ["Function", "FunctionSignature", "OutputTypeError", "ShapeBindingError", "function"]
