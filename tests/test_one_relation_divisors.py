"""One relation for a signature whose output size divides by a size (DESIGN §7):
``(n),(m)->(n//m)`` and its kin, over inputs whose sizes are named (``float32[a]``,
``float32[b]``) or ints. Judged by Python's own ``//`` and ``%`` at every assignment of
the names (ZeroDivisionError: no size there), never by make_node:

1. make_node's type under its conditions is Python's size, and its conditions hold
   exactly where Python gives a size >= 0;
2. the answers of ``query(op, types, [Z])`` (each instance over its names where its
   ``where`` holds) are exactly Python's sizes there, and nothing where Python raises;
3. ``query(op, types, [make_node's output types])`` holds exactly where Python's sizes
   are those types' (where those are types: a given type's sizes are sizes);
4. ``relation(op)`` in ``kanren.run`` beside ``membero`` grounds the output's sizes to
   every one some assignment of the names gives (a wide domain of names);
5. ``query(op, types, [float32[k...]])`` holds exactly where Python's sizes are k...

make_node stated the divisor (850a8d62); the query's answers did not: ``float32[a//b]``
with no condition, ``a % b == 0`` where b may be 0, which is no size at b == 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from kanren import membero, run
from unification import var

import kantensor as kt
from kantensor.types.symbols import free_symbols, substitute

#: The names' values judged; the wider domain of names a grounded output may come from.
NAMES_AT = range(4)
WIDE = range(13)
OUT_SIZES = (0, 1, 2, 3)

#: (signature text, its output shape as Python computes it from n and m; None where the
#: signature's where-clause fails)
CASES: list[tuple[str, Callable[[int, int], tuple | None]]] = [
    ("(n),(m)->(n//m)", lambda n, m: (n // m,)),
    ("(n),(m)->(n%m)", lambda n, m: (n % m,)),
    ("(n),(m)->(n//m,n%m)", lambda n, m: (n // m, n % m)),
    ("(n),(m)->(n,m//n)", lambda n, m: (n, m // n)),
    ("(n),(m)->(n//(m-1))", lambda n, m: (n // (m - 1),)),
    ("(n),(m)->(n%(m-2))", lambda n, m: (n % (m - 2),)),
    ("(n),(m)->((n-2)//m)", lambda n, m: ((n - 2) // m,)),
    ("(n),(m)->(n//m) where n%m == 0", lambda n, m: (n // m,) if n % m == 0 else None),
    # whose value the Dim algebra simplifies past a divisor (tests/test_dim_kept_divisors)
    ("(n),(m)->(max(n, n % m))", lambda n, m: (max(n, n % m),)),
    ("(n),(m)->(max(m, (2 % m)//m))", lambda n, m: (max(m, (2 % m) // m),)),
    ("(n),(m)->(n + 0*(n//m))", lambda n, m: (n + 0 * (n // m),)),
    ("(n),(m)->(n//m - n//m + n)", lambda n, m: (n // m - n // m + n,)),
    ("(n),(m)->((3 % (3*m)) % 3 + n)", lambda n, m: ((3 % (3 * m)) % 3 + n,)),
    ("(n),(m)->(n + min(2//m, 0))", lambda n, m: (n + min(2 // m, 0),)),
    # a where-clause that fixes the divisor to 0 (query raised ZeroDivisionError)
    ("(n),(m)->(m%n) where m == m + n", lambda n, m: (m % n,) if m == m + n else None),
    ("(n),(m)->(m//(n - m)) where 2*m == m + n", lambda n, m: (m // (n - m),)
     if 2 * m == m + n else None),
]
#: the inputs' sizes: named, named alike, or an int beside a name
INPUTS = [("a", "b"), ("a", "a"), (0, "b"), (3, "b"), ("a", 2), ("a", 0)]


def _python(fn: Callable, n: int, m: int) -> tuple | None:
    """The output shape Python gives at (n, m): None where it raises or a size is < 0."""
    try:
        shape = fn(n, m)
    except ZeroDivisionError:
        return None
    return shape if shape is not None and all(d >= 0 for d in shape) else None


def _holds(where, env: dict) -> bool:
    """Every clause of ``where`` holds at ``env`` (one with no value there does not)."""
    try:
        return all(c.holds(env) for c in where)
    except ZeroDivisionError:
        return False


def _shape(t: kt.TensorType, env: dict) -> tuple:
    return tuple(substitute(d, env) if isinstance(d, kt.Dim) else d for d in t.shape)


def _instances(answer, names: list[str], z: str | None) -> set:
    """(the names' values, the output's shape) at each assignment of the answer's names
    in NAMES_AT where its ``where`` holds (a value that divides by 0 there fails the
    test: the answer claimed a size that does not exist)."""
    symbols = sorted({s for c in answer.where for s in c.symbols()} | set(names) |
                     ({s for d in answer[z].shape if isinstance(d, kt.Dim)
                       for s in free_symbols(d)} if z else set()), key=str)
    out = set()
    for choice in itertools.product(NAMES_AT, repeat=len(symbols)):
        env = dict(zip(symbols, choice, strict=True))
        if _holds(answer.where, env):
            try:
                shape = _shape(answer[z], env) if z else None
            except ZeroDivisionError:
                raise AssertionError(f"{answer} has no size at {env}") from None
            out.add((tuple(env[n] for n in names), shape))
    return out


@pytest.mark.parametrize("sizes", INPUTS, ids=["-".join(map(str, s)) for s in INPUTS])
@pytest.mark.parametrize(("text", "fn"), CASES, ids=[c[0] for c in CASES])
def test_a_divisor_is_one_relation_in_every_front_end(text, fn, sizes):
    op = kt.op(text, name="divided")(lambda a, b: a)
    types = [kt.TensorType("float32", (kt.Dim(s) if isinstance(s, str) else s,))
             for s in sizes]
    names = sorted({s for s in sizes if isinstance(s, str)})

    def at(env: dict) -> tuple[int, int]:
        n, m = (env[s] if isinstance(s, str) else s for s in sizes)
        return n, m

    truth = {tuple(env[x] for x in names): _python(fn, *at(env))
             for env in (dict(zip(names, c, strict=True))
                         for c in itertools.product(NAMES_AT, repeat=len(names)))}
    try:
        y = op(*(t(f"x{i}") for i, t in enumerate(types)))
    except kt.TypeInferenceError:
        y = None
    if y is None:  # (1) refused: Python gives no size at any assignment
        assert set(truth.values()) == {None}, (text, sizes)
    else:  # (1) make_node under its conditions
        for key, want in truth.items():
            env = dict(zip(names, key, strict=True))
            said = _shape(y.type, env) if _holds(y.owner.conditions, env) else None
            assert said == want, (text, sizes, env, y.type, y.owner.conditions)
    got: dict = {}  # (2) query forwards
    for answer in kt.query(op, types, [var("Z")]):
        for key, shape in _instances(answer, names, "Z"):
            got.setdefault(key, set()).add(shape)
    for key, want in truth.items():
        assert got.get(key, set()) == ({want} if want else set()), (
            text, sizes, key, got.get(key), list(kt.query(op, types, [var("Z")])))
    if y is None:
        return
    holds = set()  # (3) query with make_node's output given (where it is a type: a
    for answer in kt.query(op, types, [y.type]):  # given type's sizes are sizes)
        holds |= {key for key, _ in _instances(answer, names, None)}
    for key, want in truth.items():
        env = dict(zip(names, key, strict=True))
        try:
            given = _shape(y.type, env)
        except ZeroDivisionError:
            continue
        if min(given, default=0) >= 0:
            assert (key in holds) == (given == want), (
                text, sizes, env, list(kt.query(op, types, [y.type])))
    # (4) relation in kanren.run, the output's sizes ground by membero: every one some
    # assignment gives (and only those, over a domain wide enough for two names:
    # tests/test_relation_run_divisors.py; (5) asks each grounding of query)
    ns = [var() for _ in range(y.type.ndim)]
    found = set(run(0, tuple(ns), kt.relation(op)(*types, kt.pattern("float32", tuple(ns))),
                    *(membero(n, OUT_SIZES) for n in ns)))
    wide = {_python(fn, *at(dict(zip(names, c, strict=True))))
            for c in itertools.product(WIDE, repeat=len(names))}
    assert found >= {s for s in wide if s is not None and set(s) <= set(OUT_SIZES)}, (
        text, sizes)
    for shape in itertools.product(OUT_SIZES, repeat=y.type.ndim):  # (5) each output
        holds = set()
        for answer in kt.query(op, types, [kt.TensorType("float32", shape)]):
            holds |= {key for key, _ in _instances(answer, names, None)}
        assert holds == {key for key, want in truth.items() if want == shape}, (text, sizes,
                                                                               shape)


#: (signature text, whether Python's sizes fit: n, m the first input's, k the second's)
INPUT_CASES: list[tuple[str, Callable[[int, int, int], bool]]] = [
    ("(n,m),(n//m)->()", lambda n, m, k: n // m == k),
    ("(n,m),(n%m)->()", lambda n, m, k: n % m == k),
    ("(n,m),(k)->() where k*m <= n", lambda n, m, k: k * m <= n),
    ("(n,m),(k)->() where n//m >= k", lambda n, m, k: n // m >= k),
]
INPUT_SIZES = [((0, "b"), (0,)), (("a", "b"), ("c",)), (("a", "a"), (1,)), (("a", "b"), (0,)),
               ((3, "b"), (1,))]


@pytest.mark.parametrize("sizes", INPUT_SIZES, ids=[str(s) for s in INPUT_SIZES])
@pytest.mark.parametrize(("text", "fits"), INPUT_CASES, ids=[c[0] for c in INPUT_CASES])
def test_a_divisor_in_an_input_or_a_clause_is_a_condition(text, fits, sizes):
    """An input's size or a where-clause that divides by a size: make_node's conditions,
    query's answers and refine's contract hold exactly where Python's ``//``/``%`` give
    sizes that fit
    (``0 == 0//b`` holds wherever it has a value: it was settled, and both held at
    b == 0, where make_node at ints refuses: 'n//m divides by zero')."""
    op = kt.op(text, name="divided")(lambda a, b: a)
    types = [kt.TensorType("float32", tuple(kt.Dim(d) if isinstance(d, str) else d
                                            for d in s)) for s in sizes]
    names = sorted({d for s in sizes for d in s if isinstance(d, str)})
    try:
        y = op(*(t(f"x{i}") for i, t in enumerate(types)))
    except kt.TypeInferenceError:
        y = None
    answers = list(kt.query(op, types, [var("Z")]))
    refined = y is not None
    try:
        contract = kt.refine(y).contract if refined else None
    except kt.TypeInferenceError:  # (a contract that holds nowhere: said so)
        refined, contract = False, None
    for choice in itertools.product(NAMES_AT, repeat=len(names)):
        env = dict(zip(names, choice, strict=True))
        (n, m), (k,) = ([env[d] if isinstance(d, str) else d for d in s] for s in sizes)
        try:
            want = fits(n, m, k)
        except ZeroDivisionError:
            want = False
        said = y is not None and _holds(y.owner.conditions, env)
        assert said == want, (text, sizes, env, None if y is None else y.owner.conditions)
        assert any(_holds(a.where, env) for a in answers) == want, (text, sizes, env, answers)
        held = refined and (contract is None or contract.holds(  # refine's contract
            {k: v for k, v in env.items() if k in {x for x, _ in contract.sizes}}).value)
        if y is not None:  # (of the graph make_node built: the same)
            assert held == want, (text, sizes, env, contract)
