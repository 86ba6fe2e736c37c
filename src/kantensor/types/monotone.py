"""Questions over sizes monotone in each symbol (or quasi-linear in one), under facts
that each bound one symbol: decided exactly by evaluating over the box the facts make.

A stack of strided windows (``(h + 3)//8 - 1 >= 1`` after ``(h + 1)//2 - 3 >= 1``) asks
only such questions: every fact is a size nondecreasing (or nonincreasing) in its one
symbol compared with a constant, so the sizes it allows are an interval of that symbol,
found by bisection; the facts together allow a box, and a size monotone in each symbol
takes its least and greatest values over the box at two of its corners; a size of one
symbol made of multiples, floors and remainders by ints (``(h + 1)//4 - (h + 3)//4``) is
a linear trend plus a part of period ``L`` (the lcm of the divisors), so its extremes are
within one period of the ends of the symbol's interval (:mod:`.periodscan`). That answers
:func:`kantensor.types.prove.proves` and :func:`~kantensor.types.prove.bounds` exactly,
without the case splits and eliminations of Fourier–Motzkin, whenever it applies;
``None`` says it does not (a fact over two symbols, a remainder, an unbounded side the
question needs), and the prover answers instead."""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from functools import lru_cache
from typing import Any

from .intervals import interval, nonnegative_atom
from .periodscan import scan
from .pointvalue import Unevaluable as _Unevaluable
from .pointvalue import at as _at
from .pointvalue import terms as _terms
from .pointvalue import value as _value
from .poly import Opaque, window_form

__all__ = ["bounds", "box_of", "decided", "narrowed", "proves"]

UP, DOWN, FLAT = 1, -1, 0
#: The largest size a bisection looks at (past it a side is unbounded).
LIMIT = 1 << 62

Box = dict[Hashable, tuple[int, int | None]]  # symbol -> (least, greatest or None)
NO_SIZES: Box = {}  # the facts allow no sizes (a distinct object: ``is`` tells it)


def _symbols(x: Any, out: set) -> set:
    terms = _terms(x)
    if isinstance(terms, int):
        return out
    for mono, _ in terms:
        for atom, _ in mono:
            if isinstance(atom, Opaque):
                for g in atom.args:
                    _symbols(g, out)
            else:
                out.add(atom)
    return out


def _atom_direction(atom: Hashable, s: Hashable) -> int | None:
    if not isinstance(atom, Opaque):
        return UP if atom == s else FLAT
    ways = [_direction(g, s) for g in atom.args]
    if atom.op in ("//", "/"):
        k = atom.args[1]
        if type(k) is int and k > 0:
            return ways[0]
        return FLAT if ways == [FLAT, FLAT] else None
    if atom.op in ("min", "max"):
        moving = {w for w in ways if w != FLAT}
        if None in moving or len(moving) > 1:
            return None
        return moving.pop() if moving else FLAT
    return FLAT if all(w == FLAT for w in ways) else None  # a remainder


def _direction(x: Any, s: Hashable) -> int | None:
    """UP if ``x`` is nondecreasing in ``s`` (the others fixed), DOWN if nonincreasing,
    FLAT if it does not depend on it, None if not shown."""
    terms = _terms(x)
    if isinstance(terms, int):
        return FLAT
    return _terms_direction(terms, s)


@lru_cache(maxsize=1 << 14)
def _terms_direction(terms: tuple, s: Hashable) -> int | None:
    total = FLAT
    for mono, c in terms:
        way = FLAT
        for atom, p in mono:
            a = _atom_direction(atom, s)
            if a is None:
                return None
            if a == FLAT:
                continue
            if way not in (FLAT, a) or (len(mono) > 1 or p > 1) and not all(
                    nonnegative_atom(b) for b, _ in mono):
                return None  # a product (or power) of factors that move apart or may be
                # negative: min(1, a - 1)**2 falls, then rises
            way = a
        way = -way if c < 0 else way
        if way != FLAT:
            if total not in (FLAT, way):
                return None
            total = way
    return total


