"""A box of valid sizes: the (min, opt, max) of each size, every point of it valid.

TensorRT's optimisation profiles give each input dimension a range, so a profile is a
box; the valid sizes of a model are a union of boxes with congruences and ties between
sizes. :func:`valid_box` picks the cell of the contract holding the ``opt`` point and,
in it, for each size the run of consecutive valid values around ``opt`` (a size another
one defines keeps the free sizes it depends on at ``opt``), then checks the box: its
corners, ``opt`` and a sample of its points against every atom, and the conditions no
box states by enumerating the box or by the prover. What the box leaves out of the valid
set is listed beside it (:attr:`Box.outside`).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..conditions import Condition
from ..facts import Facts
from ..symbols import free_symbols
from .cells import Cell, dim_of

__all__ = ["Box", "valid_box"]

#: A box of at most this many points is checked point by point.
ENUMERATED: Final = 1 << 14
#: How many more points of a larger box are checked (besides its corners).
SAMPLED: Final = 256


@dataclass
class Box:
    """``ranges``: each size's ``(min, opt, max)``; ``outside``: what the valid set holds
    that the box does not say (other boxes, congruences, ties, sizes without a bound)."""

    ranges: dict[str, tuple[int, int, int]]
    outside: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"{k} in [{lo}, {hi}], opt {opt}" for k, (lo, opt, hi) in self.ranges.items()]
        lines += [f"beside it: {x}" for x in self.outside]
        return "\n".join(lines)


def valid_box(contract: Any, opt: Mapping[str, int] | None = None,
              cap: Mapping[str, int] | None = None, scale: int = 2, least: int = 1) -> Box:
    """A box of valid sizes around ``opt`` (by name; a valid point, by default
    ``contract.sample()``); a size without an upper bound stops at ``cap[name]`` or
    ``scale`` times its ``opt``, and none goes below ``least`` (unless ``opt`` does).
    ValueError if ``opt`` is not valid or nothing is."""
    names = dict(contract.sizes)
    point = dict(opt or {})
    missing = [n for n in names if n not in point]
    if missing:
        near = contract.sample(near=point)
        if near is None and contract.notes:
            raise ValueError(f"no sizes are known to be valid: {contract.notes[0]}")
        if near is None:
            raise ValueError("no sizes are valid: there is no box")
        point = {**near, **point}
    verdict = contract.holds(point)
    if not verdict.value:
        raise ValueError(f"opt is not valid: {verdict}")
    values = {names[n]: v for n, v in point.items() if n in names}
    cell = next((c for c in contract.cells if c.covered and c.contains(values)), None)
    if cell is None:
        raise ValueError(f"opt {point} is in no box of the contract")
    lows: dict[Hashable, int] = {}
    highs: dict[Hashable, int] = {}
    outside: list[str] = []
    pinned = set()
    label = {s: n for n, s in contract.sizes}
    for s, e in cell.defined.items():
        deps = set(free_symbols(e))
        if deps:
            pinned |= deps
            kept = ", ".join(sorted(label[t] for t in deps))
            outside.append(f"{label[s]} == {e} (the box keeps {kept} at opt)")
    for name, s in contract.sizes:
        if s in cell.defined:
            continue
        v = values[s]
        if s in pinned:
            lows[s] = highs[s] = v
            continue
        allowed = cell.set_of(s)
        lo, hi = _run(allowed, v)
        lo = max(lo, min(least, v))  # sizes below ``least`` (an empty batch) left out
        if hi is None:
            hi = (cap or {}).get(name, max(v * scale, lo))
            outside.append(f"{name} has no upper bound (the box stops at {hi})")
        lows[s], highs[s] = lo, hi
        if len(allowed.pieces) != 1 or not allowed.pieces[0].plain or \
                (allowed.bounded and (allowed.min, allowed.max) != (lo, hi)):
            outside.append(f"{allowed.text(name)} in this box's cell")
    for c in cell.rest:
        outside.append(f"{c} (over several sizes)")
    _shrink(contract, cell, values, lows, highs)
    others = len(contract.cells) - 1
    if others:
        outside.append(f"{others} other box{'es' * (others != 1)} of valid sizes")
    ranges = {}
    for name, s in contract.sizes:
        if s in cell.defined:
            full = cell.values({t: values[t] for t in lows})
            ranges[name] = (full[s], full[s], full[s])
        else:
            ranges[name] = (lows[s], values[s], highs[s])
    return Box(ranges, outside)


def _run(allowed: Any, v: int) -> tuple[int, int | None]:
    """The maximal interval of consecutive members of ``allowed`` holding ``v``."""
    for lo, hi in allowed.runs():
        if lo <= v and (hi is None or v <= hi):
            return lo, hi
        if lo > v:
            break
    return v, v


def _shrink(contract: Any, cell: Cell, values: dict, lows: dict, highs: dict) -> None:
    """Narrow the box towards ``values`` until every check passes (see the module's
    doc)."""
    for _ in range(64):
        if _valid(contract, cell, values, lows, highs):
            return
        for s in lows:
            v = values[s]
            lows[s] = v - (v - lows[s]) // 2
            highs[s] = v + (highs[s] - v) // 2
    for s in lows:
        lows[s] = highs[s] = values[s]


def _valid(contract: Any, cell: Cell, values: dict, lows: dict, highs: dict) -> bool:
    free = list(lows)
    size = 1
    for s in free:
        size *= highs[s] - lows[s] + 1
    label = {s: n for n, s in contract.sizes}

    def ok(point: dict) -> bool:
        full = cell.values(point)
        return bool(contract.holds({label[s]: full[s] for s in full if s in label}).value)

    if size <= ENUMERATED:
        return all(ok(dict(zip(free, combo, strict=True)))
                   for combo in itertools.product(*(range(lows[s], highs[s] + 1)
                                                    for s in free)))
    corners = itertools.product(*({lows[s], highs[s]} for s in free))
    if not all(ok(dict(zip(free, c, strict=True))) for c in corners):
        return False
    rng = random.Random(0)
    if not all(ok({s: rng.randint(lows[s], highs[s]) for s in free}) for _ in range(SAMPLED)):
        return False
    if cell.rest:  # the sample is no proof for conditions no box states: the prover's
        facts = Facts([x for s in free for x in (Condition(dim_of(s), ">=", lows[s]),
                                                  Condition(dim_of(s), "<=", highs[s]))])
        defined = {s: e for s, e in cell.defined.items()}
        return all(facts.decide(c.substitute(defined)) is True for c in cell.rest)
    return True

