"""Remainders over several sizes written one way only (a step of :mod:`.canon`).

Each remainder ``a % k`` of several sizes (and, beside atoms of several sizes, of one
linear form of sizes) is taken apart into ``a - k*(a//k)`` and read back where that
leaves the fewest terms, then the shortest text: ``(m + n) % 2 + 2*((m + n)//2)`` is
``m + n``; ``m + n - 2*((m + n)//2)`` is ``(m + n) % 2``; ``n + m % 3 - (m + n) % 3`` is
``3*((m + n)//3) - 3*(m//3)``. The sizes' own terms are then not split between parts
two ways. Also the small predicates on atoms that :mod:`.canon` and this module share,
and :func:`of_terms`, the size of a list of terms, which the canonical passes share, and
:func:`one_floor`, the shape of a size that is its own form (a pool's size)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Final

from .dim import Dim, DimLike, atom_dim
from .dimdivide import dim_floordiv, dim_mod
from .poly import Opaque
from .symbols import free_symbols

__all__ = ["MAX_READ_BACK", "atom_symbols", "by_int", "has_opaque", "of_terms", "one_floor",
           "remainders", "several"]

MAX_READ_BACK: Final = 6
"""Most floors over several symbols :func:`_read_back` tries to read as remainders."""


def remainders(x: DimLike) -> DimLike:
    """Remainders over several symbols one way only (module docstring)."""
    if isinstance(x, int):
        return x  # (and remainders of one linear form beside them: _plain)
    atoms = [(mono[0][0], c) for mono, c in x._terms if len(mono) == 1 and mono[0][1] == 1
             and (by_int(mono[0][0], "%") or by_int(mono[0][0], "//"))]
    several_ = any(several(atom) for atom, _ in atoms)
    for atom, c in atoms:  # c*(a % k) == c*a - c*k*(a//k)
        if atom.op == "%" and (several(atom) or several_ and _plain(atom)):
            a, k = atom.args
            x = x - c * atom_dim(atom) + c * a - c * k * dim_floordiv(a, k)
    return _read_back(x)


def _plain(atom: Opaque) -> bool:  # beside atoms of several sizes, taken apart and read
    # back with them: n + m % 3 - (m + n) % 3 is 3*((m + n)//3) - 3*(m//3)
    return not isinstance(atom.args[0], int) and not has_opaque(atom.args[0])


def _read_back(x: DimLike) -> DimLike:
    """``-e*k*(a//k)`` beside ``e*a`` read as ``e*(a % k)``: of the sets of such floors
    (of the first :data:`MAX_READ_BACK`), the one read back that leaves the fewest
    terms, then the shortest text (ties by text); the empty set among them."""
    if isinstance(x, int):
        return x
    floors = [(mono[0][0], c) for mono, c in x._terms if len(mono) == 1 and mono[0][1] == 1
              and by_int(mono[0][0], "//")]
    several_ = any(several(atom) for atom, _ in floors)  # (a remainder of several is
    floors = [(atom, c) for atom, c in floors if not c % atom.args[1]  # taken apart)
              and (several(atom) or several_ and _plain(atom))][:MAX_READ_BACK]
    best: tuple | None = None
    for mask in range(1 << len(floors)):
        y: DimLike = x
        for i, (atom, c) in enumerate(floors):
            if mask >> i & 1:
                a, k = atom.args
                y = y - c * atom_dim(atom) + c // k * a - c // k * dim_mod(a, k)
        key = (0 if isinstance(y, int) else len(y._terms), len(str(y)), str(y), y)
        if best is None or key[:3] < best[:3]:
            best = key
    return best[3]


def several(atom: Opaque) -> bool:
    """Whether ``atom`` is over several symbols."""
    return len(atom_symbols(atom)) > 1


def by_int(atom: Hashable, op: str) -> bool:
    """Whether ``atom`` is a floor or remainder (``op``) by an int ``> 0``."""
    return isinstance(atom, Opaque) and atom.op == op and type(atom.args[1]) is int \
        and atom.args[1] > 0


def has_opaque(x: Dim) -> bool:
    """Whether ``x`` has an atom that is no symbol."""
    return any(isinstance(atom, Opaque) for mono, _ in x._terms for atom, _ in mono)


def atom_symbols(atom: Hashable) -> frozenset:
    """The symbols ``atom`` is over (itself, where it is one)."""
    if isinstance(atom, Opaque):
        return frozenset().union(*(free_symbols(g) for g in atom.args))
    return frozenset((atom,))


def of_terms(terms: Iterable[tuple[tuple, int]]) -> DimLike:
    """The size of ``(monomial, coefficient)`` terms (a ``_terms`` tuple or a dict's
    items), built by the Dim arithmetic, so it comes out canonical."""
    total: DimLike = 0
    for mono, c in terms:
        term: DimLike = c
        for atom, p in mono:
            term = term * atom_dim(atom) ** p
        total = total + term
    return total


def one_floor(x: Dim) -> bool:
    """Whether ``x`` is ``k*((n + s)//d) + c`` (``k != 0``, ``d >= 2``, ``0 <= s < d``, as
    the Dim algebra leaves ``s``) over one size ``n``: its table's one sparsest form. No
    form without a floor has its table (it is not affine from 0 on), and one floor
    ``k'*((n + s')//d') + c'`` has it only where it is the same floor: its steps are of
    ``k`` exactly where ``n + 1 + s`` is a multiple of ``d``, and its value at 0 is ``c``."""
    terms = x._terms
    if len(terms) > 2:
        return False
    floor = None
    for mono, _ in terms:
        if not mono:
            continue  # the constant c
        if floor is not None or len(mono) != 1 or mono[0][1] != 1:
            return False
        floor = mono[0][0]
    if type(floor) is not Opaque or floor.op != "//":
        return False
    arg, d = floor.args
    if type(d) is not int or d < 2 or isinstance(arg, int) or len(arg._terms) > 2:
        return False
    symbol = False
    for mono, c in arg._terms:
        if not mono:
            if not 0 <= c < d:
                return False
        elif symbol or c != 1 or len(mono) != 1 or mono[0][1] != 1 or \
                isinstance(mono[0][0], Opaque):
            return False
        else:
            symbol = True
    return symbol