def _least(g: Any, s: Hashable, sign: int = 1) -> int | None:
    """The least size ``v`` with ``g(v) >= 0`` (``g`` nondecreasing in ``s``), or with
    ``sign`` -1, ``g(v) <= -1`` (``g`` nonincreasing); None: none up to LIMIT - 1.
    Searched from where ``g``'s trend crosses (:func:`_start`; a few evaluations for a
    stack of windows), else from 0 by doubling steps; bisected within the bracket."""
    def fits(v: int) -> bool:
        value = _at(g, s, v)
        return value >= 0 if sign > 0 else value <= -1

    found = _window_least(_terms(g), s, sign)
    if found is not _SEARCH:
        return found
    start = _start(g, s, sign)
    if start is not None and fits(start):  # the least is at most start: step down
        hi, step = start, 1
        while True:
            lo = hi - step
            if lo <= 0:
                if fits(0):
                    return 0
                lo = 0
                break
            if not fits(lo):
                break
            hi, step = lo, 2 * step
    else:  # step up, from start (which does not fit) or from 0
        lo = 0 if start is None else start
        if start is None and fits(0):
            return 0
        step = 1
        while True:
            hi = lo + step
            if hi > LIMIT - 1:
                hi = LIMIT - 1
                if hi <= lo or not fits(hi):
                    return None
                break
            if fits(hi):
                break
            lo, step = hi, 2 * step
    while hi - lo > 1:  # fits(hi), not fits(lo)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    return hi


_SEARCH = object()  # (_window_least: no closed form, search)


def _window_least(g: tuple | int, s: Hashable, sign: int) -> int | None | object:
    """:func:`_least` in closed form where ``g`` is ``k*((s + t)//d) + c`` or ``k*s + c``
    (:func:`~.poly.window_form`) with ``sign*k > 0``: ``K*F + C >= 0`` (``K = sign*k``; ``C =
    c``, or ``-c - 1`` for ``g <= -1``) holds from ``F >= m = ceil(-C/K)`` on, and ``(s +
    t)//d >= m`` from ``s = m*d - t`` on. _SEARCH for any other ``g``."""
    form = window_form(g)
    if form is None or form[0] != s or sign * form[1] <= 0:
        return _SEARCH
    return _form_least(form, sign)


