"""A witness group whose sizes each have a few values: every value is tried.

A pending broadcast into a known int ``k`` leaves each of its sizes 1 or ``k``
(``(x - k)*(x - 1) == 0``): a group of conditions whose sizes all have such few
values (:func:`few_values`) is judged by trying their values together, one size at
a time, each condition as soon as its sizes have values (:func:`enumerated`): where
none holds, the group holds nowhere (``float32[x,y,x] + float32[b,a,a]`` is
``float32[2,0,0]`` at x = 1, y = 0, a = 0, b = 2; a search over the least values of
each size alone need not find it)."""

from __future__ import annotations

from ..types.dim import Dim, DimLike, unknown
from ..types.symbols import substitute
from .dims import COMPARE
from .eliminate import defined, symbols_of
from .quotients import SUBSTITUTIONS, Spent, charge

__all__ = ["MAX_SIZES", "MAX_TRIES", "enumerated", "few_values", "late_hold"]

#: The most assignments (of one size each, partial ones too) and substituted terms
#: :func:`enumerated` spends on a group (more: not judged here).
MAX_TRIES = 1 << 12

#: The most sizes of one group :func:`enumerated` judges (a level of search each).
MAX_SIZES = 256


def few_values(sizes: list, group: list) -> dict | None:
    """Each size's values, where every size of the group has a check stating it is one
    of a few ints (a broadcast's ``(x == k or x == 1)``), else None. ``group``: the
    witness's checks, ``(op, left, right, diff, symbols, said)``, ``said`` a
    broadcast's case pairs."""
    found: dict = {}
    for v in sizes:
        size = Dim(v) if isinstance(v, str) else unknown(v)
        for *_, said in group:
            if isinstance(said, tuple) and all(
                    type(k) is int and k >= 0 and isinstance(x, Dim) and x == size
                    for x, k in said):
                found[v] = found.get(v, {k for _, k in said}) & {k for _, k in said}
        if v not in found:
            return None
    return {v: sorted(ks) for v, ks in found.items()}


def enumerated(sizes: list, group: list, defs: dict, domains: dict) -> bool | None:
    """Whether some values of ``sizes`` among ``domains`` meet every check of the group
    (a check holding a defined unknown, :func:`~.eliminate.eliminated`, once all have
    values): True or False, or None past :data:`MAX_TRIES` tries or :data:`MAX_SIZES`
    sizes or where a check has no int value at them (not judged here)."""
    if len(sizes) > MAX_SIZES:
        return None  # (one level of search per size)
    order = sorted(sizes, key=lambda v: (len(domains[v]), repr(v)))
    late = [(op, d) for op, _, _, d, _, _ in group if symbols_of(d) & defs.keys()]
    due: list[list] = [[] for _ in order]
    for op, _, _, d, symbols, _ in group:
        if not symbols_of(d) & defs.keys():
            due[max((order.index(v) for v in symbols), default=0)].append((op, d))
    undecided = [False]

    def holds(op: str, d: DimLike, at: dict) -> bool:
        charge(d)
        try:
            value = substitute(d, at)
        except ZeroDivisionError:
            return False
        if not isinstance(value, int):
            undecided[0] = True
            return False
        return COMPARE[op](value, 0)

    def assign(i: int, at: dict) -> bool:
        for k in domains[order[i]]:
            charge(1)
            there = {**at, order[i]: k}
            if all(holds(op, d, there) for op, d in due[i]) and (
                    assign(i + 1, there) if i + 1 < len(order) else
                    late_hold(late, defs, there)):
                return True
        return False

    token = SUBSTITUTIONS.set([MAX_TRIES])
    try:
        found = assign(0, {}) if order else all(holds(op, d, {}) for op, d in due[0])
    except Spent:
        return None
    finally:
        SUBSTITUTIONS.reset(token)
    return True if found else None if undecided[0] else False


def late_hold(late: list, defs: dict, at: dict) -> bool:
    """Whether each check ``(op, diff)`` holding a defined unknown holds at ``at``."""
    for op, d in late:
        try:
            full = defined(d, defs, at)
            charge(d)
            value = substitute(d, full)
        except ZeroDivisionError:
            return False
        if not isinstance(value, int) or not COMPARE[op](value, 0):
            return False  # (a value left open is no witness)
    return True
