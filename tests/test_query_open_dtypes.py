"""A dtype a query's answer leaves open, judged by enumerating dtypes forwards: each
answer's open dtypes (their sets, as the answer states them and as its text says them,
and which places share one) are exactly the dtypes make_node builds with, over every
dtype of the table (strings too), and the answer's output is what make_node gives."""

from __future__ import annotations

import itertools
import re

import pytest
from kanren import var

import kantensor as kt
from kantensor.logic.dtypes import InCategory, InDefaultRange
from kantensor.logic.terms import TensorTerm
from kantensor.ops.shipped import catalogue_files
from kantensor.syntax import ast as A
from kantensor.syntax.parser import parse_fresh
from kantensor.types.dtypes import CATEGORIES, DTYPES

EVERY = frozenset(DTYPES)


def _text_sets(text: str) -> dict[str, frozenset[str]]:
    """The sets an answer's text states of its open dtypes (``T != string``, ``T in
    number``, ``T in (a, b)``, ``T not in (a, b)``), read back from the text."""
    out = {}
    for part in text.split(" and "):
        m = re.fullmatch(r"(\w+) (!=|in|not in) (\w+|\([\w, ]+\))", part.strip())
        if m is None or not (m.group(3) in EVERY | set(CATEGORIES) or
                             m.group(3).startswith("(")):
            continue  # a size's clause
        name, op, rest = m.groups()
        names = frozenset(x.strip() for x in rest.strip("()").split(",")) \
            if rest.startswith("(") else CATEGORIES.get(rest, frozenset({rest}))
        out[name] = names if op == "in" else EVERY - names
    return out


def _dtype_of(value, places: dict, text_sets: dict) -> object:
    """The dtype of an answer's value: a name, or the open dtype's name (recorded in
    ``places`` with its set, as the text states it, every dtype where it says none);
    an open dtype with no name (None, as answers had it) is a place of its own that
    claims every dtype."""
    dtype = value.dtype if isinstance(value, kt.TensorType | TensorTerm) else value
    if isinstance(dtype, str):
        return dtype
    if dtype is None:
        key = f"?{len(places)}"
        places[key] = EVERY
        return key
    name = str(dtype)
    assert dtype.dtypes == text_sets.get(name, EVERY), (name, dtype.dtypes)
    places[name] = dtype.dtypes
    return name


def _build(op, types):
    """What make_node builds from ``types`` (its outputs' types), or None if it refuses;
    ``op`` may be a function of the input variables that makes the node (a call that
    adds size inputs)."""
    try:
        made = op(*[t() for t in types]) if callable(op) and not isinstance(op, kt.Op) \
            else op.make_node(*[t() for t in types]).outputs
    except (TypeError, ValueError):
        return None
    return tuple(o.type for o in (made if isinstance(made, list | tuple) else [made]))


def check(op, inputs: list, outputs: list, build=None) -> int:
    """Every answer of ``query(op, inputs, outputs)`` with an open dtype, judged: at
    every assignment of the table's dtypes to its open places (and the names of its
    inputs' patterns), make_node builds exactly where the answer's sets hold, and gives
    its outputs (``build``: the call that makes the node, if not ``op.make_node``).
    Returns the number of builds compared."""
    compared = 0
    sols = kt.query(op, inputs, outputs, limit=12)
    answers = list(sols)
    assert answers
    rows = sols.text(show=len(answers)).splitlines()
    for row, answer in zip(rows, answers, strict=False):
        # the text says what the answer says (its sets after the values)
        assert row.endswith(answer.where_text() if hasattr(answer, "where_text") else "")
        places: dict = {}
        sets = _text_sets(answer.where_text() if hasattr(answer, "where_text") else "")
        in_dtypes, in_shapes = [], []
        for x in inputs:
            if isinstance(x, str):
                t = kt.TensorType.parse(x)
                in_dtypes.append(t.dtype)
                in_shapes.append(t.shape)
            elif isinstance(x, TensorTerm):  # a pattern: its dtype variable's value
                in_dtypes.append(_dtype_of(answer[str(x.dtype.token)], places, sets))
                in_shapes.append(x.shape)
            else:  # a whole type
                v = answer[str(x.token)]
                in_dtypes.append(_dtype_of(v, places, sets))
                in_shapes.append(v.shape)
        out_dtypes = [_dtype_of(answer[str(y.token)], places, sets) if not isinstance(
            y, str) else kt.TensorType.parse(y).dtype for y in outputs]
        if not places:
            continue
        keys = list(places)
        for combo in itertools.product(DTYPES, repeat=len(keys)):
            at = dict(zip(keys, combo, strict=True))
            claimed = all(at[k] in places[k] for k in keys)
            types = [kt.TensorType(at.get(d, d), shape) for d, shape in
                     zip(in_dtypes, in_shapes, strict=True)]
            built = _build(build or op, types)
            compared += 1
            assert (built is not None) == claimed, (answer, at, built)
            if built is not None:
                assert [t.dtype for t in built] == [at.get(d, d) for d in out_dtypes], \
                    (answer, at, built)
    return compared


D, E, X, Y, W = var("D"), var("E"), var("X"), var("Y"), var("W")
N = kt.Dim("n")

def _plain(text: str) -> kt.SignatureOp:
    return kt.SignatureOp("plain", kt.Signature.parse(text), lambda *a: a[0])


