"""Brute force for the tests of classes of equal sizes (tests/test_size_canon_classes.py,
tests/test_size_canon_integers.py): sizes ``k``, ``m``, ``n``, a grid of their values
(0 and 1 included) and far sizes, a size's value at a point, equality at every point
where stated facts ``a <= b`` hold, and the claim that two equal sizes get one form."""

from __future__ import annotations

import itertools

from kantensor.types.canon import canonical_form
from kantensor.types.dim import Dim
from kantensor.types.facts import EMPTY
from kantensor.types.symbols import substitute

m, n, k = Dim("m"), Dim("n"), Dim("k")
#: Far sizes beside the grid (a form right on a small grid only is caught there).
FAR = [{"k": 10**9 + 3, "m": 7, "n": 2**40 + 1}, {"k": 2**33, "m": 10**12 + 5, "n": 3}]


def grid(side: int) -> list[dict[str, int]]:
    """Every point with ``k``, ``m`` and ``n`` in ``0 .. side - 1``."""
    return [dict(zip("kmn", p, strict=True)) for p in itertools.product(range(side), repeat=3)]


def at(x, sizes: dict[str, int]) -> int:
    """``x``'s value at ``sizes``."""
    return x if isinstance(x, int) else substitute(x, sizes)


def points(stated, among: list[dict[str, int]]) -> list[dict[str, int]]:
    """The points of ``among`` and :data:`FAR` where every ``a <= b`` of ``stated`` holds."""
    return [p for p in among + FAR if all(at(a, p) <= at(b, p) for a, b in stated)]


def equal(x, y, where: list[dict[str, int]]) -> bool:
    """Whether ``x`` and ``y`` have one value at every point of ``where``."""
    return all(at(x, p) == at(y, p) for p in where)


def assert_one_form(x, y, where: list[dict[str, int]], canonical: bool = False) -> None:
    """``x`` and ``y`` are one size at every point of ``where`` (brute force), simplify
    to one form (with ``canonical``, :func:`.canonical_form` gives one too), and the
    forms are the size."""
    assert equal(x, y, where)  # (the oracle: brute force)
    fx, fy = EMPTY.simplify(x), EMPTY.simplify(y)
    assert fx == fy, (fx, fy)
    if canonical:
        assert canonical_form(x) == canonical_form(y)
    assert equal(fx, x, where) and equal(canonical_form(y), y, where)
