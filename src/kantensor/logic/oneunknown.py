"""An equation in one unknown ``v`` (``diff == 0``, ``v`` the one unknown of ``diff``):
its one size (:func:`solve_one`: linear equations exactly, a min/max by its cases, a
floor by an int as a range, a polynomial by its integer roots), or the few sizes it
leaves (:func:`candidates`: ``a0//2 == 3`` holds for 6 and 7), which an
:class:`~.dims.Equation` tries against the other constraints or labeling tries each.
"""

from __future__ import annotations

from typing import Any

from ..types.dim import Dim, DimLike, unknown
from ..types.dimfacts import NO_SOLUTION, solve_for
from ..types.dimminmax import dim_max, dim_min
from ..types.divisors import divides, int_divisors
from ..types.poly import Opaque
from ..types.prove import bounds
from ..types.symbols import free_symbols, substitute
from .quotients import divided_values, linear_form, lone_atom, may_hold, tail_values

__all__ = ["MAX_CANDIDATES", "candidates", "solve_one"]


def solve_one(diff: Dim, v: Any) -> int | None | Any:
    """The one non-negative integer value of unknown ``v`` making ``diff == 0``:
    NO_SOLUTION if there is none, None if undecidable or not unique. Linear equations
    are solved exactly; a polynomial in ``v`` alone by trying the divisors of its
    lowest coefficient (integer roots divide it)."""
    linear = solve_for(diff, v, 0)
    if linear is NO_SOLUTION:
        return NO_SOLUTION
    if isinstance(linear, int):
        return linear if linear >= 0 else NO_SOLUTION
    if linear is not None:
        return None
    inner = _unwrap(diff, v)
    if isinstance(inner, range | tuple):
        return None  # several values: see candidates
    if inner is not None:
        return inner if inner is NO_SOLUTION or isinstance(inner, int) else solve_one(inner, v)
    cases = _min_max_cases(diff, v)
    if cases is not None:
        return _by_cases(cases, v)
    roots = _roots(diff, v)
    if roots is not None:
        return NO_SOLUTION if not roots else roots[0] if len(roots) == 1 else None
    coeffs: dict[int, int] = {}
    for mono, c in diff._terms:  # the canonical polynomial (same package family)
        if len(mono) > 1 or (mono and mono[0][0] is not v):
            return None  # other unknowns, or v inside //, %, min, max
        coeffs[mono[0][1] if mono else 0] = c
    low = min(coeffs)
    lowest = abs(coeffs[low])
    if lowest > 10**12:
        return None
    candidates = {0, *int_divisors(lowest)} if low > 0 else set(int_divisors(lowest))
    roots = [r for r in sorted(candidates) if sum(c * r**k for k, c in coeffs.items()) == 0]
    if not roots:
        return NO_SOLUTION
    return roots[0] if len(roots) == 1 else None


def _min_max_cases(x: Dim, v: Any) -> list[tuple[DimLike, Dim, DimLike]] | None:
    """Case analysis of the first ``min``/``max`` term of ``x`` whose arguments hold
    ``v``: one ``(x with that term replaced by argument i, the term, argument i)`` per
    argument (the term *is* argument i where argument i is the least, or greatest)."""
    for mono, _ in x._terms:  # the canonical polynomial (same package family)
        for atom, _p in mono:
            if isinstance(atom, Opaque) and atom.op in ("min", "max") and any(
                    v in free_symbols(a) for a in atom.args):
                return [(_replace(x, atom, arg), _atom_dim(atom), arg) for arg in atom.args]
    return None


def _replace(x: Dim, target: Opaque, value: DimLike) -> DimLike:
    """``x`` with the term ``target`` replaced by ``value``."""
    total: DimLike = 0
    for mono, c in x._terms:
        term: DimLike = c
        for atom, p in mono:
            term = term * (value if atom == target else _atom_dim(atom)) ** p
        total = total + term
    return total


