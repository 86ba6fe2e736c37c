"""A fact ``P == L`` (``P`` a product of sizes, ``L`` linear) bounds a size that is a
factor of every term but an int (``a*b == a + 1``: ``a*(b - 1) == 1``, so ``a == 1``):
:func:`kantensor.types.factsproducts.product_bounds`. Judged by brute force over sizes
0..8: where ``Facts.consistent`` says False, no sizes there meet the facts (sound), and
the forms the rule refutes are refuted."""

from __future__ import annotations

import itertools

from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.facts import Facts

a, b, c = Dim("a"), Dim("b"), Dim("c")
SIZES = range(9)
PRODUCTS = [a * b, 2 * a * b, a * a, a * a * b, a * b * c]
SIDES = [x * a + y * b + k for x in (0, 1, 2) for y in (0, 1) for k in (-2, -1, 1, 3)]
SECOND = [None, Condition(a * b, ">", 2), Condition(b, ">=", 3), Condition(a, ">=", 2)]


def _meets(conditions: list[Condition]) -> bool:
    names = sorted(set().union(*(x.symbols() for x in conditions)), key=str)
    return any(all(x.holds(dict(zip(map(str, names), v, strict=True))) for x in conditions)
               for v in itertools.product(SIZES, repeat=len(names)))


def test_product_equal_to_a_linear_side_sound_by_brute_force() -> None:
    refuted = 0
    for p, side, more in itertools.product(PRODUCTS, SIDES, SECOND):
        conditions = [Condition(p, "==", side)] + ([more] if more else [])
        if not Facts(conditions).consistent():
            refuted += 1
            assert not _meets(conditions), conditions
    assert refuted >= 20, refuted  # (the rule decides some: not vacuous)


def test_a_size_dividing_every_term_but_the_int_is_bounded() -> None:
    for conditions in ([Condition(a * b, "==", a + 1), Condition(a * b, ">", 2)],
                       [Condition(a * b, "==", 2 * a + 1), Condition(b, ">=", 4)],
                       [Condition(a * a * b, "==", a + 2), Condition(a, ">=", 3)]):
        assert not _meets(conditions)
        assert not Facts(conditions).consistent(), conditions
