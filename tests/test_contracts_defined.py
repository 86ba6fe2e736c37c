"""A contract keeps what a dropped condition's divisor needs, judged by brute force on the
grid N, M in 0..3 with Python's own ``//`` and ``%`` (a ZeroDivisionError: the condition
does not hold, as a traced program raises there).

A bound another bound implies is dropped (:func:`kantensor.types.contracts.atoms.pruned`);
``Facts.decide`` says ``(N*M)//M >= 0`` holds wherever ``N + M >= 2`` does, but it is not
defined at M == 0, so dropping it made the contract take M == 0 (N = 2, M = 0). A bound
is now dropped only where the one that implies it also shows its divisors nonzero.
"""

from __future__ import annotations

import itertools
import operator

import pytest

import kantensor as kt
from kantensor.types.conditions import Condition
from kantensor.types.contracts import Contract, merged_atoms

OPS = {">=": operator.ge, ">": operator.gt, "==": operator.eq, "!=": operator.ne}

#: Each case: conditions as ``(left, op, right)`` of sizes N and M, the same code on
#: Dims (the contract's) and on Python ints (the oracle's).
CASES = {
    "N + M >= 2, (N*M)//M >= 0": lambda N, M: [(N + M, ">=", 2), ((N * M) // M, ">=", 0)],
    "N + M >= 1, N % M >= 0": lambda N, M: [(N + M, ">=", 1), (N % M, ">=", 0)],
    "N >= 1, N + M >= 1, (N + M)//M >= 0": lambda N, M: [
        (N, ">=", 1), (N + M, ">=", 1), ((N + M) // M, ">=", 0)],
    "N*M + N >= 1, N + (N*M)//M >= 1": lambda N, M: [
        (N * M + N, ">=", 1), (N + (N * M) // M, ">=", 1)],
    "M >= 1, N + M >= 2, (N*M)//M >= 0": lambda N, M: [
        (M, ">=", 1), (N + M, ">=", 2), ((N * M) // M, ">=", 0)],
    "N*M >= 1, N//M + N >= 1": lambda N, M: [(N * M, ">=", 1), (N // M + N, ">=", 1)],
}


def _holds(case: str, n: int, m: int) -> bool:
    try:
        return all(OPS[op](left, right) for left, op, right in CASES[case](n, m))
    except ZeroDivisionError:
        return False


@pytest.mark.parametrize("case", CASES)
def test_a_dropped_condition_keeps_its_divisor(case):
    n, m = kt.TensorType.parse("float32[N, M]").shape
    clauses = [Condition(left, op, right) for left, op, right in CASES[case](n, m)]
    contract = Contract(merged_atoms(clauses, {"N", "M"}), [("N", "N"), ("M", "M")])
    for a, b in itertools.product(range(4), range(4)):
        want = _holds(case, a, b)
        assert contract.holds(N=a, M=b) == want, (case, a, b, str(contract))
