"""The values one size may take: a finite union of intervals with congruences.

A :class:`SizeSet` is a union of disjoint :class:`Piece` s, each the integers of
``[lo, hi]`` (``hi`` None: unbounded) whose remainder modulo ``modulus`` is one of
``residues`` (``H in [211, 242]``; ``H >= 21``; ``H % 32 in {0..6, 31}, H >= 223``).
Every size is ``>= 0``, so the universe is ``[0, MAX_SIZE]``. One set has one form
(:func:`_normal`): pieces sorted and disjoint, each bound a member, the shortest period,
pieces of few members written as runs of consecutive values, and touching pieces of one
pattern merged; so two equal sets are equal objects.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from ..divisors import int_divisors
from ..limits import MAX_SIZE

__all__ = ["MAX_MODULUS", "Inexpressible", "Piece", "SizeSet"]

#: The largest modulus a set states (a longer period is not expressed: Inexpressible).
MAX_MODULUS: Final = 1 << 12
#: A periodic piece of at most this many members is written as its runs of values.
_FEW: Final = 64


class Inexpressible(ValueError):
    """A set this form cannot state (a period past :data:`MAX_MODULUS`)."""


@dataclass(frozen=True)
class Piece:
    """The integers ``x`` of ``[lo, hi]`` (``hi`` None: no upper bound) with ``x %
    modulus`` in ``residues``."""

    lo: int
    hi: int | None
    modulus: int = 1
    residues: frozenset[int] = frozenset({0})

    def __contains__(self, x: int) -> bool:
        return self.lo <= x and (self.hi is None or x <= self.hi) and \
            x % self.modulus in self.residues

    @property
    def plain(self) -> bool:
        """Whether it is an interval (every integer of its range)."""
        return self.modulus == 1

    def first(self, x: int) -> int | None:
        """The least member ``>= x``, or None."""
        x = max(x, self.lo)
        m = self.modulus
        base, r = divmod(x, m)
        best = None
        for s in self.residues:
            y = base * m + s if s >= r else (base + 1) * m + s
            if best is None or y < best:
                best = y
        return best if best is not None and (self.hi is None or best <= self.hi) else None

    def last(self, x: int) -> int | None:
        """The greatest member ``<= x``, or None."""
        if self.hi is not None:
            x = min(x, self.hi)
        m = self.modulus
        base, r = divmod(x, m)
        best = None
        for s in self.residues:
            y = base * m + s if s <= r else (base - 1) * m + s
            if best is None or y > best:
                best = y
        return best if best is not None and best >= self.lo else None

    def count(self) -> int | None:
        """How many members (None: infinitely many)."""
        if self.hi is None:
            return None
        m = self.modulus
        full, rest = divmod(self.hi - self.lo + 1, m)
        return full * len(self.residues) + sum(
            1 for k in range(rest) if (self.lo + k) % m in self.residues)

    def members(self, lo: int, hi: int) -> Iterator[int]:
        """Its members in ``[lo, hi]``, in order."""
        x = self.first(lo)
        top = hi if self.hi is None else min(hi, self.hi)
        if self.plain:
            if x is not None:
                yield from range(x, top + 1)
            return
        ordered = sorted(self.residues)
        while x is not None and x <= top:
            yield x
            base, r = divmod(x, self.modulus)
            nxt = next((s for s in ordered if s > r), None)
            x = base * self.modulus + nxt if nxt is not None else \
                (base + 1) * self.modulus + ordered[0]


class SizeSet:
    """The values a size may take (see the module's doc). Immutable, hashable; build
    with :meth:`interval`, :meth:`point`, :meth:`periodic`, :data:`ALL`, :data:`NONE`
    and combine with ``&``, ``|`` and :meth:`complement`."""

    __slots__ = ("pieces", "_hash")

    def __init__(self, pieces: Iterable[Piece] = ()):
        self.pieces: tuple[Piece, ...] = _normal(list(pieces))
        self._hash = hash(self.pieces)

    # -- construction ----------------------------------------------------------------
    @classmethod
    def interval(cls, lo: int | None = 0, hi: int | None = None) -> SizeSet:
        lo = 0 if lo is None else max(lo, 0)
        hi = None if hi is None or hi >= MAX_SIZE else hi
        return cls([Piece(lo, hi)] if hi is None or lo <= hi else [])

    @classmethod
    def point(cls, value: int) -> SizeSet:
        return cls.interval(value, value)

    @classmethod
    def points(cls, values: Iterable[int]) -> SizeSet:
        return cls(Piece(v, v) for v in values if 0 <= v <= MAX_SIZE)

    @classmethod
    def union_of(cls, pieces: Iterable[Piece]) -> SizeSet:
        """The union of ``pieces``, which may overlap."""
        return cls(_union(tuple(pieces)))

    @classmethod
    def periodic(cls, lo: int, hi: int | None, modulus: int, residues: Iterable[int]
                 ) -> SizeSet:
        if modulus > MAX_MODULUS:
            raise Inexpressible(f"a period of {modulus} (at most {MAX_MODULUS})")
        rs = frozenset(r % modulus for r in residues)
        return cls([Piece(max(lo, 0), hi, modulus, rs)] if rs else [])

    # -- questions --------------------------------------------------------------------
    def __contains__(self, x: object) -> bool:
        return isinstance(x, int) and any(x in p for p in self.pieces)

    def __bool__(self) -> bool:
        return bool(self.pieces)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SizeSet) and self.pieces == other.pieces

    def __hash__(self) -> int:
        return self._hash

    @property
    def min(self) -> int | None:
        return self.pieces[0].lo if self.pieces else None

    @property
    def max(self) -> int | None:
        """The greatest member (None: unbounded or empty)."""
        return self.pieces[-1].hi if self.pieces else None

    @property
    def bounded(self) -> bool:
        return not self.pieces or self.pieces[-1].hi is not None

    @property
    def is_all(self) -> bool:
        return self.pieces == (Piece(0, None),)

    def count(self) -> int | None:
        """How many members (None: infinitely many)."""
        total = 0
        for p in self.pieces:
            n = p.count()
            if n is None:
                return None
            total += n
        return total

    def within(self, lo: int, hi: int) -> Iterator[int]:
        """The members in ``[lo, hi]``, in order."""
        for p in self.pieces:
            if p.hi is not None and p.hi < lo:
                continue
            if p.lo > hi:
                break
            yield from p.members(lo, hi)

    def __iter__(self) -> Iterator[int]:
        if not self.bounded:
            raise ValueError(f"{self.text('x')} has infinitely many members")
        return self.within(0, self.max or 0)

    def nearest(self, x: int) -> int | None:
        """The member closest to ``x`` (the lower one on a tie), or None when empty."""
        best = None
        for p in self.pieces:
            for y in (p.last(x), p.first(x)):
                if y is not None and (best is None or abs(y - x) < abs(best - x)
                                      or (abs(y - x) == abs(best - x) and y < best)):
                    best = y
        return best

    def runs(self) -> Iterator[tuple[int, int | None]]:
        """The maximal intervals of consecutive members: ``(lo, hi)``; a periodic piece
        gives its runs one period after another (infinitely many when unbounded)."""
        for p in self.pieces:
            if p.plain:
                yield p.lo, p.hi
                continue
            x = p.lo
            while x is not None:
                end = x
                while p.hi is None or end < p.hi:
                    if (end + 1) % p.modulus not in p.residues:
                        break
                    end += 1
                    if end - x >= p.modulus:  # every residue: cannot happen in normal form
                        break
                yield x, end
                x = p.first(end + 1)

    # -- algebra ----------------------------------------------------------------------
    def __and__(self, other: SizeSet) -> SizeSet:
        out = []
        for a in self.pieces:
            for b in other.pieces:
                lo = max(a.lo, b.lo)
                hi = a.hi if b.hi is None else b.hi if a.hi is None else min(a.hi, b.hi)
                if hi is not None and lo > hi:
                    continue
                m, rs = _combine(a, b, all)
                if rs:
                    out.append(Piece(lo, hi, m, rs))
        return SizeSet(out)

    def __or__(self, other: SizeSet) -> SizeSet:
        return SizeSet(_union(self.pieces + other.pieces))

    def complement(self) -> SizeSet:
        """The sizes (``0 .. MAX_SIZE``) not in this set."""
        out = []
        at = 0
        for p in self.pieces:
            if p.lo > at:
                out.append(Piece(at, p.lo - 1))
            if not p.plain:
                others = frozenset(range(p.modulus)) - p.residues
                out.append(Piece(p.lo, p.hi, p.modulus, others))
            if p.hi is None:
                return SizeSet(out)
            at = p.hi + 1
        out.append(Piece(at, None))
        return SizeSet(out)

    def shifted(self, k: int) -> SizeSet:
        """``{x + k}`` of the members (those that stay sizes)."""
        return SizeSet(Piece(p.lo + k, None if p.hi is None else p.hi + k, p.modulus,
                             frozenset((r + k) % p.modulus for r in p.residues))
                       for p in self.pieces if p.hi is None or p.hi + k >= 0) \
            & SizeSet.interval(0)

    # -- text -------------------------------------------------------------------------
    def text(self, name: str) -> str:
        """In words: ``H in [211, 242]``, ``H >= 21``, ``H == 1``, ``H in {1, 2, 4}``,
        ``H % 32 in {0..6, 31} and H >= 223``; pieces joined by ``or``. A finite set
        that one congruence states is written so where that is shorter than its
        members."""
        if not self.pieces:
            return f"no value of {name}"
        if self.is_all:
            return f"{name} >= 0"
        n = self.count()
        listed = f"{name} in {{{', '.join(map(str, self))}}}" \
            if n is not None and 1 < n <= 16 and len(self.pieces) > 1 else None
        pattern = _pattern(self) if n is not None and len(self.pieces) > 2 else None
        if pattern is not None:  # the shorter: N in {1, 2, 3, 4, 6, 9, 12, 18, 36}, not
            said = _piece_text(pattern, name)  # N % 35 in {1..4, 6, 9, 12, 18} and ...
            if listed is None or len(said) < len(listed):
                return said
        if listed is not None:
            return listed
        return " or ".join(_piece_text(p, name) for p in self.pieces)

    def __repr__(self) -> str:
        return f"SizeSet({self.text('x')})"


#: The longest period :func:`_pattern` tries.
_PATTERN_PERIOD: Final = 64


def _pattern(s: SizeSet) -> Piece | None:
    """A finite set of several pieces as one periodic piece where one states it (the
    normal form writes a few members as runs: ``seq in [0, 64] and seq % 2 == 0`` reads
    better than 33 values)."""
    members = list(s)
    lo, hi = members[0], members[-1]
    have = set(members)
    for m in range(2, min(_PATTERN_PERIOD, hi - lo + 1) + 1):
        residues = frozenset(x % m for x in members)
        if len(residues) == m:
            continue
        piece = Piece(lo, hi, m, residues)
        if piece.count() == len(members) and all(x in have for x in piece.members(lo, hi)):
            return piece
    return None


def _piece_text(p: Piece, name: str) -> str:
    if p.hi == p.lo:
        return f"{name} == {p.lo}"
    if p.hi is None:  # no lower bound to say when it is the pattern's first member
        span = "" if Piece(0, None, p.modulus, p.residues).first(0) == p.lo else \
            f"{name} >= {p.lo}"
    else:
        span = f"{name} in [{p.lo}, {p.hi}]"
    if p.plain:
        return span or f"{name} >= 0"
    rs = sorted(p.residues)
    if len(rs) == 1:
        cong = f"{name} % {p.modulus} == {rs[0]}"
    else:
        cong = f"{name} % {p.modulus} in {{{_residue_text(rs, p.modulus)}}}"
    return f"{cong} and {span}" if span else cong


def _residue_text(rs: list[int], m: int) -> str:
    """``0..6, 31``: runs of residues (a run through ``m - 1`` and ``0`` kept as two)."""
    parts, start = [], rs[0]
    prev = start
    for r in rs[1:] + [None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        parts.append(str(start) if start == prev else
                     f"{start}, {prev}" if prev == start + 1 else f"{start}..{prev}")
        if r is not None:
            start = prev = r
    return ", ".join(parts)


def _combine(a: Piece, b: Piece, mode) -> tuple[int, frozenset[int]]:
    """The common modulus of two pieces and the residues in both (``mode`` all) or in
    either (any)."""
    m = math.lcm(a.modulus, b.modulus)
    if m > MAX_MODULUS:
        raise Inexpressible(f"a period of {m} (at most {MAX_MODULUS})")
    if a.modulus == m and b.modulus == 1:
        return m, a.residues
    if b.modulus == m and a.modulus == 1:
        return m, b.residues
    return m, frozenset(r for r in range(m)
                        if mode((r % a.modulus in a.residues, r % b.modulus in b.residues)))


def _union(pieces: tuple[Piece, ...]) -> list[Piece]:
    """Disjoint pieces covering the union of ``pieces``: cut at every bound (a sweep),
    each segment taking the residues of the pieces over it."""
    starts = sorted(pieces, key=lambda p: p.lo)
    cuts = sorted({p.lo for p in pieces} | {p.hi + 1 for p in pieces if p.hi is not None})
    out = []
    active: list[Piece] = []
    k = 0
    for i, lo in enumerate(cuts):
        hi = cuts[i + 1] - 1 if i + 1 < len(cuts) else None
        while k < len(starts) and starts[k].lo <= lo:
            active.append(starts[k])
            k += 1
        active = [p for p in active if p.hi is None or p.hi >= lo]
        if not active:
            continue
        m = math.lcm(*(p.modulus for p in active))
        if m > MAX_MODULUS:
            raise Inexpressible(f"a period of {m} (at most {MAX_MODULUS})")
        residues: set[int] = set()
        for p in active:
            if len(residues) == m:
                break
            step = p.modulus
            residues.update(r + j * step for r in p.residues for j in range(m // step))
        out.append(Piece(lo, hi, m, frozenset(residues)))
    return out


def _shortest(p: Piece) -> Piece:
    """The piece with its residues written over their shortest period."""
    m = p.modulus
    if m == 1:
        return p
    if len(p.residues) == m:
        return Piece(p.lo, p.hi)
    for d in int_divisors(m):
        if d == m:
            break
        if all(((r + d) % m in p.residues) for r in p.residues):
            return Piece(p.lo, p.hi, d, frozenset(r % d for r in p.residues))
    return p


def _normal(pieces: list[Piece]) -> tuple[Piece, ...]:
    """The one form of a union of disjoint pieces (see the module's doc)."""
    tight: list[Piece] = []
    for p in pieces:
        p = _shortest(p)
        lo = p.first(max(p.lo, 0))
        if lo is None:
            continue
        hi = None if p.hi is None else p.last(min(p.hi, MAX_SIZE))
        if p.hi is not None and (hi is None or hi < lo):
            continue
        p = Piece(lo, hi, p.modulus, p.residues)
        n = p.count()
        if not p.plain and n is not None and n <= _FEW:
            run: list[int] = []
            for x in p.members(lo, hi):
                if run and x == run[-1] + 1:
                    run[-1] = x
                else:
                    if run:
                        tight.append(Piece(run[0], run[1]))
                    run = [x, x]
            tight.append(Piece(run[0], run[1]))
            continue
        tight.append(p)
    tight.sort(key=lambda q: q.lo)
    merged: list[Piece] = []
    for p in tight:
        merged.append(p)
        while len(merged) > 1:  # a merged piece may now join the one before it
            joined = _joined(merged[-2], merged[-1])
            if joined is None:
                break
            merged[-2:] = [joined]
    return tuple(merged)


def _joined(q: Piece, p: Piece) -> Piece | None:
    """One piece holding the members of ``q`` and of ``p`` (which follows it), when
    one of their patterns, stretched over both ranges, has exactly those members."""
    if q.hi is None:
        return None
    for pattern in (q, p):
        whole = Piece(q.lo, p.hi, pattern.modulus, pattern.residues)
        if _same_members(whole, q, q.lo, q.hi) and whole.first(q.hi + 1) == p.lo and \
                (p.hi is None or p.count() is not None) and \
                _same_members(whole, p, p.lo, p.hi if p.hi is not None else p.lo +
                              p.modulus * whole.modulus):
            return whole
    return None


def _same_members(a: Piece, b: Piece, lo: int, hi: int) -> bool:
    """Whether ``a`` and ``b`` have the same members in ``[lo, hi]`` (the same pattern,
    or a short range compared member by member)."""
    if a.modulus == b.modulus and a.residues == b.residues:
        return True
    if hi - lo > 1 << 14:
        return False
    return list(a.members(lo, hi)) == list(b.members(lo, hi))


#: Every size, and none.
ALL: Final = SizeSet.interval(0)
NONE: Final = SizeSet()
