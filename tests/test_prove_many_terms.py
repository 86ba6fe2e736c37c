"""Questions over more terms than the prover takes (``MAX_QUESTION_TERMS``): a repeated
sum is one size (a hundred ``min(300, NonZero_i)`` summed, in a fact ``If <= M`` and in
the Gather's ``M >= 1 or min(300, If) == 0``), and a question undecided under all the
facts is asked under the facts over its own sizes alone (``Facts.near``). Both only
prove: a proof from fewer facts, or over a sum taken as any size ``>= 0``, holds
wherever all the facts do. Judged by onnxruntime (SSDlite's pattern, as the TorchScript
exporter writes torchvision's detection head: every point valid, and run) and by brute
force over small sizes (a decision under a subset never disagrees with the points)."""

from __future__ import annotations

import contextlib
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor.onnx as ko
import ortrun
import sizing
from differential import count
from kantensor.types import facts as facts_module
from kantensor.types import prove
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_min
from kantensor.types.facts import Facts
from kantensor.types.symbols import substitute
from test_contracts_if_count import _detector, _masks, _run

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 3000)
NAMES = "abcd"
GRID = range(5)


def test_seventy_classes_given_make_an_exact_contract_onnxruntime_runs():
    """Boxes of 70 classes as inputs (``M = n0 + ... + n69``): the Gather's ``M >= 1 or
    If == 0`` is true under the fact ``If <= M``, which main gave up on (71 terms a
    side): its contract was approximate. Every point is valid, and onnxruntime runs at
    sizes that all differ, 0 and 1 among them."""
    k = 70
    model = _detector(inputs=k, top=300)
    contract = ko.contract(model)
    assert contract.exact and not contract.atoms, str(contract)
    for sizes in (list(range(k)), [0] * k, [1] + [0] * (k - 1), [(5 * i) % 11 for i in range(k)]):
        assert contract.holds(**{f"n{i}": n for i, n in enumerate(sizes)}).value is True
        offset = np.cumsum([0, *sizes])  # (every box apart: NMS keeps each)
        feeds = {f"box{i}": np.array([[10 * (offset[i] + j), 0, 10 * (offset[i] + j) + 1, 1]
                                      for j in range(n)], np.float32).reshape(n, 4)
                 for i, n in enumerate(sizes)}
        feeds |= {f"score{i}": np.ones(n, np.float32) for i, n in enumerate(sizes)}
        got = ortrun.run(model, feeds)
        count("many terms: onnxruntime runs judged")
        assert got == [(min(300, sum(sizes)), 4)], (sizes, got)


def test_twenty_classes_of_nonzero_counts_make_an_exact_contract():
    """Twenty classes' NonZero counts, each topped at 300 (``min(300, NonZero_i)``
    summed: 42 terms a side beside twenty facts ``NonZero_i <= N``): main left the
    Gather's ``M >= 1 or min(300, If_7) == 0`` to the run. Every ``N`` is valid, and
    onnxruntime runs at masks keeping none, one, some and all of the boxes (the same
    mask in every class)."""
    model = _detector(classes=20, top=300)
    contract = ko.contract(model)
    assert contract.exact and not contract.atoms, str(contract)
    for n in range(4):
        assert contract.holds(N=n).value is True
        for mask in _masks(n):
            got = _run(model, n, np.tile(mask, (20, 1)))
            kept = int(np.count_nonzero(mask > 0.5))  # (each class's boxes the same:
            # NMS keeps one of each box's 20 copies)
            assert got == [(kept, 4)], (n, mask, got)


def _size() -> st.SearchStrategy:
    one = st.sampled_from(NAMES).map(Dim)
    return st.one_of(one, st.tuples(one, one).map(lambda t: t[0] + t[1]),
                     st.tuples(one, st.integers(1, 3)).map(lambda t: dim_min(t[1], t[0])),
                     st.lists(one, min_size=2, max_size=4).map(sum),
                     st.sampled_from(["abc", "bcd"]).map(lambda s: sum(map(Dim, s))),
                     st.tuples(one, one).map(lambda t: t[0] - 2 * t[1]))


def _condition() -> st.SearchStrategy:
    return st.tuples(_size(), st.sampled_from([">=", "==", "<", "<="]),
                     st.one_of(st.integers(0, 4), _size())).map(lambda t: Condition(*t))


def _points(conditions):
    """The points of the grid where every condition holds."""
    for values in itertools.product(GRID, repeat=len(NAMES)):
        env = dict(zip(NAMES, values, strict=True))
        if all(c.holds(env) for c in conditions):
            yield env


@contextlib.contextmanager
def _few_terms():
    """The prover's term limit made small: the small questions below take the paths of
    large ones (the sums lumped, the facts over a question's sizes asked)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(prove, "MAX_QUESTION_TERMS", 4)
        patch.setattr(facts_module, "MAX_QUESTION_TERMS", 4)
        prove.proves.cache_clear()
        prove.bounds.cache_clear()
        try:
            yield
        finally:
            prove.proves.cache_clear()
            prove.bounds.cache_clear()


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(_condition(), max_size=4), question=_condition())
def test_a_decision_past_the_term_limit_agrees_with_brute_force(facts, question):
    """Under a term limit of 4: ``Facts.decide`` True holds at every grid point where
    the facts hold, False at none; ``proves`` (its sums lumped) True likewise, and the
    bounds hold at every such point."""
    with _few_terms():
        _judged(facts, question)


def _judged(facts, question):
    store = Facts(facts)
    found = store.decide(question)
    points = list(_points(facts))
    if found is True:
        assert all(question.holds(p) for p in points), (facts, question)
    elif found is False:
        assert not any(question.holds(p) for p in points), (facts, question)
    if prove.proves(store.triples, question.triple()):
        assert all(question.holds(p) for p in points), (facts, question)
    low, high = store.bounds(question.key[0])
    for p in points:
        value = substitute(question.key[0], p)
        assert (low is None or value >= low) and (high is None or value <= high), \
            (facts, question, low, high, value)
