"""Random size expressions over up to three sizes and ways of rewriting them that keep
their value at every size (test helpers of test_size_canon_multi.py and
benchmarks/canon_rate.py).

A tree is ``(symbol,)``, ``("int", k)``, ``(op, left, right)`` for ``+ - min max`` or
``(op, left, k)`` for ``* // %`` by an int; :func:`build` gives its size, :func:`value`
its value at given sizes (Python's own ``//``, ``%``, min and max)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable

from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.lattice import _lattice, lattice_parts, several_extreme

SYMBOLS = ("n", "m", "k")
OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
       "//": lambda a, b: a // b, "%": lambda a, b: a % b}


def tree(rng: random.Random, symbols: tuple[str, ...], depth: int = 3) -> tuple:
    """A random tree over ``symbols`` (linear terms, ``//`` and ``%`` by ints, min, max)."""
    if depth == 0 or rng.random() < 0.3:
        if rng.random() < 0.7:
            return (rng.choice(symbols),)
        return ("int", rng.randint(-3, 6))
    kind = rng.random()
    if kind < 0.45:
        return (rng.choice(["+", "-", "min", "max", "min", "max"]),
                tree(rng, symbols, depth - 1), tree(rng, symbols, depth - 1))
    if kind < 0.6:
        return ("*", tree(rng, symbols, depth - 1), rng.choice([-2, -1, 2, 3]))
    return (rng.choice(["//", "%"]), tree(rng, symbols, depth - 1), rng.randint(1, 4))


def build(t: tuple):
    """The size ``t`` stands for."""
    if t[0] in SYMBOLS:
        return Dim(t[0])
    if t[0] == "int":
        return t[1]
    a = build(t[1])
    b = build(t[2]) if isinstance(t[2], tuple) else t[2]
    if t[0] == "min":
        return dim_min(a, b)
    if t[0] == "max":
        return dim_max(a, b)
    return OPS[t[0]](a, b)


def value(t: tuple, sizes: dict[str, int]) -> int:
    """``t`` at ``sizes`` (Python's arithmetic)."""
    if t[0] in SYMBOLS:
        return sizes[t[0]]
    if t[0] == "int":
        return t[1]
    a = value(t[1], sizes)
    b = value(t[2], sizes) if isinstance(t[2], tuple) else t[2]
    if t[0] == "min":
        return min(a, b)
    if t[0] == "max":
        return max(a, b)
    return OPS[t[0]](a, b)


def _in_a_child(rng: random.Random, t: tuple, symbols: tuple[str, ...],
                again: Callable[..., tuple]) -> tuple | None:
    """``t`` with ``again`` applied to one of its children (six times in ten at an inner
    node), or None: ``t`` itself is the node to rewrite."""
    if t[0] in SYMBOLS or t[0] == "int" or rng.random() >= 0.6:
        return None
    i = 1 if not isinstance(t[2], tuple) or rng.random() < 0.5 else 2
    parts = list(t)
    parts[i] = again(rng, t[i], symbols)
    return tuple(parts)


def rewrite(rng: random.Random, t: tuple, symbols: tuple[str, ...]) -> tuple:
    """``t`` written another way, equal at every size: an identity of one or several
    sizes applied at a random node."""
    inner = _in_a_child(rng, t, symbols, rewrite)
    if inner is not None:
        return inner
    u = tree(rng, symbols, 1)
    k = rng.randint(1, 4)
    choice = rng.randrange(9)
    if choice == 0:  # min(t, u) + max(t, u) - u
        return ("-", ("+", ("min", t, u), ("max", t, u)), u)
    if choice == 1:  # max(t, u) - max(0, u - t)
        return ("-", ("max", t, u), ("max", ("int", 0), ("-", u, t)))
    if choice == 2:  # min(t + 1, u + 1) - min(t, u) + t - 1 + 1
        return ("+", ("-", ("min", ("+", t, ("int", 1)), ("+", u, ("int", 1))),
                      ("min", t, u)), ("-", t, ("int", 1)))
    if choice == 3:  # t % k + k*(t//k)
        return ("+", ("%", t, k), ("*", ("//", t, k), k))
    if choice == 4:  # Hermite
        return ("+", ("//", t, 2), ("//", ("+", t, ("int", 1)), 2))
    if choice == 5:  # (k*t + j)//k
        return ("//", ("+", ("*", t, k), ("int", k - 1)), k)
    if choice == 6:  # u + (t - u), the sum the algebra takes apart
        return ("+", u, ("-", t, u))
    if choice == 7:  # min(t, t + k - 1)
        return ("min", t, ("+", t, ("int", k - 1)))
    return ("+", ("min", t, u), ("max", ("int", 0), ("-", t, u)))  # min(t, u) + max(0, t - u)


def lattice_tree(rng: random.Random, symbols: tuple[str, ...], depth: int = 3) -> tuple:
    """A random tree of sums, int multiples, min and max (no floor: the lattice part)."""
    if depth == 0 or rng.random() < 0.3:
        return (rng.choice(symbols),) if rng.random() < 0.7 else ("int", rng.randint(-3, 6))
    if rng.random() < 0.8:
        return (rng.choice(["+", "-", "min", "max", "min", "max"]),
                lattice_tree(rng, symbols, depth - 1), lattice_tree(rng, symbols, depth - 1))
    return ("*", lattice_tree(rng, symbols, depth - 1), rng.choice([-1, 2, 3]))


def lattice_rewrite(rng: random.Random, t: tuple, symbols: tuple[str, ...]) -> tuple:
    """``t`` rewritten at a random node by an identity of min and max (true of every
    real, not only of integers)."""
    inner = _in_a_child(rng, t, symbols, lattice_rewrite)
    if inner is not None:
        return inner
    u = lattice_tree(rng, symbols, 1)
    choice = rng.randrange(5)
    if choice == 0:
        return ("-", ("+", ("min", t, u), ("max", t, u)), u)
    if choice == 1:
        return ("-", ("max", t, u), ("max", ("int", 0), ("-", u, t)))
    if choice == 2:
        return ("+", ("min", t, u), ("max", ("int", 0), ("-", t, u)))
    if choice == 3:  # distributivity: min(t, max(t, u)) == t
        return ("min", t, ("max", t, u))
    return ("max", ("min", t, u), ("min", t, ("max", t, u)))  # max(min(t, u), t) == t


GRID = (0, 1, 2, 3, 4, 5, 7, 12, 30)


def points(symbols: tuple[str, ...]) -> list[dict[str, int]]:
    """The grid of sizes equality is judged on (0 and 1 included)."""
    return [dict(zip(symbols, p, strict=True))
            for p in itertools.product(GRID, repeat=len(symbols))]


def facts(rng: random.Random, symbols: tuple[str, ...]) -> tuple[Facts, list[tuple]]:
    """Random facts over ``symbols`` and the trees ``(left, op, right)`` they state."""
    found = []
    for _ in range(rng.randint(0, 2)):
        a = (rng.choice(symbols),)
        kind = rng.randrange(4)
        if kind == 0 and len(symbols) > 1:
            found.append((a, "<=", (rng.choice([s for s in symbols if s != a[0]]),)))
        elif kind == 1:
            found.append((("%", a, rng.randint(2, 3)), "==", ("int", 0)))
        elif kind == 2:
            found.append((a, ">=", ("int", rng.randint(1, 3))))
        else:
            found.append((a, "<=", ("int", rng.randint(4, 12))))
    return Facts(Condition(build(x), op, build(y)) for x, op, y in found) if found \
        else EMPTY, found


def holds(stated: list[tuple], sizes: dict[str, int]) -> bool:
    """Whether the facts' trees hold at ``sizes``."""
    compare = {"<=": int.__le__, ">=": int.__ge__, "==": int.__eq__}
    return all(compare[op](value(x, sizes), value(y, sizes)) for x, op, y in stated)


def equal_over_rationals(x, y) -> bool:
    """Whether ``x - y`` is 0 over the rationals too (its lattice cells have one form,
    0): the Dim algebra may have used integers in building one of them (``min(-m, m -
    max(5, m), n - 3)`` is ``min(-m, m - max(5, m))`` only at integers)."""
    gap = x - y
    if isinstance(gap, int):
        return gap == 0
    found = lattice_parts(gap._terms)
    return found is not None and found[1] == 0 and found[3] == [((), 0)]


def decided(x) -> bool:
    """Whether the lattice part of ``x`` as written is within the lattice's budgets."""
    return isinstance(x, int) or not any(several_extreme(mono) for mono, _ in x._terms) \
        or _lattice(x._terms) is not None
