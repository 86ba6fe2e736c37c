"""Proofs over one size (:func:`kantensor.types.onesize.over_one_size`, the shortcut
:func:`~kantensor.types.prove.proves` takes where the facts and the goal are linear in
one size) give exactly what Fourier–Motzkin elimination gives, and what enumerating the
size says. Random facts and goals over ``u`` (and sometimes a second size, which the
shortcut must leave to elimination)."""

from __future__ import annotations

import random

import sizing
from kantensor.types import onesize, prove
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max
from kantensor.types.symbols import substitute

CASES = sizing.size("PROVE_CASES", 4000, 40000)
U, V = Dim("u"), Dim("v")
OPS = ("==", ">=", ">", "<=", "<")
CHECK = {"==": int.__eq__, ">=": int.__ge__, ">": int.__gt__, "<=": int.__le__,
         "<": int.__lt__}
#: Every bound of the random forms (|constant| <= 8, |coefficient| >= 1) lies below this:
#: beyond it each form keeps its sign, so enumerating 0..REACH decides every question.
REACH = 40


def _side(rng: random.Random, second: bool):
    if rng.random() < 0.3:
        return rng.randint(-3, 8)
    x = rng.choice((1, 1, 2, 3, -1, -2)) * U + rng.randint(-6, 6)
    return x + V if second and rng.random() < 0.3 else x


def _value(x, u: int) -> int:
    return x if isinstance(x, int) else substitute(x, {"u": u})


def _holds_everywhere(facts, goal) -> bool:
    def ok(t, u):
        return CHECK[t[1]](_value(t[0], u), _value(t[2], u))
    return all(ok(goal, u) for u in range(REACH + 1) if all(ok(f, u) for f in facts))


def test_one_size_proofs_are_eliminations_and_the_truth():
    rng = random.Random(0)
    shortcut = 0
    for _ in range(CASES):
        second = rng.random() < 0.1
        facts = tuple((_side(rng, second), rng.choice(OPS), _side(rng, second))
                      for _ in range(rng.randint(0, 3)))
        goal = (_side(rng, second), rng.choice(OPS), _side(rng, second))
        sides = [x for f in facts for x in (f[0], f[2])] + [goal[0], goal[2]]
        fast = onesize.over_one_size(facts, goal)
        slow = prove._eliminates(facts, goal, sides)
        if fast is None:
            assert any(isinstance(x, Dim) and "v" in str(x) for x in sides), (facts, goal)
            continue
        shortcut += 1
        assert fast == slow, (facts, goal, fast, slow)
        assert fast == _holds_everywhere(facts, goal), (facts, goal, fast)
    assert shortcut > CASES // 2


def test_min_max_floor_and_products_are_left_to_elimination():
    for x in (U // 2, U % 3, U * U, U * V, dim_max(U, 3)):
        assert onesize.over_one_size((), (x, ">=", 0)) is None
