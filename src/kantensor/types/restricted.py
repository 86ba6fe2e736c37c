"""Forms of a size on the sizes the facts leave: the multiples of a divisor, the sizes
past a lower bound, the few sizes between two bounds. Each is a change of variable
(``n = k*t``, ``n = j + lo``, ``n = n0 + k*j``) under which the size gets its one form
over all ``t >= 0`` (``j >= 0``; between bounds, over the least extension of its values
there), then written over ``n`` again: so sizes equal wherever those facts hold get one
form (where the caller keeps it)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache
from typing import Final

import numpy as np

from .canon import canonical_form
from .conditions import Condition
from .dim import DimLike, atom_dim, from_poly
from .dimfacts import assume_divisible, remainder_fact
from .poly import Opaque, atom_key, lone_atom
from .prove import bounds
from .quasi import in_fragment, least_table, values
from .quasiform import renderings, table_form
from .symbols import APPLY, free_symbols, rebuild, substitute

__all__ = ["MAX_POINTS", "constants", "equated", "on_multiples", "on_points", "past_lower_bounds"]

MAX_POINTS: Final = 257
"""Most sizes between two bounds whose values decide a form (:func:`on_points`)."""


def constants(atoms: Iterable[Condition]) -> dict:
    """Atoms the facts equate with an int (``n == 3``, ``h//32 == 6``): atom -> value."""
    out = {}
    for c in atoms:
        if c.op != "==":
            continue
        d = c.key[0]
        if isinstance(d, int):
            continue
        terms = d._terms
        if len(terms) > 2 or (len(terms) == 2 and terms[1][0]):
            continue
        mono, coeff = terms[0]
        if len(mono) != 1 or mono[0][1] != 1:
            continue
        const = terms[1][1] if len(terms) == 2 else 0
        if const % coeff == 0:
            out[mono[0][0]] = -const // coeff
    return out


def equated(x: DimLike, atoms: frozenset, triples: Callable[[], tuple]) -> DimLike:
    """``x`` with each size the facts order both ways against another plus an int
    (``m <= n`` and ``n <= m``; ``m <= k <= n <= m``) written as that one: of each class
    of sizes so equated, the first by name stands for all, so sizes equal by those facts
    get one form. A size one fact equates with another keeps its name (``x @ x`` needs
    ``D == N`` and its type keeps both)."""
    if isinstance(x, int) or not _ordered(atoms):  # (the facts' triples made only then)
        return x
    found = _equated(atoms, triples())
    if not found:
        return x
    present = free_symbols(x)
    mapping = {s: atom_dim(r) + c for s, (r, c) in found.items() if s in present}
    try:
        return substitute(x, mapping) if mapping else x
    except ZeroDivisionError:  # a divisor the facts make 0 (c//(n - m) where m is n):
        return x  # nowhere defined, kept as is


#: Most sizes in facts that order two sizes whose pairs :func:`_equated` asks the prover.
MAX_ORDERED: Final = 8


@lru_cache(maxsize=256)
def _ordered(atoms: frozenset) -> dict[frozenset, int]:
    """How many facts order each pair of sizes (a fact between two sizes, not ``==``)."""
    seen: dict[frozenset, int] = {}
    for c in atoms:
        named = c.symbols()
        if len(named) == 2 and c.op not in ("==", "!="):
            seen[named] = seen.get(named, 0) + 1
    return seen


@lru_cache(maxsize=256)
def _equated(atoms: frozenset, triples: tuple) -> dict[Hashable, tuple[Hashable, int]]:
    """``{s: (r, c)}``: ``s == r + c`` wherever the facts hold, ``r`` the first size of
    its class, for the sizes in facts that order two sizes (every pair of them up to
    :data:`MAX_ORDERED`, else the pairs two facts order), by the prover's bounds of
    their difference (kept per set of facts)."""
    seen = _ordered(atoms)
    ordered = sorted(frozenset().union(*seen), key=atom_key)
    pairs = itertools.combinations(ordered, 2) if len(ordered) <= MAX_ORDERED else \
        sorted((sorted(p, key=atom_key) for p, k in seen.items() if k > 1),
               key=lambda p: list(map(atom_key, p)))
    root: dict[Hashable, tuple[Hashable, int]] = {}

    def find(s: Hashable) -> tuple[Hashable, int]:
        r, c = root.get(s, (s, 0))
        if r == s:
            return r, c
        top, k = find(r)
        return top, c + k

    for s, t in pairs:
        (rs, cs), (rt, ct) = find(s), find(t)  # s == rs + cs, t == rt + ct
        if rs == rt:
            continue
        lo, hi = bounds(triples, atom_dim(t) - atom_dim(s))
        if lo is None or lo != hi:
            continue
        if atom_key(rs) <= atom_key(rt):  # t == s + lo: rt == rs + cs + lo - ct
            root[rt] = (rs, cs + lo - ct)
        else:
            root[rs] = (rt, ct - lo - cs)
    return {s: find(s) for s in root}


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
    y = canonical_form(substitute(x, {s: atom_dim(s) + lo for s, lo in lows.items()}))
    return canonical_form(substitute(y, {s: atom_dim(s) - lo for s, lo in lows.items()}))


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
        return frozenset(free_symbols(atom_dim(atom)))
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
    y = canonical_form(substitute(x, {s: k * atom_dim(quotients[s]) for s, k in steps.items()}))
    back = substitute(y, {q: atom_dim(s) // steps[s] for s, q in quotients.items()})
    # k divides n for the lcm k of the facts' divisors of n: 6*(n//6) is n
    lcms = [atom_dim(s) % k for s, k in steps.items()]
    ways = [canonical_form(assume_divisible(back, [*zeros, *lcms]))]
    over = {q: (s, steps[s]) for s, q in quotients.items()}
    lone = next(iter(quotients.values())) if len(quotients) == 1 else None
    alone = lone is not None and not isinstance(y, int) and free_symbols(y) == {lone}
    for form in [y, *(renderings(y, lone) if alone else ())]:
        read = _read(form, over)  # (y's table's renderings, each read: 2*t - (t + 2)
        if read is not None:  # % 3 + 2 is n + n % 3 for n == 2*t)
            ways.append(canonical_form(read))
    return min(ways, key=lambda w: (len(str(w)), str(w)))


def _read(y: DimLike, quotients: dict) -> DimLike | None:
    """``y`` (over the quotients ``t = n/k``) read over the rationals at ``t = n/k``: the
    size of ``n`` equal to ``y(n/k)`` wherever ``k`` divides ``n`` (``2*min(3, t)`` is
    ``min(6, n)``, ``t + t//2`` is ``n//2`` for ``k == 3``: the terms that are not ints
    at every ``n`` go into the first floor ``c*floor(a/d)``, ``c`` 1 or -1, beside them:
    ``c*floor(a/d) + f == c*floor((a + c*d*f)/d)``); None where ``y`` has products or
    powers."""
    if isinstance(y, int):
        return y
    read = [(c, mono, _value(from_poly({mono: 1}) if mono else 1, quotients))
            for mono, c in y._terms]
    if any(r is None for _, _, r in read):
        return None
    apart = [(c * num, q) for c, _, (num, q) in read if q > 1]
    whole = [c * num for c, _, (num, q) in read if q == 1]
    if not apart:
        return sum(whole[1:], whole[0])
    num, q = _together(apart)
    for at, (c, mono, _) in enumerate(read):
        atom = mono[0][0] if len(mono) == 1 else None
        if c in (1, -1) and isinstance(atom, Opaque) and atom.op == "//":
            a, d = _value(atom.args[0], quotients), atom.args[1]
            if a is None:
                return None
            inner, common = _together([a, (c * d * num, q)])
            whole[at - sum(r[2][1] > 1 for r in read[:at])] = c * (inner // (d * common))
            break
    else:
        whole.append(num // q)
    return sum(whole[1:], whole[0])


def _value(x: DimLike, quotients: dict) -> tuple[DimLike, int] | None:
    """``(num, q)`` with ``x == num/q`` at ``t = n/k``; None at a product or power."""
    if isinstance(x, int):
        return x, 1
    parts = []
    for mono, c in x._terms:
        if not mono:
            parts.append((c, 1))
            continue
        if len(mono) != 1 or mono[0][1] != 1:
            return None
        found = _read_atom(mono[0][0], quotients)
        if found is None:
            return None
        parts.append((c * found[0], found[1]))
    return _together(parts)


def _read_atom(atom: Hashable, quotients: dict) -> tuple[DimLike, int] | None:
    if not isinstance(atom, Opaque):
        s, k = quotients.get(atom, (atom, 1))
        return atom_dim(s), k
    args = [_value(g, quotients) if i == 0 or atom.op in ("min", "max") else (g, 1)
            for i, g in enumerate(atom.args)]
    if any(a is None for a in args):
        return None
    if atom.op in ("//", "%") and type(atom.args[1]) is int and atom.args[1] > 0:
        (num, q), d = args[0], atom.args[1]
        if atom.op == "//":
            return num // (d * q), 1
        if math.gcd(q, d) == 1:  # num/q == num*r (mod d) for r*q == 1 (mod d)
            return (num * pow(q, -1, d)) % d, 1  # (t % 3 is n % 3 for n == 4*t)
        return num % (d * q), q
    if atom.op in ("min", "max"):
        common = math.lcm(*(q for _, q in args))
        return APPLY[atom.op](*(num * (common // q) for num, q in args)), common
    return None


def _together(parts: list[tuple[DimLike, int]]) -> tuple[DimLike, int]:
    """``num/q`` equal to the sum of the ``num_i/q_i``."""
    common = math.lcm(*(q for _, q in parts)) if parts else 1
    total: DimLike = 0
    for num, q in parts:
        total = total + num * (common // q)
    return total, common


def on_points(x: DimLike, s: Hashable, points: Sequence[int]) -> DimLike:
    """``x`` (a size of ``s`` alone) formed from its values at ``points``, the sizes of
    ``s`` the facts leave between two bounds (a superset of them), where those are ``n0 +
    k*j`` for ``j = 0 .. W``: the values ``v(j)`` are extended past ``W`` by the least
    threshold ``T`` and period ``L`` (least ``T + L``, then least ``T``) with ``v(j + L) -
    v(j)`` one int for ``T <= j <= W - L``, that extension gets its one form in ``j``
    (:func:`.quasiform.table_form`), and ``j`` is ``(n - n0)//k`` again. So sizes equal
    at those points get one form (``max(4, n) % 2`` and ``max(0, n - 2*(n//3) - 2)`` under
    ``n <= 7``); ``x`` where the points are too many or no form is found."""
    if isinstance(x, int) or not points or len(points) > MAX_POINTS:
        return x
    if not in_fragment(x, s):
        floored = _floored(x)  # (an exact quotient n/2 the facts' n % 2 == 0 made: at the
        if floored is x or not in_fragment(floored, s):  # points that hold, n//2)
            return x
        return on_points(floored, s, points)
    n0, k = points[0], (points[1] - points[0] if len(points) > 1 else 1)
    if any(b - a != k for a, b in zip(points, points[1:], strict=False)):
        return x
    at = np.array(points)
    v = values(x, at)
    if len(v) == 1:
        return int(v[0])
    found = _extension(v)
    if found is None:
        return x
    threshold, period = found
    last = len(v) - 1
    g = [int(a) for a in v]
    while len(g) < threshold + 2 * period + 1:
        g.append(g[-period] + int(v[last] - v[last - period]))
    j = _Quotient(f"({s} - {n0})/{k}")
    form = table_form(least_table(np.array(g[: threshold + 2 * period + 1]), threshold,
                                  period), j)
    if form is None:
        return x
    out = substitute(form + g[0], {j: (atom_dim(s) - n0) // k})
    if k > 1 and not isinstance(out, int):  # k divides n - n0: 3*(n//3) is n
        out = assume_divisible(out, [(atom_dim(s) - n0) % k])
    out = canonical_form(out)
    if not isinstance(out, int) and not in_fragment(out, s):
        out = canonical_form(_floored(out))  # (j an exact quotient n/3: n//3 at the
        # points, in the fragment: sizes equal there get one form, n//3 or not)
    if isinstance(out, int) or not in_fragment(out, s) or (values(out, at) != v).any():
        return x  # never changes a value at the points
    return out


def _floored(x: DimLike) -> DimLike:
    """``x`` with each exact quotient by an int (``n/2``, made under ``n % 2 == 0``)
    written as a floor, which it equals wherever it is exact (and which is how an exact
    quotient of ints is computed); ``x`` itself where it has none."""
    if isinstance(x, int) or not _has_exact(x):
        return x
    return rebuild(x, lambda a: APPLY["//" if a.op == "/" and type(a.args[1]) is int
                                     else a.op](*map(_floored, a.args))
                   if isinstance(a, Opaque) else None)


def _has_exact(x: DimLike) -> bool:
    return not isinstance(x, int) and any(
        isinstance(a, Opaque) and (a.op == "/" or any(map(_has_exact, a.args)))
        for mono, _ in x._terms for a, _ in mono)


def _extension(v: np.ndarray) -> tuple[int, int] | None:
    """The least ``(T, L)`` (least ``T + L``, then least ``T``) with ``v[j + L] - v[j]``
    one int for ``T <= j <= W - L`` (``W = len(v) - 1``, ``T + L <= W``)."""
    best = None
    last = len(v) - 1
    for period in range(1, last + 1):
        d = v[period:] - v[:-period]
        same = d == d[-1]
        threshold = len(d) - 1
        while threshold and same[threshold - 1]:
            threshold -= 1
        key = (threshold + period, threshold, period)
        if best is None or key < best:
            best = key
    return None if best is None else best[1:]
