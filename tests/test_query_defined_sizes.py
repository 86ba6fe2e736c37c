"""A size a query's answer defines by an equation is a size: it is >= 0.

``query("(n),(n+2)->()", [X, W], [Y])`` answered ``X = bool[n-2], W = bool[n]`` with no
condition: at n = 0 that is ``bool[-2]``, no type at all, where make_node (on
``float32[0]``) refuses. The answer now says ``where n - 2 >= 0``, as make_node's own
answer on symbolic sizes does. Oracle: the signature's sizes by brute force (every
assignment of its size variables in a domain, an assignment fitting where every size is
>= 0), against each answer at every assignment of its names; and make_node forwards at
every input of the domain.
"""

from __future__ import annotations

import itertools

import pytest

import kantensor as kt
from kantensor.query import pattern, query, var
from kantensor.types.symbols import free_symbols, substitute

#: Every size of the domain compared is 0..TOP; the names of an answer run to REACH.
TOP = 5
REACH = 2 * TOP + 4

#: (signature text, its sizes as Python functions of its size variables: the inputs'
#: shapes, the outputs' shapes)
CASES = [
    ("(n+1)->(n)", lambda n: ([(n + 1,)], [(n,)])),
    ("(n)->(n+1)", lambda n: ([(n,)], [(n + 1,)])),
    ("(n),(n+2)->()", lambda n: ([(n,), (n + 2,)], [()])),
    ("(n)->(n-1)", lambda n: ([(n,)], [(n - 1,)])),
    ("(n+1,m)->(m,n)", lambda n, m: ([(n + 1, m)], [(m, n)])),
    ("(2*n+1)->(n)", lambda n: ([(2 * n + 1,)], [(n,)])),
    ("(n)->(n//2-1)", lambda n: ([(n,)], [(n // 2 - 1,)])),
    ("(n),(m)->(n-m)", lambda n, m: ([(n,), (m,)], [(n - m,)])),
]


def _brute(fn, outputs_only=False):
    """Every (inputs' shapes, outputs' shapes) of the signature with sizes 0..TOP; or
    every outputs' shapes of sizes 0..TOP (inputs' sizes to REACH)."""
    arity = fn.__code__.co_argcount
    out = set()
    for point in itertools.product(range(REACH + 1), repeat=arity):
        ins, outs = fn(*point)
        sizes = [d for s in [*ins, *outs] for d in s]
        if all(d >= 0 for d in sizes) and all(d <= TOP for s in outs for d in s):
            if outputs_only:
                out.add(tuple(outs))
            elif all(d <= TOP for s in ins for d in s):
                out.add((tuple(ins), tuple(outs)))
    return out


def _at(value, env):
    return substitute(value, env) if isinstance(value, kt.Dim) else value


def _holds(where, env):
    try:
        return all(c.holds(env) for c in where)
    except ZeroDivisionError:
        return False


@pytest.mark.parametrize("whole", [False, True], ids=["sizes", "shapes"])
@pytest.mark.parametrize(("text", "fn"), CASES, ids=[c[0] for c in CASES])
def test_an_answer_is_sizes_the_signature_has(text, fn, whole):
    """Every answer, at every assignment of its names where its conditions hold, is a
    pair of shapes the signature has (no negative size: sound), and every pair of the
    domain is one answer's (complete); make_node agrees with the brute force. Each
    size a logic variable, or each shape one (``whole``: its sizes unknowns the answer
    names, where the bug was)."""
    want = _brute(fn)
    sample_ins, sample_outs = fn(*(1,) * fn.__code__.co_argcount)
    ins = [[f"i{k}_{j}" for j in range(len(s))] for k, s in enumerate(sample_ins)]
    outs = [[f"o{k}_{j}" for j in range(len(s))] for k, s in enumerate(sample_outs)]
    if whole:
        terms = [pattern("float32", var(f"S{k}")) for k in range(len(ins) + len(outs))]
    else:
        terms = [pattern("float32", tuple(var(n) for n in row)) for row in [*ins, *outs]]
    answers = list(query(text, terms[:len(ins)], terms[len(ins):]))
    hidden = [pattern("float32", (None,) * len(row)) for row in ins]
    shown = list(query(text, hidden, terms[len(ins):]))  # the inputs' sizes unknowns
    _compare_outputs(text, shown, outs, whole, _brute(fn, outputs_only=True))
    found = set()
    for a in answers:
        values = [list(a[f"S{k}"]) for k in range(len(terms))] if whole else \
            [[a[n] for n in row] for row in [*ins, *outs]]
        symbols = _symbols(values, a.where)
        for point in itertools.product(range(REACH + 1), repeat=len(symbols)):
            env = dict(zip(symbols, point, strict=True))
            if not _holds(a.where, env):
                continue
            shapes = [tuple(_at(v, env) for v in row) for row in values]
            sizes = [d for s in shapes for d in s]
            assert all(d >= 0 for d in sizes), (text, a, env)
            if all(d <= TOP for d in sizes):
                found.add((tuple(shapes[:len(ins)]), tuple(shapes[len(ins):])))
    assert found == want, (text, answers, sorted(want - found)[:3], sorted(found - want)[:3])
    op = kt.op(text)(lambda *a: None)
    made = {}
    for shapes in itertools.product(*(itertools.product(range(TOP + 1), repeat=len(row))
                                      for row in ins)):
        try:
            y = op(*(kt.TensorType("float32", s)() for s in shapes))
        except kt.TypeInferenceError:
            continue
        ys = y if isinstance(y, list | tuple) else [y]
        made[tuple(shapes)] = tuple(v.type.shape for v in ys)
    assert {i: o for i, o in made.items() if all(d <= TOP for s in o for d in s)} == \
        dict(want), text


def _symbols(values, where) -> list[str]:
    """The names an answer's sizes (rows of ``values``) and its conditions mention."""
    return sorted({s for row in values for v in row if isinstance(v, kt.Dim)
                   for s in free_symbols(v)} |
                  {s for c in where for s in free_symbols(c.left) | free_symbols(c.right)})


def _compare_outputs(text, answers, outs, whole, want):
    """The answers of a query whose inputs' sizes it does not show: at every assignment
    of their names, the outputs' shapes are the signature's (``(n)->(n+1)`` said
    ``b = b`` of its output ``[b]``: not at b = 0)."""
    found = set()
    for a in answers:
        values = [list(a[k]) for k in sorted(a) if k.startswith("S")] if whole else \
            [[a[n] for n in row] for row in outs]
        symbols = _symbols(values, a.where)
        for point in itertools.product(range(REACH + 1), repeat=len(symbols)):
            env = dict(zip(symbols, point, strict=True))
            if _holds(a.where, env):
                shapes = tuple(tuple(_at(v, env) for v in row) for row in values)
                if all(d <= TOP for s in shapes for d in s):
                    found.add(shapes)
    assert found == want, (text, answers, sorted(want - found)[:3], sorted(found - want)[:3])
