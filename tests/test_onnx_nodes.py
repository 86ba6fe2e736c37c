"""ONNX's own node test cases, typed and run (see tests/onnx_cases.py): zero wrong
types over all cases; floors on the cases typed exactly and run equal."""

from __future__ import annotations

import pytest

from onnx_cases import Stats, figures, measure

STATS = Stats()

#: The figures of the summary (tests/conftest.py prints them, merged from the workers).
SUMMARY: dict[str, int] = {}

#: Floors: what this suite reached; a regression below them fails. (The executed floor
#: leaves room for the cases whose outputs are random: Bernoulli, training Dropout.)
MIN_EXACT_SYMBOLIC = 1350
#: (1350 before ReduceMax of bool over an empty set was refused where onnxruntime refuses
#: it: ``test_reduce_max_empty_set_bool``, whose False the spec computes; docs/onnx.rst)
MIN_EXACT_CONCRETE = 1349
MIN_EQUAL = 1362
#: In-scope op types exact in every symbolised case.
MIN_OP_TYPES_EXACT = 171
#: Op types exact in every symbolised case, of all 197 (control flow, sequences,
#: optionals, strings, the ML, training and preview domains included).
MIN_ALL_OP_TYPES_EXACT = 185
#: The issue's target: of the in-scope cases that onnx.reference itself runs and
#: reproduces, the share kt.function runs equal.
MIN_EQUAL_OF_REFERENCE = 0.97


@pytest.fixture(scope="module")
def results():
    measure(STATS)
    SUMMARY.update(figures(STATS))
    return STATS


def test_no_wrong_types(results):
    assert results.wrong == []


def test_floors(results):
    assert results.typed["symbolic", "exact"] >= MIN_EXACT_SYMBOLIC
    assert results.typed["concrete", "exact"] >= MIN_EXACT_CONCRETE
    assert results.equal >= MIN_EQUAL
    assert sum(results.scope_ops.values()) >= MIN_OP_TYPES_EXACT
    assert sum(results.exact_ops.values()) >= MIN_ALL_OP_TYPES_EXACT
    runnable = results.scope["reference"]
    assert runnable > 1200  # the denominator is not vacuous
    assert results.scope["equal of reference"] >= MIN_EQUAL_OF_REFERENCE * runnable
