"""Simplifying under facts stays bounded in depth: an atom's arguments are simplified
within the atom's, and past :data:`~kantensor.types.facts.MAX_NESTING` open calls a size
is left as it is (always equal). canon_rate's seed 8 found a size whose forms went on
through forms of forms until Python's recursion limit."""

from __future__ import annotations

from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.facts import Facts
from kantensor.types.symbols import substitute


def test_a_floor_under_a_congruence_and_a_bound_is_simplified_without_recursing_on():
    n = Dim("n")
    facts = Facts([Condition(n % 3, "==", 0), Condition(n, "<=", 12)])
    x = 2 * n + n // 4
    y = facts.simplify(x)  # raised RecursionError
    for v in range(0, 40):  # equal wherever the facts hold (brute force)
        if v % 3 == 0 and v <= 12:
            assert substitute(y, {"n": v}) == 2 * v + v // 4, v
