"""Unknown sizes (``?``) in contracts (issue 33): a relation that needs an input's
unknown size equal to something (a contraction's core dim, a square matrix) keeps that
as a condition, as broadcasting keeps its own, so a contract over unknown sizes misses
none. Judged by brute force: at every point of a small box of the unknowns' values the
contract holds exactly where NumPy runs the same code on arrays of those sizes, and where
a forward build at those sizes succeeds; the relation asked backwards (``query``) agrees.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kantensor as kt
from differential import count
from kantensor.query import pattern, query, var

#: Graphs over inputs with unknown sizes: (inputs' shapes with None for ``?``, the code,
#: which runs on kantensor Variables and NumPy arrays alike).
GRAPHS = {
    "contraction": (((5, None), (3, 4)), lambda a, b: a @ b),
    "two unknowns meet": (((5, None), (None, 4)), lambda a, b: a @ b),
    "vector dot": (((None,), (None,)), lambda a, b: a @ b),
    "square": (((None, None),), lambda x: x @ x),
    "batched": (((None, 2, None), (3, None)), lambda a, b: a @ b),
    "then broadcast": (((2, None), (None, 3), (None,)), lambda a, b, c: a @ b + c),
    "chain": (((None, 2), (2, 3), (None, None)), lambda a, w, b: (a @ w) @ b),
}

TOP = 4  # each unknown takes 0..3


def _runs(code, arrays) -> bool:
    try:
        code(*arrays)
    except ValueError:
        return False
    return True


def _builds(code, shapes) -> bool:
    try:
        code(*[kt.tensor(f"t{i}", "float32", s) for i, s in enumerate(shapes)])
    except (TypeError, ValueError):
        return False
    return True


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_a_contract_over_unknown_sizes_is_where_numpy_runs(name):
    shapes, code = GRAPHS[name]
    names = "abcdefgh"[:len(shapes)]
    inputs = [kt.tensor(n, "float32", s) for n, s in zip(names, shapes, strict=True)]
    contract = kt.contract(code(*inputs))
    assert contract.exact, str(contract)
    axes = [(n, i, k) for i, (n, s) in enumerate(zip(names, shapes, strict=True))
            for k, x in enumerate(s) if x is None]
    assert sorted(contract.names) == sorted(f"{n}.shape[{k}]" for n, _, k in axes)
    valid = 0
    for point in itertools.product(range(TOP), repeat=len(axes)):
        given = dict(zip(axes, point, strict=True))
        sized = [tuple(given.get((n, i, k), x) for k, x in enumerate(s))
                 for i, (n, s) in enumerate(zip(names, shapes, strict=True))]
        claim = contract.holds({f"{n}.shape[{k}]": v for (n, _, k), v in given.items()})
        runs = _runs(code, [np.zeros(s, np.float32) for s in sized])
        assert bool(claim.value) == runs, (sized, str(claim))
        assert _builds(code, sized) == runs, sized
        valid += runs
        count("contracts over unknowns: points run by NumPy")
    assert 0 < valid < TOP ** len(axes)  # the condition is there, and satisfiable


def test_the_condition_is_the_build_s_and_names_the_axis():
    a = kt.tensor("a", "float32", (5, None))
    out = a @ kt.tensor("b", "float32", (3, 4))
    assert out.type == kt.TensorType("float32", (5, 4))
    (condition,) = out.owner.conditions
    assert str(condition) == "a.shape[1] == 3"
    assert "axis 1 of input 0" in condition.source.detail
    contract = kt.contract(out)
    assert contract.dsl() == "where a_shape_1 == 3"
    assert str(contract.holds({"a.shape[1]": 2})) == \
        "False: a.shape[1] == 3 fails at a.shape[1]=2 (matmul)"


def test_query_asked_for_the_unknown_gives_the_condition_s_values():
    """The same relation run backwards: the value ``query`` finds for the unknown is
    the only one where the contract holds."""
    for shapes, want in ((((5, None), "float32[3,4]"), 3), (((2, None), "float32[1,4]"), 1)):
        k = var("k")
        sols = list(query("matmul", [pattern("float32", (shapes[0][0], k)), shapes[1]],
                          [var("o")]))
        assert [s["k"] for s in sols] == [want]
        contract = kt.contract(kt.tensor("a", "float32", shapes[0]) @
                               kt.tensor("b", "float32", kt.TensorType.parse(shapes[1]).shape))
        assert [v for v in range(6) if contract.holds({"a.shape[1]": v})] == [want]


#: Graphs whose unknown sizes pass through a node before a condition meets them: the
#: types do not say that ``x.T``'s second axis is ``x``'s first, so the condition names a
#: size that is no input.
THROUGH = {
    "transposed": (((None, 3), (None, 2)), lambda x, y: x.T @ y),
    "transposed, broadcast": (((None, 3), (None,)), lambda x, y: x.T + y),
}


@pytest.mark.parametrize("name", sorted(THROUGH))
def test_a_condition_on_a_size_the_types_lost_is_approximate_never_wrong(name):
    """The contract says it is approximate; where ``holds`` decides, NumPy agrees; its
    sufficient approximation holds only where NumPy runs, its necessary one wherever
    NumPy runs."""
    shapes, code = THROUGH[name]
    names = "xy"
    contract = kt.contract(code(*[kt.tensor(n, "float32", s)
                                  for n, s in zip(names, shapes, strict=True)]))
    assert not contract.exact and contract.label == "approximate"
    assert "approximate:" in str(contract)
    undecided = 0
    for u, v in itertools.product(range(TOP), repeat=2):
        sized = [(u, 3), (v, 2)[:len(shapes[1])]]
        point = {"x.shape[0]": u, "y.shape[0]": v}
        runs = _runs(code, [np.zeros(s, np.float32) for s in sized])
        claim = contract.holds(point).value
        if claim is None:
            undecided += 1
        else:
            assert bool(claim) == runs, (sized, claim)
        assert not contract.inner.holds(point).value or runs, sized
        assert contract.outer.holds(point).value is not False or not runs, sized
    assert undecided  # it says what it cannot decide


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_refine_binds_an_unknown_exactly_where_the_contract_leaves_it_one_value(name):
    """refine (the relation over the whole graph) gives an unknown size a value exactly
    where the contract's valid points (in the box) all have that value."""
    shapes, code = GRAPHS[name]
    names = "abcdefgh"[:len(shapes)]
    inputs = [kt.tensor(n, "float32", s) for n, s in zip(names, shapes, strict=True)]
    out = code(*inputs)
    contract, refined = kt.contract(out), kt.refine(out)
    axes = [f"{n}.shape[{k}]" for n, s in zip(names, shapes, strict=True)
            for k, x in enumerate(s) if x is None]
    valid = [dict(zip(axes, p, strict=True))
             for p in itertools.product(range(TOP + 2), repeat=len(axes))
             if contract.holds(dict(zip(axes, p, strict=True)))]
    for v, n in zip(inputs, names, strict=True):
        for k, x in enumerate(v.type.shape):
            if x is not None:
                continue
            values = {p[f"{n}.shape[{k}]"] for p in valid}
            bound = refined[v].shape[k]
            assert (bound if isinstance(bound, int) else None) == (
                next(iter(values)) if len(values) == 1 else None), (n, k, bound, values)
