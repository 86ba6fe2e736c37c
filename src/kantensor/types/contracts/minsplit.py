"""A contract's cases split on the sizes a ``min(k, v)`` of theirs reads.

A pool needs channels and non-empty spatial axes unless its batch is empty, ``C >=
min(1, N)`` (onnxruntime's "Only N can be zero"): a condition over two sizes that no box
states, so every pool contract over a named channel count was approximate. Split on
``v`` (``v == 0``, ..., ``v == k - 1``, ``v >= k``) each case reads the min as an int
(``N == 0``: ``C >= 0``, which always holds; ``N >= 1``: ``C >= 1``), and its conditions
are over one size each: boxes (``N == 0``, or ``N >= 1, C >= 1``). The split is of the
whole conjunction, once per size (a model's every pool reads ``min(1, N)``: two cases,
not two per pool), and each case is equivalent to the conditions it replaces where its
own ``v`` condition holds: the union is the same set of sizes.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Final

from ..conditions import Condition
from ..dim import Dim
from ..facts import Facts
from ..poly import Opaque
from ..symbols import substitute
from .evaluate import condition_holds

__all__ = ["MAX_SPLIT", "split_mins"]

#: The largest ``k`` of a ``min(k, v)`` split on (``k + 1`` cases per size).
MAX_SPLIT: Final = 4


def split_mins(cases: list[list[Condition]], hidden: frozenset, limit: int
               ) -> list[list[Condition]] | None:
    """``cases`` (conjunctions) split on each input size ``v`` (none of ``hidden``) that a
    ``min(k, v)`` of their conditions reads, ``k`` an int in ``1 .. MAX_SPLIT``; None
    past ``limit`` cases (the caller keeps ``cases``)."""
    for v, k in _mins(cases, hidden).items():
        grown: list[list[Condition]] = []
        for case in cases:
            for j in range(k + 1):
                under = _under(case, v, j, k)
                if under is not None:
                    grown.append([Condition(Dim(v), "==" if j < k else ">=", j), *under])
        if len(grown) > limit:
            return None
        cases = grown
    return cases


def _mins(cases: Iterable[list[Condition]], hidden: frozenset) -> dict[Hashable, int]:
    """Each size ``v`` a ``min(k, v)`` reads (a whole size against an int ``k``), with its
    largest ``k``."""
    found: dict[Hashable, int] = {}
    for case in cases:
        for c in case:
            d = c.key[0]
            if not isinstance(d, Dim):
                continue
            for mono, _ in d._terms:
                for atom, _ in mono:
                    if isinstance(atom, Opaque) and atom.op == "min" and len(atom.args) == 2:
                        k, x = sorted(atom.args, key=lambda a: not isinstance(a, int))
                        if isinstance(k, int) and 1 <= k <= MAX_SPLIT and \
                                isinstance(x, Dim) and len(x._terms) == 1 and \
                                x._terms[0][1] == 1 and len(x._terms[0][0]) == 1 and \
                                x._terms[0][0][0][1] == 1:
                            v = x._terms[0][0][0][0]
                            if isinstance(v, str) and v not in hidden:
                                found[v] = max(found.get(v, 0), k)
    return found


def _under(case: list[Condition], v: Hashable, j: int, k: int) -> list[Condition] | None:
    """``case`` where ``v == j`` (``j < k``) or ``v >= k`` (``j == k``, each ``min(k, v)``
    read as ``k``); None where a condition fails there, those that hold there left out."""
    facts = Facts([Condition(Dim(v), ">=", k)]) if j == k else None
    out: list[Condition] = []
    for c in case:
        if v not in c.symbols():
            out.append(c)
            continue
        d, op = c.key
        try:
            d = substitute(d, {v: j}) if facts is None else facts.simplify(d)
        except ZeroDivisionError:  # (it divides by v, 0 here: it has no value, fails)
            return None
        new = Condition(d, op, 0, c.source)
        if isinstance(d, int):
            if not condition_holds(new, {}):
                return None
            continue
        out.append(new)
    return out
