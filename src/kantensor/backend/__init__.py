"""NumPy execution of graphs."""

from .checks import OutputTypeError, ShapeBindingError
from .function import Function, FunctionSignature, function

__all__ = ["Function", "FunctionSignature", "OutputTypeError", "ShapeBindingError", "function"]
