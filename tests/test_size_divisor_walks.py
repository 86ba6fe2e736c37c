"""The one walk that finds what a size divides by (:mod:`kantensor.types.divisors`),
over random sizes of quotients, remainders, min and max nested a few levels: a size has
no value at a point (Python's ``eval`` of its text raises ZeroDivisionError) exactly
where one of the sizes it lists is 0 or has none itself; it answers as the three walks
it replaced did (``factsatoms.size_divisors``, ``conditions._divides_by_size``,
``quotients._divides``, kept below as they were), also after a pickle round trip (its
atoms' flags, ``Opaque.by_size``, are set anew); :func:`int_divisors` lists what
Python's ``%`` says divides."""

from __future__ import annotations

import itertools
import pickle
import random

import pytest

from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.divisors import by_size, divides, int_divisors, size_divisors
from kantensor.types.poly import Opaque

NAMES = ("a", "b", "c")
POINTS = list(itertools.product(range(4), repeat=len(NAMES)))


def _random_size(rng: random.Random, depth: int):
    """A random size over NAMES: ints, names, sums, products, quotients, remainders,
    min and max (None where the Dim algebra divides by an int 0)."""
    if depth == 0 or rng.random() < 0.25:
        return Dim(rng.choice(NAMES)) if rng.random() < 0.7 else rng.randint(0, 4)
    x, y = _random_size(rng, depth - 1), _random_size(rng, depth - 1)
    if x is None or y is None:
        return None
    op = rng.choice(("+", "-", "*", "//", "%", "min", "max", "//", "%"))
    try:
        if op in ("min", "max"):
            return (dim_min if op == "min" else dim_max)(x, y)
        return {"+": x + y, "-": x - y, "*": x * y}[op] if op in "+-*" else \
            (x // y if op == "//" else x % y)
    except ZeroDivisionError:
        return None


def _sizes(count: int, seed: int) -> list:
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        x = _random_size(rng, rng.randint(1, 4))
        if x is not None:
            found.append(x)
    return found


SIZES = _sizes(400, 20261201)


def _value(x, point: dict) -> int | None:
    """Python's value of the size's text at ``point``, None where it raises."""
    try:
        return eval(str(x), {"min": min, "max": max}, dict(point))  # noqa: S307
    except ZeroDivisionError:
        return None


@pytest.mark.parametrize("chunk", range(8))
def test_a_size_has_no_value_exactly_where_a_listed_divisor_is_zero(chunk):
    for x in SIZES[chunk::8]:
        divisors = size_divisors(x)
        assert by_size(x) == bool(divisors)
        assert all(not isinstance(d, int) for d in divisors), (x, divisors)
        assert len(set(divisors)) == len(divisors), (x, divisors)
        for values in POINTS:
            point = dict(zip(NAMES, values, strict=True))
            undefined = _value(x, point) is None
            listed = any(_value(d, point) in (None, 0) for d in divisors)
            assert undefined == listed, (str(x), point, [str(d) for d in divisors])


# -- the three walks as they were before they had one home (verbatim but for names) -----
def _old_size_divisors(x) -> list:  # types/factsatoms.size_divisors
    return [] if isinstance(x, int) else list(_old_divisors(x._terms))


def _old_divisors(terms: tuple) -> tuple:
    out: dict = {}
    for mono, _ in terms:
        for a, _ in mono:
            if type(a) is Opaque:
                if a.op in ("//", "%") and not isinstance(a.args[1], int):
                    out[a.args[1]] = None
                for arg in a.args:
                    out.update(dict.fromkeys(_old_size_divisors(arg)))
    return tuple(out)


def _old_divides_by_size(terms: tuple) -> bool:  # types/conditions._divides_by_size
    return any(type(a) is Opaque and (a.op in ("//", "%") and not isinstance(a.args[1], int)
                                      or any(not isinstance(arg, int)
                                             and _old_divides_by_size(arg._terms)
                                             for arg in a.args))
               for mono, _ in terms for a, _ in mono)


def _old_divides(diff) -> bool:  # logic/quotients._divides
    return any(isinstance(a, Opaque) and a.op in ("//", "%") for m, _ in diff._terms
               for a, _ in m)


@pytest.mark.parametrize("chunk", range(8))
def test_the_walk_answers_as_the_three_it_replaced(chunk):
    for x in SIZES[chunk::8]:
        if isinstance(x, int):
            continue
        assert size_divisors(x) == _old_size_divisors(x), str(x)
        assert by_size(x) == _old_divides_by_size(x._terms), str(x)
        assert divides(x) == _old_divides(x), str(x)
        back = pickle.loads(pickle.dumps(x))  # (the atoms' by_size flags are made anew)
        assert by_size(back) == by_size(x) and size_divisors(back) == size_divisors(x)


@pytest.mark.parametrize("n", [*range(0, 200), 2**12, 3**7 * 5**3, 10**6 + 3, 999_983 * 2])
def test_int_divisors_are_what_python_says_divides(n):
    assert int_divisors(n) == tuple(d for d in range(1, n + 1) if n % d == 0) \
        if n <= 10**4 else all(n % d == 0 for d in int_divisors(n))
    assert int_divisors(-n) == int_divisors(n)
    if n > 10**4:
        found = int_divisors(n)
        assert list(found) == sorted(set(found))
        small = [d for d in range(1, 1001) if n % d == 0]
        assert [d for d in found if d <= 1000] == small
        assert {n // d for d in small} <= set(found)
