"""A rewriting of sizes applied until its result is its own result (the forms of
:mod:`kantensor.types.canon` and of :meth:`Facts.simplify
<kantensor.types.facts.Facts.simplify>` are idempotent wherever this is reached)."""

from __future__ import annotations

from collections.abc import Callable

from .dim import Dim, DimLike

__all__ = ["settle"]


def settle(step: Callable[[Dim], DimLike], x: Dim, rounds: int) -> DimLike:
    """``step`` applied from ``x`` until it leaves a size as it is, or comes back to one
    it gave before (a cycle: a floor whose argument's form the Dim algebra writes
    another way); then that size, or the cycle's member of fewest terms, then shortest
    text: the same from every size of the cycle, so the result is its own result.
    After ``rounds`` steps, the last size."""
    seen = [x._terms]
    sizes = {x._terms: x}
    for _ in range(rounds):
        y = step(x)
        if isinstance(y, int) or y._terms == x._terms:
            return y
        if y._terms in sizes:
            cycle = [sizes[t] for t in seen[seen.index(y._terms):]]
            return min(cycle, key=lambda z: (len(z._terms), len(str(z)), str(z)))
        seen.append(y._terms)
        sizes[y._terms] = y
        x = y
    return x
