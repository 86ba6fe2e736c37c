"""The signature DSL: grammar, AST, parser, compiler to relations and the solver."""
