"""Size expressions as trees of operators, evaluated by a table of operators: the same
tree read over ints (Python's ``//``, ``%``, ``min`` and ``max``: the judge) and over
Dims (the algebra under test). A tree is a symbol's name, an int, or ``(op, left,
right)``. Used by tests/test_dim.py, tests/test_size_division_by_size.py and
tests/test_size_negative_quotients.py."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def evaluate(tree: Any, env: Mapping[str, Any], ops: Mapping[str, Callable[..., Any]]) -> Any:
    """The value of ``tree`` with each symbol's value in ``env`` and each operator's
    function in ``ops``."""
    if isinstance(tree, str):
        return env[tree]
    if isinstance(tree, int):
        return tree
    op, left, right = tree
    return ops[op](evaluate(left, env, ops), evaluate(right, env, ops))
