"""The corners of the box (kantensor.types.monotone): facts that each bound one symbol by
a monotone size, as stacks of strided windows state them, decide questions exactly;
checked by brute force over every size of a range that holds the box's corners, and
against the Fourier-Motzkin prover where both answer."""

from __future__ import annotations

import random
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types import factsform as facts_module
from kantensor.types import monotone, periodscan, stated
from kantensor.types.canon import canonical_form
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import EMPTY, Facts
from kantensor.types.symbols import substitute

N_EXAMPLES = sizing.size("FACTS_EXAMPLES", 150, 5000)
h, w = Dim("h"), Dim("w")
RANGE = range(0, 400)


def _window(x, k: int, s: int, p: int, ceil: bool):
    """The output size of a window of ``k`` by stride ``s`` over ``x`` padded by ``p``."""
    return (x + 2 * p - k + (s - 1 if ceil else 0)) // s + 1


def _monotone(depth: int = 3) -> st.SearchStrategy:
    """Sizes nondecreasing in ``h``: stacks of windows, sums, multiples, min/max."""
    if depth == 0:
        return st.one_of(st.just(h), st.integers(0, 6))
    sub = _monotone(depth - 1)
    return st.one_of(
        sub,
        st.tuples(sub, st.integers(1, 4), st.integers(1, 3), st.integers(0, 2),
                  st.booleans()).map(lambda t: _window(*t)),
        st.tuples(sub, st.integers(1, 3)).map(lambda t: t[0] * t[1]),
        st.tuples(sub, sub).map(lambda t: t[0] + t[1]),
        st.tuples(sub, sub).map(lambda t: dim_min(t[0], t[1])),
        st.tuples(sub, sub).map(lambda t: dim_max(t[0], t[1])),
    )


def _signed() -> st.SearchStrategy:
    """A monotone size or its negation (nonincreasing in ``h``)."""
    return st.tuples(_monotone(), st.booleans()).map(lambda t: -t[0] if t[1] else t[0])


def _condition() -> st.SearchStrategy:
    """A monotone size, or a difference of two (quasi-linear or neither), against an
    int."""
    difference = st.tuples(_monotone(2), _monotone(2)).map(lambda t: t[0] - t[1])
    return st.tuples(st.one_of(_signed(), difference),
                     st.sampled_from([">=", ">", "<=", "<", "=="]),
                     st.integers(-2, 12)).map(lambda t: Condition(*t))


def _holds(c: Condition, v: int) -> bool | None:
    try:
        return c.holds({"h": v})
    except ZeroDivisionError:
        return None


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(_condition(), max_size=3), goal=_condition())
def test_the_corners_decide_as_brute_force_does(facts, goal) -> None:
    """Where the corners answer, their answer is the truth at every size of the range
    where the facts hold: True when the goal holds at all of them, False when it fails
    at one (the sizes a fact allows are an interval whose ends are in the range)."""
    store = Facts(facts)
    found = monotone.proves(store.triples, goal.triple())
    if found is None:
        return
    points = [v for v in RANGE if all(_holds(f, v) for f in facts)]
    box = monotone.box_of(store.triples)
    if box is not monotone.NO_SIZES and any(
            lo >= RANGE.stop - 1 or (hi is not None and hi >= RANGE.stop - 1)
            for lo, hi in box.values()):
        return  # a corner out of the range: brute force cannot judge
    truth = all(_holds(goal, v) for v in points)
    if not points:
        assert found is True
    elif found:
        assert truth, (facts, goal)
    else:
        assert not truth, (facts, goal)


def test_a_stack_of_ceil_mode_pools_takes_the_corners() -> None:
    """SqueezeNet's questions: each pool's window fits given the pools before it."""
    x, facts = h, []
    for _ in range(7):
        x = _window(x, 3, 2, 0, True)
        facts.append(Condition(x, ">=", 1))
    store = Facts(facts[:-1])
    assert monotone.proves(store.triples, facts[-1].triple()) is False
    assert monotone.proves(Facts(facts).triples, facts[0].triple()) is True
    assert store.decide(facts[-1]) is None  # not implied: a condition of its own
    assert Facts(facts).decide(facts[0]) is True
    assert Facts(facts).bounds(h) == (monotone._least(facts[-1].key[0], "h"), None)


