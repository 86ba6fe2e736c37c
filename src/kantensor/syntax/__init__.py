"""The DSL's text: its grammar, AST with the one well-formedness check, parser and limits.

It sits below :mod:`kantensor.types` (``TensorType.parse`` reads compact types with it)
and knows nothing of what its words mean: the semantics (flexible dims, axes, the
compiler to relations, the solver) are :mod:`kantensor.signature`'s.
"""
