"""Conditions in the plainest form that says the same of every size ``>= 0``.

A build states what it needs as the relation made it: ``D*N == 3*N*(D//3)`` for a
reshape, ``T**2 - T*min(32, T + 3) + 2*T + min(32, T + 3) - 3 == 0`` for a broadcast
``(T - 1)*(T - min(32, T + 3) + 3) == 0``, ``max(1, K)*min(1, K)`` for an index that
broadcasts. :func:`tidy` gives a conjunction of clauses equivalent to one clause at
*every* assignment of sizes ``>= 0`` (no fact assumed: ``N`` may be 0, so the first
reads ``N == 0 or D % 3 == 0``; the second ``T == 1 or T <= 29``, that is ``T <= 29``;
the third ``K``):

- sizes in their plainest form (:func:`~kantensor.types.tidysize.tidy_size`:
  ``max(1, K)*min(1, K)`` is ``K``);
- an equation ``m*q == 0`` with a common factor is ``x == 0`` for one of ``m``'s factors
  or ``q == 0``; a root ``s = 1`` of a polynomial in a size ``s`` is split off the
  same way; ``x - k*(x//k) == 0`` is ``x % k == 0``; an equation linear in one atom is
  solved for it (``min(2, L) == 2`` is ``L >= 2``; ``min(32, T + 3) == T`` is
  ``T == 32``);
- a bound ``g*m + c >= 0`` is ``m >= ceil(-c/g)``, and a product of sizes at least 1 is
  each of them at least 1; a bound linear in one size is a bound of that size;
- a condition on ``min(1, a, b)`` (0 or 1) is said in its two cases where that reads
  plainer: ``D == max(D, N)*min(1, D, N)`` (index arrays broadcast, 0 wins) is
  ``(N >= 1 and D >= N) or D == 0``.

A clause decided for every size is dropped when it always holds, kept as it was when
it never does.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable
from fractions import Fraction
from functools import lru_cache

from .conditions import AnyOf, Clause, Condition, Source, expand
from .dim import Dim, DimLike, atom_dim
from .facts import EMPTY
from .factsatoms import nonzero, size_divisors
from .intervals import nonnegative, nonnegative_atom
from .poly import Opaque, atom_key, divide
from .readback import of_terms
from .symbols import APPLY, free_symbols, rebuild, substitute
from .tidysize import tidy_size

__all__ = ["plain", "tidy"]

_MAX_CASES = 16  # the cases a disjunction may have after tidying, at most


# -- conditions --------------------------------------------------------------------------

def tidy(clause: Clause) -> tuple[Clause, ...]:
    """Clauses whose conjunction holds exactly where ``clause`` does, at every sizes
    ``>= 0`` (see the module); ``()`` when it always holds. Each keeps its source."""
    sides = (clause.left, clause.right) if isinstance(clause, Condition) else \
        tuple((c.left, c.right) for case in clause.cases for c in case)
    return _tidy(clause, clause.source, sides)


@lru_cache(maxsize=1 << 12)
def _tidy(clause: Clause, source: Source | None, sides: tuple) -> tuple[Clause, ...]:
    """:func:`tidy`, remembered by the clause, its source and its sides (a clause
    compares by its key, without its source and sides: the same one from another line is
    tidied with that line's, and ``n//k == n//k`` is not ``a == a``: it needs ``k >= 1``)."""
    del source, sides  # in the key only
    if isinstance(clause, Condition):
        return _defined(clause, _condition(clause))
    cases: list[tuple[Condition, ...]] = []
    for case in clause.cases:
        parts = [_defined(c, _condition(c)) for c in case]
        expanded = _distribute([x for part in parts for x in part])
        if expanded is None:
            return (clause,)
        for conj in expanded:
            if not conj:
                return ()  # a case always holds: so does the clause
            if conj not in cases:
                cases.append(conj)
    if not cases:
        return (clause,)
    return _disjunction(cases, clause)


def _defined(c: Condition, tidied: tuple[Clause, ...]) -> tuple[Clause, ...]:
    """``tidied`` with each size ``c`` divides by stated nonzero where tidying changed it:
    ``c`` holds nowhere a divisor is 0 (it has no value there), which its plainer cases
    need not say (``a == min(1, a//a)`` read as ``(a//a >= 1 and a == 1) or a == 0``
    held at ``a == 0``)."""
    if tidied == (c,):
        return tidied
    needs = _needs(c)
    return needs + tuple(x for x in tidied if x not in needs)


def _distribute(clauses: list[Clause]) -> list[tuple[Condition, ...]] | None:
    """The conjunction ``clauses`` as cases (a disjunction of conjunctions); None if
    they would be too many."""
    options = [[(c,)] if isinstance(c, Condition) else list(c.cases) for c in clauses]
    if math.prod(len(o) for o in options) > _MAX_CASES:
        return None
    out = []
    for choice in itertools.product(*options):
        conj = tuple(dict.fromkeys(c for case in choice for c in case))
        if not any(EMPTY.decide(c) is False for c in conj) and conj not in out:
            out.append(conj)
    return out


def _condition(c: Condition, depth: int = 0) -> tuple[Clause, ...]:
    found = _plainer(c)
    unit = _unit(c) if depth < 2 else None
    if unit is None:
        return found
    split = _split(c, unit, depth)  # min(1, a, b) is 1 where a, b >= 1, else 0
    if split is None:
        return found
    plain_sizes = not any(_unit(x) for x in _atoms(split))  # no min(1, ...) left
    better = _length(split) <= 2 * _length(found) if plain_sizes else \
        _length(split) < _length(found)
    return split if better else found


def _atoms(clauses: tuple[Clause, ...]) -> list[Condition]:
    return [x for c in clauses for x in ([c] if isinstance(c, Condition)
                                         else [y for case in c.cases for y in case])]


def _length(clauses: tuple[Clause, ...]) -> int:
    return sum(len(str(x)) for x in clauses)


def _unit(c: Condition) -> Opaque | None:
    """A ``min(1, a, ...)`` of sizes ``c`` holds (inside other atoms too), if any."""
    stack = [c.left, c.right]
    while stack:
        x = stack.pop()
        if isinstance(x, int):
            continue
        for mono, _ in x._terms:
            for a, _ in mono:
                if isinstance(a, Opaque):
                    if a.op == "min" and 1 in a.args and all(nonnegative(g) for g in a.args):
                        return a
                    stack.extend(a.args)
    return None


def _replaced(x: DimLike, atom: Opaque, value: int) -> DimLike:
    """``x`` with ``atom`` (inside other atoms too) replaced by ``value``."""
    if isinstance(x, int):
        return x
    return rebuild(x, lambda a: value if a == atom else APPLY[a.op](
        *(_replaced(g, atom, value) for g in a.args)) if isinstance(a, Opaque) else None)


def _split(c: Condition, unit: Opaque, depth: int) -> tuple[Clause, ...] | None:
    """``c`` in the cases of ``unit = min(1, a, ...)``: 1 where every ``a >= 1``, 0
    where one is 0 (the broadcast of index arrays, ``max(a, b)*min(1, a, b)``, is
    ``max(a, b)`` or 0); None if too many cases."""
    args = [g for g in unit.args if g != 1]
    source = c.source
    try:
        raw: list[list[Condition]] = [
            [*(Condition(g, ">=", 1, source) for g in args),
             Condition(_replaced(c.left, unit, 1), c.op, _replaced(c.right, unit, 1), source)]]
        raw += [[Condition(g, "==", 0, source), Condition(
            _replaced(c.left, unit, 0), c.op, _replaced(c.right, unit, 0), source)]
                for g in args]
    except ZeroDivisionError:  # the unit divides: ``x % (B*min(1, B, C))`` at 0
        return None
    cases: list[tuple[Condition, ...]] = []
    for case in raw:
        parts = [x for cond in case for x in _condition(cond, depth + 1)]
        expanded = _distribute(parts)
        if expanded is None:
            return None
        cases.extend(_lean(x) for x in expanded)
    return _disjunction(cases, c) if cases else (c,)


def _plainer(c: Condition) -> tuple[Clause, ...]:
    left, right = tidy_size(c.left), tidy_size(c.right)
    tidied = Condition(left, c.op, right, c.source)
    d, op = tidied.key
    if isinstance(d, int):
        return () if EMPTY.decide(tidied) else (c,)
    found = _equation(d, c) if op == "==" else _bound(d, op, c) if op in (">=", ">") \
        else None
    if found is None:
        found = (_equal(d, c.source) if op == "==" else plain(tidied),)
    if all(isinstance(x, Condition) for x in found):  # min(1, S, T) >= 1: S, T >= 1
        found = _simplified([tuple(plain(y) for x in found for y in expand(x))], c)
    if len(found) == 1 and found[0] == tidied:  # the same: as written, unless longer
        written = c if str(tidied) == str(c) else plain(tidied)
        return (written,) if len(str(written)) <= len(str(found[0])) else found
    return found


def _equation(d: Dim, c: Condition, depth: int = 0) -> tuple[Clause, ...] | None:
    """``d == 0`` plainer (see the module), or None."""
    if depth > 4:
        return None
    source = c.source
    factor, rest = _common_factor(d)
    if factor:  # m*q == 0: one of m's factors is 0, or q is
        cases = [(Condition(atom_dim(a), "==", 0, source),) for a in factor]
        cases += _as_cases(_equation(rest, c, depth + 1) if not isinstance(rest, int)
                           else None, _equal(rest, source))
        return _disjunction(cases, c)
    for s in _bare_symbols(d):  # a root s = 1: (s - 1)*q == 0
        quotient = _divide_root(d, s)
        if quotient is not None:
            cases = _as_cases(_condition(Condition(atom_dim(s), "==", 1, source)),
                              Condition(atom_dim(s), "==", 1, source))
            cases += _as_cases(_equation(quotient, c, depth + 1) if not isinstance(
                quotient, int) else None, _equal(quotient, source))
            return _disjunction(cases, c)
    modulo = _remainder(d)
    if modulo is not None:
        return (Condition(modulo, "==", 0, source),)
    return _solved(d, c)


def _equal(d: DimLike, source: Source | None) -> Condition:
    """``d == 0`` written as ``positive terms == negative terms`` (``S1 == T``, not
    ``S1 - T == 0``)."""
    if isinstance(d, int):
        return Condition(d, "==", 0, source)
    left: DimLike = 0
    right: DimLike = 0
    for mono, k in d._terms:
        term: DimLike = abs(k)
        for a, p in mono:
            term = term * atom_dim(a) ** p
        if k > 0:
            left = left + term
        else:
            right = right + term
    if isinstance(left, int):
        left, right = right, left
    return plain(Condition(left, "==", right, source))


def _as_cases(found: tuple[Clause, ...] | None, fallback: Condition) -> list[tuple]:
    if found is None:
        found = (plain(fallback),)
    if not found:
        return [()]
    if len(found) == 1 and isinstance(found[0], AnyOf):
        return list(found[0].cases)
    if all(isinstance(x, Condition) for x in found):
        return [tuple(found)]
    return [(fallback,)]


def _disjunction(cases: list[tuple], c: Clause) -> tuple[Clause, ...]:
    kept = []
    for case in cases:  # (one that holds wherever it has a value: it needs its divisors)
        case = tuple(y for x in case
                     for y in (_needs(x) if EMPTY.decide(x) is True else (x,)))
        if any(EMPTY.decide(x) is False for x in case):
            continue
        if not case:
            return ()
        if case not in kept:
            kept.append(case)
    if not kept:
        return (c,)
    kept = [case for i, case in enumerate(kept)  # a case implying another adds nothing
            if not any(j != i and _implies(case, other) and not (
                _implies(other, case) and j > i) for j, other in enumerate(kept))]
    if len(kept) == 1:
        return kept[0]
    return (AnyOf(tuple(kept), c.source),)


def _implies(case: tuple[Condition, ...], other: tuple[Condition, ...]) -> bool:
    """Whether ``other`` holds wherever ``case`` does, its divisors nonzero there too
    (``b == 0`` does not imply ``b % a == 0``: at ``a == 0`` that has no value)."""
    facts = EMPTY.with_(*case)
    return all(facts.decide(x) is True and all(facts.decide(n) is True for n in _needs(x))
               for x in other)


def _needs(c: Condition) -> tuple[Condition, ...]:
    """Each size ``c`` divides by, stated nonzero (those no fact shows so)."""
    divisors = dict.fromkeys(size_divisors(c.left) + size_divisors(c.right))
    return tuple(n for n in (nonzero(d, c.source) for d in divisors)
                 if EMPTY.decide(n) is not True)


def _common_factor(d: Dim) -> tuple[list[Hashable], DimLike]:
    """The atoms every term of ``d`` has (each once), and ``d`` divided by them."""
    monos = [dict(mono) for mono, _ in d._terms]
    common = {a: min(m.get(a, 0) for m in monos) for a in monos[0]}
    common = {a: p for a, p in common.items() if p}
    if not common:
        return [], d
    monomial = tuple(sorted(common.items(), key=lambda ap: atom_key(ap[0])))
    quotient = divide(d._terms, ((monomial, 1),))  # (exact: each term has them; d //
    if quotient is None:  # them would keep a quotient by a size that may be 0)
        raise AssertionError(f"{d} is not divided by {monomial}, its terms' common factor")
    return list(common), of_terms(quotient.items())


def _bare_symbols(d: Dim) -> list[Hashable]:
    """The atoms (sizes, or min, max, ``//`` of them) of ``d`` to a power at least 2."""
    return sorted({a for mono, _ in d._terms for a, p in mono if p >= 2}, key=str)


def _coefficients(d: Dim, s: Hashable) -> dict[int, DimLike]:
    """``d`` as a polynomial in the bare atom ``s`` (``s`` inside other atoms is part of
    the coefficients): power -> coefficient."""
    out: dict[int, DimLike] = {}
    for mono, coeff in d._terms:
        k = dict(mono).get(s, 0)
        term: DimLike = coeff
        for a, p in mono:
            if a != s:
                term = term * atom_dim(a) ** p
        out[k] = out.get(k, 0) + term
    return out


def _divide_root(d: Dim, s: Hashable) -> DimLike | None:
    """``d / (s - 1)`` where ``s = 1`` is a root of ``d`` as a polynomial in ``s``."""
    coeffs = _coefficients(d, s)
    if sum(coeffs.values(), 0) != 0:
        return None
    top = max(coeffs)
    quotient: DimLike = 0
    carry: DimLike = 0
    size = atom_dim(s)
    for k in range(top, 0, -1):  # synthetic division by (s - 1)
        carry = carry + coeffs.get(k, 0)
        quotient = quotient + carry * size ** (k - 1)
    return quotient


def _remainder(d: Dim) -> DimLike | None:
    """``x % k`` where ``d`` is ``x - k*(x//k)`` (or its negation)."""
    for sign in (1, -1):
        e = sign * d
        for mono, coeff in e._terms:
            if len(mono) != 1 or mono[0][1] != 1:
                continue
            a = mono[0][0]
            if isinstance(a, Opaque) and a.op == "//" and isinstance(a.args[1], int) and \
                    a.args[1] > 0 and coeff == -a.args[1] and \
                    e + a.args[1] * atom_dim(a) == a.args[0]:
                return APPLY["%"](*a.args)
    return None


def _solved(d: Dim, c: Condition) -> tuple[Clause, ...] | None:
    """``d == 0`` solved for an opaque atom that appears alone and linearly in it
    (``H//2 == 2``; a min or max of two is then said of its arguments), else None."""
    for mono, coeff in d._terms:
        if len(mono) != 1 or mono[0][1] != 1 or not isinstance(mono[0][0], Opaque):
            continue
        a = mono[0][0]
        rest = d - coeff * atom_dim(a)
        if not isinstance(rest, int) and any(dict(m).get(a) for m, _ in rest._terms):
            continue
        if isinstance(rest, int) and rest % coeff or not isinstance(rest, int) and any(
                k % coeff for _, k in rest._terms):
            continue
        value = -rest // coeff
        if a.op in ("min", "max") and len(a.args) == 2:
            return _extreme_equals(a, value, c)
        return (Condition(atom_dim(a), "==", value, c.source),)
    return None


def _extreme_equals(a: Opaque, value: Dim | int, c: Condition) -> tuple[Clause, ...]:
    """``min(x, y) == value`` (or max) as cases: ``value == x and x <= y`` or
    ``value == y and y <= x`` (>= for max)."""
    x, y = a.args
    want = "<=" if a.op == "min" else ">="
    cases = [(_equal(value - x, c.source), plain(Condition(x, want, y, c.source))),
             (_equal(value - y, c.source), plain(Condition(y, want, x, c.source)))]
    return _simplified(cases, c)


def _simplified(cases: list[tuple[Condition, ...]], c: Condition) -> tuple[Clause, ...]:
    """Each case without the conditions its others imply; the cases no sizes meet
    dropped."""
    kept = []
    for case in cases:
        facts = EMPTY.with_(*case)
        if not facts.consistent():
            continue
        kept.append(_lean(case))
    return _disjunction(kept, c)


def _lean(case: tuple[Condition, ...]) -> tuple[Condition, ...]:
    """``case`` without the conditions its others imply (one at a time: two that imply
    each other keep one)."""
    left = list(dict.fromkeys(case))
    for x in list(left):
        others = [y for y in left if y is not x]
        if EMPTY.with_(*others).decide(x) is True:
            left = others
    return tuple(left)


def _bound(d: Dim, op: str, c: Condition) -> tuple[Clause, ...] | None:
    """``d >= 0`` (or ``> 0``) plainer: the content of its terms divided out, and a
    product of sizes at least 1 said of each size."""
    const = sum(k for mono, k in d._terms if not mono)
    body = d - const
    g = math.gcd(*(k for mono, k in d._terms if mono))
    least = -const + (1 if op == ">" else 0)  # body >= least
    least = -((-least) // g)  # body/g >= ceil(least/g)
    body = body // g
    if least == 1 and len(body._terms) == 1 and body._terms[0][1] == 1 and all(
            nonnegative_atom(a) for a, _ in body._terms[0][0]):  # a product >= 1: each >= 1
        return tuple(plain(Condition(atom_dim(a), ">=", 1, c.source))
                     for a, _ in body._terms[0][0])
    if g > 1 or op == ">":
        return (plain(Condition(body, ">=", least, c.source)),)
    return None


def plain(c: Condition) -> Condition:
    """``c`` as a bound of its one size where it is linear in one named size (``2*N >=
    1`` is ``N >= 1``, ``2*C == C`` is ``C == 0``), else ``c``."""
    d, op = c.key
    names = [x for x in free_symbols(d) if isinstance(x, str)]
    if len(names) != 1 or len(free_symbols(d)) != 1:
        return c
    (name,) = names
    size = Dim(name)
    try:
        k, one = substitute(d, {name: 0}), substitute(d, {name: 1})
    except ZeroDivisionError:  # a floor or remainder by the size (``(2*A - 1) % A``)
        return c
    if not isinstance(k, int) or not isinstance(one, int) or one == k:
        return c
    slope = one - k
    if str(slope * size + k) != str(d):  # d is not that line (canonical forms differ)
        return c
    if op in ("==", "!="):
        if k % slope:
            return c  # never (or always) equal: the facts say so, not a bound
        return Condition(size, op, -k // slope, c.source)
    edge = Fraction(-k, slope)
    if slope > 0:
        least = math.floor(edge) + 1 if op == ">" else math.ceil(edge)
        return Condition(size, ">=", least, c.source)
    most = math.ceil(edge) - 1 if op == ">" else math.floor(edge)
    return Condition(size, "<=", most, c.source)
