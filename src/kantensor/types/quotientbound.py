"""A size bounded above through its quotients' and remainders' bounds, to refute a
condition that holds at no size (``k < n//n + 1`` at ``k == 2``: ``n//n`` is 1 wherever
it has a value; ``k <= n % n - 1``: ``n % n`` is 0 wherever it has one).

Where a quotient's divisor is at least 1, ``a // b`` is at least 0 where ``a >= 0``, at
least ``j`` where ``a >= j*b`` and at most ``j`` where ``a < (j + 1)*b`` (``j`` up to
:data:`MOST`); the remainder ``a % b`` (``a - b*(a//b)``) is then at least 0, at most
``b - 1``, and at most ``a - j*b`` where ``a >= j*b``.
:func:`upper` writes each quotient or remainder that is a term of its own (``c *
(a//b)``) at the bound that makes the size no smaller (its upper bound where ``c > 0``,
its lower one where ``c < 0``), and each min or max of its arguments' bounds of that
side (``-max(a, b//b)`` is at most ``-max(a, 1)``), so where the bound size is refuted
``>= 0`` (or ``> 0``) the size is too. The facts' decisions are asked through
``decide`` (the caller's, :class:`Facts` above this module).
"""

from __future__ import annotations

from collections.abc import Callable

from .dim import Dim, DimLike
from .dimminmax import dim_max, dim_min
from .poly import Opaque

__all__ = ["MOST", "upper"]

#: The largest bound of a quotient tried (each is one question to the facts).
MOST = 3

#: What a caller's ``decide`` is: True where its facts imply ``d op 0``.
Decide = Callable[[tuple[DimLike, str, int]], "bool | None"]


def upper(d: Dim, decide: Decide) -> DimLike | None:
    """A size no smaller than ``d`` wherever the facts behind ``decide`` hold and ``d``
    has a value: each quotient or remainder term of ``d`` at its bound, and each min or
    max of its arguments' bounds; None where no bound is known for any (``decide`` must
    imply each divisor ``>= 1``)."""
    return _bounded(d, decide, True)


def _bounded(d: Dim, decide: Decide, high: bool) -> DimLike | None:
    """A size no smaller (``high``) or no larger than ``d`` where it has a value, each
    term at the bound its coefficient's sign asks for; None where none is known."""
    out: DimLike = d
    for mono, c in d._terms:
        if len(mono) != 1 or mono[0][1] != 1:
            continue
        atom = mono[0][0]
        up = high == (c > 0)  # (the bound this term asks for: its upper one where up)
        if type(atom) is Opaque and atom.op in ("min", "max"):
            bounds = [x if isinstance(x, int) else _bounded(x, decide, up) or x
                      for x in atom.args]
            if any(x is not y for x, y in zip(bounds, atom.args, strict=True)):
                made = dim_min if atom.op == "min" else dim_max
                out = out - c * made(*atom.args) + c * made(*bounds)
            continue  # (min(b, a//a) is at most min(b, 1); max(a, b//b) at least 1)
        if type(atom) is not Opaque or atom.op not in ("//", "%") or \
                isinstance(atom.args[1], int):
            continue
        a, b = atom.args
        if decide((b - 1, ">=", 0)) is not True:
            continue
        if atom.op == "%":
            bound = _remainder_high(a, b, decide) if up else 0
        else:
            bound = _high(a, b, decide) if up else _low(a, b, decide)
        if bound is not None:
            out = out - c * (a // b if atom.op == "//" else a % b) + c * bound
    return None if out is d else out


def _remainder_high(a: DimLike, b: Dim, decide: Decide) -> DimLike:
    """An upper bound of ``a % b`` (``b >= 1``): ``a - j*b`` for the most ``j`` with ``a >=
    j*b`` implied (``n % n`` is at most 0) where that is at most ``b - 1``, else ``b - 1``."""
    j = _low(a, b, decide)
    if j is None:
        return b - 1
    below = a - j * b
    return below if decide((b - 1 - below, ">=", 0)) is True else b - 1


def _low(a: DimLike, b: Dim, decide: Decide) -> int | None:
    """The most ``j`` in ``0 .. MOST`` with ``a >= j*b`` implied (then ``a//b >= j``)."""
    found = None
    for j in range(MOST + 1):
        if decide((a - j * b, ">=", 0)) is not True:
            break
        found = j
    return found


def _high(a: DimLike, b: Dim, decide: Decide) -> int | None:
    """The least ``j`` in ``0 .. MOST`` with ``a < (j + 1)*b`` implied (then
    ``a//b <= j``)."""
    return next((j for j in range(MOST + 1) if decide(((j + 1) * b - a, ">", 0)) is True),
                None)
