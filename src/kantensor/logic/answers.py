"""Answers in terms of named sizes: what the unknown sizes of a solved state are, and
what they must still meet; a size that a where-clause says some k divides (``r % k == 0``)
is an exact quotient there (``2*(h//2)`` is ``h``, :mod:`kantensor.types.dimfacts`).

After a solve, a size may be bound, defined by pending equations (``n == m + 1``), or
free. :func:`symbolic_values` writes each as an expression of named Dims (naming the
free ones), and collects the constraints the values leave (:class:`SizeConstraint`), so
that a query answer (:mod:`kantensor.query`) or a refined type says exactly what holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..types.dim import Dim, DimLike, free_symbols, substitute
from ..types.dimfacts import NO_SOLUTION, assume_divisible, solve_for
from .dims import COMPARE, Compare, Equation
from .terms import isvar, walk

__all__ = ["SizeConstraint", "symbolic_values"]


def symbolic_values(vars_: list, s: dict, pending: tuple, named: dict[Any, Dim],
                    fresh: Any = None, residual: list[SizeConstraint] | None = None
                    ) -> dict[Any, DimLike]:
    """Values of the unbound size variables ``vars_`` in terms of named Dims.

    ``named`` maps variables to the Dims they stand for. Pending equations are solved
    symbolically until nothing changes; then, if ``fresh`` (a callable giving a new Dim
    for a variable) is given, the first still unknown variable of ``vars_`` is named and
    solving resumes, so every variable ends as an expression of named Dims. Without
    ``fresh``, variables that stay unknown are absent from the result.

    With ``fresh`` and a ``residual`` list, the constraints the values do not settle
    (``max(n - 3, 0) == 4`` left unsolved, a where-clause ``n > 2``) are appended to
    it (:class:`SizeConstraint` over the named Dims), so that an answer never claims
    more than holds.
    """
    if fresh is None and not named and not any(isinstance(c, Equation) for c in pending):
        return {}  # nothing to solve from and nothing to name: no variable gets a value
    known: dict[Any, DimLike] = {}
    for v, dim in named.items():
        w = walk(v, s)
        if isvar(w):
            known.setdefault(w, dim)
    equations = [c for c in pending if isinstance(c, Equation)]
    pending_equations = list(equations)
    order = [walk(v, s) for v in vars_]
    while True:
        changed = True
        while changed:
            changed = False
            for c in list(equations):
                try:
                    diff = c.left.value(s) - c.right.value(s)
                except ZeroDivisionError:
                    equations.remove(c)
                    continue
                diff = substitute(diff, known) if not isinstance(diff, int) else diff
                free = [u for u in free_symbols(diff) if not isinstance(u, str)] \
                    if isinstance(diff, Dim) else []
                if len(free) != 1:
                    if not free:
                        equations.remove(c)
                    continue
                value = solve_for(diff, free[0], 0)
                if value is None or value is NO_SOLUTION:
                    continue
                known[free[0]] = value
                equations.remove(c)
                changed = True
        missing = [v for v in order if isvar(v) and v not in known]
        if fresh is None or not missing:
            break
        known[missing[0]] = fresh(missing[0])
    if fresh is not None and residual is not None:
        residual.extend(_residual(pending, s, known, fresh))
    zeros = _zeros(pending_equations, s, known)
    return {v: assume_divisible(known[v], zeros) for v in order if isvar(v) and v in known}


def _zeros(equations: list[Equation], s: dict, known: dict[Any, DimLike]) -> list[DimLike]:
    """The pending equations as ``left - right`` (which is 0) over the named Dims: a
    where-clause ``(a0*a1) % 4 == 0`` says that 4 divides the size (see
    :func:`~kantensor.types.dimfacts.assume_divisible`)."""
    out = []
    for c in equations:
        try:
            diff = c.left.value(s) - c.right.value(s)
        except ZeroDivisionError:
            continue
        if isinstance(diff, Dim):
            out.append(substitute(diff, known))
    return out


@dataclass(frozen=True)
class SizeConstraint:
    """``left op right`` between sizes over named Dims (``m > 2``, ``m == n//2``): what a
    query answer's sizes must also meet (:attr:`kantensor.query.Answer.where`)."""

    left: DimLike
    op: str
    right: DimLike

    def holds(self, values: dict[str, int]) -> bool:
        """Whether it holds when the named Dims have ``values`` (all of its names)."""
        left, right = substitute(self.left, values), substitute(self.right, values)
        if not isinstance(left, int) or not isinstance(right, int):
            missing = sorted(map(str, free_symbols(left) | free_symbols(right)))
            raise ValueError(f"{self} needs a value for {', '.join(missing)}")
        return COMPARE[self.op](left, right)

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


def _residual(pending: tuple, s: dict, known: dict[Any, DimLike], fresh: Any
              ) -> list[SizeConstraint]:
    """The pending equations and where-clauses that do not hold whatever the named
    Dims are, over those Dims (an unknown no answer shows is named by ``fresh`` too)."""
    out: list[SizeConstraint] = []
    for c in pending:
        if not isinstance(c, Equation | Compare):
            continue
        try:
            sides = [c.left.value(s), c.right.value(s)]
        except ZeroDivisionError:
            continue
        for u in sorted({u for x in sides for u in free_symbols(x) if not isinstance(u, str)}
                        - known.keys(), key=str):
            known[u] = fresh(u)
        left, right = (substitute(x, known) for x in sides)
        op = "==" if isinstance(c, Equation) else c.op
        if isinstance(left - right, int) and COMPARE[op](left - right, 0):
            continue  # settled by the values
        constraint = SizeConstraint(left, op, right)
        if constraint not in out:
            out.append(constraint)
    return out


def where_text(where: Any) -> str:
    """An answer's constraints as one line: ``m > 2 and n == m//2``."""
    return " and ".join(map(str, where))
