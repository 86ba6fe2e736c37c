"""How often sizes equal at every satisfying assignment get different forms.

Random size expressions over 1-3 sizes (tests/sizegen.py: linear terms, floor division
and remainder by ints, min, max) are rewritten by identities that keep their value
(``min(t, u) + max(t, u) - u``, Hermite's, ``t % k + k*(t//k)``, ...), and random pairs
of independent expressions are judged equal on a grid of sizes (0 and 1 included) and at
random sizes up to 99 (the grid alone took ``max(6, m, n//2) % 3`` for 0 where 6
divides ``m``: it is 1 at ``n = 14``); with random facts, at the points where they
hold. For each equal pair it counts: the forms differ (``Facts.simplify``), and
``Facts.decide(a == b)`` is not True; and of the pairs that differ, those ``decide``
calls equal (wrong). Rows by number of sizes, without and with facts.

With ``--show`` it prints each equal pair left in two forms (the facts, both sizes as
written and their forms) and each pair ``decide`` took for equal wrongly.

Run: ``python benchmarks/canon_rate.py [--pairs 2000] [--seed 0] [--show]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import sizegen  # noqa: E402
from kantensor.types.conditions import Condition  # noqa: E402
from kantensor.types.facts import EMPTY  # noqa: E402

#: Random sizes beside the grid, per pair: equal on both is taken as equal.
FAR_POINTS = 96


def _equal(a: tuple, b: tuple, grid: list[dict[str, int]]) -> bool:
    return all(sizegen.value(a, p) == sizegen.value(b, p) for p in grid)


def _far(rng: random.Random, symbols: tuple[str, ...], stated: list) -> list[dict[str, int]]:
    """Random sizes up to 99 where the facts hold (0 and 1 are on the grid)."""
    found = ({s: rng.randrange(100) for s in symbols} for _ in range(FAR_POINTS))
    return [p for p in found if sizegen.holds(stated, p)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", action="store_true",
                        help="print the pairs in two forms and the wrong ones")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    far = random.Random(args.seed + 1)  # (its own stream: the pairs drawn stay as before)
    print(f"{'sizes':>5} {'facts':>5} {'equal pairs':>11} {'forms differ':>13} "
          f"{'decide not True':>15} {'wrong':>5}")
    start = time.process_time()
    for count in (1, 2, 3):
        symbols = sizegen.SYMBOLS[:count]
        for with_facts in (False, True):
            pairs = differ = undecided = wrong = 0
            while pairs < args.pairs:
                facts, stated = sizegen.facts(rng, symbols) if with_facts else (EMPTY, [])
                grid = [p for p in sizegen.points(symbols) if sizegen.holds(stated, p)]
                if not grid:
                    continue
                a = sizegen.tree(rng, symbols)
                b = sizegen.rewrite(rng, a, symbols) if rng.random() < 0.8 \
                    else sizegen.tree(rng, symbols)
                if not _equal(a, b, grid) or not _equal(a, b, _far(far, symbols, stated)):
                    x, y = sizegen.build(a), sizegen.build(b)
                    if facts.decide(Condition(x, "==", y)) is True:
                        wrong += 1
                        if args.show:
                            print(f"  wrong: {facts!r}: {x} == {y}")
                    continue
                pairs += 1
                x, y = sizegen.build(a), sizegen.build(b)
                fx, fy = facts.simplify(x), facts.simplify(y)
                if fx != fy:
                    differ += 1
                    if args.show:
                        print(f"  two forms: {facts!r}: {x} -> {fx}  |  {y} -> {fy}")
                undecided += facts.decide(Condition(x, "==", y)) is not True
            print(f"{count:>5} {'yes' if with_facts else 'no':>5} {pairs:>11} "
                  f"{differ / pairs:>12.1%} {undecided / pairs:>15.1%} {wrong:>5}")
    print(f"{time.process_time() - start:.1f} s CPU")


if __name__ == "__main__":
    main()
