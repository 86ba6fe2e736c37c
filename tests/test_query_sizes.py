"""Queries of Ops whose parameters hold symbolic sizes (``broadcast_to{shape=(n, 3)}``).

Such an Op takes, after the inputs its call names, one ``bool`` input per size that
carries it into the relation (:mod:`kantensor.ops.sizes`). A query given only the
inputs the call names answered "no solutions" (the two-input signature ran on one
input), a false claim where make_node builds. Oracle: NumPy at each concrete n, brute
force over a small domain of input shapes; make_node is the call the user writes
(``kt.broadcast_to(x, shape=(n, 3))``), which adds the size inputs itself.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from kanren import run

import kantensor as kt
from kantensor.ops.paramvalues import ArrayRef
from kantensor.query import pattern, query, relation, var
from kantensor.types.symbols import substitute

N = kt.Dim("n")
SIZES = range(4)  # each size of an input, and n
RANKS = range(4)

#: (name, the call's family, its parameters over n, how many tensors the call names,
#: NumPy's value at n = k of the call on those tensors)
CASES = [
    ("broadcast_to (n,3)", kt.broadcast_to, {"shape": (N, 3)}, 1,
     lambda k, x: np.broadcast_to(x, (k, 3))),
    ("broadcast_to (n,)", kt.broadcast_to, {"shape": (N,)}, 1,
     lambda k, x: np.broadcast_to(x, (k,))),
    ("broadcast_to (2,n)", kt.broadcast_to, {"shape": (2, N)}, 1,
     lambda k, x: np.broadcast_to(x, (2, k))),
    ("zeros (n,2)", kt.zeros, {"shape": (N, 2)}, 0, lambda k: np.zeros((k, 2))),
    ("ones (n,n)", kt.ones, {"shape": (N, N)}, 0, lambda k: np.ones((k, k))),
    ("eye n", kt.eye, {"N": N}, 0, lambda k: np.eye(k)),
    ("arange n", kt.arange, {"start": N}, 0, lambda k: np.arange(k)),
    ("arange n+1", kt.arange, {"start": N + 1}, 0, lambda k: np.arange(k + 1)),
    ("tile (n,)", kt.tile, {"reps": (N,)}, 1, lambda k, x: np.tile(x, (k,))),
    ("repeat n", kt.repeat, {"repeats": N}, 1, lambda k, x: np.repeat(x, k)),
    ("x[:n]", kt.getitem, {"index": (slice(None, N),)}, 1, lambda k, x: x[:k]),
]


def _shapes(rank: int):
    return itertools.product(SIZES, repeat=rank)


def _numpy(fn, k, shapes):
    try:
        return fn(k, *(np.zeros(s, "float32") for s in shapes)).shape
    except (ValueError, IndexError, TypeError):
        return None


def _built(family, params, types):
    """make_node's output (type and the conditions it holds under) of the call on inputs
    of ``types``; None where it refuses."""
    try:
        y = family(*(t() for t in types), **params)
    except (TypeError, ValueError, IndexError):
        return None
    return y.type, tuple(y.facts or ())


def _at(found, k):
    """The shape of a (type, conditions) at n = k; None where a condition fails."""
    t, conditions = found
    if not all(c.holds({"n": k}) for c in conditions):
        return None
    return tuple(substitute(d, {"n": k}) if isinstance(d, kt.Dim) else d for d in t.shape)


@pytest.mark.parametrize(("name", "family", "params", "n_in", "fn"), CASES,
                         ids=[c[0] for c in CASES])
def test_a_query_of_the_inputs_the_call_names_is_make_nodes(name, family, params, n_in,
                                                               fn):
    """Forwards, at every input shape of the domain and every n = k: make_node's type
    (under its conditions) is NumPy's shape, or nothing where NumPy refuses; the query
    given the inputs the call names answers the same at every k, and the same answers
    as given the size inputs too (as the node has them)."""
    op = family.bind(**params)
    node = family(*(kt.tensor(None, "float32", (None,)),) * n_in, **params).owner
    carriers = [x.type for x in node.inputs[n_in:]]  # the size inputs the call adds
    for rank in RANKS if n_in else [None]:
        for shapes in _shapes(rank) if n_in else [()]:
            types = [kt.TensorType("float32", shapes)] if n_in else []
            built = _built(family, params, types)
            answers = list(query(op, types, [var("Y")]))
            full = list(query(op, [*types, *carriers], [var("Y")]))
            assert full == answers and [a.where for a in full] == \
                [a.where for a in answers], (name, types)
            for k in SIZES:
                want = _numpy(fn, k, [t.shape for t in types])
                made = built and _at(built, k)
                assert made == want, (name, types, k, built, want)
                got = {_at((a["Y"], a.where), k) for a in answers} - {None}
                assert got == ({want} if want is not None else set()), \
                    (name, types, k, answers, want)


def _binding(answer, sizes, k):
    """The sizes of an answer's names where its input is ``sizes`` and n = k (each
    ``s{i}`` a size it names or a number it must be), or None where it does not fit."""
    env = {"n": k}
    for i, size in enumerate(sizes):
        d = answer[f"s{i}"]
        assert isinstance(d, int) or d.name, d
        if isinstance(d, int):
            if d != size:
                return None
        elif env.setdefault(d.name, size) != size:  # (a named size: d.name is its name)
            return None
    return env


@pytest.mark.parametrize(("name", "family", "params", "n_in", "fn"),
                         [c for c in CASES if c[3]], ids=[c[0] for c in CASES if c[3]])
def test_a_backward_query_is_numpy_by_brute_force(name, family, params, n_in, fn):
    """Backwards: the query with the input's sizes logic variables and the output open
    answers, at every input shape of the domain and every n = k, exactly NumPy's shape
    (sound: an answer that fits gives it; complete: where NumPy computes, one fits); the
    query with the whole input a logic variable answers the ranks NumPy computes at."""
    op = family.bind(**params)
    for rank in RANKS:
        open_x = pattern("float32", tuple(var(f"s{i}") for i in range(rank)))
        answers = list(query(op, [open_x], [var("Y")]))
        for shape in _shapes(rank):
            for k in SIZES:
                want = _numpy(fn, k, [shape])
                got = set()
                for a in answers:
                    env = _binding(a, shape, k)
                    if env is not None and all(c.holds(env) for c in a.where):
                        got.add(tuple(substitute(d, env) if isinstance(d, kt.Dim) else d
                                      for d in a["Y"].shape))
                assert got == ({want} if want is not None else set()), \
                    (name, shape, k, answers)
    wholly = {len(a["X"].shape) for a in query(op, [var("X")], [var("Y")], max_rank=3)}
    assert wholly == {r for r in RANKS if any(_numpy(fn, k, [s]) is not None
                                              for k in SIZES for s in _shapes(r))}, name


def test_the_relation_adds_the_size_inputs_as_the_call_does():
    """``relation(op)(X, Y)`` of ``broadcast_to{shape=(n, 3)}`` is a goal over the input
    the call names; its first answers are the ranks NumPy broadcasts to (n, 3)."""
    op = kt.broadcast_to.bind(shape=(N, 3))
    x, y = var(), var()
    got = run(3, (x, y), relation(op)(x, y))
    assert [len(a.shape) for a, _ in got] == [0, 1, 2]
    assert all(b.shape[1] == 3 for _, b in got)
    assert np.broadcast_to(np.zeros((1, 3)), (2, 3)).shape == (2, 3)


@pytest.mark.parametrize(("name", "family", "params", "n_in", "fn"),
                         [c for c in CASES if not c[3]], ids=[c[0] for c in CASES if not c[3]])
def test_the_relation_of_a_call_of_no_tensor_is_a_goal_over_its_outputs(name, family,
                                                                          params, n_in, fn):
    """``relation(zeros{shape=(n, 2)})(Y)``: the call names no tensor, so its outputs
    alone are the goal's terms, the size inputs added as for any call (it was a
    TypeError: 'expected the input terms followed by 1 output term'); the one answer
    has NumPy's dtype and rank, as given the size inputs too."""
    op = family.bind(**params)
    node = family(**params).owner
    y = var()
    alone = run(0, y, relation(op)(y))
    carried = run(0, y, relation(op)(*(x.type for x in node.inputs), y))
    want = fn(3)
    assert [(t.dtype, len(t.shape)) for t in alone] == \
        [(t.dtype, len(t.shape)) for t in carried] == [(str(want.dtype), want.ndim)]


