"""Floors and remainders of several sizes over a size and its own digits (a step of
:mod:`.canon`).

A size ``s`` beside its remainder ``s % e`` (and its floor ``s//e``) in the argument of
a floor or remainder by an int ``d`` is a function of the digits ``q = s//e`` and ``r =
s % e`` (``s == e*q + r``), which the Dim algebra does not see: ``(m + 4*(m % 4) + 8*(n %
2))//12 + m//4`` and ``(m + 2*(n % 2))//3`` are equal. Three identities write such atoms
one way:

* *digits folded*: ``a*q + b*r`` (``b != 0``, ``a != 0``) is ``b*s + (a - e*b)*q``, whose
  multiple of ``d`` comes out where ``d`` divides ``a - e*b``: ``(m//4 + m % 4 + 2*(n %
  2))//3`` is ``(m + 2*(n % 2))//3 - m//4`` (where ``a`` is 0, :mod:`.canonunfold`'s
  ``unfolded`` does it);
* *divisor reduced*: where the argument is ``g*B + E`` for a divisor ``g > 1`` of ``d``,
  ``B`` an integer sum and ``E`` a sum of bounded atoms (and the constant's remainder by
  ``g``) that stays in ``0 .. g - 1``, ``A//d`` is ``B//(d/g)`` and ``A % d`` is ``g*(B %
  (d/g)) + E``, because ``0 <= E/g < 1`` never moves ``B/(d/g)`` across an integer. The
  sizes beside their remainders are written over their digits first (``m + 4*(m % 4)`` is
  ``4*(m//4) + 5*(m % 4)``): ``(m + 4*(m % 4) + 8*(n % 2))//12`` is ``(m//4 + m % 4 +
  2*(n % 2))//3``, folded as above. Of the ``g`` that have such an ``E``, the form of
  fewest terms, then shortest text is taken (by 2, not 4: ``(6*n + 4*(m//3) + n % 2 +
  4)//8`` is ``(3*n + 2*(m//3) + 2)//4``);
* *a bounded part by its blocks* (only with ``form``, the canonical form :mod:`.canon`
  passes): where no ``g`` has such an ``E`` but one of one size
  is bounded, ``A//d`` is ``(B + E//g)//(d/g)`` (and ``A % d`` is ``g*((B + E//g) %
  (d/g)) + E % g``), ``E//g`` and ``B``'s part of its size formed together; taken where
  shorter than the size as it is: ``(4*n + 2*((m % 3)//2) + m % 3 + 1)//8`` is ``(2*n +
  m % 3)//4`` (its ``E`` is 1, 2 or 5).

All three are identities at every size (the bounds of ``E`` are those of its atoms'
structure), so the value never changes. The work is bounded: at most
:data:`MAX_BOUNDED` bounded atoms in an argument (each of two coefficients tried),
factors ``g`` up to :data:`MAX_FACTOR`, and :data:`MAX_REWRITES` rewrites of a size (it
stops at a size met before: one the Dim algebra writes back as it was).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable
from functools import lru_cache
from typing import Final

from .dim import DimLike, atom_dim
from .dimdivide import dim_floordiv, dim_mod
from .intervals import interval
from .poly import Opaque, lone_atom
from .readback import atom_symbols, of_terms

__all__ = ["MAX_BOUNDED", "MAX_FACTOR", "MAX_REWRITES", "digits_in"]

Form = Callable[[DimLike], DimLike]

MAX_BOUNDED: Final = 3
"""Most bounded atoms in a floor's argument whose coefficients :func:`_reduced` tries
(``c % g`` and ``c % g - g`` each)."""
MAX_REWRITES: Final = 64
"""Most rewrites :func:`digits_in` makes of one size."""
MAX_FACTOR: Final = 1024
"""Largest common factor of the divisor and the unbounded terms' coefficients whose
divisors ``g`` :func:`_reduced` tries (past it the atom is left as it is)."""


def digits_in(x: DimLike, form: Form | None = None) -> DimLike:
    """``x`` with each floor and remainder by an int ``d > 1`` of several sizes over a
    size's digits written by the identities above; ``x`` itself where none applies."""
    seen: set[tuple] = set()  # (a rewrite the Dim algebra writes back as it was: stop
    while not isinstance(x, int) and x._terms not in seen and len(seen) < MAX_REWRITES:
        seen.add(x._terms)  # at a size met before, or after MAX_REWRITES; each rewrite
        y = _rewritten(x, form)  # is equal to what it rewrites)
        if y is None:
            break
        x = y
    return x


