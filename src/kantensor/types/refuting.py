"""Whether size facts show a condition fails, beyond what the prover decides: the
condition's difference simplified under the facts may be an int (``a == 1`` puts 1 into
``a**2``, which the prover does not: ``a**2 == a + 20`` beside ``a == 1`` fails).
Backward answers whose conditions hold at no sizes are dropped by it
(:func:`kantensor.query.answers.satisfiable`, :mod:`kantensor.logic.broadcast`)."""

from __future__ import annotations

from .conditions import COMPARE, Condition
from .facts import Facts

__all__ = ["refutes"]


def refutes(facts: Facts, condition: Condition) -> bool:
    """Whether ``facts`` show ``condition`` fails: :meth:`~.Facts.decide` says so, or its
    difference simplified under them (:meth:`~.Facts.simplify`: equal to it wherever
    they hold) is an int it fails at."""
    if facts.decide(condition) is False:
        return True
    d, op = condition.key
    value = facts.simplify(d) if facts.atoms else d
    return isinstance(value, int) and not COMPARE[op](value, 0)
