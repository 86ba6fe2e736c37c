"""A wrapped Python int must fit the integer dtype an Op computes in (NumPy 2, NEP 50).

A Python int used in an op call (``uint8 tensor + 1000``) keeps its meaning only if it
fits the dtype the Op computes in; NumPy 2 raises OverflowError where it does not. The
int is a *wrapped* operand, and its term carries its value (``TensorTerm.value``): an
int for a constant, or the size term of a size used as a number (``x + (n - 3)`` in
NumPy code: the value ``n - 3``). :class:`PyIntFits` is that rule as a constraint of the
Op's relation: once the dtype the Op computes in is known, an int value out of its range
fails, and a size value must lie within it, a where-clause of the relation
(:class:`~kantensor.logic.dims.Compare`), decided by the facts or kept as a condition.
:func:`fit_range` is the one home of which bounds are stated: ``make_node`` reads it too
(:func:`kantensor.ops.pyints.size_conditions`), so the two never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..types.dtypes import integer_range, is_integer
from ..types.limits import MAX_SIZE
from .dims import Compare, Expr
from .store import Constraint, Progress, said
from .terms import isvar, walk

__all__ = ["PyIntFits", "fit_range"]


def fit_range(dtype: str) -> tuple[int | None, int | None] | None:
    """The least and greatest value a Python int must have to fit ``dtype`` where an Op
    computes in it, each None where no size can pass it (a size is at most
    :data:`~kantensor.types.limits.MAX_SIZE`, and >= 0); None for a dtype every such
    int fits (an inexact or bool dtype, int64: where a wrapped Python int is made)."""
    if not is_integer(dtype) or dtype == "int64":
        return None
    low, high = integer_range(dtype)
    return low, (high if high < MAX_SIZE else None)


def fits(value: int, dtype: str) -> bool:
    """Does the Python int ``value`` fit ``dtype`` (always, for an inexact or bool one)?"""
    if not is_integer(dtype):
        return True
    low, high = integer_range(dtype)
    return low <= value <= high


@dataclass(frozen=True, eq=False)
class PyIntFits(Constraint):
    """The wrapped Python int whose value is the term ``value`` (an int, or a size term)
    fits the dtype term ``dtype`` (the dtype the Op computes in: its first output's)."""

    value: Any
    dtype: Any
    where: Any = ""  # the operand's place (an object whose str names it)

    def check(self, s: dict, pending: tuple) -> Progress:
        d = walk(self.dtype, s)
        if isvar(d):
            return s, False
        v = walk(self.value, s)
        if type(v) is int:  # (int64 too: a Python int past it is no wrapped number)
            return (s, True) if fits(v, d) else None
        found = fit_range(d)
        if found is None:
            return s, True
        low, high = found
        text = f"the Python int {{}} of {self.where} fits {d}"
        out = [Compare(">=", Expr(self.value), Expr(low), text.format(">= " + str(low)))]
        if high is not None:
            out.append(Compare("<=", Expr(self.value), Expr(high),
                               text.format("<= " + str(high))))
        return s, True, out

    def terms(self) -> tuple:
        return (self.value, self.dtype)

    def explain(self, s: dict) -> str:
        return said(self.where, f": Python integer {walk(self.value, s)} is out of bounds for "
                    f"{walk(self.dtype, s)}, the dtype the Op computes in (NumPy 2 refuses "
                    "it too)")
