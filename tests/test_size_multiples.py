"""A sum of positive multiples of sizes plus a constant (a channel product's ``7*batch
>= 0``) is decided by Facts.decide without the prover (kantensor.types.stated.unfacted):
its answer is the prover's (kantensor.types.prove.proves on the facts), and true at
every point of a grid of sizes where the facts hold."""

from __future__ import annotations

import itertools
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types import facts as facts_module
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.facts import EMPTY
from kantensor.types.prove import proves

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
SIZES = (Dim("batch"), Dim("h"), Dim("w"))
#: the grid: batch 0..3, h and w 0..15 (past what the windows' facts need)
GRID = (range(0, 4), range(0, 16), range(0, 16))

#: facts a model's windows state (a stack of ceil-mode pools' kept ``out >= 1``) and
#: others, or none
WINDOWS = [(), (((SIZES[1] + 3) // 4 - 2, ">=", 1),),
           (((SIZES[1] + 3) // 4 - 2, ">=", 1), ((SIZES[2] + 1) // 2 - 3, ">=", 1)),
           ((SIZES[0], ">=", 2), (SIZES[1] - SIZES[2], ">=", 0))]


@st.composite
def _question(draw) -> tuple:
    """``d op 0`` with ``d`` a sum of multiples (one past 1) of sizes plus a constant
    that keeps it true at sizes 0, and facts."""
    terms = draw(st.lists(st.tuples(st.sampled_from(SIZES), st.integers(1, 9)),
                          min_size=1, max_size=3))
    u, k = draw(st.sampled_from(SIZES)), draw(st.integers(2, 9))
    op = draw(st.sampled_from([">=", ">"]))
    d = k * u + draw(st.integers(int(op == ">"), 3))
    for u, k in terms:
        d = d + k * u
    facts = EMPTY.with_(*(Condition(*x) for x in draw(st.sampled_from(WINDOWS))))
    return d, op, facts


def _holds_on_grid(facts, d, op: str) -> bool:
    for values in itertools.product(*GRID):
        at = {u.name: v for u, v in zip(SIZES, values, strict=True)}
        if all(c.holds(at) for c in facts) and not Condition(d, op, 0).holds(at):
            return False
    return True


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(_question())
def test_positive_multiples_are_decided_as_the_prover_decides_them(question) -> None:
    """Decided True with the prover and the kept box made to fail if asked (they were
    asked before: a coefficient past 1 was not of unfacted's form); the prover on the
    facts made whole proves it too, and it holds on the grid wherever the facts do."""
    d, op, facts = question
    with mock.patch.object(facts_module, "proves", side_effect=AssertionError), \
            mock.patch.object(facts_module.factbox, "proven", side_effect=AssertionError):
        assert facts.decide((d, op, 0)) is True, (d, op, facts)
    assert proves(facts.triples, (d, op, 0)), (d, op, facts)
    assert _holds_on_grid(facts, d, op), (d, op, facts)
