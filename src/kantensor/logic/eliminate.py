"""The unknowns a witness search need not search: an equation that gives one as the
value of the others (``? == a//b``: an open output size) defines it
(:func:`eliminated`); the search evaluates it once the others have values
(:func:`defined`: an int, where a value substituted into a large condition could make
it many times larger), a one-size group substitutes its value (:func:`resolved`)."""

from __future__ import annotations

from typing import Any

from ..types.dim import Dim, DimLike, unknown
from ..types.symbols import free_symbols, substitute
from .quotients import charge

__all__ = ["defined", "eliminated", "resolved", "symbols_of"]


def eliminated(checks: list) -> tuple[list, dict]:
    """The checks with each unknown an equation gives as the value of the others
    (``? == a//b``: an open output size) defined as that value (``defs``: the rest
    keep it, their sizes are the value's), and the equation replaced by the value's
    being a size (``a//b >= 0``, and has a value). A search evaluates a defined unknown
    once the others have values (:func:`defined`), a one-size group substitutes its
    value (:func:`resolved`): substituted into a large condition, a value can make it
    many times larger."""
    checks, defs = list(checks), {}
    changed = True
    while changed:
        changed = False
        for i, (op, left, right, diff, symbols, said) in enumerate(checks):
            if op != "==" or diff is None:  # (None: a product too large to expand)
                continue
            for u in sorted((v for v in symbols if not isinstance(v, str)), key=repr):
                value = _solved(resolved(diff, defs), u)
                if value is None:
                    continue
                defs[u] = value
                rest = [(o, lt, rt, d, s - {u} | symbols_of(value), sd) if u in s else
                        (o, lt, rt, d, s, sd)
                        for j, (o, lt, rt, d, s, sd) in enumerate(checks) if j != i]
                checks = [*rest, (">=", left, right, value, symbols_of(value), said)]
                changed = True
                break
            if changed:
                break
    return checks, defs


def resolved(diff: DimLike, defs: dict) -> DimLike:
    """``diff`` with the defined unknowns it holds replaced by their values."""
    while defs and (held := symbols_of(diff) & defs.keys()):
        diff = substitute(diff, {u: defs[u] for u in held})
    return diff


def defined(diff: DimLike, defs: dict, at: dict) -> dict:
    """``at`` with the values of the defined unknowns ``diff`` holds (and those their
    values hold), evaluated at ``at`` (ZeroDivisionError where one has no value)."""
    held, stack = set(), list(symbols_of(diff) & defs.keys())
    while stack:
        u = stack.pop()
        if u not in held:
            held.add(u)
            stack.extend(symbols_of(defs[u]) & defs.keys())
    at = dict(at)
    while held - at.keys():
        ready = [u for u in held - at.keys() if not symbols_of(defs[u]) & defs.keys() - at.keys()]
        if not ready:
            return at  # (no order: its check is judged not to hold)
        for u in ready:
            charge(defs[u])
            at[u] = substitute(defs[u], at)
    return at


def symbols_of(x: DimLike) -> frozenset:
    """The names and unknowns ``x`` holds (none in an int)."""
    return frozenset(free_symbols(x)) if isinstance(x, Dim) else frozenset()


def _solved(diff: DimLike, u: Any) -> DimLike | None:
    """``e`` with ``diff == 0`` exactly where the unknown ``u`` is ``e`` (``diff`` is
    ``±u`` plus terms without ``u``), else None."""
    for sign in (1, -1):
        rest = diff - sign * unknown(u)
        if u not in symbols_of(rest):
            return -sign * rest
    return None
