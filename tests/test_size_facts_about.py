"""Facts.about: the facts that mention one of the symbols asked of, and transitively the
facts their other symbols are in, judged by brute force (the closure over every pair of
facts, to a fixed point), on random sets of facts over a few sizes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.facts import EMPTY, Facts

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
NAMES = "abcdef"


def _size() -> st.SearchStrategy:
    one = st.sampled_from(NAMES).map(Dim)
    return st.one_of(one, st.tuples(one, one).map(lambda t: t[0] + t[1]),
                     st.tuples(one, st.integers(2, 3)).map(lambda t: t[0] // t[1]),
                     st.tuples(one, one).map(lambda t: t[0] - 2 * t[1]))


def _condition() -> st.SearchStrategy:
    return st.tuples(_size(), st.sampled_from([">=", "==", "!=", "<"]),
                     st.integers(0, 4)).map(lambda t: Condition(*t))


def _closure(atoms, symbols) -> frozenset:
    """Every atom sharing a symbol with the wanted ones, grown to a fixed point."""
    wanted, kept = set(symbols), set()
    while True:
        more = {c for c in atoms if c not in kept and wanted & c.symbols()}
        if not more:
            return frozenset(kept)
        kept |= more
        for c in more:
            wanted |= c.symbols()


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(atoms=st.lists(_condition(), max_size=8),
       asked=st.lists(st.sets(st.sampled_from(NAMES + "z"), max_size=3), min_size=1,
                      max_size=3))
def test_about_is_the_closure_of_the_symbols_asked_of(atoms, asked) -> None:
    facts = Facts(atoms)
    for symbols in asked:
        found = facts.about(symbols)
        assert found.atoms == _closure(facts.atoms, symbols), (facts, symbols)
        if found.atoms == facts.atoms:
            assert found is facts or not symbols or not facts.atoms
    assert EMPTY.about({"a"}) is EMPTY
