"""A size's value at a point: each of its symbols given an int (:mod:`.monotone`
evaluates the sizes of its questions at the corners of a box and along a bisection)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from .poly import Opaque

__all__ = ["Unevaluable", "at", "terms", "value"]


def terms(x: Any) -> tuple | int:
    """``x``'s terms (an int, or a size's terms; terms given stay as they are)."""
    return x if isinstance(x, int | tuple) else x._terms


def value(x: Any, point: dict) -> int | None:
    """``x`` at ``point`` (None: a symbol it lacks, or an inexact ``/``)."""
    found = terms(x)
    if isinstance(found, int):
        return found
    total = 0
    for mono, c in found:
        term = c
        for atom, p in mono:
            v = _atom_value(atom, point)
            if v is None:
                return None
            term *= v ** p
        total += term
    return total


def _atom_value(atom: Hashable, point: dict) -> int | None:
    if not isinstance(atom, Opaque):
        return point.get(atom)
    args = [value(g, point) for g in atom.args]
    if None in args:
        return None
    op = atom.op
    if op == "min":
        return min(args)
    if op == "max":
        return max(args)
    a, b = args
    if b <= 0:
        return None
    if op == "//":
        return a // b
    if op == "%":
        return a % b
    return a // b if op == "/" and a % b == 0 else None


class Unevaluable(Exception):
    """A size that cannot be evaluated at a point (an inexact ``/``)."""


def at(g: Any, s: Hashable, v: int) -> int:
    """``g`` (a size over the one symbol ``s``) at ``s = v``; Unevaluable where it has no
    value there."""
    found = value(g, {s: v})
    if found is None:
        raise Unevaluable
    return found
