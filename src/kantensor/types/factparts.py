"""The parts of a set of size facts that share no symbol, kept as the set grows (for
:meth:`kantensor.types.facts.Facts.about`): which part each symbol is in, and each
part's symbols and how many facts it holds. A question over some symbols can use the
facts of their parts; where those parts hold every fact (a model whose facts are all
about the sizes a node sees), the answer is the whole set, found without walking its
facts. A set grown by a node's conditions is its parent's parts joined by them, not
made again from every fact."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

__all__ = ["NO_PARTS", "Parts", "Pending", "grown", "hold_all", "joined", "made"]

#: ``(symbol -> its part, part -> (its symbols, its facts' count))``; a part is keyed by
#: a fresh object, and neither dict is changed once made (a grown set makes new ones).
Parts = tuple[dict[Hashable, object], dict[object, tuple[frozenset, int]]]

NO_PARTS: Parts = ({}, {})


def joined(parts: Parts, atoms: Iterable[Any]) -> Parts:
    """``parts`` with the conditions ``atoms`` (not among their facts) added: each
    joins the parts of its symbols into one (a condition of no symbol is in none)."""
    by_symbol, members = dict(parts[0]), dict(parts[1])
    for c in atoms:
        named = c.symbols()
        if not named:
            continue
        symbols, count = set(named), 1
        for part in {by_symbol[u] for u in named if u in by_symbol}:
            held, k = members.pop(part)
            symbols |= held
            count += k
        part = object()
        members[part] = (frozenset(symbols), count)
        for u in symbols:
            by_symbol[u] = part
    return by_symbol, members


def hold_all(parts: Parts, symbols: Iterable[Hashable], total: int) -> bool:
    """Whether the parts of ``symbols`` hold ``total`` facts (every fact of the set)."""
    by_symbol, members = parts
    found = {by_symbol[u] for u in symbols if u in by_symbol}
    return sum(members[p][1] for p in found) == total


class Pending:
    """Parts not made yet: a parent's (made or pending) and the conditions added to it,
    joined once asked of it or of a set grown from it. Most sets a model grows are never
    asked (a build's own, its node's), so none is joined until asked.

    Its one slot ``state`` is ``(parent, added)`` (a :class:`_Step`) until joined, then
    the parts made, so a reader sees the one or the other, never half: threads asking
    sets that share a chain each see a whole step or its parts (made twice at worst),
    and a joined step lets its parent go."""

    __slots__ = ("state",)

    def __init__(self, parent: Parts | Pending, added: list) -> None:
        self.state: _Step | Parts = _Step(parent, added)


class _Step(tuple):
    """A pending set's ``(parent, added)``: a type of its own, told from made parts."""

    __slots__ = ()

    def __new__(cls, parent: Parts | Pending, added: list) -> _Step:
        return super().__new__(cls, (parent, added))


def grown(parts: Parts | Pending, added: list) -> Parts | Pending:
    """``parts`` and the conditions ``added`` (new to their set), joined when asked."""
    return Pending(parts, added) if added else parts


def made(parts: Parts | Pending) -> Parts:
    """``parts`` joined by every condition pending on them (a chain: no recursion). Each
    step is read once into locals (another thread may join it meanwhile)."""
    chain = []
    while type(parts) is Pending:
        state = parts.state
        if type(state) is not _Step:
            parts = state
            break
        chain.append((parts, state[1]))
        parts = state[0]
    for pending, added in reversed(chain):
        parts = pending.state = joined(parts, added)
    return parts
