"""The one form of a quasi-affine size of one symbol, chosen from its table alone.

A size of one symbol ``n`` in the fragment of :mod:`kantensor.types.quasi` has a table
(least threshold ``T``, least period ``L``, increments); two sizes are equal at every
``n >= 0`` iff their tables are, so a form made from the table alone is one form per
function. Where ``T == 0`` it is the sparsest sum ``a*n + c1*((n + s1)//d1) + ...`` with
those increments (a floor beside ``n`` may read as a remainder), of fewest terms, then
of shortest text; where the search finds none of one or two floors, a bounded size may
also be a remainder of one (:mod:`kantensor.types.quasimod`: ``(n + n//4) % 4``), and
where none is found at all, the sum of one floor by ``L`` per residue whose increment
differs from the most frequent one (:func:`_combs`). Past a threshold it
is the first of these that has the table:

1. the min or max of the late sum (what the size is from ``T`` on) and the early one
   (its first ``T`` increments, or its first ``T - 1``, repeated; the shorter text):
   ``max(5, n)``, ``min(64, n)``, ``min(5, 2*n)``;
2. constant before ``T``: the late sum at ``max(n, T)`` (``max(7, n) % 3``);
3. the min or max of the late sum and a sum ``g`` of a period of at most
   :data:`MAX_OTHER_PERIOD` that is the size wherever the size is not the late sum
   (``max(n % 3, n//3)``, ``min(n, 3*(n % 2))``);
4. the late sum plus the difference until ``T`` at ``min(n, T)`` (``min(6, n) % 4``,
   ``3*n + 3*(min(5, n) % 4)``): every table past a threshold has it, where the
   difference has a form of at most :data:`MAX_SPLIT_FLOORS` floors.

Of 3 and 4, the shorter text (then by text).

Each step depends on the table alone, so the form does. The work is bounded
(:data:`MAX_PIECE_PERIOD`, :data:`MAX_PIECE_THRESHOLD`, :data:`MAX_OTHER_PERIOD`); past
it no form is given (the caller keeps the size as built).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Final

import numpy as np

from .dim import Dim, DimLike, atom_dim
from .dimdivide import dim_floordiv, dim_mod
from .dimminmax import dim_max, dim_min
from .poly import Opaque, lone_atom
from .quasi import Table, fits, in_fragment, table, values
from .quasimod import remainder_forms
from .symbols import substitute

__all__ = ["MAX_COMB_PERIOD", "MAX_OTHER_PERIOD", "MAX_PIECE_PERIOD", "MAX_PIECE_THRESHOLD",
           "MAX_SPLIT_FLOORS", "one_symbol_form", "renderings", "table_form"]

MAX_PIECE_PERIOD: Final = 64
"""Longest period of a size with a threshold that is given a form."""
MAX_PIECE_THRESHOLD: Final = 256
"""Latest threshold of a size with a threshold that is given a form."""
MAX_OTHER_PERIOD: Final = 12
"""Longest period of the other argument ``g`` searched for (step 3)."""
MAX_COMB_PERIOD: Final = 16
"""Longest period written by one floor per residue where no sparse fit is found
(:func:`_combs`: up to that many floors; past it no form)."""
MAX_SPLIT_FLOORS: Final = 2
"""Most floors and remainders of the difference of step 4 (past it: no form, rather
than a long one)."""


def one_symbol_form(p: Dim, s: Hashable) -> tuple[DimLike, int] | None:
    """``(form, constant)`` with ``p == form + constant`` and ``form`` 0 at ``s = 0``, the
    form chosen from ``p``'s table alone; None where no form is found (past the limits,
    or the sums of step 4 have no form)."""
    found = table(p)
    if found is None:
        return None
    form = table_form(found, s)
    return None if form is None else (form, found[2])


def renderings(p: Dim, s: Hashable) -> list[DimLike]:
    """Every rendering of the sparsest fits of ``p``'s table where it has no threshold
    (each floor also as a remainder where it can be): a set made from the table alone."""
    found = table(p) if in_fragment(p, s) else None
    if found is None or found[0]:
        return []
    return [f + found[2] for slope, combs in fits(found[3])
            for f in _renderings(atom_dim(s), slope, combs)]


def table_form(found: Table, s: Hashable) -> DimLike | None:
    """The form, 0 at ``s = 0``, of the size of ``s`` with this table (least threshold
    and period); None where no form is found."""
    threshold, period, _, increments = found
    n = atom_dim(s)
    if not threshold:
        form = _render(n, increments)
    else:
        form = _piecewise(n, threshold, period, increments)
    if form is None:
        return None
    steps = [*increments, *increments[threshold:]]  # to threshold + 2*period
    want = np.concatenate(([0], np.cumsum(steps)))
    if not (values(form, np.arange(len(want))) == want).all():
        return None  # never happens by construction; never change a value if it does
    return form


def _render(n: Dim, increments: tuple[int, ...]) -> DimLike | None:
    """The form, 0 at 0, of the quasi-affine size with these periodic increments (one
    least period): the shortest text among the renderings of its sparsest fits."""
    best: tuple[int, int, str, DimLike] | None = None
    found = [f for slope, combs in fits(increments) for f in _renderings(n, slope, combs)]
    if not found or min(_floors(f) for f in found) > 2:  # no fit of one or two floors:
        found += remainder_forms(n, increments)  # a remainder of one, if bounded
    for form in found:
        terms = 0 if isinstance(form, int) else len(form._terms)
        key = (terms, len(str(form)), str(form), form)
        if best is None or key[:3] < best[:3]:
            best = key
    return _combs(n, increments) if best is None else best[3]


def _combs(n: Dim, increments: tuple[int, ...]) -> DimLike | None:
    """The writing of these increments (one least period ``L``, at most
    :data:`MAX_COMB_PERIOD`) where no sparse fit has them: ``a*n + sum((c_s - a)*((n +
    s)//L))``, ``c_s`` the increment at ``n == L - 1 - s (mod L)``, ``a`` the most
    frequent of them (then the least). The floors ``(n + s)//L`` count each residue's
    steps, so this sum is the one of its kind with the table ((n + n//4) % 4)."""
    period = len(increments)
    if period > MAX_COMB_PERIOD:
        return None
    a = min(increments, key=lambda c: (-increments.count(c), c))
    total: DimLike = a * n
    for s in range(period):
        c = increments[period - 1 - s] - a
        if c:
            total = total + c * dim_floordiv(n + s, period)
    return total


def _least(increments: list[int]) -> tuple[int, ...]:
    """One least period of periodic increments."""
    size = len(increments)
    for p in range(1, size + 1):
        if size % p == 0 and all(increments[m] == increments[m % p] for m in range(size)):
            return tuple(increments[:p])
    return tuple(increments)


def _repeated(steps: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """The shortest start of ``steps`` that, repeated, gives them all."""
    for p in range(1, len(steps) + 1):
        if all(steps[m] == steps[m + p] for m in range(len(steps) - p)):
            return tuple(steps[:p])
    return tuple(steps)


def _piecewise(n: Dim, threshold: int, period: int, increments: tuple[int, ...]
               ) -> DimLike | None:
    """A size 0 at 0, quasi-affine from ``threshold`` on, by the steps of the module
    docstring; None if none of them has its table."""
    if period > MAX_PIECE_PERIOD or threshold > MAX_PIECE_THRESHOLD:
        return None
    late = [increments[threshold + (m - threshold) % period] for m in range(period)]
    values_ = [0]
    for v in increments:
        values_.append(values_[-1] + v)
    blocks = -(-threshold // period)  # the late piece at 0: back from a whole period
    at = blocks * period
    late_start = values_[threshold] + sum(
        late[m % period] for m in range(threshold, at)) - blocks * sum(late)
    early_inc = increments[:threshold]
    late_form = _render(n, tuple(late))
    if late_form is None:
        return None
    want = (threshold, period, 0, increments)
    late_size = late_form + late_start
    firsts = []  # step 1: the early sum repeats the first T steps, or the first T - 1
    for early in {_repeated(early_inc), _repeated(early_inc[:-1] or early_inc)}:
        early_form = _render(n, early)  # (the step into T may be the min's or max's:
        if early_form is None:  # min(5, 2*n) is not min(5, 2*n - n//3))
            continue
        for pick in (dim_min, dim_max):
            form = _factored(pick, late_size, early_form)
            if not isinstance(form, int) and table(form) == want:
                firsts.append(form)
    if firsts:
        return min(firsts, key=lambda f: (len(str(f)), str(f)))
    if not any(early_inc) and not isinstance(late_size, int):  # step 2: clamped
        form = substitute(late_size, {lone_atom(n._terms): dim_max(n, threshold)})
        if not isinstance(form, int) and table(form) == want:
            return form
    other = _other(n, want, values_, late, late_start, late_size)  # step 3
    split = None  # step 4: the late sum, and the difference until the threshold
    gap = _render(n, _repeated([early_inc[m] - late[m % period] for m in range(threshold)]))
    if gap is not None and _floors(gap) <= MAX_SPLIT_FLOORS:
        split = late_form + substitute(gap, {lone_atom(n._terms): dim_min(n, threshold)})
        if isinstance(split, int) or table(split) != want:
            split = None
    found = [f for f in (other, split) if f is not None]
    return min(found, key=lambda f: (len(str(f)), str(f))) if found else None


def _factored(pick, a: DimLike, b: DimLike) -> DimLike:
    """``pick(a, b)`` with the common factor of their terms out: ``4*min(2, n)``, not
    ``min(8, 4*n)`` (so that ``(m + min(8, 4*n)) % 4`` is ``m % 4``)."""
    g = math.gcd(*(c for x in (a, b) for c in ((x,) if isinstance(x, int)
                                               else (c for _, c in x._terms))))
    return pick(a, b) if g < 2 else g * pick(a // g, b // g)


def _floors(x: DimLike) -> int:
    return 0 if isinstance(x, int) else sum(isinstance(a, Opaque) for m, _ in x._terms
                                            for a, _ in m)


def _other(n: Dim, want: tuple, values_: list[int], late: list[int], late_start: int,
           late_size: DimLike) -> DimLike | None:
    """``min(late, g)`` or ``max(late, g)`` with the table ``want``, for the first ``g``
    of period ``q <= MAX_OTHER_PERIOD`` (then by its step per period): ``g`` is the size
    wherever the size is not the late sum, and past it (below it for a max, above for a
    min) elsewhere, by as little as it can be; None where none is."""
    threshold, period = want[0], want[1]
    window = threshold + 2 * math.lcm(period, MAX_OTHER_PERIOD) + 1
    f = list(values_)
    for m in range(len(f), window):  # the size past its table: the late sum's steps
        f.append(f[-1] + late[(m - 1) % period])
    lv = values(late_size, np.arange(window))
    for pick, sign in ((dim_min, -1), (dim_max, 1)):
        gap = [sign * (f[m] - int(lv[m])) for m in range(window)]
        if min(gap) < 0 or not any(gap):
            continue  # the late sum is not on the right side, or the size is it
        fixed = [m for m in range(window) if gap[m] > 0]
        for q in range(1, MAX_OTHER_PERIOD + 1):
            for step in _steps(fixed, f, q):
                g = _greatest(f, fixed, q, step, sign, window)
                if g is None:
                    continue
                rendered = _render(n, _least([g[m + 1] - g[m] for m in range(q)]))
                if rendered is None:
                    continue
                form = _factored(pick, late_size, rendered + g[0])
                if not isinstance(form, int) and table(form) == want:
                    return form
    return None


def _steps(fixed: list[int], f: list[int], q: int) -> list[int]:
    """The steps per period ``q`` a ``g`` through the fixed points may have: the one two
    of them in one residue give, else 0, 1 and -1."""
    first: dict[int, int] = {}
    for m in fixed:
        r = m % q
        if r in first and m != first[r]:
            d, k = f[m] - f[first[r]], (m - first[r]) // q
            return [d // k] if d % k == 0 else []
        first.setdefault(r, m)
    return [0, 1, -1]


def _greatest(f: list[int], fixed: list[int], q: int, step: int, sign: int, window: int
              ) -> list[int] | None:
    """``g`` at ``0 .. q`` with period ``q`` and ``step``: the size at the fixed points,
    elsewhere as near the size as it may be on its side (``g <= f`` for a max, ``>=`` for
    a min); None where the fixed points disagree."""
    base: list[int | None] = [None] * q
    for m in fixed:
        v = f[m] - step * (m // q)
        r = m % q
        if base[r] is not None and base[r] != v:
            return None
        base[r] = v
    for r in range(q):
        if base[r] is None:
            bound = [sign * (f[m] - step * (m // q)) for m in range(r, window, q)]
            base[r] = sign * min(bound)
    return [base[m % q] + step * (m // q) for m in range(q + 1)]  # type: ignore[operator]


def _renderings(n: Dim, slope: int, combs: tuple) -> list[DimLike]:
    """``slope*n + sum(c*((n + d - 1 - r)//d))``, and each floor whose coefficient is a
    multiple of ``-d`` also as a remainder: ``-e*d*((n + s)//d) == e*((n + s) % d) -
    e*n - e*s``."""
    out: list[DimLike] = []
    for mask in range(1 << len(combs)):
        total: DimLike = 0
        a = slope
        for i, (c, d, r) in enumerate(combs):
            shift = d - 1 - r
            if mask >> i & 1:
                if c % d:
                    break
                e = -c // d
                total = total + e * dim_mod(n + shift, d) - e * shift
                a -= e
            else:
                total = total + c * dim_floordiv(n + shift, d)
        else:
            out.append(total + a * n)
    return out
