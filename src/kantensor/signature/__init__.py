"""The signature DSL: grammar, AST, compilation to kanren goals, solving, Ops."""

from .ast import Signature, TensorPattern, dim_vars, dtype_vars
from .errors import SignatureSyntaxError, TypeInferenceError
from .op import SignatureOp, op
from .solve import infer

__all__ = ["Signature", "SignatureOp", "SignatureSyntaxError", "TensorPattern",
           "TypeInferenceError", "dim_vars", "dtype_vars", "infer", "op"]
