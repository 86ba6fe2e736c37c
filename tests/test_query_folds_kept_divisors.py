"""A query's answer writes its sizes under its own conditions: a divisor the Dim algebra
keeps as a ``0//v`` term (``n//m - n//m + n`` is ``n + 0//m``, no value at ``m == 0``)
is 0 wherever the answer's conditions show ``v`` nonzero, so the answer reads ``i``
where ``j >= 1``, not ``i + 0//j``; where no condition does, the term stays. A divisor
that may be negative is stated too (``i - j != 0``), then folded under it: the answer
of ``n + 0*((n+1)//(n - m))`` was ``i + 0//(i - j)`` under a tautology.

Judged by brute force with Python's own arithmetic, never by kantensor: at every size
in 0..6 where the answer's where-clause (its text, evaluated by Python) holds, the
answer's size (its text, evaluated by Python) is the signature's expression's value
there; every size Python gives is some answer's; and a ``0//v`` term the answer keeps is
needed: some size in 0..6 where the where-clause holds has ``v == 0`` (where none does,
the term is 0 wherever the answer holds, and the answer should not carry it).
"""

from __future__ import annotations

import itertools
import re

import pytest
from unification import var

import kantensor as kt

AT = range(7)

#: (signature's output expression over n and m, its where-clause or "")
CASES = [
    ("n//m - n//m + n", ""),
    ("max(n, n % m)", ""),
    ("n + 0*(n//m)", ""),
    ("n + min(2//m, 0)", ""),
    ("(3 % (3*m)) % 3 + n", ""),
    ("n//m - n//m + n", "m >= 2"),
    ("n//m - n//m + n + m//n - m//n", ""),
    ("(n//m) % 1 + n", ""),
    # a divisor that may be negative: stated (i - j != 0), then folded under it
    ("n + 0*((n+1)//(n - m))", ""),
    ("n + 0*(n % (m - n))", ""),
    ("n + 0*((n+1)//(2 - m))", ""),
    ("(n + 1)//(n - m) - (n + 1)//(n - m) + m", ""),
    ("n + 0*((n+1)//(n - m))", "n >= m"),
]
#: the two inputs' sizes (a name or an int)
INPUTS = [("i", "j"), ("i", "i"), (3, "j"), ("i", 2)]

#: a kept divisor's term in an answer's text: ``0//j``, ``0//(j - 1)``
KEPT = re.compile(r"(?<![\w)])0//(\w+|\([^()]*\))")


def _py(text: str, env: dict) -> int | bool | None:
    """``text`` evaluated by Python at ``env`` (None where it divides by 0)."""
    try:
        return eval(text, {"max": max, "min": min}, dict(env))  # noqa: S307
    except ZeroDivisionError:
        return None


def _truth(expr: str, where: str, sizes: tuple, env: dict) -> int | None:
    """The signature's output size at the inputs' ``sizes`` under ``env``: None where
    Python has none, its where-clause fails, or it is negative."""
    n, m = (env[s] if isinstance(s, str) else s for s in sizes)
    if where and not _py(where, {"n": n, "m": m}):
        return None
    value = _py(expr, {"n": n, "m": m})
    return value if value is not None and value >= 0 else None


@pytest.mark.parametrize("sizes", INPUTS, ids=["-".join(map(str, s)) for s in INPUTS])
@pytest.mark.parametrize(("expr", "where"), CASES, ids=[f"{e} {w}" for e, w in CASES])
def test_answer_folds_a_divisor_its_conditions_show_nonzero(expr, where, sizes):
    text = f"(n),(m)->({expr})" + (f" where {where}" if where else "")
    types = [kt.TensorType("float32", (kt.Dim(s) if isinstance(s, str) else s,))
             for s in sizes]
    names = sorted({s for s in sizes if isinstance(s, str)})
    answers = list(kt.query(text, types, [var("Z")]))
    got: set = set()
    for answer in answers:
        (size,) = answer["Z"].shape
        size_text, cond = str(size), answer.where_text()
        assert "T" not in cond, answer  # (float32 inputs: no open dtype)
        symbols = sorted(set(names) | set(re.findall(r"[A-Za-z_]\w*", size_text + " " + cond))
                         - {"and", "or", "not", "max", "min"})
        points = []
        for choice in itertools.product(AT, repeat=len(symbols)):
            env = dict(zip(symbols, choice, strict=True))
            if cond and not _py(cond, env):
                continue
            points.append(env)
            value = _py(size_text, env)
            assert value is not None and value == _truth(expr, where, sizes, env), (
                text, sizes, answer, env, value)
            got.add(tuple(env[x] for x in names))
        for v in KEPT.findall(f"{size_text} {cond}"):  # a kept divisor, in the size or
            # its where-clause (i + 0//(i - j) >= 0 beside i - j != 0): needed where it holds
            assert any(_py(v, env) == 0 for env in points), (
                f"{text} at {sizes}: {answer} keeps 0//{v}, but {v} is nonzero at every "
                f"size in 0..6 where {cond or 'anything'} holds")
    want = {key for key in itertools.product(AT, repeat=len(names))
            if _truth(expr, where, sizes, dict(zip(names, key, strict=True))) is not None}
    assert got == want, (text, sizes, answers)


#: where-clauses whose kept divisor make_node or query left unfolded beside a condition
#: showing it nonzero (hunt28: query said ``j % i == (j % i) % 4 + 0//i`` beside
#: ``i >= 1``, make_node ``0//j + 4 >= i*j`` beside ``j >= 1``, and ``i + 0//(i - j) >=
#: 0`` beside ``i - j != 0``)
TWO_FRONT_ENDS = [("0*m", "(m % n) == ((m % n) % 4)"),
                  ("4 % 4", "max(max(3, 4), (1 % m)) >= (n * m)"),
                  ("n", "n + 0//(n - m) >= 0"),
                  ("n + 0*((n+1)//(n - m))", "")]


@pytest.mark.parametrize(("expr", "where"), TWO_FRONT_ENDS,
                         ids=[f"{e} {w}" for e, w in TWO_FRONT_ENDS])
def test_make_node_and_query_state_one_condition(expr, where):
    """make_node's conditions and query's where-clause are one condition, said alike,
    with no kept ``0//v`` another condition shows nonzero; each holds exactly where
    Python gives the size (judged at every size in 0..6)."""
    text = f"(n),(m)->({expr})" + (f" where {where}" if where else "")
    op = kt.op(text, name="kept")(lambda a, b: a)
    a, b = (kt.TensorType("float32", (kt.Dim(s),)) for s in "ij")
    y = op(a("x"), b("y"))
    (answer,) = kt.query(op, [a, b], [var("Z")])
    said = sorted(map(str, y.owner.conditions))
    assert said == sorted(map(str, answer.where)), (text, y.owner.conditions, answer)
    assert str(y.type.shape[0]) == str(answer["Z"].shape[0]), (text, y.type, answer)
    for cond in said:
        for v in KEPT.findall(cond):
            others = " and ".join(c for c in said if c != cond) or "True"
            assert any(_py(others, {"i": i, "j": j}) and _py(v, {"i": i, "j": j}) == 0
                       for i in AT for j in AT), (text, said)
    for i, j in itertools.product(AT, AT):
        env = {"i": i, "j": j}
        holds = all(_py(c, env) for c in said)
        want = _truth(expr, where, ("i", "j"), env)
        assert holds == (want is not None), (text, env, said)
        if holds:
            assert _py(str(y.type.shape[0]), env) == want, (text, env)
