"""kantensor: typed tensor computation graphs with relational type inference.

Everything public is importable from here: ``import kantensor as kt``.
"""

from .backend import Function, function
from .graph import (
    Apply,
    Constant,
    FunctionGraph,
    Op,
    Type,
    Variable,
    ancestors,
    clone,
    graph_inputs,
    toposort,
)
from .printing import dprint
from .tensor import (
    DTYPES,
    Dim,
    SpecifyShape,
    TensorConstant,
    TensorType,
    TensorVariable,
    as_tensor_variable,
    constant,
    dims,
    get_default_dtype,
    matrix,
    promote_types,
    result_type,
    scalar,
    set_default_dtype,
    specify_shape,
    tensor,
    vector,
)
from .tensor.elemwise import add, mul, sub, true_divide
from .tensor.variable import SHORTCUTS as _SHORTCUTS

globals().update(_SHORTCUTS)

__version__ = "0.1.0"

__all__ = [
    "DTYPES", "Apply", "Constant", "Dim", "Function", "FunctionGraph", "Op", "SpecifyShape",
    "TensorConstant", "TensorType", "TensorVariable", "Type", "Variable", "add", "ancestors",
    "as_tensor_variable", "clone", "constant", "dims", "dprint", "function",
    "get_default_dtype", "graph_inputs", "matrix", "mul", "promote_types", "result_type",
    "scalar", "set_default_dtype", "specify_shape", "sub", "tensor", "toposort",
    "true_divide", "vector", *sorted(_SHORTCUTS),
]
