"""Kept divisors folded alike by every front end: the Dim algebra keeps a ``0//v`` (or
``0 % v``) term where a quotient by ``v`` cancels (``n//m - n//m`` is ``0//m``: no value
at ``m == 0``; a ``0//v`` beside a term that divides by ``v`` is dropped by the algebra
itself, so ``(j % i) % 4`` no longer comes back as ``(j % i) % 4 + 0//i``). Where the
other conditions of an answer show ``v`` nonzero the term is 0 wherever the answer holds,
so make_node's conditions and query's where-clause both drop it (:func:`folded`), and
state one condition, not two spellings (``i + 0//(i - j) >= 0`` beside ``i - j != 0``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..types.conditions import Clause, Condition
from ..types.dim import Dim, DimLike
from ..types.divisors import by_size, size_divisors
from ..types.facts import Facts
from ..types.poly import Opaque
from ..types.readback import of_terms

__all__ = ["folded"]


def folded(clauses: Sequence[Clause], facts: Facts) -> Sequence[Clause]:
    """``clauses`` with each top-level ``0//v`` or ``0 % v`` term of a condition's sides
    dropped where ``facts`` and the *other* clauses show ``v`` nonzero (never by the
    condition itself: it is undefined at ``v == 0``, and the folded one would not be); a
    condition they then imply, dividing by no size, is dropped. ``clauses`` itself where
    none changes."""
    out, changed = list(clauses), False
    for k, c in enumerate(out):
        if type(c) is not Condition or not (by_size(c.left) or by_size(c.right)) or \
                not (_zeros(c.left) or _zeros(c.right)):  # (by_size: its atoms' flags)
            continue
        under = facts.with_(*(x for j, x in enumerate(out) if j != k and x is not None))
        left, right = _dropped(c.left, under), _dropped(c.right, under)
        if left is not c.left or right is not c.right:
            plain = Condition(left, c.op, right, c.source)
            implied = not size_divisors(left) and not size_divisors(right) and \
                under.decide(plain) is True  # (i + 0//(i - j) >= 0 beside i - j != 0)
            out[k], changed = None if implied else plain, True
    return tuple(c for c in out if c is not None) if changed else clauses


def _zeros(x: DimLike) -> list:
    """The top-level terms of ``x`` (its monomials) with a ``0//v`` or ``0 % v`` atom."""
    if type(x) is not Dim:
        return []
    return [(mono, c) for mono, c in x._terms  # the canonical polynomial (same family)
            if any(_kept(a) for a, _ in mono)]


def _kept(atom: object) -> bool:
    """Whether an atom of a canonical polynomial is a kept ``0//v`` or ``0 % v``."""
    return type(atom) is Opaque and atom.op in ("//", "%") and type(atom.args[0]) is int \
        and atom.args[0] == 0


def _dropped(x: DimLike, under: Facts) -> DimLike:
    """``x`` without its ``0//v`` and ``0 % v`` terms whose ``v`` ``under`` shows
    nonzero (``x`` itself where there are none)."""
    drop = [(mono, c) for mono, c in _zeros(x)
            if all(under.decide((a.args[1], "!=", 0)) is True for a, _ in mono
                   if _kept(a))]
    if not drop:
        return x
    return of_terms([t for t in x._terms if t not in drop])
