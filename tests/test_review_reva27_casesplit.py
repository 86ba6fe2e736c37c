"""Review revA27 (session 27): ``run``'s case-by-case witness (``logic.casesplit``) over
a broadcast of many named sizes onto a product (``s0*s1 + 1``) is bounded in cases
(:data:`MAX_CASES`) but not in work: each case's ``Facts.consistent`` puts the facts'
values into every product fact (``Facts._valued_false``: one ``simplify`` per product
fact, per call), so the work grows with the sizes (measured: 120 sizes 18,464 ``_valued``
calls; 200 sizes 37 s CPU before UndecidedAnswer, where 677874a7 refused in 0.3 s). The
test counts ``Facts._valued`` calls (no timing): at most a fixed multiple of MAX_CASES."""

from __future__ import annotations

from kanren import run, var

import kantensor as kt
from kantensor.logic.casesplit import MAX_CASES
from kantensor.types.facts import Facts


def test_case_split_work_bounded_by_the_case_budget(monkeypatch) -> None:
    calls = [0]
    valued = Facts._valued

    def counted(self, d, op):
        calls[0] += 1
        return valued(self, d, op)

    monkeypatch.setattr(Facts, "_valued", counted)
    names = [f"s{i}" for i in range(100)]
    rel = kt.relation(kt.Signature.parse("+" + ",".join("()" for _ in names) + "->()"))
    try:
        run(0, var(), rel(*(f"float32[{s}]" for s in names), "float32[s0*s1+1]"))
    except ValueError:  # (UndecidedAnswer is one: a refusal is fine, its work is not)
        pass
    assert calls[0] <= 8 * MAX_CASES, calls[0]
