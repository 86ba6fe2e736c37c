"""Conditions on a product of factors over disjoint sizes, decided by its factors' bounds.

A Flatten or Reshape after a stack of windows asks ``3*((H + 3)//4 - 1)*((W + 3)//4 - 1)
>= 0``; its terms, multiplied out, are neither monotone in ``H`` nor linear, so the
prover leaves it open even where the windows' own conditions (``H >= 5``, ``W >= 5``)
make each factor at least 1. Bounding each factor alone and multiplying the intervals
decides it: the product's least and greatest values lie among the products of its
factors' bounds. Sound whatever the bounds are, as long as each one holds: an interval
that is too wide only leaves the question open.

:func:`factors` finds such a product (the home of that split: contracts split their
conditions by it too). A factor may itself hide one: torch's ``x.view(N, -1)`` after
windows asks ``N*(min(1, P) - 1) == 0`` with ``P = 3*((H + 3)//4 - 1)*((W + 3)//4 -
1)``, which holds where ``P >= 1``; :func:`parts_bounds` bounds a min or max by its
arguments and a product by its factors, a few levels down, and :func:`decided` is what
:meth:`~kantensor.types.facts.Facts.decide` asks where its prover leaves a product open.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

from .dim import Dim, DimLike, atom_dim, from_poly
from .poly import Opaque
from .symbols import free_symbols

__all__ = ["decided", "decided_by_interval", "factors", "parts_bounds", "product_interval"]


# -- products ----------------------------------------------------------------------------
def _groups(atoms: Iterable[Hashable]) -> dict[Hashable, frozenset]:
    """Each atom's group: the sizes it names, joined with those of the atoms sharing one."""
    parent: dict[Hashable, Hashable] = {}

    def find(x: Hashable) -> Hashable:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x
    named = {a: (free_symbols(atom_dim(a)) if isinstance(a, Opaque) else frozenset({a}))
             for a in atoms}
    for syms in named.values():
        first = next(iter(syms), None)
        for s in syms:
            parent[find(s)] = find(first)
    members: dict[Hashable, set] = {}
    for s in list(parent):
        members.setdefault(find(s), set()).add(s)
    return {a: frozenset(members[find(next(iter(syms)))]) if syms else frozenset()
            for a, syms in named.items()}


