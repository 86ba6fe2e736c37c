"""What :mod:`kantensor.types.facts` does to one atom of a size, and to a size of one
bounded size, under the facts (``facts``: a :class:`~kantensor.types.facts.Facts`, read
through its methods ``simplify``, ``decide``, ``bounds``, ``rising``, ``unbounded`` and
``atoms``): :func:`atom_under` simplifies an atom's arguments, drops min and max
arguments another one bounds, writes a floor or remainder whose argument stays in one
or two blocks of its divisor without it, and one by a size whose argument is an int
multiple of it plus an int the facts put below it as ints; :func:`between` forms a
size of one size the facts bound above from its values there."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .boxorder import has_extremes
from .conditions import Clause, Condition, Source
from .dim import Dim, DimLike, atom_dim
from .divisors import by_size, size_divisors  # (their home; named here for facts and tidy)
from .intervals import interval
from .narrow import constants_out, narrow
from .poly import Opaque, divide, lone_atom
from .readback import has_opaque, of_terms
from .restricted import MAX_POINTS, on_points
from .settle import AGAIN, once
from .stated import same_term
from .symbols import APPLY, free_symbols, rebuild

__all__ = ["atom_under", "between", "by_size", "kept_divisors", "nonzero", "pruned",
           "size_divisors", "still_needs"]


def between(x: DimLike, facts: Any) -> DimLike:
    """A size of one size ``s`` the facts bound above: its form from its values at the
    sizes of ``s`` they leave (:func:`.restricted.on_points`)."""
    if isinstance(x, int) or facts.rising() or len(symbols := free_symbols(x)) != 1:
        return x  # (facts that each say a rising size is at least an int: none above)
    (s,) = symbols
    lo, hi = facts.bounds(atom_dim(s))
    lo = lo or 0
    if hi is None or hi - lo >= MAX_POINTS or (hi > lo and not has_opaque(x)):
        return x
    alone = [c for c in facts.atoms if c.symbols() <= symbols]
    return on_points(x, s, [v for v in range(lo, hi + 1) if all(_holds(c, s, v) for c in alone)])


def _holds(c: Clause, s: Hashable, v: int) -> bool:
    """Whether ``c`` may hold at ``s = v`` (True where it is nowhere defined there: the
    sizes kept are a superset of those the facts leave)."""
    return c.holds({s: v}, undefined=True)  # (a % a == 0 at a = 0: kept)


def atom_under(a: Opaque, facts: Any, known: dict) -> DimLike | None:
    if a in known:
        return known[a]
    if a.op in ("//", "%") and type(a.args[1]) is int and _several(a.args[0]) \
            and (arg := constants_out(a.args[0])) is not a.args[0]:  # (before its form
        out = APPLY[a.op](arg, a.args[1])  # merges that argument) where a multiple of
        inner = None if isinstance(out, int) else lone_atom(out._terms)  # the divisor
        if (not isinstance(inner, Opaque) or not same_term(inner.args[0], arg)) and (found := once(
                (getattr(out, "_terms", out), facts), facts.simplify, out)) is not AGAIN:
            return found  # comes out ((M + 2*min(m, M) + 2) % 2 is M % 2)
    args = tuple(facts.simplify(g) for g in a.args)
    if a.op in ("min", "max"):
        return _extreme(a.op, args, facts)
    if a.op in ("//", "%") and not isinstance(args[1], int) and \
            (found := _by_multiple(a.op, args[0], args[1], facts)) is not None:
        return found
    # arguments the facts leave as they are: the atom as it is (None), not made again by
    # its operator (a floor's normal form over the same arguments: the same atom)
    try:
        value = None if all(map(same_term, args, a.args)) else APPLY[a.op](*args)
    except ZeroDivisionError:  # a divisor the facts make 0: nowhere defined, kept as is
        return None
    if a.op in ("//", "%") and type(args[1]) is int and args[1] > 0 and \
            not isinstance(value, int) and not facts.unbounded(args[0]):
        lo, hi = facts.bounds(args[0])  # within one block of the divisor, or two for
        if lo is not None and hi is not None:  # an atom of several sizes (types.narrow:
            k = args[1]  # of one size, its table's form is quasiform's)
            if lo // k == hi // k:
                return lo // k if a.op == "//" else args[0] - k * (lo // k)
            found = narrow(a.op, args[0], k, lo, hi) if _several(args[0]) else None
            return value if found is None else found
    return value


def _by_multiple(op: str, num: DimLike, den: Dim, facts: Any) -> DimLike | None:
    """``num // den`` (``op`` ``//``) or ``num % den`` (``%``) by a size ``den`` where
    ``num`` is ``k*den + r`` for ints ``k`` and ``r >= 0`` and the facts put ``den`` past
    ``r``: ``k`` (``r``), at every size where they hold. ``(64*w - 64)//(16*w - 16)`` is 4
    under ``w - 1 >= 1`` (a Reshape's -1 beside a sequence length the facts equate with
    the input's: at ``w == 1`` it is ``0//0``, nowhere defined, so the fact is needed).
    None: not of that form, or the facts do not show ``den >= r + 1``. Likewise a
    ``num`` each of whose terms ``den``, one term, divides (``(8*b*n)//(b*n)`` is 8, its
    remainder 0) where the facts show ``den >= 1`` (the Dim algebra keeps it: 0//0 at
    ``b*n == 0``). And ``0 // den`` and ``0 % den`` are 0 where the facts show ``den``
    nonzero, of either sign (the Dim algebra's kept ``0//v``, :mod:`.dim`)."""
    if type(num) is int and num == 0:
        return 0 if facts.decide((den, "!=", 0)) is True else None
    if not isinstance(num, int) and len(den._terms) == 1 and \
            (exact := divide(num._terms, den._terms)) is not None:
        if facts.decide((den, ">=", 1)) is not True:
            return None
        return of_terms(exact.items()) if op == "//" else 0
    mono, c = den._terms[0]  # (a leading term: den is not an int, so not a constant)
    terms = () if isinstance(num, int) else num._terms
    k, odd = divmod(next((n for m, n in terms if m == mono), 0), c)
    if odd:
        return None
    r = num - k * den
    if not isinstance(r, int) or r < 0 or facts.decide((den - (r + 1), ">=", 0)) is not True:
        return None
    return k if op == "//" else r


def still_needs(c: Condition, facts: Any, kept: Condition | None = None
                ) -> list[Condition] | None:
    """What a condition ``c`` the facts imply wherever it is defined still needs: each
    size its sides divide by (at any depth) nonzero (:func:`nonzero`), those the facts
    do not show so; None where they show one 0 (``c`` has no value there: it fails).
    ``N//M >= 0`` holds wherever it has a value, and at ``M == 0`` it has none (its
    ``holds`` is False): it is ``M >= 1``. ``kept``: the form of ``c`` kept in its
    place (simplified under the facts), whose own divisors it states itself."""
    out = []
    have = () if kept is None else size_divisors(kept.left) + size_divisors(kept.right)
    for d in dict.fromkeys(size_divisors(c.left) + size_divisors(c.right)):
        if d in have:
            continue
        need = nonzero(d, c.source)
        found = facts.decide(need)
        if found is False:
            return None
        if found is None:
            out.append(need)
    return out


def kept_divisors(x: Dim, form: DimLike, facts: Any) -> bool:
    """Whether ``form``, what the facts make of ``x``, has no value only where ``x`` has
    none: each size ``x`` divides by that ``form`` does not is one the facts show
    nonzero (``min(1 - m, k//(2//min(m, n)))`` is ``1 - m`` where it has a value, and
    has none at ``m == n == 3``: not so without a fact)."""
    have = set(size_divisors(form))
    return all(d in have or facts.decide(nonzero(d)) is True for d in size_divisors(x))


def nonzero(d: DimLike, source: Source | None = None) -> Condition:
    """A divisor ``d`` is not 0: ``d >= 1`` where it is never negative, else ``d != 0``."""
    low = interval(d)[0]
    return Condition(d, ">=", 1, source) if low is not None and low >= 0 else \
        Condition(d, "!=", 0, source)


def _extreme(op: str, args: tuple, facts: Any) -> DimLike:
    """``min``/``max`` of ``args`` without the arguments another one bounds."""
    keep = list(args)
    want = "<=" if op == "min" else ">="
    i = 0
    while i < len(keep):
        a = keep[i]
        if any(j != i and facts.decide(Condition(b, want, a)) for j, b in enumerate(keep)):
            del keep[i]  # another argument is always at most (min) / at least (max) it
        else:
            i += 1
    return APPLY[op](*keep)


def _several(x: DimLike) -> bool:
    return len(free_symbols(x)) > 1


def pruned(x: DimLike, facts: Any) -> DimLike:
    """``x`` with the min and max arguments the facts show another one bounds dropped
    (:func:`_extreme`), at every depth, and nothing formed: where a floor or remainder's
    argument has a min or max of one size, forming the argument first opens it (``3 -
    min(4, k)`` is ``max(-1, 3 - k)``) and can hide what the floor sees whole (``(max(0,
    n - max(m % 2, min(4, k)) + 3) + max(min(4, k), n + 3)) % 2`` under ``m <= k``: its
    argument is ``2*n + 6 - min(4, k)`` or ``min(4, k)``, congruent modulo 2, so it is
    ``min(4, k) % 2``). ``x`` itself where nothing is dropped."""
    if isinstance(x, int) or not has_extremes(x):
        return x
    return rebuild(x, lambda a: _pruned_atom(a, facts) if isinstance(a, Opaque) else None)


def _pruned_atom(a: Opaque, facts: Any) -> DimLike | None:
    args = tuple(pruned(g, facts) for g in a.args)
    if a.op in ("min", "max"):
        kept = _extreme(a.op, args, facts)
        return None if isinstance(kept, Dim) and lone_atom(kept._terms) == a else kept
    if all(map(same_term, args, a.args)):
        return None
    try:
        return APPLY[a.op](*args)
    except ZeroDivisionError:  # a divisor the facts make 0: kept as is
        return None
