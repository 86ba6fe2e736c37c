"""Quotients and remainders by a size that may be 0 (``(64*b*w)//(16*b*w)``, ``n % n``),
judged by Python's own ``//``, ``%`` and ``divmod`` at every point of a grid of sizes
0..3, where Python raises ZeroDivisionError at a divisor 0.

The Dim algebra divided one term out of each of the numerator's terms with no fact
(``(8*b*n)//(b*n)`` was 8, ``n % n`` was 0): at ``b*n == 0`` Python raises, so a size
made by such a division held a value where the program it describes has none, and a
contract built on it lost the divisor. Now a quotient by a size that may be 0 is kept
(its evaluation raises there) and facts that the divisor is >= 1 simplify it; a traced
program's case that asked the divisor divides exactly (eval_shape, judged by NumPy), and
a relation's condition over such a quotient that its other conditions imply is dropped
(judged by NumPy: every condition kept is one NumPy needs).
"""

from __future__ import annotations

import itertools
import operator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import kantensor as kt
from kantensor.types.conditions import Condition
from kantensor.types.dim import Dim, as_dim
from kantensor.types.dimminmax import dim_max, dim_min
from kantensor.types.facts import Facts
from kantensor.types.intervals import interval
from kantensor.types.poly import Opaque, divide
from kantensor.types.symbols import substitute
from optrees import evaluate
from test_eval_shape_divisors import _judged, _outcome

NAMES = ("n", "m")
GRID = [dict(zip(NAMES, p, strict=True)) for p in itertools.product(range(4), repeat=2)]
SIZES = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
         "%": operator.mod, "min": dim_min, "max": dim_max}
INTS = {**SIZES, "min": min, "max": max}
RAISES = "ZeroDivisionError"

leaves = st.one_of(st.sampled_from(NAMES), st.integers(-3, 3))
#: sizes defined at every point: + - * min max, and floors and remainders by ints
total = st.recursive(leaves, lambda ch: st.one_of(
    st.tuples(st.sampled_from(["+", "-", "*", "min", "max"]), ch, ch),
    st.tuples(st.sampled_from(["//", "%"]), ch, st.integers(1, 3))), max_leaves=4)
#: divisors that are 0 somewhere (often one term, which the algebra divided out)
divisors = st.one_of(st.sampled_from([
    "n", "m", ("*", "n", "m"), ("*", 2, "n"), ("*", "n", "n"), ("*", ("*", 3, "m"), "n"),
    ("//", "n", 2), ("%", "n", 2), ("min", "n", "m"), ("-", "n", "m"), ("max", 1, "n"),
    ("+", "n", 1)]), total)


@st.composite
def quotients(draw: st.DrawFn) -> tuple:
    """A numerator and a divisor, the numerator often a multiple of the divisor (plus
    an int): the cases a one-term divisor divides out."""
    den = draw(divisors)
    kind = draw(st.sampled_from(["any", "multiple", "shifted", "int"]))
    if kind == "any":
        num = draw(total)
    elif kind == "int":
        num = draw(st.integers(-3, 3))
    else:
        num = ("*", den, draw(total))
        if kind == "shifted":
            num = ("+", num, draw(st.integers(-3, 3)))
    return num, den


def at(fn, *args):
    """``fn(*args)``, or RAISES where it raises ZeroDivisionError."""
    try:
        return fn(*args)
    except ZeroDivisionError:
        return RAISES


def value(x, point: dict):
    """A size's value at ``point`` (RAISES where one of its divisors is 0 there, or
    where it was made by a division by 0)."""
    return x if x == RAISES else at(substitute, as_dim(x), point)


SYMBOLS = {s: Dim(s) for s in NAMES}
FORMS = {"//": operator.floordiv, "%": operator.mod,
         "divmod[0]": lambda a, b: divmod(a, b)[0], "divmod[1]": lambda a, b: divmod(a, b)[1]}


@settings(max_examples=300, deadline=None)
@given(quotients(), st.sampled_from(sorted(FORMS)))
def test_a_quotient_by_a_size_is_pythons_at_every_point(pair, form):
    """``a // b``, ``a % b`` and ``divmod(a, b)`` of sizes (``a`` a size or an int) at
    every point: Python's value, and ZeroDivisionError exactly where Python raises.
    Failed before: ``(n*m)//m`` was ``n``, ``(2*n*n) % n`` was ``0`` at ``n == 0``."""
    num, den = pair
    fn = FORMS[form]
    made = at(fn, evaluate(num, SYMBOLS, SIZES), evaluate(den, SYMBOLS, SIZES))
    for point in GRID:  # (made: RAISES where the divisor is 0 at every size, n - n)
        want = at(lambda p=point: fn(evaluate(num, p, INTS), evaluate(den, p, INTS)))
        assert value(made, point) == want, (form, num, den, str(made), point)


