"""Sizes that a size over several sizes depends on only through bounded parts (a step
of :mod:`.canon`).

Where a size ``s`` appears in ``x`` (over other sizes too) only in parts of ``s`` alone
that are bounded (``min(1, m % 4)``, ``(m % 4)//2``, ``m % 3 - m % 2``), inside atoms over
several sizes, ``x`` depends on ``s`` only through those parts' values, which repeat
with period ``L`` past a threshold ``T`` (:func:`.quasi.table`). So ``x`` is
``x(0, rest) + x(s, 0) - x(0, 0)`` wherever, at each ``s = t`` in ``0 .. T + L - 1``, the
forms of ``x(t, rest)`` and ``x(0, rest)`` differ by an int (that int is their difference
at every size of the rest, so at ``rest = 0`` too): ``x`` is then written as the form of
``x(0, rest)`` plus a size of ``s`` alone, which :mod:`.canon` writes in its one form.
So ``(w + v + min(w + 1, n - 1) + 1)//2 - v - 1`` for ``w = min(1, m % 4)`` and ``v =
min(w, n - 2)`` is 0 (the lattice takes ``m % 4`` as free, and it is 0 only at the
values ``w`` takes).

An identity at every size (each form is one; the cases checked are all the values the
parts take); the work is bounded by :data:`MAX_CASES` forms per size.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Final

from .dim import DimLike
from .poly import Opaque
from .quasi import in_fragment, table
from .readback import atom_symbols, by_int, has_opaque, of_terms
from .symbols import free_symbols, substitute

__all__ = ["MAX_CASES", "periodic_out"]

MAX_CASES: Final = 16
"""Most values of a size (its parts' threshold plus period) whose forms are compared."""


def periodic_out(x: DimLike, form: Callable[[DimLike], DimLike]) -> DimLike:
    """``x`` written as above for the first size (by name) it depends on only through
    bounded parts inside atoms over several sizes; ``x`` itself where there is none or
    the forms do not differ by ints."""
    if isinstance(x, int) or not has_opaque(x):
        return x
    found = _periodic(x._terms, form)
    return x if found is None else found


@lru_cache(maxsize=1 << 12)
def _periodic(terms: tuple, form: Callable[[DimLike], DimLike]) -> DimLike | None:
    """:func:`periodic_out` of the size of ``terms``, None where it is itself (kept per
    terms: each pass of :mod:`.canon` asks again, and each asks up to MAX_CASES forms)."""
    symbols = sorted(free_symbols(of_terms(terms)), key=str)
    if len(symbols) < 2:
        return None
    x = of_terms(terms)
    for s in symbols:
        cases = _cases(terms, s)
        if cases is None:
            continue
        try:
            base = form(substitute(x, {s: 0}))
            if all(isinstance(form(substitute(x, {s: t})) - base, int) for t in range(1, cases)):
                rest = {r: 0 for r in symbols if r != s}
                return base + substitute(x, rest) - substitute(x, {**rest, s: 0})
        except ZeroDivisionError:  # a divisor of the other sizes is 0 where they are
            continue  # (``min(1, b % c)`` at ``c == 0``): x is not written so for ``s``
    return None


@lru_cache(maxsize=1 << 12)
def _cases(terms: tuple, s: Hashable) -> int | None:
    """``T + L`` (at most :data:`MAX_CASES`) where ``s`` appears in the size of ``terms``
    only in bounded parts (threshold ``T``, period ``L`` together), one of them inside
    an atom over several sizes at least; None where it does not."""
    found = _shape(terms, s, False)
    if found is None or not found[2]:
        return None
    cases = found[0] + found[1]
    return cases if cases <= MAX_CASES else None


def _shape(terms: tuple, s: Hashable, inside: bool) -> tuple[int, int, bool] | None:
    """``(T, L, inside an atom over several sizes)`` of the parts of ``s`` in ``terms``
    and in its atoms' arguments, where all are bounded; None where one is not, or ``s``
    is in a product or an atom other than a floor or remainder by an int, a min or max."""
    threshold, period, deep = 0, 1, False
    alone = []
    for mono, c in terms:
        if not mono:
            continue
        symbols = frozenset().union(*(atom_symbols(a) for a, _ in mono))
        if s not in symbols:
            continue
        if len(mono) != 1 or mono[0][1] != 1:
            return None
        if symbols == {s}:
            alone.append((mono, c))
            deep = deep or inside
            continue
        atom = mono[0][0]
        if not (isinstance(atom, Opaque) and (atom.op in ("min", "max") or (
                atom.op in ("//", "%") and by_int(atom, atom.op)))):
            return None
        for g in atom.args:
            if isinstance(g, int):
                continue
            found = _shape(g._terms, s, True)
            if found is None:
                return None
            threshold, period = max(threshold, found[0]), math.lcm(period, found[1])
            deep = deep or found[2]
    if alone:
        part = of_terms(alone)
        if isinstance(part, int) or not in_fragment(part, s) or (found := table(part)) is None:
            return None
        t, length, _, increments = found
        if sum(increments[t:t + length]):
            return None  # (not bounded)
        threshold, period = max(threshold, t), math.lcm(period, length)
        if threshold + period > MAX_CASES:
            return None
    return threshold, period, deep