def _atom_dim(atom: Any) -> Dim:
    """The Dim of one atom of a canonical polynomial: a name, an unknown's key, or a
    ``min``/``max``/``//``/``%`` term (rebuilt, so canonical again)."""
    if isinstance(atom, str):
        return Dim(atom)
    if not isinstance(atom, Opaque):
        return unknown(atom)
    a = atom.args
    return {"min": lambda: dim_min(*a), "max": lambda: dim_max(*a),
            "//": lambda: a[0] // a[1], "%": lambda: a[0] % a[1]}[atom.op]()


def _by_cases(cases: list[tuple[DimLike, Dim, DimLike]], v: Any) -> int | None | Any:
    """:func:`solve_one` over the cases of a ``min``/``max`` term (``v - min(3, v) == 4``:
    the term is 3, giving 7, or v, giving none): the one value some case gives and
    for which that case holds; NO_SOLUTION if none, None if undecidable or several."""
    found: set[int] = set()
    for diff, term, arg in cases:
        value = solve_one(diff, v) if isinstance(diff, Dim) else (
            NO_SOLUTION if diff else None)
        if value is None:
            return None
        if value is not NO_SOLUTION and _is_case(term, arg, {v: value}):
            found.add(value)
    if not found:
        return NO_SOLUTION
    return found.pop() if len(found) == 1 else None


def _is_case(term: Dim, arg: DimLike, at: dict) -> bool:
    """Whether a ``min``/``max`` term is its argument ``arg`` at ``at`` (not where it has
    no value there: ``min(3//v, v)`` at ``v == 0``)."""
    try:
        return substitute(term, at) == substitute(arg, at)
    except ZeroDivisionError:
        return False


def _unwrap(diff: Dim, v: Any) -> DimLike | range | None:
    """``diff == 0`` where ``diff`` is ``±atom + k`` with ``atom`` a min/max against ints
    or a floor division by an int: what ``v`` must then meet. ``max(e, c) == k`` with
    ``k > c`` means ``e == k`` (returned as the new difference ``e - k``); a floor
    division ``e // c == k`` with ``e`` linear in ``v`` gives the values of ``v`` in
    range (an int if one, a ``range`` if several). NO_SOLUTION when none can hold; None
    when it does not apply or stays open."""
    lone = lone_atom(diff)
    if lone is None:
        return None
    atom, k = lone  # atom == k
    op, args = getattr(atom, "op", None), getattr(atom, "args", ())
    inner = [a for a in args if not isinstance(a, int)]
    ints = [a for a in args if isinstance(a, int)]
    if op in ("min", "max") and len(inner) == 1 and ints:
        bound = max(ints) if op == "max" else min(ints)
        if k == bound and op == "max":  # e <= bound: a few values if e grows with v
            return _at_most(inner[0], v, bound)
        if k == bound:
            return None  # e >= bound: unbounded
        if (k < bound) == (op == "max"):
            return NO_SOLUTION
        return inner[0] - k
    if op == "//" and len(inner) == 1 and isinstance(args[1], int) and args[1] > 0:
        e, c = args[0], args[1]
        line = linear_form(e, v)
        if line is None or line[0] <= 0:
            return None
        a, b = line
        low, high = -((b - c * k) // a), (c * k + c - 1 - b) // a  # ceil, floor
        low = max(low, 0)
        if low > high:
            return NO_SOLUTION
        return low if low == high else range(low, high + 1)
    return divided_values(diff, v)  # by a size: 2 == 3//v


def _at_most(e: DimLike, v: Any, bound: int) -> range | int | None:
    """The sizes ``v`` with ``e <= bound`` for ``e`` growing with ``v``."""
    line = linear_form(e, v)
    if line is None or line[0] <= 0:
        return None
    a, b = line
    high = (bound - b) // a
    if high < 0:
        return NO_SOLUTION
    return 0 if high == 0 else range(0, high + 1)


#: Most candidate values an equation tries against the other constraints (:func:`candidates`).
MAX_CANDIDATES = 64


def candidates(diff: Dim, v: Any) -> range | list[int] | None:
    """The few values ``v`` can take to meet ``diff == 0`` when they are not one (a
    floor division: ``a0//2 == 3`` holds for 6 and 7), or None."""
    whole = diff
    for _ in range(8):  # min/max/floor division nest a few levels at most
        inner = _unwrap(diff, v)
        if isinstance(inner, range | tuple):  # len(range) fails past 2**63: a slice's
            return inner if len(inner[:MAX_CANDIDATES + 1]) <= MAX_CANDIDATES else None
        if not isinstance(inner, Dim):
            break
        diff = inner
    roots = _roots(whole, v)
    return roots if roots is not None and len(roots) > 1 else tail_values(whole, v)


def _roots(diff: Dim, v: Any) -> list[int] | None:
    """Every size ``v`` with ``diff == 0``, where ``v`` is its one unknown, it holds a floor
    division or remainder by an int (``n + n//5 == 7``), and the equation bounds ``v``
    to at most :data:`MAX_CANDIDATES` values (:func:`~kantensor.types.prove.bounds`),
    less those where it has no value (``8//v`` at ``v == 0``); None otherwise."""
    if free_symbols(diff) != {v} or not divides(diff):
        return None
    lo, hi = bounds(((diff, "==", 0),), unknown(v))
    if lo is None or hi is None:
        return None
    if hi - lo >= MAX_CANDIDATES:
        return None
    return [n for n in range(max(lo, 0), hi + 1) if may_hold(diff, {v: n})]
