"""NumPy execution of graphs."""

from .checks import OutputTypeError, ShapeBindingError
from .compiled import Function, FunctionSignature, function

__all__ = ["Function", "FunctionSignature", "OutputTypeError", "ShapeBindingError", "function"]
