"""A floor quotient whose numerator the facts show ``>= 0`` (``(K + N - 1)//K`` under
``K >= 1``), and the whole chunks ``N - N % K`` and ``N + (-N) % K`` (multiples of ``K``):
kantensor.types.prove.proves shows what Python's own ``//`` and ``%`` say at every
point of a grid where the facts hold, and never what they refute there."""

from __future__ import annotations

import itertools

import pytest

from kantensor.types.dim import Dim
from kantensor.types.prove import proves

N, K = Dim("N"), Dim("K")
FACTS = ((K, ">=", 1),)
#: N in 0..20, K in 1..8 (where the facts hold)
GRID = [{"N": n, "K": k} for n, k in itertools.product(range(21), range(1, 9))]

#: goals that hold at every size where K >= 1 (they were not proven)
TRUE = [((K + N - 1) // K, ">=", 0), ((K + N - 1) % K, "<=", K + N - 1),
        ((N - N % K) % K, "==", 0), ((N + (-N) % K) % K, "==", 0),
        ((N - N % K) // K, "==", N // K), ((N + (-N) % K) // K, ">=", 0),
        ((N - N % K) // K, ">=", 0)]
#: goals false at some size where K >= 1
FALSE = [((K + N - 2) // K, ">=", 0), ((N - N % K + 1) % K, "==", 0),
         ((N + N % K) % K, "==", 0), ((N - N % K) // K, "==", N // K + 1),
         ((N - 2 * (N % K)) % K, "==", 0), ((N - (N + 1) % K) % K, "==", 0)]


def _python(goal, sizes) -> bool:
    """``goal`` at ``sizes`` as Python evaluates its text."""
    left, op, right = goal
    return bool(eval(f"({left}) {op} ({right})", {}, dict(sizes)))


@pytest.mark.parametrize("goal", TRUE + FALSE, ids=str)
def test_a_chunk_is_proven_exactly_where_python_agrees(goal):
    everywhere = all(_python(goal, s) for s in GRID)
    assert everywhere == (goal in TRUE), goal  # (the lists are Python's)
    assert proves(FACTS, goal) == everywhere, goal
