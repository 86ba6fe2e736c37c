"""The store of size facts (kantensor.types.facts): decisions and simplifications are
sound at every satisfying assignment (brute force over a box, 0 and 1 included), the
named examples of the design hold, and forms are canonical on the fragment the Dim
algebra normalises."""

from __future__ import annotations

import itertools
import pickle
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.conditions import AnyOf, Condition, expand
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts, _decide, simplify
from kantensor.types.prove import interval, proves
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
NAMES = ("a", "b", "c")
BOX = range(0, 13)  # every symbol's values in the brute force (0 and 1 included)

a, b, c = (Dim(n) for n in NAMES)
h, n, seq = Dim("h"), Dim("n"), Dim("seq")


# -- the design's examples -----------------------------------------------------------------
@pytest.mark.parametrize(("expr", "facts", "expected"), [
    (dim_max(0, seq), (), seq),
    (dim_min(64, seq), (Condition(seq, "<=", 64),), seq),
    (dim_min((h + 1) // 2, h // 2), (), h // 2),
    (2 * (h // 2), (Condition(h % 2, "==", 0),), h),
    (dim_min(64, seq) + 1, (Condition(seq, "<=", 10),), seq + 1),
    (h // 32 + 1, (Condition(h // 32, "==", 6),), 7),
    ((h % 3) // 3, (), 0),
])
def test_named_simplifications(expr, facts, expected) -> None:
    assert simplify(expr, Facts(facts)) == expected


def test_order_and_equality_are_decided_only_when_implied() -> None:
    assert EMPTY.decide(Condition(seq, ">=", 0)) is True
    assert EMPTY.decide(Condition(dim_min(64, seq), "==", seq)) is None  # not guessed
    assert Facts([Condition(seq, ">", 64)]).decide(Condition(dim_min(64, seq), "==", seq)) \
        is False
    assert EMPTY.decide(Condition((h + 1) // 2 + h // 2, "==", h)) is True
    assert EMPTY.decide(Condition(a, "==", b)) is None
    assert Facts([Condition(a, "<", b)]).decide(Condition(a, "==", b)) is False
    assert EMPTY.decide(Condition(2 * a, "==", 1)) is False  # no integer solution


def test_bounds_come_from_the_facts() -> None:
    assert Facts([Condition(h // 32, "==", 6)]).bounds(h) == (192, 223)
    assert Facts([Condition(seq, "<=", 64)]).bounds(dim_min(64, seq)) == (0, 64)
    assert EMPTY.bounds((h + 1) // 2 - h // 2) == (0, 1)
    assert interval(h % 5) == (0, 4)


def test_floor_chains_collapse() -> None:
    """Nested floor divisions by ints have one form whose size does not grow with depth
    (a stack of strided windows, as conv/pool arithmetic makes)."""
    x: object = h
    texts = []
    for _ in range(12):
        x = (x + 2 - 3) // 2 + 1
        texts.append(str(x))
    assert x == (h + 4095) // 4096
    assert max(map(len, texts)) <= len("(h + 4095)//4096")


def test_ceil_mode_pools_stay_small() -> None:
    """A stack of ceil-mode 3x3/2 pools: each ``min((x+1)//2, x//2)`` is ``x//2``."""
    x: object = h
    for _ in range(7):
        x = dim_min((x + 1) // 2, x // 2 + 0)
        x = simplify(x)
    assert x == h // 128
    assert len(str(x)) < 10


def test_broadcast_conditions_reduce() -> None:
    facts = EMPTY
    part = dim_min(64, seq)
    clause = AnyOf(((Condition(part, "==", seq),), (Condition(part, "==", 1),),
                    (Condition(seq, "==", 1),)))
    assert facts.reduce([clause]) == [Condition(seq, "<=", 64)]
    assert facts.reduce([AnyOf(((Condition(a, ">=", b),), (Condition(a, "<", b),)))]) == []
    assert facts.reduce([Condition(a, "<", 0)]) is None  # refuted


def test_reduce_decides_a_condition_simplified_by_the_facts() -> None:
    """A Reshape's volume with a copying size (``seq + 192 - 192*min(1, seq)``) is the
    plain volume where ``seq >= 1``: the condition is implied, and dropped; one the
    simplified form does not decide is kept in that form."""
    facts = Facts([Condition(seq, ">=", 1)])
    copied = seq + 192 - 192 * dim_min(1, seq)
    assert facts.reduce([Condition(192 * n * seq, "==", n * copied * 192)]) == []
    assert facts.reduce([Condition(a * dim_min(1, seq), "<=", b)]) == [Condition(a, "<=", b)]
    assert facts.reduce([AnyOf(((Condition(copied, "==", 3),), (Condition(a, "<", 0),)))]) \
        == [Condition(seq, "==", 3)]


# -- random expressions, random facts, brute force -------------------------------------------
def _leaf() -> st.SearchStrategy:
    return st.one_of(st.sampled_from([a, b, c]), st.integers(-3, 8))


def _expr(depth: int = 3) -> st.SearchStrategy:
    if depth == 0:
        return _leaf()
    sub = _expr(depth - 1)
    return st.one_of(
        _leaf(),
        st.tuples(sub, sub).map(lambda p: p[0] + p[1]),
        st.tuples(sub, sub).map(lambda p: p[0] - p[1]),
        st.tuples(sub, st.integers(-3, 4)).map(lambda p: p[0] * p[1]),
        st.tuples(sub, st.integers(1, 5)).map(lambda p: p[0] // p[1]),
        st.tuples(sub, st.integers(1, 5)).map(lambda p: p[0] % p[1]),
        st.tuples(sub, sub).map(lambda p: dim_min(p[0], p[1])),
        st.tuples(sub, sub).map(lambda p: dim_max(p[0], p[1])),
    )


def _fact() -> st.SearchStrategy:
    sym = st.sampled_from([a, b, c])
    return st.one_of(
        st.tuples(sym, st.sampled_from(["<=", ">=", "=="]), st.integers(0, 10))
        .map(lambda t: Condition(*t)),
        st.tuples(sym, st.integers(2, 4)).map(lambda t: Condition(t[0] % t[1], "==", 0)),
        st.tuples(sym, sym, st.integers(-3, 3)).map(
            lambda t: Condition(t[0] - t[1], ">=", t[2])),
        st.tuples(sym, st.integers(2, 4), st.integers(0, 4)).map(
            lambda t: Condition(t[0] // t[1], "==", t[2])),
    )


def _points(facts: Facts):
    """Every point of the box where all the facts hold."""
    for values in itertools.product(BOX, repeat=len(NAMES)):
        point = dict(zip(NAMES, values, strict=True))
        if all(f.holds(point) for f in facts):
            yield point


def _value(x, point):
    return substitute(x, point)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(expr=_expr(), facts=st.lists(_fact(), max_size=3))
def test_simplification_is_sound(expr, facts) -> None:
    """``simplify(e, facts)`` equals ``e`` at every satisfying point of the box, and is
    its own simplification."""
    store = Facts(facts)
    simple = simplify(expr, store)
    assert simplify(simple, store) == simple, (expr, store, simple)
    for point in _points(store):
        try:
            want = _value(expr, point)
        except ZeroDivisionError:
            continue
        assert _value(simple, point) == want, (expr, simple, point)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(left=_expr(2), right=_expr(2), op=st.sampled_from(["==", "<=", ">", "!="]),
       facts=st.lists(_fact(), max_size=3))
def test_decisions_are_sound(left, right, op, facts) -> None:
    """True only where the condition holds at every satisfying point, False only where
    it fails at every one (the box is a part of every point; a decision must hold on it)."""
    store = Facts(facts)
    cond = Condition(left, op, right)
    verdict = store.decide(cond)
    if verdict is None:
        return
    for point in _points(store):
        assert cond.holds(point) is verdict, (cond, facts, point)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(left=_expr(2), right=_expr(2), op=st.sampled_from(["==", "<=", ">", "!="]),
       facts=st.lists(_fact(), max_size=3))
def test_reductions_are_sound(left, right, op, facts) -> None:
    """What ``reduce`` keeps of a condition holds exactly where it does, at every point
    the facts hold (None: it holds nowhere there)."""
    store = Facts(facts)
    cond = Condition(left, op, right)
    kept = store.reduce([cond])
    for point in _points(store):
        try:
            want = cond.holds(point)
        except ZeroDivisionError:
            continue
        got = kept is not None and all(k.holds(point) for k in kept)
        assert got is want, (cond, facts, kept, point)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(x=_expr(2), facts=st.lists(_fact(), max_size=2))
def test_bounds_are_sound(x, facts) -> None:
    store = Facts(facts)
    lo, hi = store.bounds(x)
    for point in _points(store):
        v = _value(x, point)
        assert lo is None or v >= lo, (x, facts, point, lo)
        assert hi is None or v <= hi, (x, facts, point, hi)


# -- canonical forms -------------------------------------------------------------------------
def _linear() -> st.SearchStrategy:
    """Linear expressions over the symbols with small coefficients."""
    return st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-6, 6)).map(
        lambda t: t[0] * a + t[1] * b + t[2])


REWRITES = [
    # (x//p + q)//r and (x + p*q)//(p*r): nested floors
    lambda x, k, j: ((x // k + j) // 2, (x + k * j) // (2 * k)),
    # a multiple taken out of a floor and a remainder
    lambda x, k, j: ((x + k * j) // k, x // k + j),
    lambda x, k, j: ((x + k * j) % k, x % k),
    # common factors
    lambda x, k, j: ((k * x + k * j) // (k * 2), (x + j) // 2),
    # min/max: order, repetition, flattening, a bound every size meets
    lambda x, k, j: (dim_min(x, x + k), x if k >= 0 else x + k),
    lambda x, k, j: (dim_max(dim_max(x, j), x), dim_max(x, j)),
    lambda x, k, j: (dim_min(x, a + j), dim_min(a + j, x)),
    lambda x, k, j: (dim_max(x - x + a, 0), a),
    # coefficients reduced by the divisor
    lambda x, k, j: ((k * k * a + x) // k, k * a + x // k),
]


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(x=_linear(), k=st.integers(1, 4), j=st.integers(-3, 3),
       rewrite=st.sampled_from(REWRITES))
def test_equal_expressions_get_one_form(x, k, j, rewrite) -> None:
    """Two ways of writing one expression of the normalised fragment (linear terms, floor
    division and remainder by ints, min/max) are one Dim; checked to be equal first."""
    left, right = rewrite(x, k, j)
    for values in itertools.product(range(0, 9), repeat=2):
        point = dict(zip(("a", "b"), values, strict=True))
        assert _value(left, point) == _value(right, point)
    assert left == right, (left, right)


# -- the prover-free reduction of plain equalities (NumPy broadcasting's) -----------------
def test_plain_equalities_reduce_as_the_prover_reduces_them() -> None:
    """Under no facts, a disjunction of equalities between ints and plain sizes is
    reduced without the prover (disjunctions.plain_cases); every such disjunction of up to
    three cases over a small domain reduces to what the prover's reduction gives: the
    same cases, in the same order, the very same conditions."""
    from kantensor.types.conditions import InputAxis
    from kantensor.types.dim import unknown
    from kantensor.types.disjunctions import plain_cases as _plain_cases
    from kantensor.types.facts import _GENERAL
    from kantensor.types.factsreduce import _cases

    u = unknown(InputAxis(0, 1))
    checked = 0
    for k, sides in ((1, (0, 1, 2, 5, a, b, u)), (2, (0, 1, 2, 5, a, b, u)), (3, (0, 1, a, u))):
        atoms = [Condition(x, "==", y) for x, y in itertools.product(sides, repeat=2)]
        for picked in itertools.product(atoms, repeat=k):
            clause = AnyOf(tuple((x,) for x in picked))
            fast = _plain_cases(clause)
            assert fast is not _GENERAL
            slow = _cases(EMPTY, clause)
            assert (fast is None) == (slow is None), clause
            if fast is not None:
                assert [tuple(map(id, case)) for case in fast] == \
                    [tuple(map(id, case)) for case in slow], clause
            checked += 1
    assert checked == 49 + 49 ** 2 + 16 ** 3
    # and what is not of that form is left to the prover
    assert _plain_cases(AnyOf(((Condition(a, ">=", 2),),))) is _GENERAL
    assert _plain_cases(AnyOf(((Condition(a + 1, "==", b),),))) is _GENERAL
    assert _plain_cases(AnyOf(((Condition(a, "==", 1), Condition(b, "==", 1)),))) is _GENERAL


def test_condition_keys_are_the_difference_with_a_positive_lead() -> None:
    """A condition's key is ``left - right`` (sides swapped for < and <=), negated for
    == and != where its lead is negative: whichever way it is computed."""
    from kantensor.types.conditions import _negative_lead

    sides = (0, 1, 7, a, b, 2 * a, a - b, b - a, -a + 3, a // 2, dim_max(a, b), 3 - b)
    for x, y in itertools.product(sides, repeat=2):
        for op in ("==", "!=", "<", "<=", ">", ">="):
            left, right, flipped = (y, x, {"<": ">", "<=": ">="}[op]) \
                if op in ("<", "<=") else (x, y, op)
            d = left - right
            if op in ("==", "!=") and _negative_lead(d):
                d = -d
            key = Condition(x, op, y).key
            assert key == (d, flipped) and (type(key[0]) is int or
                                            key[0]._terms == d._terms), (x, op, y)


def test_questions_without_facts_are_answered_as_the_prover_answers_them() -> None:
    """Under no facts, ``±u + c`` and ``u - v + c`` against 0 are decided without the
    prover (facts._unfacted): every such question over a small domain gets the prover's
    answer (facts._decide with no facts)."""
    from kantensor.types.conditions import InputAxis
    from kantensor.types.dim import unknown
    from kantensor.types.facts import _GENERAL, _decide, _unfacted

    u = unknown(InputAxis(0, 0))
    forms = [s * x + k for x in (a, u) for s in (1, -1) for k in range(-3, 4)]
    forms += [x - y + k for x, y in ((a, b), (b, a), (a, u), (u, b)) for k in range(-3, 4)]
    checked = 0
    for d in forms:
        for op in ("==", "!=", ">=", ">"):
            fast = _unfacted(d, op)
            assert fast is not _GENERAL, (d, op)
            assert fast is _decide((), d, op), (d, op, fast)
            checked += 1
    assert checked == 4 * (28 + 28)
    assert _unfacted(a + b - 1, ">=") is _GENERAL and _unfacted(2 * a - 1, "==") is _GENERAL
    many = sum((Dim(f"n{i}") for i in range(90)), start=a)  # (a Concat of 91 inputs: the
    assert _unfacted(a + b, ">=") is True is _decide((), a + b, ">=")  # prover's answer,
    assert _unfacted(many, ">=") is True and _unfacted(many + 1, ">") is True  # and past
    assert _decide((), many, ">=") is True  # its terms, the sum lumped into one size)
    assert _unfacted(a // 2 - 1, "==") is _GENERAL


def test_cases_that_imply_each_other_keep_one():
    """``z + 1 == 2*z + 1 or z + 1 == 1 or 2*z + 1 == 1`` are three ways of ``z == 0``:
    one is kept (each covered the others, so all three were dropped and broadcasting
    ``[z+1]`` against ``[2*z+1]`` was refused though NumPy runs it at z = 0)."""
    z = Dim("z")
    cases = (Condition(z + 1, "==", 2 * z + 1), Condition(z + 1, "==", 1),
             Condition(2 * z + 1, "==", 1))
    for order in itertools.permutations(cases):
        kept = EMPTY.reduce([AnyOf(tuple((c,) for c in order))])
        assert kept == [order[0]], (order, kept)
        assert [v for v in range(6) if kept[0].holds({"z": v})] == [0]
    # a strictly weaker case still covers a stronger one, whatever the order
    m = Dim("m")
    for order in itertools.permutations([(Condition(m, "==", 0),),
                                         (Condition(m, "==", 0), Condition(z, "==", 1))]):
        assert EMPTY.reduce([AnyOf(order)]) == [Condition(m, "==", 0)]


# -- what one fact states, decided without the prover -----------------------------------------
def test_a_fact_states_the_bounds_of_its_own_terms() -> None:
    """A window's ``out >= 1`` says ``out >= 0`` and ``out > 0`` of the same size (the next
    node's question), decided from the fact itself: each answer is the prover's, and holds
    at every ``h`` where the facts hold."""
    out = (h + 3) // 4 - 2
    wide = (h + 11) // 16 - 1
    facts = Facts([Condition(out, ">=", 1), Condition(wide + 3, ">", 5),
                   Condition(h % 2, "==", 0)])
    triples = facts.triples
    for d in (out, out + 1, out - 1, out - 2, wide, wide - 2, wide - 3, 2 * out, out + wide,
              h % 2, h % 2 + 1, h % 2 - 1):
        for op in (">=", ">"):
            answer = facts.decide((d, op, 0))
            assert answer == _decide(triples, d, op), (d, op)
            if answer:
                for value in range(0, 400):
                    if all(x.holds({"h": value}) for x in facts):
                        assert Condition(d, op, 0).holds({"h": value}), (d, op, value)
    assert facts.states(out, ">=") and facts.states(out, ">") and \
        facts.states(out - 1, ">=") and not facts.states(out - 1, ">")
    assert facts.states(wide - 3, ">=") and not facts.states(wide - 3, ">")
    for d in (out, wide, 2 * out, h % 2):  # a direct build's where-clause: d op k, no d - k
        for op, k in itertools.product((">=", ">"), range(-3, 4)):
            assert facts.states(d, op, -k) == facts.states(d - k, op), (d, op, k)


def test_a_clause_found_open_is_reduced_as_asked_afresh() -> None:
    """A direct build's open where-clause (``Condition.at_least``: its difference made
    once) is the condition its sides make, and ``Facts.reduce`` of it told that it was
    found open gives what it gives when it asks (a pool's ``out >= 1`` over a stack)."""
    out = (h + 3) // 4 - 2
    facts = Facts([Condition(out, ">=", 1), Condition((h + 1) // 2 - 3, ">=", 1)])
    found_open = 0
    for left, op, right in [((out + 1) // 2, ">=", 1), ((out + 1) // 2, ">", 1),
                            ((out + 1) // 2, ">=", 5), (3, ">=", out // 3),
                            (out // 2 + h % 3, ">=", 2), (out, ">", h // 5)]:
        plain = Condition(left, op, right)
        made = Condition.at_least(left, op, right, left - right)
        assert made == plain and made.key == plain.key and made.triple() == plain.triple()
        assert facts.decide(made) == facts.decide((left - right, op, 0))
        if facts.decide(made) is None:
            found_open += 1
            assert facts.reduce([made], [made]) == facts.reduce([plain])
    assert found_open >= 3


def _rising_sizes():
    """Sizes that grow with every size they hold and never fall: positive multiples of
    a, b and floors by ints of such sizes, plus an int (windows' outputs)."""
    def grow(inner):
        return st.one_of(st.tuples(inner, st.integers(-9, 9), st.integers(1, 8)).map(
            lambda t: (t[0] + t[1]) // t[2] if not isinstance(t[0] + t[1], int) else t[0]),
            st.tuples(inner, inner, st.integers(1, 3)).map(lambda t: t[0] + t[2] * t[1]))

    return st.recursive(st.sampled_from([Dim("a"), Dim("b")]), grow, max_leaves=4)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.lists(st.tuples(_rising_sizes(), st.sampled_from([">=", ">"]),
                          st.integers(-3, 12)), max_size=3),
       _rising_sizes(), st.sampled_from([">=", ">"]), st.integers(-3, 12))
def test_a_rising_size_under_rising_facts_is_decided_as_the_prover_decides(
        facts, x, op, k) -> None:
    """Under facts that each say a rising size is at least an int (a stack of windows'
    kept out >= 1), a rising size is unbounded: Facts.decide asks the prover only
    whether ``x op k`` holds, never whether it fails; its answer is the prover's."""
    given_facts = Facts(Condition(d, o, c) for d, o, c in facts)
    d, o = Condition(x, op, k).key
    assert given_facts.decide(Condition(x, op, k)) is _decide(given_facts.triples, d, o)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(st.lists(st.tuples(_rising_sizes(), st.sampled_from([">=", ">"]),
                          st.integers(-3, 40)), max_size=4))
def test_rising_facts_are_consistent_as_the_prover_finds(facts) -> None:
    """Facts that each say a rising size is at least an int hold together (at large
    sizes): consistent() says so without the prover, and the prover agrees."""
    given_facts = Facts(Condition(d, o, c) for d, o, c in facts)
    assert given_facts.consistent()
    assert not proves(given_facts.triples, (0, ">=", 1))


def test_a_disjunction_pickled_into_another_process_hashes_there():
    """AnyOf keeps its hash once made; a pickled copy must not carry it, since a
    string's hash differs between processes (PYTHONHASHSEED)."""
    n = Dim("n")
    either = AnyOf(((Condition(n, "==", 3),), (Condition(n, "==", 1),)))
    hash(either)
    data = pickle.dumps(either)
    check = ("import pickle, sys; from kantensor.types.conditions import AnyOf, Condition;"
             "from kantensor.types.dim import Dim; n = Dim('n');"
             "a = pickle.loads(sys.stdin.buffer.read());"
             "b = AnyOf(((Condition(n, '==', 1),), (Condition(n, '==', 3),)));"
             "print({b: 'found'}.get(a))")
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", check], input=data, capture_output=True,
                             env={"PYTHONHASHSEED": seed, "PATH": ""}, check=True)
        assert out.stdout.decode().strip() == "found"


# -- expand: a condition on a min or max as plainer conditions, at every size --------------
@given(st.sampled_from(["min", "max"]), st.lists(st.integers(-3, 15), min_size=1, max_size=3),
       st.integers(-3, 3), st.integers(-2, 15), st.sampled_from(["<=", "<", ">=", ">", "=="]),
       st.booleans())
@settings(max_examples=N_EXAMPLES, deadline=None)
def test_expand_says_what_the_condition_says_at_every_size(kind, ints, shift, y, op, left):
    """``expand`` of ``extreme(ints..., a + shift) op y`` (either side) against the
    condition itself, brute force over ``a`` in 0..30 (a min at most an int above its int
    arguments is its size argument's bound: ``min(2**63, seq + 2) <= 1026``)."""
    extreme = (dim_min if kind == "min" else dim_max)(*ints, a + shift)
    cond = Condition(extreme, op, y) if left else Condition(y, op, extreme)
    parts = expand(cond)
    for v in range(31):
        assert cond.holds({"a": v}) == all(p.holds({"a": v}) for p in parts), (cond, parts, v)


def test_expand_of_a_min_at_most_an_int_below_its_int_arguments():
    assert [str(x) for x in expand(Condition(dim_min(2**63, seq + 2), "<=", 1026))] == \
        ["seq + 2 <= 1026"]
    assert [str(x) for x in expand(Condition(1026, "<", dim_max(3, seq)))] == ["1026 < seq"]
    kept = Condition(dim_min(5, seq), "<=", 1026)  # (it always holds: left as it is)
    assert expand(kept) == (kept,)
