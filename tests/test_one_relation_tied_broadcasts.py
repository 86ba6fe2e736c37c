"""``relation(op)`` in ``kanren.run`` where one named size is broadcast on several axes
(``float32[a,a] * float32[b,b]``, ``int64[a,c] >> int64[c,a]``): each axis's broadcast
holds alone for some sizes, but not every output they allow alone is one some sizes give
together (``[a,a] * [b,b]`` is never ``[2,3]``). ``run`` shows no conditions, so such an
answer is false; it gave one (the pending broadcasts were not judged with the witness
of :mod:`kantensor.logic.witness`, only the equations were). Judged by NumPy's
``np.broadcast_shapes`` at every assignment of the names in 0..7: every answer ``run``
gives is one of those (a refusal, :class:`~kantensor.query.UndecidedAnswer`, is allowed:
the answers given before it are judged too)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kanren import eq, membero, run
from unification import var

import kantensor as kt
from kantensor.query import UndecidedAnswer

OUTS = (0, 1, 2, 3)
NAMES_AT = range(8)

#: (Op, the two inputs' dtypes and shapes, a string a name, an int a size)
CASES = [
    ("mul", ("float32", ("a", "a")), ("float32", ("b", "b"))),
    ("true_divide", ("bool", ("b", "a")), ("bool", (0, "a", "b"))),
    ("right_shift", ("int64", ("a", "c")), ("int64", ("c", "a"))),
    ("add", ("float32", ("a", "b", "a")), ("float32", ("b", "a", 1))),
    ("maximum", ("float32", ("a", "a", "a")), ("float32", (3, "b", "b"))),
]


def _type(dtype: str, shape: tuple) -> kt.TensorType:
    return kt.TensorType(dtype, tuple(kt.Dim(d) if isinstance(d, str) else d for d in shape))


def _given(first: tuple, second: tuple) -> set[tuple[int, ...]]:
    """The output shapes NumPy broadcasts the inputs to at some assignment of the names."""
    names = sorted({d for _, shape in (first, second) for d in shape if isinstance(d, str)})
    shapes = set()
    for values in itertools.product(NAMES_AT, repeat=len(names)):
        env = dict(zip(names, values, strict=True))
        try:
            shapes.add(np.broadcast_shapes(*(tuple(env.get(d, d) for d in shape)
                                             for _, shape in (first, second))))
        except ValueError:
            continue
    return shapes


@pytest.mark.parametrize(("name", "first", "second"), CASES, ids=[c[0] for c in CASES])
def test_run_grounds_only_outputs_some_sizes_give_together(name, first, second):
    op = getattr(kt, name)
    given = _given(first, second)
    rank = max(len(first[1]), len(second[1]))
    outs = [var() for _ in range(rank)]
    goal = kt.relation(op)(_type(*first), _type(*second), kt.pattern(var(), tuple(outs)))
    try:
        answers = run(0, tuple(outs), goal, *(membero(n, OUTS) for n in outs))
    except UndecidedAnswer as refused:
        answers = refused.answers
    assert set(answers) <= given, sorted(set(answers) - given)
    assert answers  # (a diagonal, at least: each test's names give one)
    for wanted in itertools.product(OUTS, repeat=rank):
        try:
            got = run(0, tuple(outs), goal, *(eq(n, k) for n, k in zip(outs, wanted,
                                                                         strict=True)))
        except UndecidedAnswer:
            continue
        assert bool(got) == (wanted in given), (wanted, got)


def test_a_refusal_names_the_broadcasts_it_judged():
    """Where no sizes are found, the refusal says NumPy's condition of each broadcast, a
    case at a time (``b == 2 or b == 1``), not a polynomial."""
    a, b = _type("float32", ("a", "a")), _type("float32", ("b", "b"))
    n0, n1 = var(), var()
    with pytest.raises(UndecidedAnswer) as refused:
        run(0, (n0, n1), kt.relation(kt.mul)(a, b, kt.pattern("float32", (n0, n1))),
            eq(n0, 2), eq(n1, 3))
    assert "(a == 2 or a == 1)" in refused.value.condition
    assert "(b == 3 or b == 1)" in refused.value.condition
    assert refused.value.size == "a, b"
