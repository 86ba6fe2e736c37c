"""The DSL's semantics: flexible dims, axes, the compiler to relations, the solver and
:class:`Signature` (the syntax it reads is :mod:`kantensor.syntax`'s)."""
