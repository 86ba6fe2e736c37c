"""What sizes that broadcast (NumPy's rule) give, and NumPy's conditions on them, in
named sizes: read by the answers of a solve (:mod:`kantensor.logic.answers`,
:mod:`kantensor.logic.forwardanswer`) and by the direct path
(:mod:`kantensor.signature.broadcasts`), so that both say the same clauses.
"""

from __future__ import annotations

from ..types.conditions import AnyOf, Clause, Condition, Source
from ..types.dim import DimLike, lone_atom_of
from ..types.dimminmax import dim_max, dim_min
from ..types.facts import Facts
from ..types.poly import Opaque

__all__ = ["broadcast_onto", "broadcast_size", "broadcastable"]


def broadcast_size(sizes: list[DimLike], facts: Facts) -> DimLike:
    """What sizes that broadcast (NumPy's rule) broadcast to: their max, unless the
    facts allow a 0 among them where the max is 1 (``0`` against ``1`` gives 0), then
    ``max(...)*min(1, ...)``, which is 0 exactly there."""
    top = facts.simplify(dim_max(*sizes))
    if not facts and _free_sizes(sizes):  # two of them may be 0 and 1: the product
        return facts.simplify(top * dim_min(1, *sizes))
    at_one = facts.with_(Condition(top, "==", 1))
    if not at_one.consistent() or all(at_one.decide(Condition(v, ">=", 1)) is True
                                      for v in sizes):
        return top
    return facts.simplify(top * dim_min(1, *sizes))


def _free_sizes(sizes: list[DimLike]) -> bool:
    """Whether ``sizes`` are 1s and at least two different named sizes or unknowns (no
    expression): with no facts, their max may be 1 while one of them is 0."""
    atoms = set()
    for x in sizes:
        if type(x) is int:
            if x != 1:
                return False
            continue
        atom = lone_atom_of(x)
        if atom is None or isinstance(atom, Opaque):
            return False
        atoms.add(x)
    return len(atoms) >= 2


def broadcastable(sizes: list[DimLike], source: Source | None = None) -> list[Clause]:
    """NumPy's condition on sizes that broadcast: every two are equal or one is 1."""
    out: list[Clause] = []
    for i, a in enumerate(sizes):
        for b in sizes[i + 1:]:
            if a == b or a == 1 or b == 1:
                continue
            out.append(AnyOf(((Condition(a, "==", b),), (Condition(a, "==", 1),),
                              (Condition(b, "==", 1),)), source))
    return out


def broadcast_onto(sizes: list[DimLike], out: DimLike, source: Source | None = None
                   ) -> list[Clause]:
    """NumPy's condition on sizes that broadcast to the size ``out`` (a where-clause
    ``broadcast(s, a) == a``): each is ``out`` or 1, and one of them is ``out`` unless
    ``out`` is 1. That the sizes broadcast is not enough: ``s = 5, a = 1`` broadcast, to 5.
    Where ``out`` is an int other than 1 among them, it is enough, and is what is said
    (as the direct path says it, :mod:`kantensor.signature.broadcasts`)."""
    if type(out) is int and out != 1 and out in sizes:
        return broadcastable(sizes, source)
    distinct = [v for v in dict.fromkeys(sizes) if not (v == out or v == 1)]
    out_clauses: list[Clause] = [
        AnyOf(((Condition(v, "==", out),), (Condition(v, "==", 1),)), source) for v in distinct]
    if not any(v == out for v in sizes):
        cases = ((Condition(out, "==", 1),), *((Condition(v, "==", out),) for v in distinct))
        out_clauses.append(AnyOf(cases, source) if len(cases) > 1 else
                           Condition(out, "==", 1, source))
    return out_clauses