def test_a_count_of_inputs_neither_the_calls_nor_the_nodes_is_make_nodes_error():
    """Given logic variables, neither the call's count of inputs nor the node's: the
    arity error make_node gives on as many inputs (not 'no solutions')."""
    op = kt.broadcast_to.bind(shape=(N, 3))
    x = kt.tensor("x", "float32", (None,))
    with pytest.raises(kt.TypeInferenceError, match="takes 2 inputs, got 3") as made:
        op(x, x, x)
    with pytest.raises(kt.TypeInferenceError, match="takes 2 inputs, got 3") as asked:
        query(op, [var("X"), var("S"), var("T")], [var("Y")])
    assert str(asked.value).splitlines()[0].endswith(str(made.value).split(": ")[-1])


#: Advanced indexes whose slices hold n: (name, the call's family, its index, whether
#: the call takes a value, NumPy's shape at n = k on x, the value and the index array
#: (its entries 0: in range wherever x's axis is not empty))
ADVANCED = [
    ("x[i, :n]", kt.index, (ArrayRef(0), slice(None, N)), False,
     lambda k, x, i: x[i.astype(int), :k]),
    ("x.at[i, :n].set(v)", kt.index_set, (ArrayRef(0), slice(None, N)), True,
     lambda k, x, v, i: _updated(x, (i.astype(int), slice(None, k)), v)),
    ("x.at[:n, i].add(v)", kt.index_add, (slice(None, N), ArrayRef(0)), True,
     lambda k, x, v, i: _updated(x, (slice(None, k), i.astype(int)), v, np.add.at)),
]


