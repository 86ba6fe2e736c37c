"""``relation(op)`` in ``kanren.run`` where pending broadcasts of sizes into known ints
must hold together, and with the equations and where-clauses on the same sizes. Each
broadcast alone may hold where together none do; ``run`` shows no conditions, so an
answer they allow alone and not together is false. It gave three kinds:

- a group of named sizes past :data:`~kantensor.logic.broadcast.MAX_JOINT`
  assignments was taken to hold as it propagated *and* left out of ``run``'s witness
  (``[c0..c6,a,a] * [d0..d6,b,b]`` gave ``[2,...,2,2,3]``);
- an equation or where-clause on the same names was not judged with the broadcasts
  (``concatenate([a],[b])`` of 5 beside ``[a]*[b]`` of 3; ``a > 3`` beside
  ``[a]*[b]`` of 2);
- and it refused outputs NumPy gives (``float32[x,y,x] + float32[b,a,a]`` of
  ``[2,0,0]``: x = 1, y = 0, a = 0, b = 2), the witness's search not trying the few
  values (1 or k) each size has.

Judged by NumPy's ``np.broadcast_shapes`` at every assignment of the sizes in 0..6:
``run`` answers exactly the outputs some assignment gives, ``kt.query`` has an answer
exactly there; where none does ``run`` gives none (or refuses, never answers)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kanren import eq, run
from unification import var

import kantensor as kt
from kantensor.logic import broadcast
from kantensor.query import UndecidedAnswer

SIZES = range(7)


def _type(dtype: str, shape: tuple) -> kt.TensorType | object:
    """A type of named sizes (strings) and ints, or a pattern where a size is a var."""
    if all(isinstance(d, int | str) for d in shape):
        return kt.TensorType(dtype, tuple(kt.Dim(d) if isinstance(d, str) else d
                                          for d in shape))
    return kt.pattern(dtype, shape)


def _given(shapes: list[tuple]) -> set[tuple[int, ...]]:
    """The shapes NumPy broadcasts ``shapes`` to at some assignment of their sizes (a
    string or var each) in :data:`SIZES`."""
    sizes: list = []
    for shape in shapes:
        for d in shape:
            if not isinstance(d, int) and all(d is not s for s in sizes):
                sizes.append(d)
    found = set()
    for values in itertools.product(SIZES, repeat=len(sizes)):
        at = [values[next(i for i, s in enumerate(sizes) if s is d)]
              if not isinstance(d, int) else d for shape in shapes for d in shape]
        it = iter(at)
        try:
            found.add(np.broadcast_shapes(*(tuple(next(it) for _ in shape)
                                            for shape in shapes)))
        except ValueError:
            continue
    return found


def _run(goals: list, outs: list, wanted: tuple) -> tuple | None:
    """``run``'s answers of the outputs at ``wanted`` (None: refused)."""
    try:
        return run(0, tuple(outs), *goals, *(eq(o, k) for o, k in zip(outs, wanted,
                                                                       strict=True)))
    except UndecidedAnswer:
        return None


def _tied(m: int) -> tuple[kt.TensorType, kt.TensorType]:
    return (_type("float32", (*(f"c{i}" for i in range(m)), "a", "a")),
            _type("float32", (*(f"d{i}" for i in range(m)), "b", "b")))


@pytest.mark.parametrize("tail", [(2, 3), (2, 2), (1, 1), (0, 1)])
def test_many_names_tied_broadcasts(tail):
    """Sixteen names, 2**16 assignments together: each group of names sharing a
    broadcast is judged alone ({c_i, d_i}, {a, b}). The axes share no name, so NumPy's
    answer is each group's (judged at every assignment of its two names)."""
    m = 7
    x, y = _tied(m)
    wanted = (2,) * m + tail
    truth = (2,) in _given([("c",), ("d",)]) and tail in _given([("a", "a"), ("b", "b")])
    outs = [var() for _ in wanted]
    got = _run([kt.relation(kt.mul)(x, y, kt.pattern(var(), tuple(outs)))], outs, wanted)
    assert got == ((wanted,) if truth else ())
    assert (len(kt.query(kt.mul, [x, y], [kt.pattern(var(), wanted)])) > 0) == truth


@pytest.mark.parametrize("cap", ["MAX_JOINT", "MAX_NAMES"])
def test_a_group_past_the_cap_is_judged_by_the_witness(monkeypatch, cap):
    """A group needing more values tried (or holding more names) than ``jointly``
    judges is not judged as it propagates; ``run``'s witness judges its broadcasts
    (never skips them)."""
    monkeypatch.setattr(broadcast, cap, 1)
    x, y = _tied(1)
    given = _given([("c", "a", "a"), ("d", "b", "b")])
    for wanted in [(2, 2, 3), (2, 2, 2), (2, 3, 3), (1, 0, 1)]:
        outs = [var() for _ in wanted]
        got = _run([kt.relation(kt.mul)(x, y, kt.pattern(var(), tuple(outs)))], outs,
                   wanted)
        assert got == (wanted,) if wanted in given else got in ((), None), wanted


