"""``relation(op)`` in ``kanren.run`` over a signature whose output size divides by a
size (``(n),(m)->(n//m)`` and its kin), the output's sizes ground by ``membero``: every
grounding it answers is one that some value of the inputs' sizes gives, and every one
that some value gives is answered (DESIGN's one relation; ``run`` shows no conditions,
so a grounding whose pending condition holds nowhere would be a wrong answer:
``2 == 3//b`` holds at no ``b``). Judged by Python's ``//`` and ``%`` over a domain of
sizes wide enough that every grounding in OUT_SIZES that holds anywhere holds in it."""

from __future__ import annotations

import itertools

import pytest
from kanren import membero, run
from unification import var

import kantensor as kt
from kantensor.logic.quotients import tail_values

#: the sizes the inputs' named or open sizes are judged at; the outputs' grounded sizes
WIDE = range(26)
OUT_SIZES = (0, 1, 2, 3, 4)

CASES = [
    ("(n),(m)->(n//m)", lambda n, m: (n // m,)),
    ("(n),(m)->(n%m)", lambda n, m: (n % m,)),
    ("(n),(m)->(n//m,n%m)", lambda n, m: (n // m, n % m)),
    ("(n),(m)->(n,m//n)", lambda n, m: (n, m // n)),
    ("(n),(m)->(n//(m-1))", lambda n, m: (n // (m - 1),)),
    ("(n),(m)->(n%(m-2))", lambda n, m: (n % (m - 2),)),
    ("(n),(m)->((n-2)//m)", lambda n, m: ((n - 2) // m,)),
]
#: the inputs' sizes: a name (rigid), None (an open logic variable) or an int
INPUTS = [(3, "b"), (3, None), (0, "b"), (5, None), ("a", "b"), (None, None), ("a", 2),
          (7, "b")]


def _python(fn, n: int, m: int) -> tuple | None:
    try:
        shape = fn(n, m)
    except ZeroDivisionError:
        return None
    return shape if all(d >= 0 for d in shape) else None


@pytest.mark.parametrize("sizes", INPUTS, ids=["-".join(map(str, s)) for s in INPUTS])
@pytest.mark.parametrize(("text", "fn"), CASES, ids=[c[0] for c in CASES])
def test_run_grounds_the_output_to_exactly_the_sizes_some_input_gives(text, fn, sizes):
    op = kt.op(text, name="divided")(lambda a, b: a)
    types = [kt.TensorType("float32", (kt.Dim(s),)) if isinstance(s, str)
             else kt.pattern("float32", (var() if s is None else s,)) for s in sizes]
    rank = len(fn(1, 3))
    ns = [var() for _ in range(rank)]
    found = set(run(0, tuple(ns), kt.relation(op)(*types, kt.pattern("float32", tuple(ns))),
                    *(membero(n, OUT_SIZES) for n in ns)))
    free = [i for i, s in enumerate(sizes) if not isinstance(s, int)]
    given = set()
    for choice in itertools.product(WIDE, repeat=len(free)):
        at = list(sizes)
        for i, value in zip(free, choice, strict=True):
            at[i] = value
        shape = _python(fn, *at)
        if shape is not None and set(shape) <= set(OUT_SIZES):
            given.add(shape)
    assert found == given, (text, sizes, found - given, given - found)


#: sizes that divide by a size inside a sum or another quotient, over one size (a name,
#: an open variable): from some size on each quotient is 0 and each remainder its
#: dividend, and below it the sizes are few (judged over ONE, wider than every size a
#: grounding in OUT_SIZES needs here: 100//b == 1 needs b in 51..100)
ONE = range(120)
ONE_CASES = [
    ("(n),(m)->(n//m + n%m)", lambda n, m: (n // m + n % m,)),
    ("(n),(m)->(n//m//m)", lambda n, m: (n // m // m,)),
    ("(n),(m)->(m//(n+1))", lambda n, m: (m // (n + 1),)),
    ("(n),(m)->(n*n//m)", lambda n, m: (n * n // m,)),
    ("(n),(m)->((2*n+1)%m)", lambda n, m: ((2 * n + 1) % m,)),
    ("(n),(m)->(n//(2*m) + 1)", lambda n, m: (n // (2 * m) + 1,)),
]
ONE_INPUTS = [(3, "b"), (3, None), (10, "b"), (10, None), ("a", 3)]


@pytest.mark.parametrize("sizes", ONE_INPUTS, ids=["-".join(map(str, s)) for s in ONE_INPUTS])
@pytest.mark.parametrize(("text", "fn"), ONE_CASES, ids=[c[0] for c in ONE_CASES])
def test_run_grounds_a_nested_quotient_to_the_sizes_some_input_gives(text, fn, sizes):
    op = kt.op(text, name="divided")(lambda a, b: a)
    types = [kt.TensorType("float32", (kt.Dim(s),)) if isinstance(s, str)
             else kt.pattern("float32", (var() if s is None else s,)) for s in sizes]
    n = var()
    found = set(run(0, n, kt.relation(op)(*types, kt.pattern("float32", (n,))),
                    membero(n, OUT_SIZES)))
    given = set()
    for value in ONE:
        shape = _python(fn, *(value if not isinstance(s, int) else s for s in sizes))
        if shape is not None and shape[0] in OUT_SIZES:
            given.add(shape[0])
    assert found == given, (text, sizes, found - given, given - found)


#: divisors that themselves divide by the size (not linear in it): no refutation reads
#: them, and run must still answer every grounding some size gives (it raised
#: ZeroDivisionError reading 8//m at m == 0 as a linear form)
NESTED = [("(n),(m)->(7//(8//m))", lambda n, m: (7 // (8 // m),)),
          ("(n),(m)->(n//(n%m))", lambda n, m: (n // (n % m),)),
          ("(n),(m)->(m//(1//m) + 3)", lambda n, m: (m // (1 // m) + 3,))]


@pytest.mark.parametrize("sizes", [(3, "b"), (3, None)], ids=["3-b", "3-open"])
@pytest.mark.parametrize(("text", "fn"), NESTED, ids=[c[0] for c in NESTED])
def test_run_over_a_divisor_that_divides_answers_every_size_some_input_gives(text, fn, sizes):
    op = kt.op(text, name="nested")(lambda a, b: a)
    second = kt.Dim(sizes[1]) if sizes[1] else var()
    types = [kt.pattern("float32", (sizes[0],)),
             kt.TensorType("float32", (second,)) if sizes[1] else kt.pattern("float32", (second,))]
    out = var()
    found = set(run(0, out, kt.relation(op)(*types, kt.pattern("float32", (out,))),
                    membero(out, OUT_SIZES)))
    given = {shape[0] for m in ONE for shape in [_python(fn, sizes[0], m)]
             if shape is not None and shape[0] in OUT_SIZES}
    assert given and given <= found, (text, sizes, given - found)


#: divisors that are polynomials of degree 2 or more in the size: from some size on the
#: quotient is a polynomial (its dividend over the divisor, the coefficients ints but
#: for the last) and the remainder the polynomial left, so the sizes below are tried one
#: by one; a grounding no size gives was answered (0 and 1 of (m**3 + 1)//m**2)
POLYNOMIAL = [("(n),(m)->((m*m*m+1)//(m*m))", lambda n, m: ((m**3 + 1) // (m * m),)),
              ("(n),(m)->((m*m+1)//(m*m))", lambda n, m: ((m * m + 1) // (m * m),)),
              ("(n),(m)->((2*m*m+m)//(m*m+1))", lambda n, m: ((2 * m * m + m) // (m * m + 1),)),
              ("(n),(m)->((m*m*m) % (m*m-1))", lambda n, m: (m**3 % (m * m - 1),)),
              ("(n),(m)->((3*m*m+n) % (2*m*m))", lambda n, m: ((3 * m * m + n) % (2 * m * m),)),
              ("(n),(m)->((m*m)//(2*m*m-1) + n)", lambda n, m: ((m * m) // (2 * m * m - 1) + n,)),
              ("(n),(m)->((m*m*m+5)//(m*m-m+3))", lambda n, m: ((m**3 + 5) // (m * m - m + 3),)),
              ("(n),(m)->(n//(m*m+1))", lambda n, m: (n // (m * m + 1),)),
              ("(n),(m)->((n*m*m + 2) % (m*m))", lambda n, m: ((n * m * m + 2) % (m * m),)),
              # a polynomial over a named size: its int roots (review21A)
              ("(n),(m)->((m*3)*(m-3) + n)", lambda n, m: ((m * 3) * (m - 3) + n,)),
              ("(n),(m)->(m*m - 2*m + n)", lambda n, m: (m * m - 2 * m + n,)),
              ("(n),(m)->((m-1)*(n*m))", lambda n, m: ((m - 1) * (n * m),)),
              # a leading coefficient the divisor's does not divide: the quotient's
              # coefficients are fractions, ints in each class of m's residues (hunt28)
              ("(n),(m)->((3*m*m*m*m + 1) % (4*m*m + m + 2))",
               lambda n, m: ((3 * m**4 + 1) % (4 * m * m + m + 2),)),
              ("(n),(m)->((3*m*m*m*m + 2*m*m + 1)//(4*m*m + m + 2))",
               lambda n, m: ((3 * m**4 + 2 * m * m + 1) // (4 * m * m + m + 2),)),
              ("(n),(m)->((m*m + n)//(2*m + 1))", lambda n, m: ((m * m + n) // (2 * m + 1),)),
              ("(n),(m)->((m*m*m + 7)//(3*m + 1))", lambda n, m: ((m**3 + 7) // (3 * m + 1),)),
              ("(n),(m)->((m*m)//(2*m + 1) + (m*m) % (2*m + 1))",
               lambda n, m: ((m * m) // (2 * m + 1) + (m * m) % (2 * m + 1),))]


@pytest.mark.parametrize("sizes", [(3, "b"), (3, None), (0, "b"), (1, None)],
                         ids=["3-b", "3-open", "0-b", "1-open"])
@pytest.mark.parametrize(("text", "fn"), POLYNOMIAL, ids=[c[0] for c in POLYNOMIAL])
def test_run_over_a_polynomial_divisor_grounds_exactly_the_sizes_some_input_gives(
        text, fn, sizes):
    op = kt.op(text, name="polynomial")(lambda a, b: a)
    found, given = _grounded(op, fn, sizes, ONE, OUT_SIZES)
    assert found == given, (text, sizes, found - given, given - found)


def _grounded(op, fn, sizes: tuple, domain, outs) -> tuple[set, set]:
    """The output sizes ``run`` grounds for ``op`` beside ``membero(out, outs)`` (the
    first input of size ``sizes[0]``, the second named ``sizes[1]`` or open), and those
    Python's ``fn`` gives over the second's sizes in ``domain``."""
    second = kt.Dim(sizes[1]) if sizes[1] else var()
    types = [kt.pattern("float32", (sizes[0],)),
             kt.TensorType("float32", (second,)) if sizes[1] else kt.pattern("float32", (second,))]
    out = var()
    found = set(run(0, out, kt.relation(op)(*types, kt.pattern("float32", (out,))),
                    membero(out, outs)))
    given = {shape[0] for m in domain for shape in [_python(fn, sizes[0], m)]
             if shape is not None and shape[0] in outs}
    return found, given


#: found by a random hunt (one relation, run beside membero, against Python): waiting
#: equations that hold at no sizes, over two unknowns (``0 == max(m, 2) + n``), over one
#: a remainder or quotient by an int splits into classes (``(m % 2) % m``), or a
#: remainder no divisor gives; each the input sizes (an int, a name, or None: open)
HUNTED = [
    ("max(max((m//m) % (m + n), (n % m) % (m + 4)), m)", (None, "b")),
    ("(1//m) % (m % (m % (n % m)))", (None, None)),
    ("max(m, 2) + n", (None, None)),
    ("((m - m + m*m)*((m % 2) % m)) % 4", (0, None)),
    ("(((m//n) % n) % max(n*m, 1 % n))*((6//(m//m)) % min(n*m, 1))", (3, None)),
    ("(m//max(m, 2)) % max(m - m, m*m)", (0, "b")),
    ("max(m, (n - m)//min(m, n))", (3, "b")),
    ("((m - 1 + n) % max(1, n//m)) % min(m*(n//n), 3)", (None, "b")),
    ("(2//m)//(n//4)", (None, None)),
    ("max((3 % m)//(m//m), (m % n)//2)*(2*max(n - n, 0 % m))", (3, None)),
    ("(m % n)*n + n + 3", (None, None)),
    ("(n - m)//(m//m)", (0, None)),
    ("(m//4)//m", (None, None)),
    ("((m + m) % 3) % (min(4, m)//(n*m))", (3, None)),
    ("(m*m) % 4", (1, "b")),
    ("max(m, m*1) % ((m + m)//m)", (0, None)),
    # a product of a size and a remainder beside a floor by an int of period past the
    # classes' cap: every output size was grounded (hunt29; logic/polyends' products)
    ("m*(n % m) + m//36", (3, None)),
    ("m*(n % m) + m//36", (3, "b")),
    ("m*((m*m + n)//(2*m + 1)) - m//40", (1, None)),
    ("min(m, 40)*(n % m) + m//36", (3, None)),  # a min or max of such sizes too
    ("max(m, 2)*(n % m) + m//36", (3, "b")),
    ("max(m//36, (n % m)*m)", (3, None)),
    # a remainder by an int past the classes' cap (2 and 3 are no squares modulo 33)
    ("m//m + (m*m) % 33", (0, None)),
    ("(m*m) % 35 + n", (1, "b")),
    # a named size whose floors are all inside min or max (0 and 1 no m gives)
    ("min(2, m//4) + min(2, (m + 2) % 33)", (1, "b")),
]
#: the sizes an open or named size is judged at (every grounding here is reached below)
BOTH = range(40)


@pytest.mark.parametrize(("expr", "sizes"), HUNTED, ids=[c[0] for c in HUNTED])
def test_run_grounds_what_some_size_gives_where_a_waiting_equation_holds_nowhere(
        expr, sizes):
    op = kt.op(f"(n),(m)->({expr})", name="hunted")(lambda a, b: a)
    types = [kt.TensorType("float32", (kt.Dim(s),)) if isinstance(s, str)
             else kt.pattern("float32", (var() if s is None else s,)) for s in sizes]
    out = var()
    found = set(run(0, out, kt.relation(op)(*types, kt.pattern("float32", (out,))),
                    membero(out, OUT_SIZES)))
    given = set()
    for n, m in itertools.product(*([s] if isinstance(s, int) else BOTH for s in sizes)):
        shape = _python(lambda n, m: (eval(expr, {"min": min, "max": max},  # noqa: S307
                                           {"n": n, "m": m}),), n, m)
        if shape is not None and shape[0] in OUT_SIZES:
            given.add(shape[0])
    assert found == given, (expr, sizes, found - given, given - found)


#: two named sizes under a where-clause: an output size the where-clause's sizes never
#: give (``a + b == 5`` beside ``3 > max(a, b)``; ``b % a`` beside ``a == 0``) is no
#: grounding (the facts and the where-clause together refute it)
NAMED = ["m + n where 3 > max(n, m)", "m % n where m == m + n",
         "m*max(m, n) + n where n > m", "n + m where n + m <= 2*min(n, m) + 1",
         "max(n, m) - min(n, m) where n % 3 == 0 and m % 3 == 0",
         "min(m, n//n) where max(0, n) != 2", "max(n, m//m) where n + 1 > 0"]


@pytest.mark.parametrize("text", NAMED)
def test_run_over_named_sizes_grounds_what_their_where_clause_allows(text):
    expr, clause = text.split(" where ")
    op = kt.op(f"(n),(m)->({expr}) where {clause.replace(' and ', ', ')}",
               name="named")(lambda a, b: a)
    types = [kt.TensorType("float32", (kt.Dim(s),)) for s in "ab"]
    out = var()
    found = set(run(0, out, kt.relation(op)(*types, kt.pattern("float32", (out,))),
                    membero(out, tuple(range(8)))))
    calls = {"min": min, "max": max}

    def fn(n: int, m: int) -> tuple:
        at = {"n": n, "m": m}
        return (eval(expr, calls, at),) if eval(clause, calls, at) else (-1,)  # noqa: S307

    given = set()
    for n, m in itertools.product(BOTH, BOTH):
        shape = _python(fn, n, m)
        if shape is not None and shape[0] < 8:
            given.add(shape[0])
    assert found == given, (text, found - given, given - found)


#: quotients whose leading coefficients make more classes of ``m``'s residues than
#: logic/quotients reads (``4**3 == 64``, ``5**3``, the lcm 16*27 of a sum's two): the
#: floors' bounds end them instead (logic/polyends), where before ``membero`` grounded
#: sizes no ``m`` gives (review22B); judged by Python over a wider domain and outputs
FAR = range(2000)
FAR_OUT = tuple(range(40))
PAST_CLASSES = [
    "(m*m*m*m)//(4*m+1)", "(m*m*m*m)%(4*m+1)", "(m*m*m*m + 3)%(4*m - 3)",
    "(1*m*m*m*m + n)%(-3 + 4*m)", "(1 + 5*m*m + 3*m*m*m + 3*m*m*m*m)%(-2 + 4*m)",
    "(2 + 2*m*m*m + 4*m*m*m*m + n)//(3 + 5*m) + (2 + 2*m*m*m + 4*m*m*m*m + n) % (3 + 5*m)",
    "(m*m*m*m*m)//(2*m + 1) + (m*m*m*m)%(3*m+1)", "(m*m*m*m*m*m)//(2*m + 1)",
    "(m*m*m*m*m)//(3*m*m + 1)",
    # by a quadratic: the pseudo-remainder's bound (found by a random hunt)
    "(6*m*m*m*m*m + 3*m*m*m*m + 3*m*m*m + 4*m + n - 3)%(5*m*m + 5*m + 4)",
    "(m*m*m*m*m + 2*m*m*m*m + 4*m*m*m + m*m + 5*m + 1 + n)%(5*m*m + 3*m - 2)"]


@pytest.mark.parametrize("sizes", [(3, None), (1, "b")], ids=["3-open", "1-b"])
@pytest.mark.parametrize("expr", PAST_CLASSES)
def test_run_past_the_class_cap_grounds_exactly_the_sizes_some_input_gives(expr, sizes):
    fn = eval(f"lambda n, m: ({expr},)")  # noqa: S307 (the test's own expressions)
    op = kt.op(f"(n),(m)->({expr})", name="far")(lambda a, b: a)
    found, given = _grounded(op, fn, sizes, FAR, FAR_OUT)
    assert found == given, (expr, sizes, found - given, given - found)


@pytest.mark.parametrize("expr", PAST_CLASSES[:2] + PAST_CLASSES[6:7])
def test_refine_past_the_class_cap_refuses_an_output_no_size_gives(expr):
    fn = eval(f"lambda n, m: {expr}")  # noqa: S307 (the test's own expressions)
    op = kt.op(f"(n),(m)->({expr})", name="far")(lambda a, b: a)
    x, y = kt.TensorType("float32", (3,))("x"), kt.TensorType("float32", (None,))("y")
    out = op(x, y)
    for k in range(12):
        given = sorted(m for m in FAR if fn(3, m) == k)
        try:
            got = kt.refine([out], given={out: f"float32[{k}]"})[y].shape[0]
        except kt.RefinementError:
            assert not given, (expr, k, given)
            continue
        assert given, (expr, k, got)
        assert not isinstance(got, int) or got in given and len(given) == 1, (expr, k, got)


@pytest.mark.parametrize("expr", PAST_CLASSES[:2] + PAST_CLASSES[6:7])
def test_query_past_the_class_cap_answers_exactly_the_outputs_some_size_gives(expr):
    fn = eval(f"lambda n, m: {expr}")  # noqa: S307 (the test's own expressions)
    op = kt.op(f"(n),(m)->({expr})", name="far")(lambda a, b: a)
    a, b = kt.TensorType("float32", (3,)), kt.TensorType("float32", (kt.Dim("b"),))
    for k in range(12):
        answers = list(kt.query(op, [a, b], [kt.TensorType("float32", (k,))]))
        assert bool(answers) == any(fn(3, m) == k for m in FAR), (expr, k, answers)


def test_residue_classes_try_a_bounded_number_of_sizes():
    """Past :data:`MAX_RESIDUE_TRIED` sizes over its 255 classes the fallback leaves an
    equation undecided (None, never a guess) instead of trying each size below each
    class's end (120k for ``3*(60000//(m + 1))``: seconds); below it, exactly the sizes
    Python's ``//`` and ``%`` give (none past 600, where the quotient is 0 and 2 is no
    square modulo 3)."""
    m = kt.Dim("m")
    assert tail_values((m * m) % 255 + 3 * (60000 // (m + 1)) - 2, "m") is None
    near = tail_values((m * m) % 255 + 600 // (m + 1) - 2, "m")
    assert near == tuple(v for v in range(2000) if (v * v) % 255 + 600 // (v + 1) == 2)
