"""Integer polynomials over atoms, in canonical form: the representation under Dim.

A polynomial is a tuple of terms ``(monomial, coefficient)``, with no zero coefficient,
sorted graded-lexicographically (degree descending, then atoms); the constant term, if
any, comes last. A monomial is a tuple of ``(atom, power > 0)`` sorted by atom. An atom
is a symbol name (a ``str``), the key of an unknown (any other hashable object, ordered
by its text, ties by identity) or an :class:`Opaque` term such as ``a//b``. One
polynomial has one canonical form, so structural equality is algebraic equality.

This module knows nothing of :class:`~kantensor.types.dim.Dim`, which wraps these terms
and adds the operations on opaque atoms (``//``, ``%``, min, max).
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any, TypeAlias

__all__ = ["Atom", "Monomial", "Opaque", "Terms", "add", "atom_key", "canonical", "divide",
           "lone_atom", "mul", "render", "split"]

Atom: TypeAlias = "Hashable"  # a symbol name (str), an unknown's key, or an Opaque
Monomial: TypeAlias = tuple[tuple[Atom, int], ...]  # (atom, power > 0), sorted by atom
Terms: TypeAlias = tuple[tuple[Monomial, int], ...]  # (monomial, coefficient != 0), sorted


class Opaque:
    """An opaque atom: ``op`` (``//``, ``%``, ``min``, ``max``) over canonical arguments,
    with its text (made by the caller, which knows how its arguments print)."""

    __slots__ = ("op", "args", "text", "_hash")

    def __init__(self, op: str, args: tuple[Any, ...], text: str) -> None:
        self.op, self.args, self.text = op, args, text
        self._hash = hash((op, args))

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Opaque) and self._hash == other._hash
                                 and self.op == other.op and self.args == other.args)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, ...]:
        return (Opaque, (self.op, self.args, self.text))


def atom_key(atom: Atom) -> tuple[int, str, int]:
    """The order of atoms: symbols by name, then opaque terms by text, then unknowns."""
    if isinstance(atom, str):
        return (0, atom, 0)
    if isinstance(atom, Opaque):
        return (1, atom.text, 0)
    return (2, str(atom), id(atom))  # an unknown: ordered by its text, ties by identity


@lru_cache(maxsize=1 << 16)
def _mono_key(mono: Monomial) -> tuple[Any, ...]:
    """Degree descending, then atoms by name (graded lexicographic)."""
    return (-sum(p for _, p in mono), tuple((atom_key(a), -p) for a, p in mono))


def _term_key(term: tuple[Monomial, int]) -> tuple[Any, ...]:
    return _mono_key(term[0])


@lru_cache(maxsize=1 << 16)
def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    if not a or not b:
        return a or b
    powers = dict(a)
    for atom, p in b:
        powers[atom] = powers.get(atom, 0) + p
    return tuple(sorted(powers.items(), key=lambda ap: atom_key(ap[0])))


def canonical(poly: dict[Monomial, int]) -> Terms | int:
    """``{monomial: coefficient}`` in canonical form; a constant is a plain int."""
    items = [(m, c) for m, c in poly.items() if c]
    if not items:
        return 0
    if len(items) == 1 and not items[0][0]:
        return items[0][1]
    items.sort(key=_term_key)
    return tuple(items)


def lone_atom(terms: Terms) -> Atom | None:
    """The atom if ``terms`` is exactly one atom (coefficient 1, power 1)."""
    if len(terms) == 1 and terms[0][1] == 1 and len(terms[0][0]) == 1 \
            and terms[0][0][0][1] == 1:
        return terms[0][0][0][0]
    return None


def add(a: Terms, b: Terms) -> dict[Monomial, int]:
    """The sum of two polynomials (to be made :func:`canonical`)."""
    poly = dict(a)
    for m, c in b:
        poly[m] = poly.get(m, 0) + c
    return poly


def mul(a: Terms, b: Terms) -> dict[Monomial, int]:
    """The product of two polynomials (to be made :func:`canonical`)."""
    poly: dict[Monomial, int] = {}
    for ma, ca in a:
        for mb, cb in b:
            m = _mono_mul(ma, mb)
            poly[m] = poly.get(m, 0) + ca * cb
    return poly


def split(terms: Terms, d: int) -> tuple[dict[Monomial, int], dict[Monomial, int]]:
    """``(q, r)`` with ``terms == d*q + r``: q takes the terms ``d`` divides and the
    constant's quotient, r the rest and the constant's remainder in ``[0, d)``."""
    quot: dict[Monomial, int] = {}
    rem: dict[Monomial, int] = {}
    for m, c in terms:
        if not m:
            quot[m], rem[m] = divmod(c, d)
        elif c % d == 0:
            quot[m] = c // d
        else:
            rem[m] = c
    return quot, rem


def divide(terms: Terms, divisor: Terms) -> dict[Monomial, int] | None:
    """``terms / divisor`` when the divisor is one term ``c*m`` (``c > 0``) that divides
    every term exactly (``(8*b*n)//(b*n)`` is ``8``), else None."""
    if len(divisor) != 1 or divisor[0][1] <= 0 or not divisor[0][0]:
        return None
    (mono, c), = divisor
    out: dict[Monomial, int] = {}
    for m, k in terms:
        powers = dict(m)
        for atom, p in mono:
            left = powers.get(atom, 0) - p
            if left < 0 or k % c:
                return None
            if left:
                powers[atom] = left
            else:
                del powers[atom]
        out[tuple(sorted(powers.items(), key=lambda ap: atom_key(ap[0])))] = k // c
    return out


def _factor(atom: Atom, p: int, lone: bool) -> str:
    if not isinstance(atom, Opaque):
        text = str(atom)
    else:
        text = atom.text if lone or atom.op in ("min", "max") else f"({atom.text})"
    return text if p == 1 else f"{text}**{p}"


def render(terms: Terms) -> str:
    """The text of a polynomial: valid Python such as ``2*n + 1``, ``(n + 1)//2``."""
    out = []
    if terms[0][1] < 0 and terms[0][0]:  # a minus sign printed last: n - k + 1
        terms = tuple(sorted(terms, key=lambda t: (not t[0], t[1] < 0)))
    for i, (mono, c) in enumerate(terms):
        a = abs(c)
        if mono:
            lone = a == 1 and len(mono) == 1 and mono[0][1] == 1 and (i > 0 or c > 0)
            body = "*".join(_factor(atom, p, lone) for atom, p in mono)
            body = body if a == 1 else f"{a}*{body}"
        else:
            body = str(a)
        if i == 0:
            out.append(body if c > 0 else "-" + body)
        else:
            out.append((" + " if c > 0 else " - ") + body)
    return "".join(out)
