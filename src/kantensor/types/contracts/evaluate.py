"""Size expressions as Python functions of their symbols' values.

A contract evaluates its conditions at many points (``holds``, ``solutions``, the
searches of :mod:`.univariate`); :func:`substitute` re-canonicalises a Dim at every call,
so each expression is turned once into nested closures over its canonical terms (no
code is generated) that compute Python's ints.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from functools import lru_cache

from ..conditions import Condition
from ..dim import DimLike
from ..poly import Opaque

__all__ = ["Values", "condition_holds", "evaluator"]

#: The values of symbols (names, unknowns' keys) an evaluator reads.
Values = Mapping[Hashable, int]


def evaluator(x: DimLike) -> Callable[[Values], int]:
    """A function of the symbols' values computing ``x`` (KeyError for a symbol without
    a value; ZeroDivisionError for a division by a size that is 0)."""
    if isinstance(x, int):
        return lambda _values, _x=x: _x
    return _terms(x._terms)


def condition_holds(c: Condition, values: Values) -> bool:
    """Whether the condition ``c`` holds at the symbols' ``values``: not where it
    divides by a size that is 0 there (it has no value)."""
    d, op = c.key
    try:
        v = evaluator(d)(values)
    except ZeroDivisionError:
        return False
    return v == 0 if op == "==" else v != 0 if op == "!=" else v >= 0 if op == ">=" \
        else v > 0


@lru_cache(maxsize=1 << 12)
def _terms(terms: tuple) -> Callable[[Values], int]:
    parts = []
    for mono, c in terms:
        factors = tuple((_atom(a), p) for a, p in mono)
        parts.append((c, factors))
    parts_t = tuple(parts)

    def value(values: Values) -> int:
        total = 0
        for c, factors in parts_t:
            term = c
            for f, p in factors:
                v = f(values)
                term *= v if p == 1 else v ** p
            total += term
        return total
    return value


def _atom(a: Hashable) -> Callable[[Values], int]:
    if not isinstance(a, Opaque):
        return lambda values, _a=a: values[_a]
    args = tuple(evaluator(g) for g in a.args)
    op = a.op
    if op == "min":
        return lambda values: min(f(values) for f in args)
    if op == "max":
        return lambda values: max(f(values) for f in args)
    num, den = args
    if op == "%":
        return lambda values: num(values) % den(values)
    return lambda values: num(values) // den(values)  # "//", and "/" (exact by its facts)
