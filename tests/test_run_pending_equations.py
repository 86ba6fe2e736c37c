"""``relation(op)`` in ``kanren.run`` where an equation over one size stays pending and
nothing decides it (int divisors whose residue classes are too many to read: a
remainder by 257, by 17 and 19 together): ``run`` shows no conditions, so it must never
give such an answer as true. Every answer it gives is one some size of the input gives
(judged by Python's ``//`` and ``%`` over sizes past the divisors' period, so the set is
exact); an answer it cannot judge raises :class:`kantensor.query.UndecidedAnswer`
naming the condition, which ``kt.query`` states in its ``where``. Answers decided today
(few values, bounds, a witness among small sizes) are still given."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kanren import eq, lall, membero, run
from unification import reify, var

import kantensor as kt
import sizing
from kantensor.logic import quotients, witness
from kantensor.logic.terms import fresh
from kantensor.logic.wording import size_names
from kantensor.query import UndecidedAnswer
from kantensor.types.dim import unknown

EXAMPLES = sizing.size("RUN_PENDING_EXAMPLES", 20, 400)

#: the input's open or named size is judged over this range (past every period here,
#: 257 and 17*19 = 323, and past where m//1000 reaches the outputs)
WIDE = range(5000)

UNDECIDED = [
    ("(n),(m)->((m*m) % 257)", lambda n, m: (m * m) % 257, range(8), "% 257"),
    ("(n),(m)->((m*m) % 17 + (m*m) % 19)", lambda n, m: (m * m) % 17 + (m * m) % 19,
     range(40), "% 19"),
]
#: decided today, by few values, bounds or a small witness: every answer Python gives
DECIDED = [
    ("(n),(m)->(m//(2*m) + 5)", lambda n, m: m // (2 * m) + 5, range(12)),
    ("(n),(m)->(m*((m + 1)//(2*m)) + 5)", lambda n, m: m * ((m + 1) // (2 * m)) + 5,
     range(12)),
    ("(n),(m)->(m//1000)", lambda n, m: m // 1000, range(4)),
    ("(n),(m)->(m % 257)", lambda n, m: m % 257, range(260, 262)),
    ("(n),(m)->((m*m) % 7)", lambda n, m: (m * m) % 7, range(7)),
]


def _python(fn, outs) -> set[int]:
    found = set()
    for m in WIDE:
        try:
            value = fn(3, m)
        except ZeroDivisionError:
            continue
        if value in outs:
            found.add(value)
    return found


def _answers(text: str, second: str | None, outs, m=None
             ) -> tuple[list[int], UndecidedAnswer | None]:
    op = kt.op(text, name="pending")(lambda a, b: a)
    size = kt.TensorType("float32", (kt.Dim(second),)) if second else \
        kt.pattern("float32", (var() if m is None else m,))
    n1 = var()
    got: list[int] = []
    try:
        for a in run(None, n1, kt.relation(op)(kt.pattern("float32", (3,)), size,
                                               kt.pattern("float32", (n1,))),
                     membero(n1, tuple(outs))):
            got.append(a)
    except UndecidedAnswer as e:
        return got, e
    return got, None


@pytest.mark.parametrize("second", ["b", None], ids=["named", "open"])
@pytest.mark.parametrize(("text", "fn", "outs", "shown"), UNDECIDED,
                         ids=[c[0] for c in UNDECIDED])
def test_run_never_grounds_an_undecided_equation(text, fn, outs, shown, second):
    m = var()
    got, error = _answers(text, second, outs, m)
    given = _python(fn, set(outs))
    assert set(got) <= given, (text, set(got) - given)
    assert error is not None, (text, got)
    assert shown in error.condition
    assert error.size == (second or m.token)  # the open size as kt.query names it
    assert f"({error.size}**2)" in error.condition
    assert "kt.query states such a condition" in str(error)


@pytest.mark.parametrize("second", ["b", None], ids=["named", "open"])
@pytest.mark.parametrize(("text", "fn", "outs"), DECIDED, ids=[c[0] for c in DECIDED])
def test_run_keeps_every_decided_answer(text, fn, outs, second):
    got, error = _answers(text, second, outs)
    assert error is None, (text, str(error))
    assert set(got) == _python(fn, set(outs)), text


def test_an_open_answer_over_an_undecided_equation_is_refused_too():
    """No size grounded by a goal: the answer ``float32[~n]`` claims some ``n`` has
    ``(n*n) % 257 == 3`` (none has: 3 is no square modulo 257)."""
    assert all((m * m) % 257 != 3 for m in range(257))
    X = var()
    with pytest.raises(UndecidedAnswer, match=r"3 == \(n\*\*2\) % 257"):
        run(0, X, kt.relation("(n)->((n*n) % 257)")(X, "float32[3]"))
    # a value the equation allows, bound by a goal, is an answer
    n = var()
    assert run(0, n, kt.relation("(n)->((n*n) % 257)")(kt.pattern("float32", (n,)),
                                                       "float32[4]"), eq(n, 2)) == (2,)


def test_query_states_the_condition_run_refuses():
    sols = kt.query("(n),(m)->((m*m) % 257)", ["float32[3]", "float32[b]"], ["float32[3]"])
    assert [str(c) for c in sols[0].where] == ["3 == (b**2) % 257"]


#: polynomials in m, and int divisors whose residue classes are more than are read
#: (each a period: Python's values over two periods are every value there is)
polys = st.sampled_from(["m*m", "m*m + m", "m*m*m", "2*m*m + 1", "m*m + 3*m + 5"])
periods = st.sampled_from([(257,), (263,), (17, 19), (13, 23), (11, 29)])


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(poly=polys, period=periods, named=st.booleans(), outs=st.sets(
    st.integers(0, 40), min_size=1, max_size=6))
def test_run_over_large_periods_gives_only_true_answers(poly, period, named, outs):
    """A remainder sum over divisors whose classes are not read: what ``run`` gives is
    what some size gives (Python over two periods), and what it refuses it names."""
    expr = " + ".join(f"({poly}) % {d}" for d in period)
    values = set()
    for m in range(1300):  # past two periods of each (the longest: 17*19 = 323)
        values.add(eval(expr, {}, {"m": m}))  # noqa: S307
    got, error = _answers(f"(n),(m)->({expr})", "b" if named else None, sorted(outs))
    assert set(got) <= values, (expr, set(got) - values)
    if error is None:
        assert set(got) == values & outs, expr  # refused nothing: it gave everything
    else:
        assert error.condition.endswith(f"% {period[-1]}"), error.condition


def test_an_equation_over_two_sizes_is_judged_jointly():
    """``(a*a) % 257 + 257*((b*b) % 257) == 3`` needs ``(a*a) % 257 == 3``: no pair of
    sizes gives 3 (Python over a period of each), so ``run`` never answers 3; 4 (a = 2,
    b = 0) is answered."""
    text = "(n),(m)->((n*n) % 257 + 257*((m*m) % 257))"
    op = kt.op(text, name="pair")(lambda a, b: a)
    given = {(a * a) % 257 + 257 * ((b * b) % 257) for a in range(257) for b in range(257)}
    assert 3 not in given and 4 in given
    ins = (kt.TensorType("float32", (kt.Dim("a"),)), kt.TensorType("float32", (kt.Dim("b"),)))
    n1 = var()

    def answers(outs):
        got = []
        with pytest.raises(UndecidedAnswer) as e:
            for k in run(None, n1, kt.relation(op)(*ins, kt.pattern("float32", (n1,))),
                         membero(n1, outs)):
                got.append(k)
        return got, e.value

    got, error = answers((4, 3))
    assert got == [4]
    assert "% 257" in error.condition and error.size == "a, b"
    assert run(0, n1, kt.relation(op)(*ins, kt.pattern("float32", (n1,))),
               membero(n1, (4,))) == (4,)


@pytest.mark.parametrize("named", [True, False], ids=["named", "open"])
def test_where_clauses_over_a_size_without_an_equation_are_judged(named):
    """``(m*m) % 257 == 3`` as two where-clauses and no equation: no size meets them
    (Python over a period), so no answer is given; ``== 4`` (m = 2) is answered."""
    assert all((m * m) % 257 != 3 for m in range(257))
    x = kt.TensorType("float32", (kt.Dim("b"),)) if named else kt.pattern("float32", (var(),))
    X = var()
    op = kt.op("(m)->(m) where (m*m) % 257 >= 3, (m*m) % 257 <= 3", name="w")(lambda a: a)
    with pytest.raises(UndecidedAnswer, match="% 257"):
        run(3, X, kt.relation(op)(x, X))
    op = kt.op("(m)->(m) where (m*m) % 257 >= 4, (m*m) % 257 <= 4", name="w")(lambda a: a)
    assert len(run(3, X, kt.relation(op)(x, X))) == 1


@pytest.mark.parametrize("term", ["const", "tuple", "pattern"])
def test_any_reified_term_is_judged(term):
    """The check is made whatever ``run`` reifies, not only a logic variable."""
    X, n1 = var(), var()
    shown = {"const": 7, "tuple": (X, 1), "pattern": kt.pattern("float32", (n1,))}[term]
    sq = kt.relation("(n)->((n*n) % 257)")
    with pytest.raises(UndecidedAnswer, match=r"3 == \(n\*\*2\) % 257"):
        run(0, shown, sq(X, "float32[3]"))
    assert len(run(0, shown, sq(X, "float32[4]"))) == 1


PAIR = "(n),(m)->((n*n) % 257 + 257*((m*m) % 257))"


def _pair_values() -> set[int]:
    """Every output size of :data:`PAIR` (Python over a period of each size)."""
    return {(a * a) % 257 + 257 * ((b * b) % 257) for a in range(257) for b in range(257)}


@pytest.mark.parametrize("names", [("a", "c"), (None, None), ("a", None)],
                         ids=["named", "anonymous", "mixed"])
def test_a_refusal_names_each_size_as_kt_query_states_it(names):
    """Two open sizes of a refused answer are two names in its message (never merged
    into one ``unknown``: ``(a**2) % 257 + 257*((c**2) % 257)`` is no multiple of one
    remainder), each as ``kt.query`` names that logic variable in its ``where``; 3 is
    no output size (Python), so the refusal is right."""
    assert 3 not in _pair_values()
    a, c = (var(n) if n else var() for n in names)
    ins = [kt.pattern("float32", (a,)), kt.pattern("float32", (c,))]
    with pytest.raises(UndecidedAnswer) as e:
        run(0, var(), kt.relation(PAIR)(*ins, "float32[3]"))
    (shown,) = [str(w) for w in kt.query(PAIR, ins, ["float32[3]"])[0].where]
    ta, tc = str(a.token), str(c.token)
    if names == ("a", "c"):
        assert e.value.condition == "3 == (a**2) % 257 + 257*((c**2) % 257)" == shown
    for x, y in itertools.product(range(30), range(30)):  # one condition, as Python reads it
        at = {ta: x, tc: y}
        assert eval(e.value.condition, {}, at) == eval(shown, {}, at) == (  # noqa: S307
            3 == (x * x) % 257 + 257 * ((y * y) % 257))
    both = ", ".join(sorted((ta, tc)))
    assert e.value.size == both
    assert f"over the sizes {both} that" in str(e.value)
    assert f"no values of {both} tried" in str(e.value)


def test_a_refusal_tells_two_sizes_of_one_name_apart():
    """Two solver sizes both made for ``n`` (as two relations' ``n`` are), and a user's
    variable or a named size of a name one of them would take, are told apart: each
    solver size by the token ``run`` shows it with (``~n_4``), never merged."""
    n1, n2, user = fresh("n"), fresh("n"), var("m")
    value = unknown(n1) * unknown(n1) + 257 * unknown(n2) + unknown(user) + kt.Dim("m")
    names = size_names([value])
    assert [str(names[v]) for v in (n1, n2)] == [n1.token, n2.token]
    assert str(names[user]) not in {"m", n1.token, n2.token}
    assert size_names([unknown(n1) + 1]) == {n1: kt.Dim("n")}


#: an output size over four sizes whose value depends on their residues modulo a small
#: int only: Python over one period of each gives every value there is
FOUR = [("(a*b + c*d) % 11", 11), ("(a*a + b*b + c*c + d*d) % 13", 13),
        ("(a*b*c + d*d) % 7", 7), ("(a*b - c*d + 3) % 11", 11),
        ("(a*a*b + c*d*d) % 13", 13)]


@pytest.mark.parametrize(("expr", "period"), FOUR, ids=[e for e, _ in FOUR])
def test_a_condition_over_four_sizes_is_judged(expr, period):
    """An answer whose condition ties four open sizes is given where Python finds
    sizes giving it (a witness) and never where it finds none (a group over four sizes
    was refused whatever it held)."""
    values = {eval(expr, {}, dict(zip("abcd", k, strict=True)))  # noqa: S307
              for k in itertools.product(range(period), repeat=4)}
    rel = kt.relation(f"(a),(b),(c),(d)->({expr})")
    for out in range(period + 2):
        ins = [kt.pattern("float32", (var(),)) for _ in range(4)]
        try:
            got = run(0, var(), rel(*ins, f"float32[{out}]"))
        except UndecidedAnswer as e:
            raise AssertionError((expr, out, out in values, str(e))) from None
        assert bool(got) == (out in values), (expr, out, got)


def test_where_clauses_over_four_sizes_are_judged():
    """``a*b + c*d == 7`` has sizes meeting it (7, 1, 0, 0): the answer is given;
    ``(a*a + b*b) % 4 == 3`` none (Python over a period): it never is."""
    assert any(a * b + c * d == 7 for a, b, c, d in itertools.product(range(8), repeat=4))
    assert not any((a * a + b * b) % 4 == 3 for a, b in itertools.product(range(4), repeat=2))
    X = var()
    ins = [kt.pattern("float32", (var(),)) for _ in range(4)]
    assert len(run(0, X, kt.relation("(a),(b),(c),(d)->(a) where a*b + c*d == 7")(*ins, X))) == 1
    with pytest.raises(UndecidedAnswer, match=r"% 4"):
        run(0, X, kt.relation("(a),(b),(c),(d)->(d) where (a*a + b*b + c - c) % 4 == 3, "
                              "d >= a")(*ins, X))


@pytest.mark.parametrize("named", [True, False], ids=["named", "open"])
def test_a_witness_past_4095_is_found_from_the_bounds(named):
    """``m >= 5000`` beside ``(m*m) % 257 == 4`` (as where-clauses): sizes past 4095 meet
    them (5142, Python), so the answer is given; with 3 none does (no square modulo
    257), so it never is."""
    assert any((m * m) % 257 == 4 for m in range(5000, 5300))
    assert all((m * m) % 257 != 3 for m in range(257))
    x = kt.TensorType("float32", (kt.Dim("b"),)) if named else kt.pattern("float32", (var(),))
    X = var()
    for k, holds in ((4, True), (3, False)):
        op = kt.op(f"(m)->(m) where m >= 5000, (m*m) % 257 >= {k}, (m*m) % 257 <= {k}",
                   name="past")(lambda a: a)
        if holds:
            assert len(run(0, X, kt.relation(op)(x, X))) == 1
            continue
        with pytest.raises(UndecidedAnswer) as e:
            run(0, X, kt.relation(op)(x, X))
        # every condition judged together, in kt.query's words
        stated = " and ".join(str(c) for c in kt.query(op, [x], [X])[0].where)
        size = "b" if named else e.value.size
        assert e.value.condition == stated == (
            f"{size} >= 5000 and ({size}**2) % 257 >= 3 and ({size}**2) % 257 <= 3")


@pytest.mark.parametrize(("clause", "holds"), [("n > m + 300", True), ("n == m + 1", False)])
def test_two_named_sizes_a_where_clause_ties_are_judged_together(clause, holds):
    """``(a*a) % 257 == 4`` and ``(b*b) % 257 == 4`` under ``a > b + 300``: 516 and 2
    meet them all (Python), so the answer is given; under ``a == b + 1`` no sizes do
    (each is 2 or 255 modulo 257), so it never is."""
    found = any((a * a) % 257 == 4 and (b * b) % 257 == 4 and
                eval(clause, {}, {"n": a, "m": b})  # noqa: S307
                for a in range(600) for b in range(257))
    assert found == holds
    op = kt.op(f"(n),(m)->((n*n) % 257, (m*m) % 257) where {clause}",
               name="tied")(lambda a, b: a)
    ins = [kt.TensorType("float32", (kt.Dim(d),)) for d in "ab"]
    X = var()
    if holds:
        assert len(run(0, X, kt.relation(op)(*ins, "float32[4,4]"))) == 1
    else:
        with pytest.raises(UndecidedAnswer):
            run(0, X, kt.relation(op)(*ins, "float32[4,4]"))


#: ``run`` as another kanren might write it (its answers reified in a comprehension of
#: kanren's own module), and a wrapper of kanren's ``run`` in a module of kanren's name:
#: neither is one of kanren's goals, so what they reify is judged
ELSEWHERE = {
    "another kanren's run": ("kanren.core", "def answers(x, goal):\n"
                             "    return tuple(reify(x, s) for s in lall(goal)({}))\n"),
    "a wrapper": ("kanren_wrapper", "def answers(x, goal):\n"
                  "    return tuple(run(None, x, goal))\n"),
}


@pytest.mark.parametrize("where", list(ELSEWHERE))
def test_run_written_elsewhere_still_judges_its_answers(where):
    """No size ``n`` has ``(n*n) % 257 == 3`` (Python over a period): an answer shown
    by a ``run`` written elsewhere is refused as by kanren's own, never given."""
    assert all((n * n) % 257 != 3 for n in range(257))
    module, source = ELSEWHERE[where]
    space = {"__name__": module, "reify": reify, "lall": lall, "run": run}
    exec(source, space)  # noqa: S102
    X = var()
    with pytest.raises(UndecidedAnswer, match=r"3 == \(n\*\*2\) % 257"):
        space["answers"](X, kt.relation("(n)->((n*n) % 257)")(X, "float32[3]"))
    assert len(space["answers"](X, kt.relation("(n)->((n*n) % 257)")(X, "float32[4]"))) == 1


@pytest.mark.parametrize("n", [0, 4, 5])
def test_a_refusal_carries_the_answers_run_gave_before_it(n):
    """``run(0, ...)`` (or ``run(k, ...)``) returns its answers in one tuple, which a
    refusal ends: the refusal carries them, in order. ``(b*b) % 257`` is 0, 1, 2 at some
    ``b`` and never 3 (Python over a period), and membero grounds 0, 1, 2, 3 in turn; a
    run asking for fewer answers than those before the refusal is no refusal."""
    values = {(b * b) % 257 for b in range(257)}
    outs = (0, 1, 2, 3)
    before = tuple(k for k in outs[:outs.index(3)] if k in values)
    assert before == (0, 1, 2) and 3 not in values
    sq = kt.relation("(n),(m)->((m*m) % 257)")
    n1 = var()

    def goals():
        return (sq("float32[3]", "float32[b]", kt.pattern("float32", (n1,))),
                membero(n1, outs))

    with pytest.raises(UndecidedAnswer, match=r"3 == \(b\*\*2\) % 257") as e:
        run(n, n1, *goals())
    assert e.value.answers == before
    assert run(len(before), n1, *goals()) == before  # asks no further: no refusal
    with pytest.raises(UndecidedAnswer) as lazy:  # read lazily: the consumer has them
        list(run(None, n1, *goals()))
    assert lazy.value.answers == ()


def test_a_refusal_inside_a_goal_carries_only_its_own_run_answers():
    """A ``run`` inside a goal of another (a nested call) keeps its answers apart: the
    outer run's refusal carries the outer answers only."""
    sq = kt.relation("(n),(m)->((m*m) % 257)")
    n1, inner = var(), []

    def nested(S):
        X = var()
        inner.append(run(0, X, kt.relation("(n)->(n)")("float32[5]", X)))
        yield S

    with pytest.raises(UndecidedAnswer) as e:
        run(0, n1, sq("float32[3]", "float32[b]", kt.pattern("float32", (n1,))),
            membero(n1, (0, 1, 2, 3)), nested)
    assert e.value.answers == (0, 1, 2)
    assert [tuple(t.shape for t in answers) for answers in inner] == [((5,),)] * 4


def test_a_goal_reifying_mid_search_is_told_from_run_by_its_caller_alone():
    """``membero(n, outs)`` after the relation reifies ``(n, outs)`` in the state the
    relation yielded; ``run(0, (n, outs), relation)`` reifies the same term in the same
    kind of state. The first is not judged (membero then binds n, and each value is
    decided: none of 0..4 has ``(n*n) % 257 == 3``, Python), the second is (an answer
    claiming some n has it): nothing but the caller tells the two apart."""
    outs = (0, 1, 2, 3, 4)
    assert all((n * n) % 257 != 3 for n in outs)
    sq = kt.relation("(n)->((n*n) % 257)")
    n = var()
    assert run(0, n, sq(kt.pattern("float32", (n,)), "float32[3]"), membero(n, outs)) == ()
    with pytest.raises(UndecidedAnswer, match=r"3 == \(_?\w+\*\*2\) % 257"):
        run(0, (n, outs), sq(kt.pattern("float32", (n,)), "float32[3]"))


#: a named size ``a`` met with ints by a relation: the equality (``a == 3``) is a
#: condition of the answer, judged with the equations pending over ``a``
NAMED_MET = [
    ("(n)->(n, (n*n) % 257)", lambda a: (a, (a * a) % 257), (3, 1),
     "1 == (a**2) % 257 and a == 3"),
    ("(n)->(n, (n*n) % 257)", lambda a: (a, (a * a) % 257), (3, 9), None),
    ("(a)->(a*a, a)", lambda a: (a * a, a), (1, 3), "1 == a**2 and a == 3"),
    ("(a)->(a*a, a)", lambda a: (a * a, a), (9, 3), None),
]


@pytest.mark.parametrize(("text", "fn", "out", "said"), NAMED_MET,
                         ids=[f"{c[0]}={c[2]}" for c in NAMED_MET])
def test_a_named_size_made_equal_to_an_int_is_judged_with_its_equations(text, fn, out,
                                                                         said):
    """A named size met with an int is recorded as an equality (not bound, not pending):
    the witness must meet it with the equations over that size. Python over the sizes
    past 257 decides whether some ``a`` gives the output; where none does, ``run``
    refuses (naming both conditions), where one does, it answers."""
    holds = any(fn(a) == out for a in WIDE)
    assert holds == (said is None)
    a = kt.TensorType("float32", (kt.Dim("a"),))
    goal = kt.relation(text)(a, f"float32[{out[0]},{out[1]}]")
    if holds:
        assert len(run(0, var(), goal)) == 1
        return
    with pytest.raises(UndecidedAnswer) as e:
        run(0, var(), goal)
    assert (e.value.condition, e.value.size) == (said, "a")
    assert str(kt.query(text, [a], [f"float32[{out[0]},{out[1]}]"])) == "no solutions"


@pytest.mark.parametrize(("first", "second"), [(4, 9), (4, 4)])
def test_two_named_sizes_made_equal_are_judged_with_their_equations(first, second):
    """``(a*a) % 257 == first``, ``(b*b) % 257 == second`` and ``a == b`` (a relation
    meeting the two named sizes): a witness needs one size meeting both; Python says
    whether one exists."""
    holds = any((k * k) % 257 == first and (k * k) % 257 == second for k in range(257))
    assert holds == (first == second)
    A = kt.TensorType("float32", (kt.Dim("a"),))
    B = kt.TensorType("float32", (kt.Dim("b"),))
    sq, same = kt.relation("(n)->((n*n) % 257)"), kt.relation("(n),(n)->(n)")
    X = var()
    goals = (sq(A, f"float32[{first}]"), sq(B, f"float32[{second}]"), same(A, B, X))
    if holds:
        assert len(run(0, X, *goals)) == 1
        return
    with pytest.raises(UndecidedAnswer) as e:
        run(0, X, *goals)
    assert set(e.value.condition.split(" and ")) == {
        "4 == (a**2) % 257", "9 == (b**2) % 257", "a == b"}
    assert e.value.size == "a, b"


#: where-clauses beside an equation an unknown is eliminated from (the output size,
#: ``c``): each refused condition as stated, and every size they state
STATED = [
    ("(a),(c)->(c) where c == (a*a) % 257, c > 300",
     lambda a, c: c == (a * a) % 257 and c > 300,
     "c > 300 and c == (a**2) % 257"),
    ("(a),(c)->(c) where c == (a*a) % 257 + (a*a*a) % 263, "
     "c != (a*a) % 257 + (a*a*a) % 263",
     lambda a, c: c == (a * a) % 257 + (a ** 3) % 263 != c,
     "c != (a**2) % 257 + (a**3) % 263 and c == (a**2) % 257 + (a**3) % 263"),
]


@pytest.mark.parametrize(("text", "fn", "said"), STATED, ids=[c[0] for c in STATED])
def test_a_refusal_states_each_condition_with_its_own_comparison(text, fn, said):
    """No sizes meet the clauses (Python over ``a`` past both periods and every ``c``
    they allow); ``run`` refuses, naming each clause with its own comparison (not the
    eliminated equation's ``==``, none merged into another) and every size the clauses
    state (the eliminated ``c`` too)."""
    assert not any(fn(a, c) for a in range(257 * 263) for c in
                   {(a * a) % 257, (a * a) % 257 + (a ** 3) % 263})
    ins = [kt.pattern("float32", (var("a"),)), kt.pattern("float32", (var("c"),))]
    X = var()
    with pytest.raises(UndecidedAnswer) as e:
        run(0, X, kt.relation(text)(*ins, X))
    assert (e.value.condition, e.value.size) == (said, "a, c")


#: a group over two sizes whose own methods are asked again and again (each ask may try
#: thousands of sizes: the classes of a remainder, a min's tail)
HOSTILE = [
    ("(a),(b)->(min(max(b,1) - a*a, 3)) where max(b,a)*max(b,a) + 1 < b", 2, (2,),
     lambda a, b, c: min(max(b, 1) - a * a, 3) == 2 and max(b, a) ** 2 + 1 < b,
     "2 == min(3, max(1, _2) - _1**2) and max(_1, _2)**2 + 1 < _2"),
    ("(a),(b),(c)->(max(b,a) - 5*b + c, ((b%c)*(c**4))**2)", 3, (3, 2),
     lambda a, b, c: c and max(b, a) - 5 * b + c == 3 and ((b % c) * c ** 4) ** 2 == 2,
     "2 == _3**8*(_2 % _3)**2 and 3 == _3 + max(_1, _2) - 5*_2"),
]


@pytest.mark.parametrize(("text", "n", "out", "fn", "said"), HOSTILE,
                         ids=[c[0] for c in HOSTILE])
def test_a_search_charges_its_asks_to_its_tries(monkeypatch, text, n, out, fn, said):
    """No sizes give the output (Python over small sizes; ``max(b, a)**2 + 1 < b`` and
    ``((b % c)*c**4)**2 == 2`` hold nowhere): ``run`` refuses, and its search, the
    methods' asks included, substitutes values into a condition at most
    :data:`~kantensor.logic.witness.MAX_SEARCH` times (each charged a try per term)."""
    assert not any(fn(*k) for k in itertools.product(range(40), repeat=3))
    made = [0]
    for module in (quotients, witness):
        counted = module.may_hold

        def counting(diff, at, counted=counted):
            made[0] += 1
            return counted(diff, at)

        monkeypatch.setattr(module, "may_hold", counting)
    ins = [kt.pattern("float32", (var(),)) for _ in range(n)]
    X = var()
    with pytest.raises(UndecidedAnswer) as e:
        run(0, X, kt.relation(text)(*ins, f"float32[{','.join(map(str, out))}]"))
    tokens = sorted(set(re.findall(r"_\d+", e.value.condition)), key=lambda x: int(x[1:]))
    assert e.value.size == ", ".join(sorted(tokens))  # (every size, as run shows it)
    canonical = {x: f"_{i}" for i, x in enumerate(tokens, 1)}  # (tokens vary by run)
    assert re.sub(r"_\d+", lambda m: canonical[m.group()], e.value.condition) == said
    assert made[0] <= witness.MAX_SEARCH + 1
