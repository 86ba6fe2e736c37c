"""What size facts over products and powers of sizes say that the prover, linear in
them (it reads ``a*b`` as an atom of its own), does not: which facts are such
(:func:`nonlinear`), and the bounds a product of named sizes equal to an int puts on
each factor (:func:`product_bounds`: ``a*b == 1`` makes ``a`` and ``b`` 1, so ``a + b ==
a*b`` beside it holds nowhere). Used by :class:`~kantensor.types.facts.Facts`."""

from __future__ import annotations

from collections.abc import Iterable

from .conditions import Condition
from .dim import Dim, DimLike

__all__ = ["nonlinear", "product_bounds"]


def nonlinear(d: DimLike) -> bool:
    """Whether ``d`` has a term of degree 2 or more (a product or power of atoms)."""
    return type(d) is Dim and bool(d._terms) and sum(p for _, p in d._terms[0][0]) >= 2


def product_bounds(atoms: Iterable[Condition]) -> list[Condition]:
    """For each fact ``c*x1**p1*...*xn**pn == k`` (one product of named sizes, ints ``c``
    and ``k``) with ``k/c`` a positive int: each ``1 <= xi <= k/c`` (sizes are ints >= 0:
    a factor 0 makes the product 0, a factor above ``k/c`` makes it larger). Facts of
    another form say nothing here."""
    out: list[Condition] = []
    for c in atoms:
        d, op = c.key
        if op != "==" or not nonlinear(d) or len(d._terms) != 2:
            continue
        (mono, coef), (last, const) = d._terms
        if last or not all(type(x) is str for x, _ in mono):
            continue  # (a second product, or a factor that is no named size)
        k, r = divmod(-const, coef)
        if r or k <= 0:
            continue
        for x, _ in mono:
            out += [Condition(Dim(x), ">=", 1, c.source), Condition(Dim(x), "<=", k, c.source)]
    return out
