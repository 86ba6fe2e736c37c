"""The Dim algebra never widens where a size has a value: an expression built with the
public operators (``+ - * // % **``, ``dim_min``, ``dim_max``, a ceiling division
``-((-a)//b)``) over names and ints, whose divisors may be 0 (a name dividing itself
too), simplifies to a Dim that, at every assignment of its names (0..6 each):

1. where Python's ``eval`` of the expression's own text has a value, has that value;
2. where the text has none (ZeroDivisionError), has none either, or divides by a size
   that is 0 there (:func:`kantensor.types.divisors.size_divisors`).

The simplifier dropped such divisors: ``max(b, b % b)`` was ``b``, ``(n//m) % 1`` and
``0*(n//m)`` were 0, ``(3 % (3*a)) % 3`` was 0 (a remainder within one block), and
``relation`` grounded the output of ``(n)->(max(n, n % n))`` to 0, as no size gives.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.divisors import size_divisors
from kantensor.types.facts import Facts
from kantensor.types.readback import of_terms
from kantensor.types.symbols import substitute

NAMES = ("a", "b")
POINTS = [dict(zip(NAMES, p, strict=True)) for p in itertools.product(range(7), repeat=2)]
BINARY = ["+", "-", "*", "//", "%", "min", "max", "ceil"]


def text_of(tree) -> str:
    """The expression's Python text."""
    if isinstance(tree, str):
        return tree
    if isinstance(tree, int):
        return str(tree) if tree >= 0 else f"({tree})"
    op, x, y = tree
    if op in ("min", "max"):
        return f"{op}({text_of(x)}, {text_of(y)})"
    if op == "ceil":
        return f"(-((-{text_of(x)})//{text_of(y)}))"
    if op == "**":
        return f"({text_of(x)} ** {y})"
    return f"({text_of(x)} {op} {text_of(y)})"


def build(tree):
    """The expression built with the Dim operators."""
    if isinstance(tree, str):
        return Dim(tree)
    if isinstance(tree, int):
        return tree
    op, x, y = tree
    x = build(x)
    if op == "**":
        return x ** y
    y = build(y)
    return {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y,
            "//": lambda: x // y, "%": lambda: x % y, "min": lambda: dim_min(x, y),
            "max": lambda: dim_max(x, y), "ceil": lambda: -((-x) // y)}[op]()


def value(fn):
    try:
        return fn()
    except ZeroDivisionError:
        return None


def check(tree) -> None:
    text = text_of(tree)
    try:
        dim = build(tree)
    except ZeroDivisionError:  # (a divisor that is the int 0: Python raises everywhere)
        assert all(value(lambda e=e: eval(text, {}, e)) is None for e in POINTS)  # noqa: S307
        return
    divisors = size_divisors(dim)
    for env in POINTS:
        want = value(lambda env=env: eval(text, {"min": min, "max": max}, dict(env)))  # noqa: S307
        got = value(lambda env=env: substitute(dim, env))
        if want is not None:
            assert got == want, (text, str(dim), env)
        else:
            assert got is None or any(value(lambda v=v, env=env: substitute(v, env)) == 0
                                      for v in divisors), (text, str(dim), env)


FOUND = [("max", "b", ("%", "b", "b")), ("%", ("//", "a", "b"), 1),
         ("*", 0, ("//", "a", "b")), ("-", ("//", "a", "b"), ("//", "a", "b")),
         ("%", ("%", 3, ("*", 3, "a")), 3), ("min", ("//", 2, "a"), 0),
         ("max", ("//", ("%", 2, "b"), "b"), "b"), ("%", "b", ("//", ("//", -1, "b"), 2)),
         ("**", ("//", "a", "b"), 0), ("+", 6, ("max", "a", ("%", -1, "a"))),
         ("*", ("-", "b", "b"), ("//", "a", "b"))]


@pytest.mark.parametrize("tree", FOUND, ids=map(text_of, FOUND))
def test_a_simplified_size_keeps_where_it_has_no_value(tree):
    check(tree)


leaves = st.one_of(st.sampled_from(NAMES), st.integers(-2, 3))
trees = st.recursive(leaves, lambda ch: st.one_of(
    st.tuples(st.sampled_from(BINARY), ch, ch), st.tuples(st.just("**"), ch,
                                                          st.integers(0, 2))),
    max_leaves=7)


@settings(max_examples=400, deadline=None)
@given(trees)
def test_random_sizes_are_pythons_where_defined_and_undefined_elsewhere(tree):
    check(tree)


def redundant(x) -> list[str]:
    """The kept ``0//v`` (``0 % v``) terms of ``x`` whose ``v`` its other terms divide
    by: they are 0 wherever ``x`` has a value, and say nothing more."""
    if not isinstance(x, Dim):
        return []
    found = []
    for term in x._terms:  # (the canonical polynomial: its top-level terms)
        mono = term[0]
        atom = mono[0][0] if len(mono) == 1 else None
        if getattr(atom, "op", None) in ("//", "%") and atom.args[0] == 0 \
                and not isinstance(atom.args[1], int):
            rest = of_terms([t for t in x._terms if t is not term])
            if atom.args[1] in size_divisors(rest):
                found.append(str(atom))
    return found


SPARED = [("%", ("%", "a", "b"), 4), ("+", ("-", ("//", "a", "b"), ("//", "a", "b")),
                                       ("%", "a", "b"))]


def check_spared(tree) -> None:
    """Neither the size nor its form (Facts.simplify, with no facts and under ``b >=
    1``) keeps a ``0//v`` beside a term dividing by ``v``; the forms are Python's value
    wherever it has one (and, under ``b >= 1``, have one wherever Python does)."""
    text = text_of(tree)
    try:
        dim = build(tree)
    except ZeroDivisionError:
        return
    positive = Facts([Condition(Dim("b"), ">=", 1)])
    for facts in (Facts(), positive):
        form = facts.simplify(dim)
        assert not redundant(dim) and not redundant(form), (text, str(dim), str(form))
        for env in POINTS:
            if facts is positive and env["b"] < 1:
                continue
            want = value(lambda env=env: eval(text, {"min": min, "max": max}, dict(env)))  # noqa: S307
            if want is not None:
                got = value(lambda env=env, form=form: substitute(form, env))
                assert got == want, (text, str(form), env)


@pytest.mark.parametrize("tree", SPARED, ids=map(text_of, SPARED))
def test_no_kept_divisor_beside_a_term_dividing_by_it(tree):
    """``(a % b) % 4`` was formed ``(a % b) % 4 + 0//b`` (a remainder taken apart and read
    back, hunt28), under ``b >= 1`` too; ``a//b - a//b + a % b`` was ``a % b + 0//b``."""
    check_spared(tree)


@settings(max_examples=200, deadline=None)
@given(trees)
def test_random_sizes_keep_no_divisor_another_term_keeps(tree):
    check_spared(tree)
