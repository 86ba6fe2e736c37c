"""Facts.simplify, decide, reduce and bounds over nested min, max, floors, ceils and
remainders by ints *and by sizes*, under facts with congruences (``a % 3 == 1``, ``(a +
b) % 2 == 0``), quotients, orders and divisors (``a % b == 0``, ``b >= 1``), judged by
Python's own arithmetic at every point of a box where the facts hold (0 and 1 included):

1. a simplified size is Python's value wherever Python's has one, and has none (raises)
   wherever Python's has none;
2. a decision True holds at every such point where the condition has a value (what it
   still needs there, its divisors nonzero, is :meth:`Facts.reduce`'s), False fails at
   every such point (a condition holds only where it has a value);
3. what ``reduce`` keeps of a condition holds exactly where Python's condition does;
4. ``bounds`` hold at every point where the size has a value.

Each expression is built twice from one tree: as Python text (the oracle, ``eval``) and
with the Dim operators. ``KANTENSOR_FACTS_HUNT_EXAMPLES`` (default 60) sets how many.
"""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sizing
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import Facts
from kantensor.types.symbols import substitute

EXAMPLES = sizing.size("FACTS_HUNT_EXAMPLES", 60, 2000)
NAMES = ("a", "b", "c")
BOX = range(0, 9)
POINTS = [dict(zip(NAMES, p, strict=True)) for p in itertools.product(BOX, repeat=3)]
CALLS = {"min": min, "max": max}
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

leaves = st.one_of(st.sampled_from(NAMES), st.integers(0, 5))
ints = st.integers(1, 4)


def _node(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.tuples(st.sampled_from(["+", "-", "min", "max", "//", "%"]), children, children),
        st.tuples(st.sampled_from(["//i", "%i", "ceil", "*i"]), children, ints))


trees = st.recursive(leaves, _node, max_leaves=6)


def text_of(t) -> str:
    if isinstance(t, str):
        return t
    if isinstance(t, int):
        return str(t)
    op, x, y = t
    x, y = text_of(x), text_of(y)
    if op in ("min", "max"):
        return f"{op}({x}, {y})"
    if op == "ceil":
        return f"(-((-{x})//{y}))"
    return f"({x} {op.rstrip('i')} {y})"


def dim_of(t):
    if isinstance(t, str):
        return Dim(t)
    if isinstance(t, int):
        return t
    op, x, y = t
    x, y = dim_of(x), dim_of(y)
    return {"+": lambda: x + y, "-": lambda: x - y, "min": lambda: dim_min(x, y),
            "max": lambda: dim_max(x, y), "//": lambda: x // y, "%": lambda: x % y,
            "//i": lambda: x // y, "%i": lambda: x % y, "ceil": lambda: -((-x) // y),
            "*i": lambda: x * y}[op]()


def py(text: str, env: dict):
    try:
        return eval(text, CALLS, dict(env))  # noqa: S307
    except ZeroDivisionError:
        return None


def value(x, env: dict):
    try:
        return substitute(x, env)
    except ZeroDivisionError:
        return None


sym = st.sampled_from(NAMES)
fact_texts = st.one_of(
    st.tuples(sym, st.sampled_from(["<=", ">=", "=="]), st.integers(0, 7)).map(
        lambda t: f"{t[0]} {t[1]} {t[2]}"),
    st.tuples(sym, st.integers(2, 4), st.integers(0, 3)).map(
        lambda t: f"{t[0]} % {t[1]} == {t[2] % t[1]}"),
    st.tuples(sym, sym, st.integers(2, 3), st.integers(0, 2)).map(
        lambda t: f"({t[0]} + {t[1]}) % {t[2]} == {t[3] % t[2]}"),
    st.tuples(sym, sym, st.integers(-2, 2)).map(lambda t: f"{t[0]} - {t[1]} >= {t[2]}"),
    st.tuples(sym, st.integers(2, 3), st.integers(0, 3)).map(
        lambda t: f"{t[0]} // {t[1]} == {t[2]}"),
    st.tuples(sym, sym).map(lambda t: f"{t[0]} % {t[1]} == 0"),
    st.tuples(sym, st.integers(1, 2)).map(lambda t: f"{t[0]} >= {t[1]}"),
)


def fact_of(text: str) -> Condition:
    left, op, right = _split(text)
    return Condition(eval(left, CALLS, {n: Dim(n) for n in NAMES}), op, int(right))  # noqa: S307


def _split(text: str) -> tuple[str, str, str]:
    for op in ("<=", ">=", "==", "!=", "<", ">"):
        if f" {op} " in text:
            left, right = text.split(f" {op} ")
            return left, op, right
    raise ValueError(text)


def made(texts: list[str]) -> tuple[Facts, list[dict]]:
    """The facts and the points of the box where Python says they all hold."""
    facts = Facts([fact_of(t) for t in texts])
    return facts, [e for e in POINTS if all(py(t, e) for t in texts)]


@SETTINGS
@given(tree=trees, texts=st.lists(fact_texts, max_size=3))
def test_simplify_is_python_where_the_facts_hold(tree, texts) -> None:
    text, x = text_of(tree), None
    try:
        x = dim_of(tree)
    except ZeroDivisionError:  # (a divisor that is the int 0)
        return
    facts, points = made(texts)
    form = facts.simplify(x)
    for env in points:
        want = py(text, env)
        assert value(form, env) == want, (text, texts, str(form), env)


@SETTINGS
@given(left=trees, right=trees, op=st.sampled_from(["==", "<=", "<", "!=", ">="]),
       texts=st.lists(fact_texts, max_size=3))
def test_decide_and_reduce_are_python_where_the_facts_hold(left, right, op, texts) -> None:
    ltext, rtext = text_of(left), text_of(right)
    try:
        cond = Condition(dim_of(left), op, dim_of(right))
    except ZeroDivisionError:
        return
    facts, points = made(texts)

    def truth(env: dict) -> bool | None:
        a, b = py(ltext, env), py(rtext, env)
        return None if a is None or b is None else eval(f"{a} {op} {b}")  # noqa: S307

    verdict = facts.decide(cond)
    if verdict is not None:
        for env in points:
            found = truth(env)
            assert found is None or found is verdict, (
                ltext, op, rtext, texts, verdict, env)
    kept = facts.reduce([cond])
    for env in points:
        got = kept is not None and all(k.holds(env) for k in kept)
        assert got is bool(truth(env)), (ltext, op, rtext, texts, kept, env)


@SETTINGS
@given(tree=trees, texts=st.lists(fact_texts, max_size=3))
def test_bounds_hold_where_the_facts_hold(tree, texts) -> None:
    text = text_of(tree)
    try:
        x = dim_of(tree)
    except ZeroDivisionError:
        return
    facts, points = made(texts)
    lo, hi = facts.bounds(x)
    for env in points:
        v = py(text, env)
        if v is not None:
            assert (lo is None or v >= lo) and (hi is None or v <= hi), (text, texts, lo, hi, env)
