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
from .ops import CATALOGUE as _CATALOGUE
from .ops.op import SignatureOp, op
from .printing import dprint
from .query import Solutions, pattern, query  # logic variables: kantensor.query.var
from .signature.ast import Signature, TensorPattern, dim_vars, dtype_vars
from .signature.errors import SignatureSyntaxError, TypeInferenceError
from .types import (
    DTYPES,
    Dim,
    SpecifyShape,
    TensorConstant,
    TensorType,
    TensorVariable,
    as_tensor_variable,
    constant,
    default_dtype,
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
from .types.variable import SHORTCUTS as _SHORTCUTS

globals().update(_SHORTCUTS)
globals().update(_CATALOGUE)

__version__ = "0.1.0"

__all__ = [
    "DTYPES", "Apply", "Constant", "Dim", "Function", "FunctionGraph", "Op", "Signature",
    "SignatureOp", "SignatureSyntaxError", "Solutions", "SpecifyShape", "TensorConstant",
    "TensorPattern", "TensorType", "TensorVariable", "Type", "TypeInferenceError", "Variable",
    "ancestors", "as_tensor_variable", "clone", "constant", "default_dtype", "dim_vars", "dims",
    "dprint",
    "dtype_vars", "function", "get_default_dtype", "graph_inputs", "matrix", "op", "pattern",
    "promote_types", "query", "result_type", "scalar", "set_default_dtype", "specify_shape",
    "tensor", "toposort", "vector", *sorted(_SHORTCUTS), *sorted(_CATALOGUE),
]