CASES = [
    ("(n):T->(n):T, whole types", _plain("(n):T->(n):T"), [X], [Y], None),
    ("(n):T->(n):T, a dtype", _plain("(n):T->(n):T"), [kt.pattern(D, (3,))], [Y], None),
    ("(n):T->(n):bool", _plain("(n):T->(n):bool"), [kt.pattern(D, (3,))], ["bool[3]"],
     None),
    ("two inputs, one dtype", _plain("(n):T,(n):T->(n):T"),
     [kt.pattern(D, (2,)), kt.pattern(E, (2,))], [Y], None),
    ("eq", kt.eq, [kt.pattern(D, (3,)), kt.pattern(E, (3,))], [Y], None),
    ("lt, one dtype", kt.lt, [kt.pattern(D, (2,)), kt.pattern(D, (2,))], [Y], None),
    ("isnan", kt.isnan, [kt.pattern(D, (3,))], [Y], None),
    ("flip", kt.flip, [kt.pattern(D, (3,))], [Y], None),
    ("sort", kt.sort, [kt.pattern(D, (3,))], [Y], None),
    ("argmax", kt.argmax, [kt.pattern(D, (3,))], [Y], None),
    ("zeros_like", kt.zeros_like, [kt.pattern(D, (3,))], [Y], None),
    ("tril", kt.tril, [kt.pattern(D, (3, 3))], [Y], None),
    ("max", kt.max, [kt.pattern(D, (3,))], [Y], None),
    ("where", kt.where, [kt.pattern(D, (3,)), "int8[3]", "int8[3]"], [Y], None),
    ("lexsort", kt.lexsort, [kt.pattern(D, (2, 3))], [Y], lambda x: kt.lexsort([x])),
    ("broadcast_to shape=(2*n,3)", kt.broadcast_to.bind(shape=(2 * N, 3)), [X], [Y],
     lambda x: kt.broadcast_to(x, (2 * N, 3))),
]


@pytest.mark.parametrize(("name", "op", "inputs", "outputs", "build"), CASES,
                         ids=[c[0] for c in CASES])
def test_open_dtypes_are_the_dtypes_that_build(name, op, inputs, outputs, build):
    assert check(op, inputs, outputs, build) > 0


@pytest.mark.parametrize("fill", [300, -1, 2**40, 1.5, True, 0])
def test_a_dtype_a_python_int_must_fit_is_settled_per_dtype(fill):
    """``full_like(x, 300)`` computes in x's dtype, where 300 must fit (make_node
    refuses uint8, as NumPy 2 does): that dtype is not left open as any dtype but
    string (it was ``D = ?``), each answer is one the fill fits, and together they are
    exactly the dtypes make_node builds with."""
    answers = list(kt.query(kt.full_like, [kt.pattern(D, (3,)), fill], [Y]))
    claimed = set()
    for a in answers:
        d = a["D"]
        claimed |= {d} if isinstance(d, str) else set(d.dtypes)
        assert a["Y"].dtype == d  # (the output computes in it)
    built = {d for d in DTYPES
             if _build(lambda x: kt.full_like(x, fill), [kt.TensorType(d, (3,))])}
    assert claimed == built
    assert built < EVERY  # strings never; and 300 not in uint8


def _catalogue_memberships() -> list:
    """A membership constraint of every kind the catalogue makes: the default range of
    an unannotated input, and an InCategory of each category or dtype set its
    signatures' where-clauses name (and of each named category, as the ONNX families
    make them in code)."""
    categories: dict = {name: None for name in CATEGORIES}
    for folder in (None, "onnx"):
        for _, text in catalogue_files(folder):
            for sig in re.findall(r'^signature = "([^"\\]+)"', text, re.M):
                for alt in parse_fresh(sig, template=True):
                    for clause in getattr(alt, "where", ()):
                        if isinstance(clause, A.InCategory):
                            categories[clause.category] = None
    assert any(type(c) is tuple for c in categories)  # sets as well as names
    return [InDefaultRange(var()), *(InCategory(var(), c) for c in categories)]


def test_members_are_what_check_accepts():
    """One home for what a membership accepts: each constraint's members is exactly
    the dtypes its check() holds at, over every dtype of the table (strings too), for
    every kind of membership the catalogue makes; an unbound dtype waits."""
    constraints = _catalogue_memberships()
    for c in constraints:
        assert c.check({}, ()) == ({}, False)
        accepted = set()
        for d in DTYPES:
            s = {c.dtype: d}
            got = c.check(s, ())
            assert got in (None, (s, True)), (c, d, got)
            if got is not None:
                accepted.add(d)
        assert c.members == accepted, c
    assert len(constraints) > len(CATEGORIES)


def _built_dtypes(op) -> set:
    return {d for d in DTYPES if _build(op, [kt.TensorType(d, (3,))]) is not None}


@pytest.mark.parametrize("clause", ["", " where T in floating", " where T in integer",
                                    " where T in (float16, int8, string)"])
def test_what_query_prints_of_a_default_range_and_of_a_where_clause(clause):
    """What a query prints of an input's dtype, judged by building every dtype forwards:
    the default range alone leaves it open (one answer, ``D != string``, its set the
    dtypes that build); a where-clause's category or set is enumerated (an answer per
    dtype that builds, each a dtype name, no open dtype and no dtype clause)."""
    op = _plain(f"(n):T->(n):T{clause}")
    built = _built_dtypes(op)
    sols = kt.query(op, [kt.pattern(D, (3,))], [Y])
    answers = list(sols)
    rows = sols.text(show=len(answers)).splitlines()[:len(answers)]
    if not clause:
        assert len(answers) == 1 and rows == ["Y = D[3], where D != string"]
        assert answers[0]["D"].dtypes == built
        assert _text_sets(answers[0].where_text()) == {"D": built}
        return
    assert {a["D"] for a in answers} == built and len(answers) == len(built)
    for a, row in zip(answers, rows, strict=True):
        assert isinstance(a["D"], str) and a["Y"] == kt.TensorType(a["D"], (3,))
        assert row == f"D = {a['D']}, Y = {a['D']}[3]" and "where" not in row
