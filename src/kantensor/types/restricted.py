"""Forms of a size on the sizes the facts leave: the multiples of a divisor, the sizes
past a lower bound. Each is a change of variable (``n = k*t``, ``n = j + lo``) under
which the size gets its one form over all ``t >= 0`` (``j >= 0``), then written over
``n`` again: so sizes equal wherever those facts hold get one form (where the caller
keeps it)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from functools import lru_cache

from .canon import canonical_form
from .conditions import Condition
from .dim import DimLike, _symbol
from .dimfacts import assume_divisible, remainder_fact
from .poly import Opaque, lone_atom
from .symbols import free_symbols, substitute

__all__ = ["on_multiples", "past_lower_bounds"]


def past_lower_bounds(x: DimLike, atoms: Iterable[Condition]) -> DimLike:
    """``x`` formed as a function of ``j = n - lo`` where a fact says ``n >= lo`` (``lo
    >= 1``, ``n`` a size ``x`` has inside a min or max): ``x(j + lo)``
    gets its form in ``j``, then ``j`` is ``n - lo`` again and the whole is formed
    (``min(2, k//2 + 1)`` and ``min(2, k)`` are one under ``k >= 1``); ``x`` where no
    such fact is about its sizes."""
    if isinstance(x, int) or not any(isinstance(a, Opaque) for mono, _ in x._terms
                                     for a, _ in mono):
        return x
    inside = _inside(x)
    if not inside:
        return x
    lows = {s: lo for s, lo in _lows(frozenset(atoms)).items() if s in inside}
    if not lows:
        return x
    y = canonical_form(substitute(x, {s: _symbol(s) + lo for s, lo in lows.items()}))
    return canonical_form(substitute(y, {s: _symbol(s) - lo for s, lo in lows.items()}))


@lru_cache(maxsize=256)
def _lows(atoms: frozenset) -> dict[Hashable, int]:
    """``{n: lo}`` for the facts ``n >= lo`` (or ``n > lo - 1``) with ``lo >= 1``, the
    greatest of each size (kept per set of facts: asked of every size simplified)."""
    lows: dict[Hashable, int] = {}
    for c in atoms:
        if c.op not in (">=", ">"):
            continue
        d = c.key[0]
        if isinstance(d, int) or len(d._terms) != 2 or d._terms[1][0]:
            continue
        symbol = lone_atom(d._terms[:1])
        lo = -d._terms[1][1] + (c.op == ">")
        if symbol is not None and not isinstance(symbol, Opaque) and lo > lows.get(symbol, 0):
            lows[symbol] = lo
    return lows


def _inside(x: DimLike) -> set:
    """The sizes inside ``x``'s min and max (at any depth). Only they can make sizes
    equal past a bound and not below it: floors and remainders of linear forms are
    quasi-affine from 0 (no threshold), so two that agree past ``lo`` agree everywhere
    and already have one form."""
    found: set = set()
    for mono, _ in x._terms:
        for a, _ in mono:
            if isinstance(a, Opaque):
                found |= _extremes(a)
    return found


@lru_cache(maxsize=1 << 12)
def _extremes(atom: Opaque) -> frozenset:
    if atom.op in ("min", "max"):
        return frozenset(free_symbols(_symbol(atom)))
    return frozenset().union(*(_inside(g) for g in atom.args if not isinstance(g, int)))


class _Quotient:
    """The size ``t`` with ``n == k*t`` where a fact says ``k`` divides the size ``n``."""

    def __init__(self, name: str):
        self.name = name

    def __str__(self) -> str:
        return self.name


def on_multiples(x: DimLike, zeros: list) -> DimLike:
    """``x`` formed as a function of ``t = n/k`` where the facts say ``k`` divides the
    size ``n`` (``n % k == 0``): ``x(k*t)`` gets its form in ``t`` (the one form of its
    function on the multiples of ``k``: ``(n + 1)//2 + n//2`` is ``n`` under ``n % 2 ==
    0``), then ``t`` is ``n/k`` again; ``x`` where no such fact is about its sizes. The
    caller keeps the shorter of this and the form as simplified (``3*((n + 4)//6) +
    n//2`` is ``n + n % 3`` written over ``t``), so sizes equal only on the multiples
    get one form where that one is no longer than theirs."""
    if isinstance(x, int):
        return x
    steps: dict[Hashable, int] = {}
    for zero in zeros:
        found = remainder_fact(zero)
        if found is None or isinstance(found[0], int) or found[1] < 2:
            continue
        atom = lone_atom(found[0]._terms)
        if atom is not None and not isinstance(atom, Opaque) and atom in free_symbols(x):
            steps[atom] = math.lcm(steps.get(atom, 1), found[1])
    if not steps:
        return x
    quotients = {s: _Quotient(f"{s}/{k}") for s, k in steps.items()}
    y = canonical_form(substitute(x, {s: k * _symbol(quotients[s]) for s, k in steps.items()}))
    back = substitute(y, {q: _symbol(s) // steps[s] for s, q in quotients.items()})
    # k divides n for the lcm k of the facts' divisors of n: 6*(n//6) is n
    lcms = [_symbol(s) % k for s, k in steps.items()]
    return canonical_form(assume_divisible(back, [*zeros, *lcms]))