def _updated(x, key, v, at=None):
    x = x.copy()
    if at is None:
        x[key] = v
    else:
        at(x, key, v)
    return x


@pytest.mark.parametrize(("name", "family", "index", "valued", "fn"), ADVANCED,
                         ids=[c[0] for c in ADVANCED])
def test_an_advanced_index_is_queried_with_the_arrays_the_call_names(name, family, index,
                                                                      valued, fn):
    """``index``, ``index_set`` and ``index_add`` take ``*arrays``: how many, the index
    says (one per array it refers to), so the size inputs of its slices' bounds are
    added after them as the call adds them. A query given the call's inputs answered
    'no solutions' where make_node builds; now, at every x (sizes 0..2), value (a scalar
    or a vector of 0..2) and index array (0..2 entries) and every n = k, the query gives
    NumPy's shape (nothing where NumPy refuses), as make_node does, and the same answers
    as given the node's inputs."""
    op = family.bind(index=index)
    values = [()] + [(d,) for d in range(3)] if valued else [None]
    for a, b, c in itertools.product(range(3), repeat=3):
        for value in values:
            types = [kt.TensorType("float32", (a, b))]
            if value is not None:
                types.append(kt.TensorType("float32", value))
            types.append(kt.TensorType("int64", (c,)))
            built = _built(family, {"index": index}, types)
            answers = list(query(op, types, [var("Y")]))
            node = family(*(t() for t in types), index=index).owner if built else None
            if node is not None:
                carriers = [x.type for x in node.inputs[len(types):]]
                assert carriers and list(query(op, [*types, *carriers], [var("Y")])) == \
                    answers, (name, types)
            for k in SIZES:
                want = _numpy(fn, k, [t.shape for t in types])
                made = built and _at(built, k)
                assert made == want, (name, types, k, built, want)
                got = {_at((s["Y"], s.where), k) for s in answers} - {None}
                assert got == ({want} if want is not None else set()), \
                    (name, types, k, answers, want)