@pytest.mark.parametrize(("total", "out"), list(itertools.product(range(9), range(5))))
def test_broadcast_and_equation_on_the_same_names(total, out):
    """``concatenate([a],[b])`` of ``total`` (``a + b == total``) and ``[a]*[b]`` of
    ``out``: judged together."""
    z, o = var(), var()
    goals = [kt.relation(kt.concatenate)(_type("float32", ("a",)), _type("float32", ("b",)),
                                         kt.pattern(var(), (z,))),
             kt.relation(kt.mul)(_type("float32", ("a",)), _type("float32", ("b",)),
                                 kt.pattern(var(), (o,)))]
    truth = any(np.concatenate([np.zeros(a), np.zeros(b)]).shape == (total,) and
                (out,) in _given([((a,)), ((b,))])
                for a in SIZES for b in SIZES)
    assert _run(goals, [z, o], (total, out)) == (((total, out),) if truth else ())


@pytest.mark.parametrize("tied", [False, True])
def test_broadcast_and_where_clause_on_the_same_name(tied):
    """``a > 3`` (a where-clause) and ``[a]*[b]`` (or ``[a,a]*[b,b]``): judged together
    (of 1: ``a == 1`` recorded, then judged with ``a > 3``)."""
    shape = ("a", "a") if tied else ("a",)
    other = ("b", "b") if tied else ("b",)
    over = kt.relation("(n)->(n) where n > 3")
    for k in range(6):
        wanted = (k,) * len(shape)
        truth = any(np.broadcast_shapes(*(tuple({"a": a, "b": b}[d] for d in s)
                                          for s in (shape, other))) == wanted
                    for a in SIZES for b in SIZES if a > 3 and _broadcasts(a, b))
        outs = [var() for _ in wanted]
        got = _run([kt.relation(kt.mul)(_type("float32", shape), _type("float32", other),
                                        kt.pattern(var(), tuple(outs))),
                    over(_type("float32", ("a",)), var())], outs, wanted)
        assert got == ((wanted,) if truth else ()), (k, got)


def _broadcasts(a: int, b: int) -> bool:
    try:
        np.broadcast_shapes((a,), (b,))
    except ValueError:
        return False
    return True


x, y = var("x"), var("y")

#: (Op, its inputs' dtypes and shapes: a string a name, a var an unknown size)
UNKNOWNS = [
    ("mul", [("float32", (x, x)), ("float32", ("b", "b"))]),
    ("add", [("float32", (x, 1)), ("float32", ("b", "b"))]),
    ("add", [("float32", (x, y, x)), ("float32", ("b", "a", "a"))]),
    ("mul", [("float32", (x, y)), ("float32", (y, x))]),
    ("where", [("bool", (x, y)), ("float32", ("b", "a")), ("float32", (y, x))]),
    ("where", [("bool", ("a", "b")), ("float32", (y, x)), ("float32", ("b", "a"))]),
    ("add", [("float32", (x, y, x)), ("float32", ("a", "b", 1))]),
]


@pytest.mark.parametrize(("name", "inputs"), UNKNOWNS, ids=[c[0] for c in UNKNOWNS])
def test_unknown_and_named_sizes_each_one_or_the_result(name, inputs):
    """Unknown sizes beside named ones, each 1 or a known result: ``run`` answers every
    output NumPy gives (the witness tries each size's few values together) and none
    other; ``kt.query`` has an answer exactly where NumPy gives the output."""
    op = getattr(kt, name)
    given = _given([shape for _, shape in inputs])
    rank = max(len(shape) for _, shape in inputs)
    types = [_type(dtype, shape) for dtype, shape in inputs]
    for wanted in itertools.product(range(4), repeat=rank):
        outs = [var() for _ in wanted]
        got = _run([kt.relation(op)(*types, kt.pattern(var(), tuple(outs)))], outs, wanted)
        if wanted in given:
            assert got == (wanted,), wanted
        else:
            assert got in ((), None), wanted


@pytest.mark.parametrize(("clause", "meets"), [("n > 5", lambda n: n > 5),
                                               ("n > 1", lambda n: n > 1)])
def test_long_chain_with_a_clause_on_its_last_name(clause, meets):
    """``[n_i]*[n_{i+1}]`` of ``[2]`` for i < 24 and a where-clause on ``n24``: every
    ``n_i`` is 1 or 2, so ``n24 > 5`` holds nowhere. The values of a name failing a
    condition over it alone are dropped before the search (which otherwise spent its
    budget on the other 24 names and refused to answer): ``run`` gives none, decided.
    Judged by NumPy on the last link: some ``a``, ``b`` in :data:`SIZES` with ``[a]*[b]``
    of ``[2]`` and ``b`` meeting the clause (all other names 2)."""
    length = 24
    over = kt.relation(f"(n)->(n) where {clause}")
    goals = [kt.relation(kt.mul)(_type("float32", (f"n{i}",)),
                                 _type("float32", (f"n{i + 1}",)),
                                 kt.pattern(var(), (2,))) for i in range(length)]
    goals.append(over(_type("float32", (f"n{length}",)), var()))
    truth = any(meets(b) and (2,) in _given([(a,), (b,)]) for a in SIZES for b in SIZES)
    assert len(run(1, var(), *goals)) == (1 if truth else 0)