def _rewritten(x: DimLike, form: Form | None) -> DimLike | None:
    """``x`` with its first floor or remainder that :func:`_written` changes rewritten;
    None where none changes."""
    for mono, k in x._terms:
        atom = mono[0][0] if len(mono) == 1 and mono[0][1] == 1 else None
        if not (isinstance(atom, Opaque) and atom.op in ("//", "%")
                and type(atom.args[1]) is int and atom.args[1] > 1
                and not isinstance(atom.args[0], int) and len(atom_symbols(atom)) > 1):
            continue
        found = _written(atom.op, atom.args[0]._terms, atom.args[1], form)
        if found is None or not isinstance(found, int) and found._terms == _one(mono):
            continue
        return x - k * atom_dim(atom) + k * found
    return None


@lru_cache(maxsize=1 << 12)
def _written(op: str, terms: tuple, d: int, form: Form | None) -> DimLike | None:
    """The atom ``A//d`` (``op`` ``"//"``) or ``A % d`` of the argument ``terms``, reduced
    then folded; None where neither applies."""
    arg = of_terms(terms)
    reduced = _reduced(op, arg, d, form)
    if reduced is not None:
        return reduced
    folded = _folded(arg, d)
    if folded is None:
        return None
    return dim_floordiv(folded, d) if op == "//" else dim_mod(folded, d)


def _digits(arg: DimLike) -> list[tuple[Hashable, int, Opaque | None, Opaque | None]]:
    """``(s, e, s//e, s % e)`` for each size ``s`` and int ``e`` whose remainder ``s % e``
    is a term of ``arg`` (its floor, where a term too, else None)."""
    atoms = {mono[0][0]: c for mono, c in arg._terms if mono}
    out = []
    for r in atoms:
        if not (isinstance(r, Opaque) and r.op == "%" and type(r.args[1]) is int
                and r.args[1] > 1 and not isinstance(r.args[0], int)):
            continue
        s = lone_atom(r.args[0]._terms)
        if s is None or isinstance(s, Opaque) or r.args[0]._terms != atom_dim(s)._terms:
            continue
        q = lone_atom(dim_floordiv(atom_dim(s), r.args[1])._terms)
        out.append((s, r.args[1], q if q in atoms else None, r))
    return out


def _folded(arg: DimLike, d: int) -> DimLike | None:
    """``arg`` with ``a*q + b*r`` written ``b*s + (a - e*b)*q`` where ``d`` divides ``a -
    e*b`` (``a``, ``b`` != 0); None where there is none."""
    coefficient = {mono[0][0]: c for mono, c in arg._terms if mono}
    out, changed = arg, False
    for s, e, q, r in _digits(arg):
        if q is None:
            continue
        a, b = coefficient[q], coefficient[r]
        if (a - e * b) % d:
            continue
        out = out - a * atom_dim(q) - b * atom_dim(r) + b * atom_dim(s) + (a - e * b) * atom_dim(q)
        changed = True
    return out if changed else None


