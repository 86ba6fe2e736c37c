"""Facts.about: the facts that mention one of the symbols asked of, and transitively the
facts their other symbols are in, judged by brute force (the closure over every pair of
facts, to a fixed point), on random sets of facts over a few sizes."""

from __future__ import annotations

import sys
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.conditions import Condition, Source
from kantensor.types.dim import Dim
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.prove import terms_of

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



@settings(max_examples=N_EXAMPLES, deadline=None)
@given(steps=st.lists(st.lists(_condition(), min_size=1, max_size=2), max_size=6),
       asked=st.lists(st.sets(st.sampled_from(NAMES + "z"), max_size=3), min_size=1,
                      max_size=3),
       questions=st.lists(_condition(), max_size=3))
def test_facts_grown_step_by_step_answer_as_facts_made_whole(steps, asked, questions) -> None:
    """A set grown by with_ carries its parent's parts, least values, trend and box
    over; grown a second time by the same conditions under other sources (a build's,
    its node's, the model's note), it takes the first one's: at every step, about is
    the brute-force closure and decide answers as a set made whole of the same atoms."""
    facts = EMPTY
    for step in steps:
        for symbols in asked:  # (asked first: the parts are made, then carried over)
            facts.about(symbols)
        for q in questions:
            facts.decide(q)  # (least values and box made, then carried over)
        first = facts.with_(*step)
        noted = facts.with_(*[Condition(c.left, c.op, c.right, Source(node="n"))
                              for c in step])
        assert noted.atoms == first.atoms
        whole = Facts(noted.atoms)
        for grown in (first, noted):
            for symbols in asked:
                assert grown.about(symbols).atoms == _closure(grown.atoms, symbols)
            for q in questions:
                assert grown.decide(q) == whole.decide(q), (grown, q)
        facts = noted



def _asked_at_once(sets: list[Facts], symbols: set[str]) -> list:
    """``set.about(symbols)``'s atoms for each set, asked by a thread each, all at once
    (the exception where one raised)."""
    found: list = [None] * len(sets)
    barrier = threading.Barrier(len(sets))

    def ask(t: int) -> None:
        barrier.wait()
        try:
            found[t] = sets[t].about(symbols).atoms
        except Exception as exc:  # noqa: BLE001 (reported by the test, with its set)
            found[t] = exc

    threads = [threading.Thread(target=ask, args=(t,)) for t in range(len(sets))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return found


def test_sets_sharing_a_pending_chain_answer_from_many_threads() -> None:
    """Four threads ask four sets grown from one long chain of pending parts at once
    (threads switched as often as Python allows): each joins the chain, or reads the
    parts another made, and answers the brute-force closure. Main cleared a joined
    step's parent while another thread walked through it: TypeError (a race about
    would have left a contract weaker, caught as a body's refusal)."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(sizing.size("FACTS_THREAD_TRIALS", 40, 400)):
            base = EMPTY.with_(Condition(Dim("a0"), ">=", 1))
            base.about({"a0"})  # (parts made: the sets grown from it carry them pending)
            facts = base
            for k in range(1, 300):
                facts = facts.with_(Condition(Dim(f"a{k}"), ">=", Dim(f"a{k - 1}")))
            kids = [facts.with_(Condition(Dim(f"b{t}"), ">=", 1)) for t in range(4)]
            for kid, found in zip(kids, _asked_at_once(kids, {"a3"}), strict=True):
                assert found == _closure(kid.atoms, {"a3"}), found
    finally:
        sys.setswitchinterval(interval)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(steps=st.lists(st.lists(_condition(), min_size=1, max_size=3), max_size=6),
       union=st.lists(_condition(), max_size=3))
def test_weight_carried_by_growth_is_the_triples_terms(steps, union) -> None:
    """``oversized`` weighs a set by its triples' terms in all (what the prover counts:
    :func:`~kantensor.types.prove.terms_of`); a grown set takes its parent's weight plus
    its new atoms' (an atom already held, or given twice, counted once); grown a second
    time by the same conditions under other sources, the first one's."""
    facts = EMPTY
    for step in steps:
        facts.oversized()  # (the parent weighed: its weight carried to the next set)
        first = facts.with_(*step, *step[:1])
        noted = facts.with_(*[Condition(c.left, c.op, c.right, Source(node="n"))
                              for c in step])
        for grown in (first, noted):
            assert grown._weight is not None or not grown.atoms
            grown.oversized()
            assert grown._weight == terms_of(x for t in grown.triples for x in (t[0], t[2]))
        facts = noted
    grown = facts.union(Facts(union))
    grown.oversized()
    assert grown._weight == terms_of(x for t in grown.triples for x in (t[0], t[2]))