def factors(d: DimLike) -> tuple[int, list[DimLike], int] | None:
    """``(k, [f1, f2, ...], r)`` with ``d == k*f1*f2*... + r``, each factor over its own
    sizes (two or more factors, each with a positive leading coefficient and coprime
    ones), or None when ``d`` is no such product plus an int."""
    if isinstance(d, int):
        return None
    groups = _groups({a for mono, _ in d._terms for a, _ in mono})
    keys = sorted(set(groups.values()), key=lambda g: sorted(map(str, g)))
    if len(keys) < 2 or frozenset() in keys:
        return None
    first = d._terms[0][0]
    fs: list[DimLike] = []
    for g in keys:
        rest0 = tuple((a, p) for a, p in first if groups[a] != g)
        if not rest0:
            return None  # the leading term is over one group only: no product
        part: dict = {}
        for mono, c in d._terms:
            if tuple((a, p) for a, p in mono if groups[a] != g) == rest0:
                own = tuple((a, p) for a, p in mono if groups[a] == g)
                part[own] = part.get(own, 0) + c
        g_cd = math.gcd(*part.values())
        f = from_poly({m: c // g_cd for m, c in part.items()})
        if isinstance(f, int):
            return None
        if f._terms[0][1] < 0:
            f = -f
        fs.append(f)
    product: DimLike = 1
    for f in fs:
        product = product * f
    if isinstance(product, int):
        return None
    k, r = divmod(d._terms[0][1], product._terms[0][1])
    residual = d - product * k
    if r or not isinstance(residual, int):
        return None
    return k, fs, residual


Bound = int | float  # an int, or -inf / inf for a side not bounded
_INF = math.inf


def _times(a: Bound, b: Bound) -> Bound:
    """``a * b`` over the extended integers, with ``0 * inf == 0`` (each side is the
    bound of a finite value: a factor that is exactly 0 makes the product 0)."""
    if a == 0 or b == 0:
        return 0
    return a * b  # an int times an int stays an exact int; inf carries its sign


def product_interval(k: int, factors: Sequence[DimLike], r: int,
                     bounds: Callable[[DimLike], tuple[int | None, int | None]]
                     ) -> tuple[int | None, int | None]:
    """The least and greatest value of ``k*f1*f2*... + r`` given each factor's bounds
    (``bounds(f)``: least and greatest, None where not bounded); None: not bounded."""
    lo: Bound = k
    hi: Bound = k
    for f in factors:
        f_lo, f_hi = bounds(f)
        ends = (-_INF if f_lo is None else f_lo, _INF if f_hi is None else f_hi)
        corners = [_times(x, y) for x in (lo, hi) for y in ends]
        lo, hi = min(corners), max(corners)
    low = None if lo == -_INF else int(lo) + r
    high = None if hi == _INF else int(hi) + r
    return low, high


def decided_by_interval(op: str, low: int | None, high: int | None) -> bool | None:
    """What ``d op 0`` (op one of ``== != >= >``) is where ``low <= d <= high``: True or
    False when every value in the interval answers alike, else None."""
    if op == ">=":
        return True if low is not None and low >= 0 else (
            False if high is not None and high < 0 else None)
    if op == ">":
        return True if low is not None and low > 0 else (
            False if high is not None and high <= 0 else None)
    never_zero = (low is not None and low > 0) or (high is not None and high < 0)
    only_zero = low == 0 and high == 0
    if op == "==":
        return False if never_zero else (True if only_zero else None)
    if op == "!=":
        return True if never_zero else (False if only_zero else None)
    return None


#: How many levels of min/max and products :func:`parts_bounds` looks through.
MAX_PARTS_DEPTH = 3

Bounds = Callable[[DimLike], tuple[int | None, int | None]]


def parts_bounds(bounds: Bounds, split: Callable[[DimLike], Any],
                 depth: int = MAX_PARTS_DEPTH) -> Bounds:
    """``bounds`` (the facts' least and greatest value of a size expression) narrowed,
    where it leaves a side open, by the expression's parts: ``k*f1*f2*... + r`` (as
    ``split`` finds it: a product of factors over disjoint sizes) by its factors' bounds,
    ``c*min(a, b, ...) + r`` and ``c*max(...) + r`` by their arguments' (each of those
    narrowed alike, ``depth`` levels down). Sound where ``bounds`` is: each side is a
    bound of every value the parts take."""
    def narrowed(x: DimLike, level: int) -> tuple[int | None, int | None]:
        lo, hi = bounds(x)
        if level <= 0 or isinstance(x, int) or (lo is not None and hi is not None):
            return lo, hi
        def below(f: DimLike) -> tuple[int | None, int | None]:
            return narrowed(f, level - 1)
        found = split(x)
        if found is not None:
            k, fs, r = found
            plo, phi = product_interval(k, fs, r, below)
        else:
            plo, phi = _extreme(x, below)
        return (plo if lo is None else lo if plo is None else max(lo, plo),
                phi if hi is None else hi if phi is None else min(hi, phi))
    return lambda x: narrowed(x, depth)


def _extreme(x: Dim, bounds: Bounds) -> tuple[int | None, int | None]:
    """The bounds of ``c*op(args) + r`` (``op`` min or max) from its arguments'; (None,
    None) for any other expression."""
    terms = x._terms
    lead = [(mono, c) for mono, c in terms if mono]
    rest = [c for mono, c in terms if not mono]
    if len(lead) != 1 or len(lead[0][0]) != 1 or lead[0][0][0][1] != 1:
        return None, None
    atom, c = lead[0][0][0][0], lead[0][1]
    if not isinstance(atom, Opaque) or atom.op not in ("min", "max"):
        return None, None
    ends = [(a, a) if isinstance(a, int) else bounds(a) for a in atom.args]
    los, his = [e[0] for e in ends], [e[1] for e in ends]
    if atom.op == "min":
        lo = None if None in los else min(los)
        hi = min((h for h in his if h is not None), default=None)
    else:
        lo = max((v for v in los if v is not None), default=None)
        hi = None if None in his else max(his)
    if c < 0:
        lo, hi = hi, lo
    r = sum(rest)
    return (None if lo is None else c * lo + r, None if hi is None else c * hi + r)


def decided(d: DimLike, op: str, bounds: Bounds) -> bool | None:
    """``d op 0`` decided by the bounds of its factors' parts (:func:`parts_bounds` of
    the facts' ``bounds``) where ``d`` is a product of factors over disjoint sizes (plus
    an int); None otherwise, or where they leave it open."""
    split = factors(d)
    if split is None:
        return None
    k, fs, r = split
    return decided_by_interval(op, *product_interval(k, fs, r, parts_bounds(bounds, factors)))
