"""``relation(op)`` in ``kanren.run`` where one named size is broadcast on several axes
(``float32[a,a] * float32[b,b]``, ``int64[a,c] >> int64[c,a]``): each axis's broadcast
holds alone for some sizes, but not every output they allow alone is one some sizes give
together (``[a,a] * [b,b]`` is never ``[2,3]``). ``run`` shows no conditions, so such an
answer is false; it gave one: a pending broadcast of named sizes was judged alone (a
named size is rigid, never bound), and ``run``'s witness (:mod:`kantensor.logic.witness`)
judged only the equations. Now the broadcasts of named sizes whose results are ints are
judged together as they propagate (:func:`kantensor.logic.broadcast.jointly`), and the
witness judges every pending broadcast again before an answer is given. Judged by
NumPy's ``np.broadcast_shapes`` at every assignment of the names in 0..7: ``run``
grounds exactly the outputs some assignment gives, and a query of an output none gives
has no answer."""

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
    answers = run(0, tuple(outs), goal, *(membero(n, OUTS) for n in outs))
    assert set(answers) == {s for s in given if set(s) <= set(OUTS)}
    for wanted in itertools.product(OUTS, repeat=rank):
        got = run(0, tuple(outs), goal, *(eq(n, k) for n, k in zip(outs, wanted, strict=True)))
        assert got == ((wanted,) if wanted in given else ()), (wanted, got)
        answered = kt.query(op, [_type(*first), _type(*second)], [kt.pattern(var(), wanted)])
        assert (len(answered) > 0) == (wanted in given), (wanted, answered)


def test_a_refusal_names_the_broadcasts_it_judged():
    """An unknown size broadcast on two axes (a logic variable ``x``) is judged by the
    witness: no sizes are found for ``[x,x] * [b,b]`` to be ``[2,3]``, and the refusal
    says NumPy's condition of each broadcast, a case at a time (``b == 2 or b == 1``),
    not a polynomial; ``[2,2]`` is given."""
    x, n0, n1 = var("x"), var(), var()
    goal = kt.relation(kt.mul)(kt.pattern("float32", (x, x)), _type("float32", ("b", "b")),
                               kt.pattern("float32", (n0, n1)))
    with pytest.raises(UndecidedAnswer) as refused:
        run(0, (n0, n1), goal, eq(n0, 2), eq(n1, 3))
    assert "(x == 2 or x == 1)" in refused.value.condition
    assert "(b == 3 or b == 1)" in refused.value.condition
    assert refused.value.size == "b, x"
    assert run(0, (n0, n1), goal, eq(n0, 2), eq(n1, 2)) == ((2, 2),)
