"""Divisors, in one place: the sizes a size divides by, and the divisors of an int.

A size's quotients and remainders (``n // m``, ``n % (m - 1)``) divide by their second
argument; where a divisor that is no int is 0 the size has no value (Python's ``//``
raises), so the facts, the conditions and the solver all ask which sizes a size divides
by. One walk answers them (:func:`size_divisors`, :func:`by_size`, :func:`divides`);
:func:`int_divisors` lists the divisors of an int (integer roots, quotients that a
remainder leaves, periods and moduli are among them).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from .poly import Opaque, terms_by_size

__all__ = ["by_size", "divides", "dropped", "int_divisors", "size_divisors", "spare"]


def size_divisors(x: Any) -> list:
    """The sizes ``x`` divides by (a quotient's or remainder's divisor that is no int), at
    any depth, each once, outermost first: where one is 0, ``x`` is not defined."""
    return [] if isinstance(x, int) or not terms_by_size(x._terms) \
        else list(_size_divisors(x._terms))


def dropped(result: Any, *operands: Any) -> list | None:
    """The sizes the ``operands`` divide by that ``result`` (a size made of them) does not:
    where one is 0 the operands have no value, yet ``result`` may have one. None where no
    operand divides by a size (nothing to keep, nor to :func:`spare`)."""
    # the common case: no operand divides by a size (one flag read each, in a loop:
    # asked of every Dim operator's result)
    for x in operands:
        if not isinstance(x, int) and terms_by_size(x._terms):
            break
    else:
        return None
    kept = set(size_divisors(result))
    return [v for v in dict.fromkeys(v for x in operands for v in size_divisors(x))
            if v not in kept]


def spare(terms: tuple) -> tuple:
    """``terms`` (a canonical polynomial) without each kept ``c*(0//v)`` or ``c*(0 % v)``
    term whose ``v`` the other terms divide by: they have no value where ``v`` is 0, so
    the term is 0 wherever the size has a value and says nothing more (``(j % i) % 4``
    taken apart and read back was ``(j % i) % 4 + 0//i``). ``terms`` itself where none
    is."""
    for t in terms:
        mono = t[0]
        if len(mono) == 1 and _kept_zero(mono[0][0]):
            rest = tuple(u for u in terms if u is not t)
            if mono[0][0].args[1] in _size_divisors(rest):
                return spare(rest)
    return terms


def _kept_zero(atom: Any) -> bool:
    """Whether an atom is a kept ``0//v`` or ``0 % v`` (``v`` no int)."""
    return type(atom) is Opaque and atom.op in ("//", "%") and type(atom.args[0]) is int \
        and atom.args[0] == 0 and not isinstance(atom.args[1], int)


def by_size(x: Any) -> bool:
    """Whether ``x`` has a quotient or remainder by a size, at any depth (its atoms' flags,
    :attr:`kantensor.types.poly.Opaque.by_size`: no walk, no cache look-up)."""
    return not isinstance(x, int) and terms_by_size(x._terms)


def divides(x: Any) -> bool:
    """Whether one of ``x``'s own atoms (not one inside another atom) is a quotient or a
    remainder, by an int or a size."""
    return not isinstance(x, int) and next(_divisions(x._terms, deep=False), None) is not None


@lru_cache(maxsize=1 << 14)  # (asked of every symbolic output size a direct build makes)
def _size_divisors(terms: tuple) -> tuple:
    return tuple(dict.fromkeys(d for d in _divisions(terms, deep=True)
                               if not isinstance(d, int)))


def _divisions(terms: tuple, deep: bool) -> Iterator[Any]:
    """The divisor of each quotient and remainder among the atoms of a size's terms (the
    canonical polynomial), and with ``deep`` of those inside their arguments, each
    atom's own before its arguments'."""
    for mono, _ in terms:
        for a, _ in mono:
            if type(a) is Opaque:
                if a.op in ("//", "%"):
                    yield a.args[1]
                if deep:
                    for arg in a.args:
                        if not isinstance(arg, int):
                            yield from _divisions(arg._terms, deep)


@lru_cache(maxsize=1024)
def int_divisors(n: int) -> tuple[int, ...]:
    """The divisors ``d >= 1`` of ``|n|``, ascending (none for 0), by trial division up to
    its square root."""
    n = abs(n)
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return tuple(small + [n // d for d in reversed(small) if d * d != n])