@pytest.mark.parametrize(("num", "den"), [
    ("64*b*w", "16*b*w"), ("n", "n"), ("2*n*n + 3*n", "n"), ("n*m", "m"), ("0", "n"),
    ("6*n", "4*n"), ("n*m + 2*n", "n")])
def test_named_quotients_are_kept_where_the_divisor_may_be_0(num, den):
    """The lead's case ``(64*b*w)//(16*b*w)`` (0//0 at ``b*w == 0``) and others: Python
    at every b, w, n, m in 0..3 (ZeroDivisionError where it raises), and facts that the
    divisor is >= 1 give the exact quotient (no division by a size left where the
    divisor is one term that divides every term of the numerator)."""
    names = {s: Dim(s) for s in ("b", "w", "n", "m")}
    a, b = eval(num, {}, names), eval(den, {}, names)
    facts = Facts([Condition(b, ">=", 1)])
    for op in (operator.floordiv, operator.mod):
        made = op(a, b)
        simplified = facts.simplify(made) if isinstance(made, Dim) else made
        exact = not isinstance(a, int) and divide(a._terms, b._terms) is not None
        assert not (exact and by_size(as_dim(simplified))), (num, den, str(simplified))
        for values in itertools.product(range(4), repeat=4):
            point = dict(zip(("b", "w", "n", "m"), values, strict=True))
            want = at(lambda p=point, op=op: op(eval(num, {}, p), eval(den, {}, p)))
            assert value(made, point) == want, (str(made), point)
            if want != RAISES:
                assert value(simplified, point) == want, (str(simplified), point)


@settings(max_examples=300, deadline=None)
@given(quotients(), st.sampled_from(["//", "%"]), total)
@example(pair=("n", ("min", ("//", ("%", "m", 3), 2), ("%", ("%", "m", 3), 2))), op="//",
         fact_side="n")  # (a divisor 0 at every m: its canonical form divided by 0 and raised)
def test_facts_that_the_divisor_is_positive_keep_pythons_values(pair, op, fact_side):
    """Under facts ``b >= 1`` (and another fact over the sizes), the simplified quotient
    has Python's value at every point where the facts hold."""
    num, den = pair
    divisor, side = evaluate(den, SYMBOLS, SIZES), evaluate(fact_side, SYMBOLS, SIZES)
    if isinstance(divisor, int):
        return  # (by an int: the algebra's rules, the other tests')
    made = SIZES[op](evaluate(num, SYMBOLS, SIZES), divisor)
    other = Condition(Dim("n") if isinstance(side, int) else side, ">=", 0)
    facts = Facts([Condition(divisor, ">=", 1), other])
    simplified = facts.simplify(made) if isinstance(made, Dim) else made
    for point in GRID:
        d = evaluate(den, point, INTS)
        if d < 1 or not other.holds(point):
            continue
        want = INTS[op](evaluate(num, point, INTS), d)
        assert value(simplified, point) == want, (str(made), str(simplified), point)


