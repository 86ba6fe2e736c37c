"""What size facts over products and powers of sizes say that the prover, linear in
them (it reads ``a*b`` as an atom of its own), does not: which facts are such
(:func:`nonlinear`), and the bounds a product of named sizes equal to an int puts on
each factor, or a size that divides every term but an int puts on itself
(:func:`product_bounds`: ``a*b == 1`` makes ``a`` and ``b`` 1, so ``a + b == a*b`` beside
it holds nowhere; ``a*b == a + 1`` makes ``a`` 1). Used by :class:`~kantensor.types.facts.Facts`."""

from __future__ import annotations

from collections.abc import Iterable

from .conditions import Condition
from .dim import Dim, DimLike

__all__ = ["named_product", "nonlinear", "product_bounds"]


def nonlinear(d: DimLike) -> bool:
    """Whether ``d`` has a term of degree 2 or more (a product or power of atoms)."""
    return type(d) is Dim and bool(d._terms) and sum(p for _, p in d._terms[0][0]) >= 2


def named_product(named: dict, c: Condition) -> tuple[Condition, dict]:
    """``c`` with a product side written as the named size that a fact taken to hold
    equates it to (``named``: product -> size), and ``named`` with what ``c`` says so
    added (``s2 == s0*s1 + 1``: ``s0*s1 + 1`` is ``s2``). Equal where those facts hold,
    and linear: a case split over broadcasts onto a product (each size the result or 1)
    keeps one product fact, not one a case, each weighed again in every question."""
    if c.op != "==":
        return c, named
    left, right = c.left, c.right
    if right in named and nonlinear(right):
        c = Condition(left, "==", named[right], c.source)
    elif left in named and nonlinear(left):
        c = Condition(named[left], "==", right, c.source)
    else:
        for p, q in ((right, left), (left, right)):
            if nonlinear(p) and type(q) is Dim and q.name is not None:
                return c, {**named, p: q}
    return c, named


def product_bounds(atoms: Iterable[Condition]) -> list[Condition]:
    """Bounds on named sizes that facts ``d == 0`` over products say (``d``'s terms
    integer polynomials in sizes, ints >= 0):

    * ``c*x1**p1*...*xn**pn == k`` (one product, ints ``c`` and ``k``) with ``k/c`` a
      positive int: each ``1 <= xi <= k/c`` (a factor 0 makes the product 0, a factor
      above ``k/c`` makes it larger);
    * else, a named size ``x`` that is a factor of every term of ``d`` but its int
      ``k != 0``: ``x*q == -k`` with ``q`` an int, so ``x`` divides ``k``: ``1 <= x <=
      |k|`` (``a*b == a + 1`` is ``a*(b - 1) == 1``: ``a == 1``, then ``b == 2``).

    Facts of another form say nothing here."""
    out: list[Condition] = []
    for c in atoms:
        d, op = c.key
        if op != "==" or not nonlinear(d):
            continue
        *varying, (last, const) = d._terms
        if last or not const:
            continue  # (no int beside the products: a factor may be 0)
        if len(varying) == 1:
            mono, coef = varying[0]
            k, r = divmod(-const, coef)
            if not r and k > 0 and all(type(x) is str for x, _ in mono):
                out += [b for x, _ in mono for b in _within(x, k, c)]
                continue
        shared = set.intersection(*({x for x, _ in mono} for mono, _ in varying))
        for x in sorted(x for x in shared if type(x) is str):
            out += _within(x, abs(const), c)
    return out


def _within(x: str, high: int, c: Condition) -> list[Condition]:
    """``1 <= x <= high`` (``x == 1`` where ``high`` is 1: a value the facts' forms put
    into their products), from fact ``c``."""
    if high == 1:
        return [Condition(Dim(x), "==", 1, c.source)]
    return [Condition(Dim(x), ">=", 1, c.source), Condition(Dim(x), "<=", high, c.source)]
