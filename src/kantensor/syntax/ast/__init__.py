"""AST of the signature DSL: frozen, hashable dataclasses with structural ``==``.

``str(node)`` is the node's canonical text (the constructors reject objects whose text
would not parse back). Dim variables support ``+ - * // %`` (with ints too), so
``n - k + 1`` builds the same tree as the text ``n-k+1``.

The dim expressions here are the one dim-expression language of kantensor: signatures,
``TensorType.parse`` and the command line's query terms all parse into these nodes, and
:func:`evaluate` is the one evaluator, computing in the Dim algebra of
:mod:`kantensor.types.dim`. Operands and where-clauses are checked for well-formedness
as a whole when an :class:`~kantensor.syntax.alternative.Alternative` is built.

One module per kind of node: :mod:`.names` (the rules for names), :mod:`.dims` (dim
expressions and items, the evaluator), :mod:`.dtypes` (dtype terms), :mod:`.patterns`
(operands and where-clauses).
"""

from .dims import (
    EXPR_TYPES,
    ITEM_TYPES,
    AnonGroup,
    AnyGroup,
    BinOp,
    Call,
    DimExpr,
    DimItem,
    DimVar,
    FixedDim,
    FlexDim,
    Hole,
    Message,
    NamedGroup,
    dim_max,
    dim_min,
    divisors,
    evaluate,
    expr_names,
    written,
)
from .dtypes import (
    DTYPE_CALLS,
    DType,
    DTypeFunction,
    DTypeHole,
    DTypeName,
    DTypeVar,
    Join,
    LoopFloat,
    Promote,
    dtype_call,
    dtype_names,
)
from .names import CATEGORIES, CMP_OPS, DTYPE_NAMES, RESERVED, near_dtype
from .patterns import (
    CLAUSE_TYPES,
    Broadcasts,
    Clause,
    Compare,
    Compatible,
    DTypeEq,
    InCategory,
    TensorPattern,
    category_text,
    checked,
    chosen,
    dim_vars,
    dtype_vars,
)

__all__ = [
    "CATEGORIES", "CLAUSE_TYPES", "CMP_OPS", "DTYPE_CALLS", "DTYPE_NAMES", "EXPR_TYPES",
    "ITEM_TYPES", "RESERVED",
    "DimVar", "FixedDim", "FlexDim", "AnonGroup", "AnyGroup", "NamedGroup", "BinOp", "Call", "Hole",
    "DTypeName", "DTypeVar", "Promote", "Join", "LoopFloat", "DTypeFunction", "DTypeHole",
    "TensorPattern", "Compare", "InCategory", "DTypeEq", "Compatible", "Broadcasts",
    "DimExpr", "DimItem", "DType", "Clause", "Message", "category_text", "checked", "chosen",
    "dim_vars", "dtype_vars", "dim_min", "dim_max", "divisors", "evaluate", "expr_names",
    "dtype_names", "dtype_call",
    "near_dtype", "written",
]  # fmt: skip
