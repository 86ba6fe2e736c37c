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

__all__ = ["NO_PARTS", "Parts", "hold_all", "joined"]

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
