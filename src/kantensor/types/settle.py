"""A rewriting of sizes applied until its result is its own result (the forms of
:mod:`kantensor.types.canon` and of :meth:`Facts.simplify
<kantensor.types.facts.Facts.simplify>` are idempotent wherever this is reached)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, Final

from .dim import Dim, DimLike

__all__ = ["AGAIN", "once", "settle"]

AGAIN: Final = object()
"""What :func:`once` gives where its key's call is already in progress."""
_ACTIVE: Final = threading.local()  # .keys: the keys of once's calls in progress


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


def once(key: Hashable, f: Callable[..., Any], *args: Any) -> Any:
    """``f(*args)``, or :data:`AGAIN` where a call of ``key`` is in progress on this
    thread: a rewriting whose step comes back to its own input through other steps
    (``Facts.simplify`` of a floor whose argument's least constant comes out, and whose
    form puts it back in) stops there instead of recursing without end."""
    keys = getattr(_ACTIVE, "keys", None)
    if keys is None:
        keys = _ACTIVE.keys = set()
    if key in keys:
        return AGAIN
    keys.add(key)
    try:
        return f(*args)
    finally:
        keys.discard(key)
