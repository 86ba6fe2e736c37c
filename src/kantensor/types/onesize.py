"""Proofs over one size: where the facts and the goal of a question are linear in one
size ``u`` (or in none), each fact is an integer bound on ``u``, so the goal holds iff no
way it fails meets the interval the facts leave (``u >= 0`` too). That is what
Fourier–Motzkin elimination (:mod:`kantensor.types.prove`) decides there, without its
systems: the common question of a build, an input's unknown size against ints
(``u == 1001 or u == 1``). tests/test_prove_one_size.py compares both, and enumeration.
"""

from __future__ import annotations

from .poly import Opaque

__all__ = ["over_one_size"]


def over_one_size(facts: tuple, goal: tuple) -> bool | None:
    """:func:`~kantensor.types.prove.proves` of ``goal`` under ``facts`` (the same
    triples) where they are linear in one size ``u`` (or in none); None where they are
    not."""
    variable = None
    lines = []
    for left, op, right in (*facts, goal):
        a, c = 0, 0
        for x, sign in ((left, 1), (right, -1)):
            if isinstance(x, int):
                c += sign * x
                continue
            for mono, k in x._terms:
                if not mono:
                    c += sign * k
                    continue
                if len(mono) != 1 or mono[0][1] != 1 or isinstance(mono[0][0], Opaque):
                    return None
                atom = mono[0][0]
                if variable is None:
                    variable = atom
                elif atom != variable:
                    return None
                a += sign * k
        lines.append((a, c, op))
    *held, (ga, gc, gop) = lines
    low, high = 0, None  # every size is >= 0
    for a, c, op in held:  # a*u + c op 0
        if op == "==":
            if a == 0:
                if c:
                    return True  # no size meets the facts
                continue
            if c % a:
                return True
            low, high = _meet(low, high, -c // a, -c // a)
            if low is None:
                return True
            continue
        if op in ("<=", "<"):
            a, c = -a, -c
        if op in (">", "<"):
            c -= 1  # a*u + c > 0 is a*u + c - 1 >= 0 (integers)
        low, high = _meet(low, high, *_bound(a, c))
        if low is None:
            return True
    if gop == "==":  # the ways the goal fails, each a*u + c >= 0
        fails = ((-ga, -gc - 1), (ga, gc - 1))
    elif gop == ">=":
        fails = ((-ga, -gc - 1),)
    elif gop == ">":
        fails = ((-ga, -gc),)
    elif gop == "<=":
        fails = ((ga, gc - 1),)
    elif gop == "<":
        fails = ((ga, gc),)
    else:
        return False
    for a, c in fails:
        lo, hi = _meet(low, high, *_bound(a, c))
        if lo is not None and (hi is None or lo <= hi):
            return False
    return True


def _bound(a: int, c: int) -> tuple[int | None, int | None]:
    """The integers ``u`` with ``a*u + c >= 0``, as (least, greatest); (None, None) where
    there are none (None as greatest alone: unbounded above)."""
    if a > 0:
        return -(c // a), None  # u >= ceil(-c/a)
    if a < 0:
        return None, c // -a  # u <= floor(c/-a)
    return (0, None) if c >= 0 else (None, None)


def _meet(low: int | None, high: int | None, lo: int | None, hi: int | None
          ) -> tuple[int | None, int | None]:
    """The intersection of [low, high] and [lo, hi] (None for low or lo: empty; the
    greatest None: unbounded); (None, None) where it is empty."""
    if low is None or (lo is None and hi is None):
        return None, None
    if lo is not None:
        low = max(low, lo)
    if hi is not None:
        high = hi if high is None else min(high, hi)
    if high is not None and low > high:
        return None, None
    return low, high