def _reduced(op: str, arg: DimLike, d: int, form: Form | None) -> DimLike | None:
    """``B//(d/g)`` (or ``g*(B % (d/g)) + E``) for a divisor ``g`` of ``d`` with ``arg ==
    g*B + E`` (module docstring), the sizes beside their remainders over their digits,
    the floor then folded; of the ``g`` that have one, the form of fewest terms, then
    shortest text (the largest ``g`` is not always it: ``(6*n + 4*(m//3) + n % 2 +
    4)//8`` is ``(3*n + 2*(m//3) + 2)//4`` by 2, ``(3*(n//2) + n % 2 + m//3 + 1)//2``
    by 4). With ``form``, also ``(B + E//g)//(d/g)`` for an ``E`` of one size that is
    no interval below ``g`` (module docstring), and the size as it is; None where no
    ``g > 1`` has one. Over a dict of coefficients: the Dim algebra would fold
    ``e*(s//e) + s % e`` back into ``s``."""
    terms: dict[Hashable, int] = {}
    constant = 0
    for mono, c in arg._terms:
        if not mono:
            constant = c
        elif len(mono) != 1 or mono[0][1] != 1:
            return None
        else:
            terms[mono[0][0]] = c
    for s, e, _, r in _digits(arg):
        c = terms.pop(s, 0)
        if c:  # s == e*(s//e) + s % e
            q = lone_atom(dim_floordiv(atom_dim(s), e)._terms)
            terms[q] = terms.get(q, 0) + c * e
            terms[r] += c
    bounds = {a: interval(atom_dim(a)) if isinstance(a, Opaque) else (0, None) for a in terms}
    bounded = {a: c for a, c in terms.items() if None not in bounds[a]}
    if not bounded or len(bounded) > MAX_BOUNDED:
        return None
    whole = math.gcd(d, *(c for a, c in terms.items() if a not in bounded))
    if whole > MAX_FACTOR:
        return None
    sizes = frozenset().union(*map(atom_symbols, bounded))
    best = None
    for g in range(whole, 1, -1):
        if whole % g:
            continue
        r0 = constant % g
        for choice in itertools.product(*((c % g, c % g - g) for c in bounded.values())):
            ends = [(k * bounds[a][0], k * bounds[a][1]) for k, a in zip(choice, bounded,
                                                                        strict=True)]
            below = r0 + sum(map(min, ends)) >= 0 and r0 + sum(map(max, ends)) <= g - 1
            if not below and (form is None or len(sizes) != 1):
                continue
            left = dict(terms)
            e: DimLike = r0
            for k, a in zip(choice, bounded, strict=True):
                left[a] -= k
                e = e + k * atom_dim(a)
            b: DimLike = (constant - r0) // g  # B: every coefficient left a multiple of g
            for a, c in left.items():
                b = b + c // g * atom_dim(a)
            if not below:  # B + E//g, E's size's part in its form (Hermite's identity
                b = _formed(b + dim_floordiv(e, g), next(iter(sizes)), form)  # may meet B's)
                e = form(dim_mod(e, g))
            if not isinstance(b, int):
                b = _folded(b, d // g) or b  # (before the floor: the Dim algebra writes
            # (m//4 + X)//3 as (m + 4*X)//12)
            out = g * dim_mod(b, d // g) + e if op == "%" else dim_floordiv(b, d // g)
            key = (not below, *_key(out))  # (an E below g first: its floor drops E)
            if best is None or key < best[0]:
                best = key, out
    if best is not None and best[0][0]:  # (only E//g: beside the size as it is, which
        here = dim_floordiv(arg, d) if op == "//" else dim_mod(arg, d)  # may be shorter: (2*n
        if _key(here) <= best[0][1:]:  # + m % 3)//4, not (n + (m % 3)//2)//2)
            return None
    return None if best is None else best[1]


def _key(x: DimLike) -> tuple:
    """Fewest terms, then shortest text (ties by text)."""
    return (0, 0, "") if isinstance(x, int) else (1, len(x._terms), len(str(x)), str(x))


def _formed(x: DimLike, s: Hashable, form: Form) -> DimLike:
    """``x`` with its part of the size ``s`` alone in its form."""
    if isinstance(x, int):
        return x
    part = [(mono, c) for mono, c in x._terms
            if mono and all(atom_symbols(a) == {s} for a, _ in mono)]
    if not part:
        return x
    alone = of_terms(part)
    return x - alone + form(alone)


def _one(mono: tuple) -> tuple:
    """The terms of the size ``1*mono``."""
    return ((mono, 1),)
