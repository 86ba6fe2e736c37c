"""Sizes whose value drops a division by a size: ``(n//m) % 1`` and ``0*(n//m)`` are 0,
``n//m - n//m + n`` is ``n``, ``max(n//m, n + 1)`` is ``n + 1`` in the Dim algebra, yet
Python's value of the expression does not exist at ``m == 0`` (ZeroDivisionError).
Judged by Python's own ``eval`` of the signature's text at every point of a grid of
sizes 0..3: a signature's conditions hold exactly where Python's value exists (and is a
size, ``>= 0``), and the output's size is Python's value there. A signature's output
typed ``float32[0]`` with no condition held at ``m == 0``, where its text divides by
zero (as its build at ints says). ``Condition.holds`` raised ZeroDivisionError at such a
point; it answers False: a condition holds only where it is defined.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor.query import pattern, query, var
from kantensor.types.conditions import AnyOf, Condition
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import Facts
from kantensor.types.symbols import free_symbols, substitute

NAMES = ("n", "m", "k")
GRID = [dict(zip(NAMES, p, strict=True)) for p in itertools.product(range(4), repeat=3)]
INPUTS = ", ".join(f"({x})" for x in NAMES)


def python(text: str, env: dict) -> int | None:
    """Python's value of ``text`` at ``env``; None where it divides by zero."""
    try:
        return eval(text, {"min": min, "max": max}, dict(env))  # noqa: S307 - the test's own
    except ZeroDivisionError:
        return None


def held(conditions: tuple, env: dict) -> bool:
    return all(c.holds(env) for c in conditions)


def built(signature: str, unknown: bool) -> kt.Variable:
    """The signature built on ``float32[n]``, ``[m]`` and ``[k]`` (``k`` an unknown
    size where ``unknown``: the relation's forward answer, not the direct build)."""
    op = kt.op(signature)(lambda *a: None)
    sizes = [Dim(x) for x in NAMES]
    if unknown:
        sizes[2] = None
    return op(*[kt.TensorType("float32", (x,))() for x in sizes])


DROPPED = ["(n//m) % 1", "0*(n//m)", "n//m - n//m + n", "max(n//m, n + 1)", "min(n % m, 0)",
           "n + (k % m) * 0", "(n//(m + k)) % 1 + k", "n*(m//m) - n*(m//m)",
           "(n % (m - k)) % 1"]


@pytest.mark.parametrize("unknown", [False, True])
@pytest.mark.parametrize("text", DROPPED)
def test_an_output_keeps_the_divisors_its_value_dropped(text, unknown):
    y = built(f"({', '.join(NAMES[:2])}),(k)->({text})".replace("(n, m)", "(n),(m)"),
              unknown)
    conditions = y.owner.conditions
    for env in GRID:
        if unknown and env["k"]:
            continue  # (the unknown's conditions are over its input axis: k is 0 there)
        point = dict(env) if not unknown else {**env, **_unknowns(conditions, 0)}
        want = python(text, env)
        assert held(conditions, point) == (want is not None and want >= 0), \
            (text, env, [str(c) for c in conditions])
        if want is not None and want >= 0 and y.type.shape[0] is not None:
            assert substitute(y.type.shape[0], env) == want  # (k unknown: may be ?)


def _unknowns(conditions: tuple, value: int) -> dict:
    """Each unknown the conditions name, at ``value``."""
    return {u: value for c in conditions for u in c.symbols() if not isinstance(u, str)}


@pytest.mark.parametrize("unknown", [False, True])
@pytest.mark.parametrize("text", DROPPED)
def test_a_where_clause_keeps_the_divisors_its_value_dropped(text, unknown):
    signature = f"{INPUTS}->(n) where {text} >= 0"
    y = built(signature, unknown)
    conditions = y.owner.conditions
    for env in GRID:
        if unknown and env["k"]:
            continue
        point = dict(env) if not unknown else {**env, **_unknowns(conditions, 0)}
        want = python(text, env)
        assert held(conditions, point) == (want is not None and want >= 0), \
            (text, env, [str(c) for c in conditions])


leaves = st.one_of(st.sampled_from(NAMES), st.integers(-2, 3))
trees = st.recursive(leaves, lambda ch: st.one_of(
    st.tuples(st.sampled_from(["+", "-", "*", "//", "%"]), ch, ch),
    st.tuples(st.sampled_from(["min", "max"]), ch, ch)), max_leaves=6)


def text_of(tree) -> str:
    if isinstance(tree, str):
        return tree
    if isinstance(tree, int):
        return str(tree) if tree >= 0 else f"({tree})"
    op, a, b = tree
    if op in ("min", "max"):
        return f"{op}({text_of(a)}, {text_of(b)})"
    return f"({text_of(a)} {op} {text_of(b)})"