def _form_least(form: tuple, sign: int) -> int | None:
    _, k, d, t, c = form
    least = max(0, -((c if sign > 0 else -c - 1) // (sign * k)) * d - t)
    return least if least <= LIMIT - 1 else None


def _start(g: Any, s: Hashable, sign: int) -> int | None:
    """Where the trend of ``g`` (:func:`_trend`) meets the bound :func:`_least` looks
    for: the size to search from, in ``[0, LIMIT)`` (a guess, in floating point: the
    search checks it); None where ``g`` has no trend of the right sign (its atoms other
    than floors and remainders by ints)."""
    try:
        trend = _trend(g, s)
        if trend is None:
            return None
        slope, intercept = trend
        if sign < 0:  # -g(v) - 1 >= 0
            slope, intercept = -slope, -intercept - 1
        if not slope > 0:
            return None
        start = max(0, math.ceil(-intercept / slope))
    except (OverflowError, ValueError):  # past a float's range
        return None
    return start if start < LIMIT else None


def _trend(x: Any, s: Hashable) -> tuple[float, float] | None:
    """``(slope, intercept)`` with ``x(v)`` near ``slope*v + intercept``: each floor by
    an int taken as the exact quotient, each remainder as the middle of its range; None
    where ``x`` has another atom (a min/max, a product, a quotient by a size)."""
    terms = _terms(x)
    if isinstance(terms, int):
        return 0.0, float(terms)
    slope = intercept = 0.0
    for mono, c in terms:
        if not mono:
            intercept += c
            continue
        if len(mono) != 1 or mono[0][1] != 1:
            return None
        atom = mono[0][0]
        if not isinstance(atom, Opaque):
            if atom != s:
                return None
            slope += c
            continue
        k = atom.args[1]
        if atom.op not in ("//", "%") or type(k) is not int or k <= 0:
            return None
        inner = _trend(atom.args[0], s)
        if inner is None:
            return None
        if atom.op == "//":
            slope += c * inner[0] / k
            intercept += c * inner[1] / k
        else:
            intercept += c * (k - 1) / 2
    return slope, intercept


def _half(g: Any, s: Hashable) -> tuple[int, int | None] | None:
    """The sizes ``v`` of ``s`` with ``g(v) >= 0`` (``g`` a size over ``s`` alone) as an
    interval; ``(1, 0)`` if none; None if ``g`` is not monotone or cannot be evaluated.
    Kept per size: a stack's facts come back in every larger set of facts."""
    return _half_of(_terms(g), s)


@lru_cache(maxsize=1 << 12)
def _half_of(g: tuple | int, s: Hashable) -> tuple[int, int | None] | None:
    way = _direction(g, s)
    try:
        if way == UP:
            lo = _least(g, s)
            return (1, 0) if lo is None else (lo, None)
        if way == DOWN:  # g(v) >= 0 up to the first v where g(v) <= -1
            first = _least(g, s, -1)
            return (0, None) if first is None else (0, first - 1) if first > 0 else (1, 0)
    except _Unevaluable:
        return None
    return None


@lru_cache(maxsize=1 << 12)
def box_of(facts: tuple, partial: bool = False) -> Box | None:
    """The box of sizes ``facts`` (triples) allow, each fact over one symbol and monotone
    in it; ``NO_SIZES`` if they allow none; None if a fact is not of that kind, or with
    ``partial`` the box of the facts (and sides) that are, a superset of what all allow."""
    return narrowed({}, facts, partial)


def narrowed(box: Box, facts: Iterable[tuple], partial: bool = False) -> Box | None:
    """:func:`box_of` of ``box``'s facts and ``facts`` (``box`` itself unchanged): a
    grown :class:`~kantensor.types.facts.Facts` narrows its parent's box."""
    box = dict(box)
    for fact in facts:
        for part in _fact_parts(fact):
            if part is None and partial:
                break  # (this fact left out: the box only grows)
            if part is None or part is NO_SIZES:
                return part
            s, half = part
            lo, hi = box.get(s, (0, None))
            lo = max(lo, half[0])
            hi = half[1] if hi is None else (hi if half[1] is None else min(hi, half[1]))
            if hi is not None and lo > hi:
                return NO_SIZES
            box[s] = (lo, hi)
    return box


#: Per comparison, the sides ``sign*d - shift >= 0`` that ``d op 0`` is made of.
_SIDES = {">=": ((1, 0),), ">": ((1, 1),), "<=": ((-1, 0),), "<": ((-1, 1),),
          "==": ((1, 0), (-1, 0))}


@lru_cache(maxsize=1 << 12)
def _fact_parts(fact: tuple) -> tuple:
    """What one fact (a triple) says for :func:`_box`, in order: ``(symbol, interval)``
    per side it bounds, ending at the first ``NO_SIZES`` (a side no size meets) or None
    (not over one symbol, or not monotone in it). Kept per fact: a stack's facts come
    back in every larger set of facts (each new set made its box anew)."""
    left, op, right = fact
    d = left if type(right) is int and right == 0 else left - right
    out: list = []
    sides = _SIDES[op]  # (each a sign and a shift: d - 1 >= 0 for d > 0)
    for g in [d if sign == 1 and not shift else sign * d - shift for sign, shift in sides]:
        if isinstance(g, int):
            if g < 0:
                out.append(NO_SIZES)
                break
            continue
        form = window_form(_terms(g))
        if form is not None and form[1] > 0:  # (a window's size, rising in its one
            least = _form_least(form, 1)  # symbol: what _half finds, its least in closed
            out.append((form[0], (1, 0) if least is None else (least, None)))  # form,
            continue  # without the walks for its symbols and its trend)
        symbols = _symbols(g, set())
        if len(symbols) != 1:
            out.append(None)
            break
        (s,) = symbols
        half = _half(g, s)
        if half is None:
            out.append(None)
            break
        out.append((s, half))
    return tuple(out)


def _scanned(box: Box, x: Any, symbols: set) -> tuple | None:
    """:func:`_extremes` of a size of one symbol not monotone in it, by :func:`.periodscan.scan`."""
    if len(symbols) != 1:
        return None
    (s,) = symbols
    lo, hi = box.get(s, (0, None))
    found = scan(x, s, lo, hi)
    if found is None:
        return None
    far = None if hi is not None else _value(x, {s: LIMIT})  # shows an unbounded side
    return (*found, far, far)


_LAST: tuple = (None, None, None, False)  # the last box, size, extremes, low_only


def _extremes(box: Box, x: Any, low_only: bool = False) -> tuple | None:
    """``(least, greatest, far_least, far_greatest)`` of ``x`` over ``box``: the least and
    greatest value (None where not found), and ``x`` at the corners whose unbounded
    sides are LIMIT (a point of the box: a counterexample where the goal fails there);
    None if ``x`` is neither quasi-linear in its one symbol nor monotone in each. With
    ``low_only``, where ``x`` is monotone in each symbol, the greatest sides are None (not
    looked for: ``x >= 0`` asks only the least). The last answer is kept: a question
    the facts leave open is asked both ways (``d >= 0``, then ``d < 0``) of the same box
    and size."""
    global _LAST
    last = _LAST
    if last[0] is box and last[1] is x and (low_only or not last[3]):
        return last[2]
    found = _extremes_of(box, x, low_only)
    _LAST = (box, x, found, low_only)
    return found


def _extremes_of(box: Box, x: Any, low_only: bool) -> tuple | None:
    symbols = _symbols(x, set())
    low, high = {}, {}
    for s in symbols:
        way = _direction(x, s)
        if way is None:  # not monotone: one period at each end, if of one symbol
            return _scanned(box, x, symbols)
        lo, hi = box.get(s, (0, None))
        low[s], high[s] = (lo, hi) if way != DOWN else (hi, lo)
    least, far_least = _corners(x, low)
    greatest, far_greatest = (None, None) if low_only else _corners(x, high)
    return least, greatest, far_least, far_greatest


def _corners(x: Any, corner: dict) -> tuple[int | None, int | None]:
    """``x`` at ``corner`` (None: a side unbounded), and with those sides LIMIT."""
    if None not in corner.values():
        found = _value(x, corner)
        return found, found
    return None, _value(x, {k: LIMIT if v is None else v for k, v in corner.items()})


def proves(facts: tuple, goal: tuple, partial: bool = False) -> bool | None:
    """Whether ``goal`` (a triple) holds wherever ``facts`` do, decided over their box;
    None where this path does not apply, or a side the goal needs is unbounded and the
    goal holds at the far corner. With ``partial``, over the box of the facts that make
    one (wav2vec2's lengths beside a reshape's fact over two sizes): True where the goal
    holds there, else None (the facts left out may rule its failing points out)."""
    box = box_of(facts, partial)
    if box is None:
        return None
    if box is NO_SIZES:
        return True
    if partial:
        return decided(box, goal) or None
    return decided(box, goal)


def decided(box: Box, goal: tuple) -> bool | None:
    """:func:`proves` over ``box`` (a :func:`box_of`)."""
    left, op, right = goal
    found = _extremes(box, left if type(right) is int and right == 0 else left - right,
                      op in (">=", ">"))  # (a fact's or a question's d op 0: d itself)
    if found is None:
        return None
    least, greatest, far_least, far_greatest = found
    if op in (">=", ">", "=="):
        need = 1 if op == ">" else 0
        if least is None:
            return False if far_least is not None and far_least < need else None
        if least < need:
            return False
        if op != "==":
            return True
    need = -1 if op == "<" else 0
    if greatest is None:
        return False if far_greatest is not None and far_greatest > need else None
    return greatest <= need


def bounds(facts: tuple, x: Any) -> tuple[int | None, int | None] | None:
    """The least and greatest value of ``x`` wherever ``facts`` hold (``(1, 0)``: they
    allow nothing; None on a side not found there: ``x``'s bound by its structure
    alone, :func:`~kantensor.types.intervals.interval`); None where this path does not
    apply or it finds neither side."""
    box = box_of(facts)
    if box is None:
        return None
    if box is NO_SIZES:
        return 1, 0
    found = _extremes(box, x)
    if found is None or found[0] is None and found[1] is None:
        return None
    least, greatest = found[:2]
    if least is None or greatest is None:
        lo, hi = interval(x)
        least = lo if least is None else least
        greatest = hi if greatest is None else greatest
    return least, greatest
