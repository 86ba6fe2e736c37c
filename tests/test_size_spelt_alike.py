"""Sizes spelt alike but distinct (a user's ``n``, a size the data decide spelt ``n``, a
private ``n``) are ordered apart in every canonical form: atoms over them (``n//2``,
``n % 3``, ``min(n, n)``) order by structure where their texts tie, so one value has one
form whatever order it was built in (before, the order of the build decided the form:
``d//2 + u//2 != u//2 + d//2`` although their difference was 0, and
``(d % 3)*(u % 3) - (u % 3)*(d % 3)`` was not 0)."""

from __future__ import annotations

import itertools
import operator

from hypothesis import given, settings
from hypothesis import strategies as st

from kantensor.types.dim import Dim
from kantensor.types.symbols import APPLY, data_size, private, substitute

D, U, P = data_size("n", "a NonZero"), Dim("n"), private("n")
SIZES = (D, U, P)
NAMES = [next(iter(x._terms))[0][0][0] for x in SIZES]  # each size's own symbol


def _value(x, values):
    return substitute(x, dict(zip(NAMES, values, strict=True)))


def test_atoms_of_one_text_over_different_sizes_have_one_form_in_either_order():
    for a, b in itertools.permutations(SIZES, 2):
        for make in (lambda x: x // 2, lambda x: x % 3, lambda x: APPLY["min"](x, 4),
                     lambda x: APPLY["max"](x + 1, 2)):
            left, right = make(a) + 3 * make(b), 3 * make(b) + make(a)
            assert left == right and hash(left) == hash(right) and left - right == 0
            assert make(a) * make(b) - make(b) * make(a) == 0
        assert APPLY["min"](a, b) == APPLY["min"](b, a)
        assert APPLY["max"](a + 1, b + 1) - APPLY["max"](b + 1, a + 1) == 0


_COMMUTING = (operator.add, operator.mul, lambda x, y: APPLY["min"](x, y),
              lambda x, y: APPLY["max"](x, y))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(_COMMUTING) - 1), st.integers(0, 2),
                          st.booleans(), st.sampled_from((None, 2, 3))),
                min_size=1, max_size=6))
def test_a_build_with_operands_swapped_is_the_same_size(steps):
    """A sum, product, min or max over (D, U, P) and floors of them, built again with
    each commutative operation's operands swapped, is the same Dim (equal, one hash,
    difference 0), and both are what the ints give at every point of (0, 1, 5)^3."""
    def build(sizes, swap):
        acc = sizes[0]
        for op, k, flip, floor in steps:
            x, y = (sizes[k], acc) if flip != swap else (acc, sizes[k])
            acc = _COMMUTING[op](x, y)
            if floor is not None:
                acc = acc // floor + acc % floor
        return acc
    first, swapped = build(SIZES, False), build(SIZES, True)
    assert first == swapped and hash(first) == hash(swapped) and first - swapped == 0
    for values in itertools.product((0, 1, 5), repeat=3):
        assert _value(first, values) == build(values, False)