@settings(max_examples=60, deadline=None)
@given(trees)
def test_random_outputs_are_pythons_where_defined_and_undefined_elsewhere(tree):
    """Any output expression over the three sizes: built over named sizes, its
    conditions hold exactly where Python's value is a size, and it is that value."""
    text = text_of(tree)
    if "n" not in text and "m" not in text and "k" not in text:
        return
    try:
        y = built(f"{INPUTS}->({text})", False)
    except (kt.TypeInferenceError, ValueError):
        assert all(python(text, env) is None or python(text, env) < 0 for env in GRID)
        return
    conditions = y.owner.conditions
    for env in GRID:
        want = python(text, env)
        assert held(conditions, env) == (want is not None and want >= 0), \
            (text, env, [str(c) for c in conditions])
        if want is not None and want >= 0:
            assert substitute(y.type.shape[0], env) == want, (text, env)


@pytest.mark.parametrize("cond", [
    Condition(Dim("n") // Dim("m"), ">=", 0), Condition(Dim("n") % Dim("m"), "==", 0),
    Condition(Dim("n") // (Dim("m") - Dim("k")), "<", 2),
    AnyOf(((Condition(Dim("n") % Dim("m"), "==", 1),), (Condition(Dim("n"), "==", 5),))),
    Condition(Dim("n") // Dim("m"), "==", Dim("n") // Dim("m")),  # (its key is 0: no
    Condition(Dim("n") % Dim("m"), ">=", Dim("n") % Dim("m")),     # division left in it)
    AnyOf(((Condition(Dim("n") // Dim("k"), "==", Dim("n") // Dim("k")),),
           (Condition(Dim("n"), "==", 1),)))])
def test_a_condition_holds_only_where_it_is_defined(cond):
    """``holds`` at a point where a divisor is 0 answers False (it raised
    ZeroDivisionError): judged by Python's evaluation of its text."""
    texts = [[str(c) for c in case] for case in cond.cases] if isinstance(cond, AnyOf) \
        else [[str(cond)]]
    for env in GRID:
        want = any(all(python(t, env) for t in case) for case in texts)
        assert cond.holds(env) == want, (str(cond), env)


n, m, k = (Dim(x) for x in NAMES)
conditions = st.sampled_from([
    Condition(n // m, ">=", 0), Condition((n * m) // m, ">=", 0), Condition(n % m, "<=", n),
    Condition(n // m, "<=", n), Condition(k % m - 1, "<=", 1), Condition(n % m, "==", 0),
    Condition((-2) % k - 1, "<=", 1), Condition(2 - 2 * k, "<", -1), Condition(n, "==", 0),
    Condition(k, ">=", 2), Condition(m, ">=", 1), Condition(n // (m + k), ">=", 0),
    Condition(n - m, ">=", 0), Condition(k, "==", 3),
    Condition(n + dim_min(2, (n - k) % m) // k, ">=", 1), Condition(n // k, "==", n // k),
    Condition(n % m, ">=", n % m)])
clauses = st.one_of(conditions, st.lists(conditions, min_size=1, max_size=3).map(
    lambda cs: AnyOf(tuple((c,) for c in cs))))


@settings(max_examples=150, deadline=None)
@given(st.lists(conditions, max_size=2), st.lists(clauses, min_size=1, max_size=3))
def test_reduce_keeps_what_a_condition_needs_where_it_has_no_value(facts, given_clauses):
    """``Facts.reduce`` says the same as the clauses wherever the facts hold, judged by
    ``holds`` (Python's value of each side; no value at a divisor 0: not held). It
    dropped ``n//m >= 0`` as implied (it holds wherever it has a value), a disjunction
    ``2 - 2*k < -1 or (-2) % k - 1 <= 1`` as always holding, and ``n == 0`` beside ``n %
    m == 0`` as covered: each held at ``m == 0`` or ``k == 0``, where it does not; and
    under ``k == 3`` it simplified ``n + min(2, (n - k) % m)//k >= 1`` to ``n >= 1``."""
    store = Facts(facts)
    points = [env for env in GRID if held(tuple(facts), env)]
    reduced = store.reduce(given_clauses)
    for env in points:
        want = held(tuple(given_clauses), env)
        assert (reduced is not None and held(tuple(reduced), env)) == want, (
            [str(c) for c in facts], [str(c) for c in given_clauses],
            reduced and [str(c) for c in reduced], env)


@pytest.mark.parametrize("facts", [[], [Condition(m, ">=", 1)]])
@pytest.mark.parametrize("case", [Condition(n // k, "==", n // k),
                                  Condition(n % m, "==", n % m),
                                  Condition(2 * (n // k), "==", 2 * (n // k))])
def test_a_disjunction_with_an_identity_over_a_quotient_is_kept(facts, case):
    """``n//k == n//k or n == 1`` is defined only where ``k >= 1`` or ``n == 1``: with no
    facts it was reduced to nothing (its identity case read as holding, its key 0), so it
    held at ``n == k == 0`` where Python's value of the text does not exist. Judged by
    Python's ``eval`` of the disjunction's text at every point of the grid."""
    clause = AnyOf(((case,), (Condition(n, "==", 1),)))
    text = f"({case}) or ({n} == 1)"
    reduced = Facts(facts).reduce([clause])
    for env in GRID:
        if not held(tuple(facts), env):
            continue
        try:
            want = bool(eval(text, {}, dict(env)))  # noqa: S307 - the test's own text
        except ZeroDivisionError:  # the first case has no value: the second decides
            want = env["n"] == 1
        assert (reduced is not None and held(tuple(reduced), env)) == want, (
            str(clause), [str(c) for c in facts], reduced and [str(c) for c in reduced], env)


#: (a signature, its output size's text): the output divides by ``m`` in its text only
QUERIED = [("(n),(m)->((n//m) % 1)", "(n//m) % 1"),
           ("(n),(m)->(n//m - n//m + n)", "n//m - n//m + n"),
           ("(n),(m)->(n) where 0*(n//m) == 0", "n"), ("(n),(m)->(n//m)", "n//m")]


@pytest.mark.parametrize(("signature", "out"), QUERIED, ids=[q[0] for q in QUERIED])
def test_a_querys_answers_are_the_sizes_python_defines(signature, out):
    """``query`` with every size a logic variable: each answer, at each assignment of its
    names (0..5) where its conditions hold, is a triple of sizes Python's evaluation of
    the signature's text defines (``m != 0``), and every such triple is one answer's.
    Its answers held at ``m == 0``, where the text divides by zero."""
    text = out if "where" not in signature else "n + 0*(n//m)"
    want = {(env["n"], env["m"], python(text, env)) for env in GRID if env["k"] == 0
            and python(text, env) is not None and python(text, env) >= 0}
    terms = [pattern("float32", (var(x),)) for x in ("i", "j", "o")]
    found = set()
    for a in query(signature, terms[:2], terms[2:]):
        values = [a[x] for x in ("i", "j", "o")]
        names = sorted({s for v in values if isinstance(v, Dim) for s in free_symbols(v)} |
                       {s for c in a.where for s in c.symbols()})
        for point in itertools.product(range(6), repeat=len(names)):
            env = dict(zip(names, point, strict=True))
            if held(tuple(a.where), env):
                sizes = tuple(substitute(v, env) if isinstance(v, Dim) else v for v in values)
                if sizes[0] <= 3 and sizes[1] <= 3:
                    assert sizes in want, (signature, a, env, sizes)
                    found.add(sizes)
    assert want <= found, (signature, sorted(want - found)[:3])


def _python_of(x, env: dict) -> int | None:
    """Python's value of a size's text (``str`` of a Dim is Python) at ``env``."""
    return x if isinstance(x, int) else python(str(x), env)


#: (facts, a size): the facts simplified it to a form with a value where it has none
SIMPLIFIED = [
    ([Condition(dim_min(k, m + 4, n), ">", 1), Condition(m % 4, ">=", 1)],
     dim_min(1 - m, k // (2 // dim_min(m, n)))),
    ([Condition(2 * m, "<=", 2)], dim_max(k ** 2 // k, n % dim_min(m, n))),
    ([Condition(k, "==", 3)], dim_min(2, (n - k) % m) // k),
    ([], dim_max(0 % (m // 2 - m), m, n)),
]


@pytest.mark.parametrize(("facts", "x"), SIMPLIFIED, ids=[str(x) for _, x in SIMPLIFIED])
def test_simplify_keeps_a_size_undefined_where_it_is(facts, x):
    """``Facts.simplify`` at every point of the grid where the facts hold: Python's value
    of the form's text is the size's where that has one, and the form has none where
    the size has none (``min(1 - m, k//(2//min(m, n)))`` was ``1 - m``, -2 at ``m == n ==
    3``, where ``2//min(m, n)`` is 0 and the size divides by it)."""
    form = Facts(facts).simplify(x)
    for env in GRID:
        if held(tuple(facts), env):
            assert _python_of(form, env) == _python_of(x, env), (str(x), str(form), env)


@settings(max_examples=80, deadline=None)
@given(trees, st.lists(conditions, max_size=2))
def test_random_sizes_simplified_under_facts_are_pythons(tree, facts):
    """Any size over the three sizes (its Dim built by Python's operators on Dims),
    simplified under facts: Python's value of the form's text is the size's wherever
    the facts hold, both with a value or both without."""
    dims = {x: Dim(x) for x in NAMES}
    try:
        x = eval(text_of(tree), {"min": dim_min, "max": dim_max}, dims)  # noqa: S307
    except (ZeroDivisionError, ValueError):
        return
    store = Facts(facts)
    if not store.consistent():
        return
    form = store.simplify(x)
    for env in GRID:
        if held(tuple(facts), env):
            assert _python_of(form, env) == _python_of(x, env), (str(x), str(form), env)