#: sizes that may divide by a size: where Python's is defined, the algebra's must be
partial = st.recursive(leaves, lambda ch: st.one_of(
    st.tuples(st.sampled_from(["+", "-", "*", "min", "max"]), ch, ch),
    st.tuples(st.sampled_from(["//", "%"]), ch, st.one_of(st.integers(1, 3), ch))),
    max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(partial)
def test_sizes_with_quotients_by_sizes_agree_with_python_where_it_is_defined(tree):
    """A size built with quotients by sizes anywhere inside: Python's value wherever
    Python's is defined (the algebra's ring identities may define it at more points:
    ``n//m - n//m`` is 0), and ZeroDivisionError where its last division's divisor is 0."""
    try:
        made = evaluate(tree, SYMBOLS, SIZES)
    except ZeroDivisionError:  # a divisor 0 at every size (n - n)
        return
    for point in GRID:
        want = at(evaluate, tree, point, INTS)
        if want != RAISES:
            assert value(made, point) == want, (tree, str(made), point)
        elif isinstance(tree, tuple) and tree[0] in ("//", "%") and \
                at(evaluate, tree[1], point, INTS) != RAISES and \
                at(evaluate, tree[2], point, INTS) == 0:
            assert value(made, point) == RAISES, (tree, str(made), point)


#: Traced programs whose divisor cancels (x is float32[N], y float32[K]).
PROGRAMS = [
    "lambda x, y: np.zeros((len(x) * len(y)) // len(y))",
    "lambda x, y: np.zeros((len(x) * len(y)) % len(y) + 2)",
    "lambda x, y: np.zeros(divmod(3 * len(y) * len(x), len(x) * len(y))[0])",
    "lambda x, y: np.zeros((2 * len(x) * len(x) + len(x)) // len(x))",
    "lambda x, y: np.zeros((len(x), len(y), 2)).reshape(2 * len(y), -1)",
    "lambda x, y: np.zeros((len(x), len(y), 3)).reshape(len(y) * 3, -1)",
]


@pytest.mark.parametrize("source", PROGRAMS)
def test_traced_quotients_by_sizes_are_numpys(source):
    """eval_shape of programs whose divisor cancels: holds exactly where NumPy runs
    (N, K in 0..4) and gives NumPy's shape there; every condition it keeps is one NumPy
    needs (dropped, the rest hold at a point where NumPy raises), so a condition over a
    quotient by a size that the others imply (reshape's ``(2*K*N) % (2*K) == 0``
    beside ``K >= 1``) is not kept."""
    fn, result = _judged(source)
    points = [{"N": n, "K": k} for n, k in itertools.product(range(5), repeat=2)]
    kept = [c for c in (*result.conditions, *result.assumptions) if c.symbols()]
    assert kept  # (each program needs a divisor >= 1)
    for c in kept:
        others = [x for x in kept if x is not c]
        assert any(all(_holds(x, p) for x in others) and _outcome(fn, p) is None
                   for p in points), (source, str(c))


def by_size(x) -> bool:
    """Whether the size ``x`` divides by a size anywhere."""
    return not isinstance(x, int) and any(
        isinstance(a, Opaque) and (a.op in ("//", "%") and not isinstance(a.args[1], int)
                                   or any(map(by_size, a.args)))
        for mono, _ in x._terms for a, _ in mono)


def _holds(c, sizes: dict) -> bool:
    try:
        return c.holds(sizes)
    except ZeroDivisionError:
        return False


@pytest.mark.parametrize("op", ["%", "//"])
@pytest.mark.parametrize("den", ["-m", "1 - m", "m - 2", "-2*m - 1"])
def test_a_divisor_of_either_sign_bounds_as_python_divides(op, den):
    """A remainder has its divisor's sign in Python (``1 % -2 == -1``): the bounds the
    interval arithmetic and the prover give an atom whose divisor may be negative hold at
    every point of the grid (N % (-D) was said to be 0..0 and >= 0, typing an ONNX Slice
    end of -1 as a length)."""
    n, m = Dim("n"), Dim("m")
    d = eval(den, {"m": m})  # noqa: S307 - the test's own text
    e = SIZES[op](n + 1, d)  # (outside a trace: the atom itself, of its divisor's sign)
    lo, hi = interval(e)
    values = []
    for point in itertools.product(range(6), repeat=2):
        env = dict(zip(NAMES, point, strict=True))
        divisor = int(substitute(d, env))
        if divisor:
            values.append(INTS[op](env["n"] + 1, divisor))
    assert all((lo is None or v >= lo) and (hi is None or v <= hi) for v in values)
    for sign in (">=", ">", "=="):
        found = Facts().decide((e, sign, 0))
        if found is not None:
            truths = {{">=": v >= 0, ">": v > 0, "==": v == 0}[sign] for v in values}
            assert truths == {found}, (sign, found)


@pytest.mark.parametrize("expr", ["n//m", "n % m", "(2*n)//(m + 1)", "n - n//m*m",
                                  "(n*m)//m"])
def test_a_signatures_output_divided_by_a_size_states_its_divisor(expr):
    """A user's signature ``(n),(m)->(n//m)``: built at ints, Python's ``//`` raises at
    m == 0 (make_node refuses there); built over named sizes, the output's size held at
    m == 0 with no condition. Now its conditions hold exactly where Python's value
    exists, and the size is Python's there."""
    op = kt.op(f"(n),(m)->({expr})")(lambda *a: None)
    y = op(kt.TensorType("float32", (Dim("n"),))(), kt.TensorType("float32", (Dim("m"),))())
    conditions = y.owner.conditions
    for env in GRID:
        try:
            want = eval(expr, {}, dict(env))  # noqa: S307 - the test's own text
        except ZeroDivisionError:
            want = None
        try:
            held = all(c.holds(env) for c in conditions)
        except ZeroDivisionError:  # (a condition with no value there: not held)
            held = False
        assert held == (want is not None and want >= 0), (env, conditions)
        if held:
            assert substitute(y.type.shape[0], env) == want, env
