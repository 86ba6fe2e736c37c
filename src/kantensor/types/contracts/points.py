"""The points of a contract's cells: enumerating them in a box, picking one, and one
size's values in a cell."""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator, Mapping
from typing import Any, Final

from ..conditions import Condition
from ..facts import Facts
from ..symbols import free_symbols
from .cells import Cell, dim_of
from .evaluate import evaluator
from .sizeset import ALL, SizeSet

__all__ = ["cell_key", "choices_of", "pick", "points", "projection"]

#: How far past its least member an unbounded set is sampled.
SAMPLE_SPAN: Final = 256


def cell_key(cell: Cell, order: list[Hashable]) -> tuple:
    """Cells in order of their least sizes."""
    out = []
    for s in order:
        e = cell.defined.get(s)
        out.append(e if isinstance(e, int) else (cell.set_of(s).min or 0) if e is None
                   else -1)
    return tuple(out)


def projection(cell: Cell, s: Hashable) -> tuple[SizeSet, bool]:
    """The values of size ``s`` in ``cell``, and whether exactly."""
    if s not in cell.defined:
        return cell.set_of(s), True
    e = cell.defined[s]
    if isinstance(e, int):
        return (SizeSet.point(e) if e >= 0 else SizeSet()), True
    syms = sorted(free_symbols(e), key=str)
    sets = [cell.set_of(t) for t in syms]
    if len(syms) == 1:
        shift = e - dim_of(syms[0])
        if isinstance(shift, int):
            return sets[0].shifted(shift), True
    counts = [x.count() for x in sets]
    if None not in counts and _product(counts) <= 1 << 14:
        f = evaluator(e)
        values = set()
        for combo in _product_iter([list(x) for x in sets]):
            values.add(f(dict(zip(syms, combo, strict=True))))
        return SizeSet.points(values), True
    return _bounded_image(e, syms, sets)


#: The widest bounded image of a defined size that :func:`projection` enumerates.
MAX_IMAGE: Final = 1 << 12


def _bounded_image(e: Any, syms: list, sets: list[SizeSet]) -> tuple[SizeSet, bool]:
    """The values of ``e`` over the product of ``sets`` where the facts bound it: every
    int of its proven bounds ``[lo, hi]`` met at some point (exact), or those bounds
    (necessary); else any size."""
    facts = []
    for t, x in zip(syms, sets, strict=True):
        if x.min:
            facts.append(Condition(dim_of(t), ">=", x.min))
        if x.max is not None:
            facts.append(Condition(dim_of(t), "<=", x.max))
    lo, hi = Facts(facts).bounds(e)
    lo = max(lo or 0, 0)
    if hi is None or hi - lo > MAX_IMAGE:
        return (SizeSet.interval(lo) if lo else ALL), False
    f = evaluator(e)
    want = set(range(lo, hi + 1))
    lists = [list(x.within(x.min or 0, (x.min or 0) + MAX_IMAGE)) for x in sets]
    if _product([len(x) for x in lists]) <= 1 << 14:
        for combo in _product_iter(lists):
            want.discard(f(dict(zip(syms, combo, strict=True))))
            if not want:
                return SizeSet.interval(lo, hi), True
    return SizeSet.interval(lo, hi), False


def _product(xs: list[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def _product_iter(lists: list[list[int]]) -> Iterator[tuple[int, ...]]:
    if not lists:
        yield ()
        return
    for x in lists[0]:
        for rest in _product_iter(lists[1:]):
            yield (x, *rest)


def choices_of(name: str, r: Any) -> list[int] | tuple[int, int]:
    if isinstance(r, int) and not isinstance(r, bool):
        return [r]
    if isinstance(r, tuple) and len(r) == 2 and all(isinstance(x, int) for x in r):
        return r
    try:
        values = sorted({int(x) for x in r})
    except (TypeError, ValueError):
        raise ValueError(f"solutions: {name} must be an int, (lo, hi), a range or ints, "
                         f"got {r!r}") from None
    return values


def points(cell: Cell, order: list[Hashable], choices: Mapping, names: Mapping
            ) -> Iterator[dict[Hashable, int]]:
    """The points of ``cell`` within ``choices`` (its rest and hidden conditions are
    checked by the caller)."""
    free = [s for s in order if s not in cell.defined]
    lists = []
    for s in free:
        allowed = cell.set_of(s)
        pick = choices.get(s)
        if isinstance(pick, tuple):
            lists.append(list(allowed.within(*pick)))
        elif pick is not None:
            lists.append([v for v in pick if v in allowed])
        elif allowed.bounded:
            lists.append(list(allowed))
        else:
            raise ValueError(f"solutions: {names[s]} has no upper bound ({allowed.text(names[s])})"
                             f"; give its range")
    for combo in _product_iter(lists):
        point = dict(zip(free, combo, strict=True))
        try:
            point = cell.values(point)
        except ZeroDivisionError:
            continue
        if all(_within(point[s], choices.get(s)) for s in cell.defined if s in point):
            yield point


def _within(v: int, pick: Any) -> bool:
    if pick is None:
        return v >= 0
    if isinstance(pick, tuple):
        return pick[0] <= v <= pick[1]
    return v in pick


def pick(cell: Cell, order: list[Hashable], want: Mapping[Hashable, int],
          rng: random.Random | None) -> dict[Hashable, int] | None:
    point = {}
    for s in order:
        if s in cell.defined:
            continue
        allowed = cell.set_of(s)
        if not allowed:
            return None
        if rng is None:
            v = allowed.nearest(want.get(s, 1))
        else:
            lo = allowed.min
            hi = allowed.max if allowed.bounded else lo + SAMPLE_SPAN
            v = allowed.nearest(rng.randint(lo, hi))
        point[s] = v
    try:
        return cell.values(point)
    except ZeroDivisionError:
        return None
