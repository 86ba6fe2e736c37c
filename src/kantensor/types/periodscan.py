"""The least and greatest value, over an interval of its one symbol ``s``, of a size
quasi-linear in ``s``: sums of int multiples of ``s`` and of floors and remainders by
ints of such sizes (``(h + 1)//4 - (h + 3)//4``). Such a size is a linear trend plus a
part of period ``L`` (:func:`period`, the lcm of its divisors' products), so
``x(v + L) - x(v)`` is the same at every ``v`` and its extremes lie within one period
of each end of the interval (:func:`scan`); :mod:`.monotone` asks it of a size that is
not monotone in its symbol.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from functools import lru_cache
from typing import Any

from .pointvalue import Unevaluable as _Unevaluable
from .pointvalue import at as _at
from .pointvalue import terms as _terms
from .poly import Opaque

__all__ = ["MAX_PERIOD", "period", "scan"]


#: The longest period of a size in one symbol that :func:`scan` evaluates (2 periods
#: per question, kept per size and interval: a hostile size costs some ms, not seconds;
#: a stack of strides is far shorter, wav2vec2's 320).
MAX_PERIOD = 1024


def period(x: Any, s: Hashable) -> int | None:
    """A period of ``x`` minus its linear trend when ``x`` is quasi-linear in ``s`` (sums
    of int multiples of ``s`` and of floors and remainders by ints of such sizes); None
    otherwise (a min/max, a product) or past MAX_PERIOD. A floor ``g//k`` of a ``g`` of
    period ``L`` (``g(v + L) = g(v) + t``, ``t`` an int) has period ``L*k``, since
    ``g(v + L*k) = g(v) + t*k``; a sum has the lcm of its terms' periods."""
    terms = _terms(x)
    if isinstance(terms, int):
        return 1
    found = 1
    for mono, c in terms:
        if type(c) is not int:
            return None
        if not mono:
            continue
        if len(mono) > 1 or mono[0][1] != 1:
            return None
        atom = mono[0][0]
        if not isinstance(atom, Opaque):
            continue
        k = atom.args[1]
        if atom.op not in ("//", "%") or type(k) is not int or k <= 0:
            return None
        inner = period(atom.args[0], s)
        if inner is None:
            return None
        found = math.lcm(found, inner * k)
        if found > MAX_PERIOD:
            return None
    return found


def scan(x: Any, s: Hashable, lo: int, hi: int | None) -> tuple | None:
    """The least and greatest value of ``x`` (quasi-linear in its one symbol ``s``) over
    ``lo <= s <= hi``: over one period past each end, since ``x(v + L) - x(v)`` is the
    same at every ``v``; None on a side where ``x`` grows without bound; None if ``x`` is
    not quasi-linear."""
    return _scan_of(_terms(x), s, lo, hi)


@lru_cache(maxsize=1 << 12)
def _scan_of(x: tuple | int, s: Hashable, lo: int, hi: int | None) -> tuple | None:
    length = period(x, s)
    if length is None:
        return None
    try:
        if hi is not None and hi - lo < 2 * length:
            values = [_at(x, s, v) for v in range(lo, hi + 1)]
            return min(values), max(values)
        first = [_at(x, s, v) for v in range(lo, lo + length)]
        step = _at(x, s, lo + length) - first[0]
        last = first if hi is None else [_at(x, s, v) for v in range(hi - length + 1, hi + 1)]
    except _Unevaluable:
        return None
    if step == 0:
        return min(first), max(first)
    if step > 0:
        return min(first), None if hi is None else max(last)
    return (None if hi is None else min(last)), max(first)