def test_questions_the_corners_leave_to_the_prover() -> None:
    """Facts over two symbols, a remainder, and a side the box leaves unbounded."""
    two = Facts([Condition(h - w, ">=", 0)])
    assert monotone.proves(two.triples, (h, ">=", w)) is None
    assert two.decide(Condition(h, ">=", w)) is True  # the prover's
    even = Facts([Condition(h % 2, "==", 0)])
    assert monotone.proves(even.triples, (h, ">=", 0)) is None
    assert monotone.bounds((), dim_min(h, 5)) == (0, 5)  # the upper side: structure's
    assert monotone.bounds((), dim_min(h, w)) == (0, None)
    assert monotone.bounds((), h - w) is None  # neither side found


def test_a_power_of_what_may_be_negative_is_not_monotone() -> None:
    """``min(1, h - 1)`` rises with ``h`` but is -1 at 0: its square falls to 0 at 1,
    then rises (found by tests/test_size_tidy.py's brute force)."""
    square = dim_min(1, h - 1) ** 2
    assert monotone.proves((), (square, ">", 0)) is None
    assert EMPTY.decide(Condition(square, ">", 0)) is None
    assert EMPTY.bounds(square) == (0, None)


def test_a_size_of_one_symbol_is_a_trend_and_a_period() -> None:
    """Differences of floors are not monotone but periodic around a linear trend: one
    period decides them (the pools' ``min((h + 1)//4, (h + 3)//4 - 1)``)."""
    d = (h + 1) // 4 - (h + 3) // 4 + 1
    assert periodscan.period(d, "h") == 4
    assert monotone.proves((), (d, ">=", 0)) is True
    assert monotone.proves((), (d, "==", 1)) is False  # 0 at h = 1
    assert monotone.bounds((), d) == (0, 1)
    grows = h - h // 3
    assert monotone.bounds((), grows) == (0, None)
    assert monotone.proves((), (grows, "<", 10 ** 6)) is False  # unbounded
    assert monotone.proves(((h, "<=", 10), ), (grows, "<=", 7)) is True
    assert monotone.proves((), (dim_min(h, 5) - h // 2, ">=", 0)) is None  # not either
    assert substitute(grows, {"h": 10}) == 7


def _quasi(depth: int = 3) -> st.SearchStrategy:
    """Sizes of ``h`` made of int multiples, sums, floors and remainders by ints, nested
    (``(3*(h//2) + 1)//4 - h//3``): quasi-linear, neither monotone nor periodic."""
    if depth == 0:
        return st.one_of(st.just(h), st.integers(0, 6))
    sub = _quasi(depth - 1)
    return st.one_of(
        sub,
        st.tuples(sub, st.integers(1, 3), st.integers(0, 4), st.integers(1, 5)).map(
            lambda t: (t[1] * t[0] + t[2]) // t[3]),
        st.tuples(sub, st.integers(1, 5)).map(lambda t: t[0] % t[1]),
        st.tuples(sub, sub, st.integers(-2, 2)).map(lambda t: t[0] + t[2] * t[1]),
    )


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(x=st.one_of(_quasi(), st.tuples(_monotone(3), _monotone(3), st.integers(1, 3)).map(
           lambda t: t[0] - t[2] * t[1])),
       lo=st.integers(0, 40), width=st.integers(0, 120))
def test_a_period_and_the_bounds_it_gives_are_brute_force_s(x, lo, width) -> None:
    """A period found is one (the trend repeats every period), and the bounds over ``lo
    <= h <= hi`` found from the ends of the interval are those of every size in it."""
    hi = lo + width
    period = periodscan.period(x, "h")
    if period is None:
        return
    values = [substitute(x, {"h": v}) for v in range(hi + 2 * period + 1)]
    assert len({values[v + period] - values[v] for v in range(hi + period)}) == 1, x
    found = monotone.bounds(((h, ">=", lo), (h, "<=", hi)), x)
    assert found == (min(values[lo:hi + 1]), max(values[lo:hi + 1])), (x, found)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(x=_quasi(), op=st.sampled_from([">=", ">", "<=", "<", "=="]),
       k=st.integers(-3, 12), hi=st.one_of(st.none(), st.integers(0, 150)))
def test_quasi_linear_questions_answer_as_brute_force_does(x, op, k, hi) -> None:
    """``proves`` over ``h <= hi`` (or no bound) is True only where the goal holds at
    every size, False only where it fails at one (brute force over the range, or the
    far point past it where ``h`` is unbounded)."""
    facts = () if hi is None else ((h, "<=", hi),)
    found = monotone.proves(facts, (x, op, k))
    if found is None:
        return
    goal = Condition(x, op, k)
    top = 400 if hi is None else hi
    truth = all(goal.holds({"h": v}) for v in range(top + 1))
    if found:
        assert truth, (x, op, k, hi)
    elif truth:  # refuted past the range: only where h is unbounded
        assert hi is None and not goal.holds({"h": monotone.LIMIT}), (x, op, k)


def test_nested_floors_take_the_product_of_their_periods() -> None:
    x = (3 * (h // 2) + 1) // 4 - h // 3
    assert periodscan.period(x, "h") == 24
    values = [substitute(x, {"h": v}) for v in range(200)]
    assert monotone.bounds(((h, "<=", 199),), x) == (min(values), max(values))


def test_a_period_past_the_limit_is_left_to_the_prover() -> None:
    """A hostile size of a long period is not scanned (bounded work per question)."""
    x = h // 4096 - (h + 7) // 4096 + h // 2
    assert periodscan.period(x, "h") is None
    assert monotone.proves(((h, "<=", 10 ** 6),), (x, ">=", -1)) is None
    y = h // 1024 - (h + 7) // 1024 + h // 2 - h // 4 - h // 8
    assert periodscan.period(y, "h") == periodscan.MAX_PERIOD
    values = [substitute(y, {"h": v}) for v in range(8001)]
    assert monotone.bounds(((h, "<=", 8000),), y) == (min(values), max(values))


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(g=_signed())
def test_the_least_size_a_side_allows_is_brute_force_s(g) -> None:
    """``_least`` (searched from where the size's trend crosses, else from 0) gives the
    first size of the range where a nondecreasing ``g`` is ``>= 0`` (a nonincreasing one
    ``<= -1``), and past the range a size where it first does."""
    way = monotone._direction(g, "h")
    if way not in (monotone.UP, monotone.DOWN) or isinstance(g, int):
        return
    sign = 1 if way == monotone.UP else -1

    def fits(v: int) -> bool:
        value = substitute(g, {"h": v})
        return value >= 0 if sign > 0 else value <= -1

    found = monotone._least(g, "h", sign)
    first = next((v for v in RANGE if fits(v)), None)
    if first is not None:
        assert found == first, (g, sign)
    elif found is None:
        assert not fits(monotone.LIMIT - 1), (g, sign)
    else:
        assert fits(found) and not fits(found - 1), (g, sign, found)


def test_a_window_stack_s_least_size_is_searched_from_its_trend() -> None:
    """The start the trend gives is a few sizes from the answer (a handful of
    evaluations, where a search from 0 doubles its way up)."""
    x = h
    for _ in range(7):
        x = _window(x, 3, 2, 0, True)
    g = x - 1
    least = monotone._least(g, "h")
    assert least == next(v for v in range(10 ** 4) if substitute(g, {"h": v}) >= 0)
    assert abs(monotone._start(g, "h", 1) - least) <= 2 ** 7
    assert monotone._start(dim_min(h, 5), "h", 1) is None  # no trend: searched from 0


def test_a_window_s_least_size_in_closed_form_is_the_searched_one(monkeypatch) -> None:
    """``k*((h + t)//d) + c`` and ``k*h + c`` (a window's size): the closed form of
    ``_least`` gives what the search gives, and the first size that fits."""
    rnd = random.Random(3)
    cases = []
    for _ in range(2000):
        d, t, c = rnd.randint(1, 12), rnd.randint(-20, 20), rnd.randint(-300, 300)
        g = rnd.choice([-3, -2, -1, 1, 2, 5]) * (h + t if d == 1 else (h + t) // d) + c
        if not isinstance(g, int):
            sign = 1 if monotone._direction(g, "h") == monotone.UP else -1
            cases.append((g, sign, monotone._least(g, "h", sign)))
    assert all(monotone._window_least(g._terms, "h", s) is not monotone._SEARCH
               for g, s, _ in cases)
    for g, sign, found in cases[:500]:
        def fits(v: int, g=g, sign=sign) -> bool:
            x = substitute(g, {"h": v})
            return x >= 0 if sign > 0 else x <= -1
        assert fits(found) and (found == 0 or not fits(found - 1)), (g, sign, found)
    monkeypatch.setattr(monotone, "_window_least", lambda *_: monotone._SEARCH)
    assert all(monotone._least(g, "h", s) == found for g, s, found in cases)


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(st.tuples(_monotone(), st.integers(-2, 12)), max_size=3),
       x=_monotone())
def test_rising_sizes_under_rising_facts_have_no_upper_bound(facts, x) -> None:
    """What ``Facts.unbounded`` says without the prover (a size of windows, under facts
    that such sizes are at least ints), the prover says too."""
    store = Facts([Condition(f, ">=", k) for f, k in facts if not isinstance(f, int)])
    if store.unbounded(x):
        assert store.bounds(x)[1] is None, (store, x)
        assert substitute(x, {"h": monotone.LIMIT}) > 10 ** 6


def test_only_rising_facts_leave_a_rising_size_unbounded() -> None:
    up = Facts([Condition((h + 3) // 8 - 1, ">=", 1)])
    assert up.unbounded((h + 3) // 8) and up.unbounded(h + w)
    assert not up.unbounded(dim_min(h, 5))  # not rising
    assert not Facts([Condition(h, "<=", 9)]).unbounded(h + 3)  # an upper bound
    assert not Facts([Condition(dim_min(h, 5), ">=", 1)]).unbounded(h)


def test_a_divisor_the_facts_make_zero_is_kept() -> None:
    """``a//b`` where ``b == 0``: defined nowhere the facts hold, kept as it is (making
    it again divided by zero; found by tests/test_size_tidy.py)."""
    a, b = Dim("a"), Dim("b")
    assert Facts([Condition(b, "==", 0)]).simplify(a // b) == a // b


@settings(max_examples=N_EXAMPLES, deadline=None)
@given(facts=st.lists(st.tuples(_monotone(), st.integers(-2, 12)), max_size=3),
       x=_monotone())
def test_settled_sizes_under_rising_facts_are_their_forms(facts, x) -> None:
    """``Facts.simplify`` answers a settled size under rising facts by its canonical form
    at once (stated.settled): what it finds atom by atom, the way it takes otherwise."""
    store = Facts([Condition(f, ">=", k) for f, k in facts if not isinstance(f, int)])
    if isinstance(x, int) or not (store.unbounded(x) and stated.settled(x)):
        return
    with mock.patch.object(facts_module, "settled", lambda _: False):
        slow = facts_module._simplify.__wrapped__(x, store)
    assert facts_module._simplify.__wrapped__(x, store) == slow == canonical_form(x)


def test_a_floor_over_a_floor_is_not_settled() -> None:
    assert stated.settled((h + 59) // 64 - 1) and stated.settled(h + w)
    inner = (2 * (w // 3) + h) // 5  # a floor of coefficient 2 inside: not collapsed
    assert stated.rising(inner) and not stated.settled(inner)
    assert not stated.settled(dim_min(h, 5)) and not stated.settled(h - w)