@pytest.mark.parametrize(("name", "family", "index", "valued", "fn"), ADVANCED,
                         ids=[c[0] for c in ADVANCED])
def test_an_advanced_index_given_too_few_arrays_is_an_arity_error(name, family, index,
                                                                  valued, fn):
    """Given fewer inputs than the call names (no index array), make_node's call
    refuses, and the query says how many inputs the Op takes (it answered 'no
    solutions'); so does an Op of an advanced index with no size in it."""
    x = kt.TensorType("float32", (3, 4))
    given = [x, kt.TensorType("float32", ())] if valued else [x]
    with pytest.raises((TypeError, ValueError)):
        family(*(t() for t in given), index=index)
    for op in (family.bind(index=index), family.bind(index=(ArrayRef(0),))):
        with pytest.raises(kt.TypeInferenceError, match=f"takes [0-9]+ inputs, got "
                                                        f"{len(given)}"):
            query(op, given, [var("Y")])


M = kt.Dim("m")

#: reshape to sizes with names, of inputs with named sizes: (the shape parameter, the
#: input's shape, NumPy's reshape at the names' sizes)
RESHAPES = [
    ((M, -1), (M, 6), lambda s: np.zeros((s["m"], 6)).reshape(s["m"], -1)),
    ((M, -1), (N, 6), lambda s: np.zeros((s["n"], 6)).reshape(s["m"], -1)),
    ((N, 2, 3), (N, 6), lambda s: np.zeros((s["n"], 6)).reshape(s["n"], 2, 3)),
    ((M, N), (N, M), lambda s: np.zeros((s["n"], s["m"])).reshape(s["m"], s["n"])),
    ((-1, M), (N, 2), lambda s: np.zeros((s["n"], 2)).reshape(-1, s["m"])),
]


@pytest.mark.parametrize(("shape", "given", "fn"), RESHAPES,
                         ids=[f"{g} to {s}" for s, g, _ in RESHAPES])
def test_a_reshape_to_named_sizes_is_queried_as_built(shape, given, fn):
    """``reshape{shape=(m, -1)}`` queried with ``float32[m,6]``: its relation rendered
    the builder with the input's sizes unknown, so ``m`` was another input's size, whose
    input the query did not have: 'no solutions' where make_node builds float32[m,6].
    The relation renders it with the named sizes the terms have (make_node's reading),
    and the query adds a size input for a name the input does not have (as the call
    does). At every n, m in 0..3 the query's answers, make_node's and NumPy's agree."""
    op = kt.reshape.bind(shape=shape)
    t = kt.TensorType("float32", given)
    built = kt.reshape(t(), shape)
    answers = list(query(op, [t], [var("Y")]))
    assert [a["Y"] for a in answers] == [built.type]
    for n, m in itertools.product(SIZES, repeat=2):
        env = {"n": n, "m": m}
        try:
            want = fn(env).shape
        except ValueError:
            want = None
        for y, where in [(built.type, built.facts or ()), (answers[0]["Y"], answers[0].where)]:
            got = tuple(substitute(d, env) if isinstance(d, kt.Dim) else d for d in y.shape) \
                if _all_hold(where, env) else None
            assert got == want, (shape, given, env, y, where)


def _all_hold(conditions, env):
    """Whether every condition holds at ``env``; one that divides by 0 there (``(2*n) % m
    == 0`` at m = 0) is undefined, so another must fail (``m >= 1``)."""
    undefined = False
    for c in conditions:
        try:
            if not c.holds(env):
                return False
        except ZeroDivisionError:
            undefined = True
    assert not undefined, (conditions, env)
    return True
