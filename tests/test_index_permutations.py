"""Index arrays whose values are a permutation (argsort's), or known numbers, judged by
NumPy at sizes B, V in 0..4 (all pairs, so sizes that differ, 0 and 1 included).

``np.argsort(l, axis=1)`` is no data: along its axis its values are 0 .. V - 1, every one
reached where it is not empty, yet ``l[np.argsort(l, axis=1)]`` of ``float64[B,V]`` held
at B=2, V=3 (NumPy: IndexError for every data), and ``np.take_along_axis`` read no index
values at all (``np.take_along_axis(x, np.arange(5)[None], axis=1)`` held at V=3). Each
case is judged on several data draws, an adversarial one among them (rows and columns
ascending and descending, which put every value of 0 .. n - 1 first and last): the
result must hold exactly where NumPy runs for every draw (the for-every-data reading of
a hull: a slice of a permutation), and never hold where one draw raises.

``np.argmax``/``np.argmin`` are data too, yet positions: any of 0 .. n - 1 along their
axis, each reached for some data (the greatest where the data grow along it), so
``x[np.argmax(y, 1)]`` holds only where ``y.shape[1] <= len(x)`` (or y has no rows);
it held wherever ``len(x) >= 1``. An argsort whose axes are permuted (``.T``,
``swapaxes``, ``moveaxis``) permutes the axis its own went to.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from unification import var

import kantensor as kt
from kantensor.ops.paramvalues import ArrayRef

SIZES = list(itertools.product(range(5), repeat=2))

#: (source of a function of l: float64[B,V], exact): exact where whether NumPy runs does
#: not depend on the data, else the hull's for-every-data reading.
CASES = [
    ("l[np.argsort(l, axis=1)]", True),
    ("l[:, np.argsort(l, axis=0)]", True),
    ("l[np.argsort(l, axis=None)]", True),
    ("l[np.argsort(l)[..., ::-1]]", True),
    ("l[np.argsort(l, axis=1).T]", True),
    ("l[np.argpartition(l, 0, axis=1)]", True),
    ("l[np.lexsort((l, -l), axis=1)]", True),
    ("np.take_along_axis(l, np.lexsort((l,), axis=0)[:1], axis=1)", False),
    ("l[np.argsort(l, axis=1)[:, :1]]", False),
    ("l[np.concatenate([np.argsort(l, axis=1), np.zeros((1, l.shape[1]), int)])]", True),
    ("np.take_along_axis(l, np.argsort(l, axis=0), axis=1)", True),
    ("np.take_along_axis(l, np.argsort(l, axis=0)[:, -3:][:, :1], axis=-1)", True),
    ("np.take_along_axis(l, np.argsort(l, axis=1), axis=0)", True),
    ("np.take_along_axis(l, np.argsort(l, axis=None), axis=None)", True),
    ("np.take_along_axis(l, np.arange(5)[None], axis=1)", True),
    ("np.take_along_axis(l, np.arange(l.shape[1] + 1)[None], axis=1)", True),
    ("np.take_along_axis(l, np.full((1, 2), -3), axis=1)", True),
    ("np.take_along_axis(l, np.array([[0, 2]]), axis=1)", True),
    ("np.take_along_axis(l, np.arange(3), axis=None)", True),
    # an argsort with its axes permuted permutes the axis its axis went to
    ("np.take_along_axis(l, np.argsort(l, axis=0).T, axis=1)", True),
    ("np.take_along_axis(l, np.swapaxes(np.argsort(l, axis=1), 0, -1), axis=0)", True),
    ("np.take_along_axis(l, np.moveaxis(np.argsort(l, axis=0), 0, 1), axis=1)", True),
    # Ops that move, pick or clip a permutation's values keep its hull
    ("l[np.swapaxes(np.argsort(l, axis=1), 0, 1)[:1]]", False),
    ("l[np.moveaxis(np.argsort(l, axis=0), 0, -1)[:, :1]]", False),
    ("l[np.argsort(l, axis=1)[:, [0, -1]]]", False),
    ("l[np.take(np.argsort(l, axis=None), [0])]", False),
    ("l[np.diagonal(np.argsort(l, axis=1))]", False),
    ("l[np.where(l > 0, np.argsort(l, axis=1), 0)]", False),
    ("l[np.clip(np.argsort(l, axis=1), 0, 2)]", True),
    ("l[np.max(np.argsort(l, axis=1), axis=1)]", True),
    ("l[np.partition(np.argsort(l, axis=1), 0, axis=1)]", True),
    ("l[np.take_along_axis(np.argsort(l, axis=1), np.argsort(l, axis=1), axis=1)]", True),
    # argmax/argmin: positions 0 .. n - 1 the data decide (NumPy raises ValueError on an
    # empty axis, for every data)
    ("l[np.argmax(l, axis=1)]", False),
    ("l[:, np.argmin(l, axis=0)]", False),
    ("l[np.argmax(l)]", False),
    ("l[np.argmin(l, axis=1)[::-1] + 1]", False),
    ("np.take_along_axis(l, np.argmax(l, axis=1, keepdims=True), axis=1)", True),
    ("np.take_along_axis(l, np.argmin(l, axis=0, keepdims=True), axis=0)", True),
    ("np.take_along_axis(l, np.argmax(l, axis=0, keepdims=True), axis=1)", False),
    ("np.take_along_axis(l, np.argmax(l, axis=1, keepdims=True).T, axis=0)", False),
]

#: np.take skips its check where the other axes are empty; the index it is does not
#: (refused there, never wrong): only soundness is judged.
TAKES = ["np.take(l, np.argsort(l), axis=0)", "np.take(l, np.argsort(l, axis=0), axis=1)",
         "l.take(np.argsort(l, axis=None))", "np.take(l, np.argsort(l)[:, :1], axis=0)",
         "np.take(l, np.argmax(l, axis=0), axis=1)", "l.take(np.argmin(l, axis=None))"]


def _draws(b: int, v: int) -> list[np.ndarray]:
    rng = np.random.default_rng(b * 7 + v)
    ramp = np.arange(b * v, dtype="float64").reshape(b, v)
    return [rng.standard_normal((b, v)), ramp, -ramp, ramp.T.reshape(b, v) if b == v
            else -ramp[::-1], np.ascontiguousarray(ramp[:, ::-1])]


def _refines(y, x, b: int, v: int) -> bool:
    """Whether refine types ``y`` with ``x`` given as ``float64[b,v]``."""
    try:
        kt.refine([y], given={x: kt.TensorType("float64", (b, v))})
    except kt.TypeInferenceError:
        return False
    return True


def _runs(fn, data: np.ndarray) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(data)
    except (IndexError, ValueError):  # (ValueError: an argmax of an empty axis)
        return False
    return True


@pytest.mark.parametrize(("source", "exact"), CASES)
def test_holds_exactly_where_numpy_runs_for_every_data(source, exact):
    fn = eval("lambda l: " + source, {"np": np})
    r = kt.eval_shape(fn, "float64[B,V]")
    for b, v in SIZES:
        runs = [_runs(fn, d) for d in _draws(b, v)]
        if exact:
            assert len(set(runs)) == 1, (source, b, v, "the data decided")
        holds = r.holds({"B": b, "V": v})
        assert holds == all(runs), (source, b, v, holds, runs)


@pytest.mark.parametrize("source", TAKES)
def test_take_of_a_permutation_holds_only_where_numpy_runs(source):
    fn = eval("lambda l: " + source, {"np": np})
    r = kt.eval_shape(fn, "float64[B,V]")
    for b, v in SIZES:
        if r.holds({"B": b, "V": v}):
            assert all(_runs(fn, d) for d in _draws(b, v)), (source, b, v)


def test_the_reported_cases_hold_no_more():
    """hunt20's seed-35 reports and the take_along_axis one, at their sizes."""
    r = kt.eval_shape(lambda l: l[np.argsort(l, axis=1)], "float64[B,V]")
    assert not r.holds({"B": 2, "V": 3}) and r.holds({"B": 3, "V": 3})
    r = kt.eval_shape(lambda l: np.take_along_axis(
        l, np.argsort(l, axis=0)[:, -3:][:, :1], axis=-1), "float64[B,V]")
    assert not r.holds({"B": 3, "V": 2}) and r.holds({"B": 2, "V": 2})
    r = kt.eval_shape(lambda x: np.take_along_axis(x, np.arange(5)[None], axis=1),
                      "float64[B,V]")
    assert not r.holds({"B": 1, "V": 3}) and r.holds({"B": 1, "V": 5}) and \
        r.holds({"B": 0, "V": 3})


@pytest.mark.parametrize("b", range(4))
@pytest.mark.parametrize("v", range(4))
def test_a_kt_graph_of_unknown_sizes_checks_the_permutation_from_its_own_axis(b, v):
    """A graph built with kt whose sizes are unknown: the index's own axis says the
    values, so the relation refines (and a function checks) exactly where NumPy runs."""
    x = kt.tensor("x", "float64", (None, None))
    y = x[kt.argsort(x, axis=1)]
    assert dict(y.owner.op.params)["index"][0].along == 1
    data = np.random.default_rng(0).standard_normal((b, v))
    runs = _runs(lambda d: d[np.argsort(d, axis=1)], data)
    assert _refines(y, x, b, v) == runs, (b, v)
    x = kt.tensor("x", "float64", (b, v))  # make_node, at known sizes
    try:
        x[kt.argsort(x, axis=1)]
        built = True
    except kt.TypeInferenceError:
        built = False
    assert built == runs, (b, v)


def test_take_along_axis_states_known_values_in_its_relation():
    """make_node, query (both directions) and refine agree on the values parameter."""
    op = kt.take_along_axis.bind(axis=1, values=(ArrayRef(0, along=1),))
    assert list(kt.query(op, ["float64[2,3]", "int64[1,4]"], [var("Z")])) == []
    with pytest.raises(kt.TypeInferenceError):
        op(kt.tensor("x", "float64", (2, 3)), kt.tensor("i", "int64", (1, 4)))
    assert [a["Z"] for a in kt.query(op, ["float64[2,3]", "int64[1,3]"], [var("Z")])] == \
        [kt.TensorType("float64", (2, 3))]
    assert op(kt.tensor("x", "float64", (2, 3)),
              kt.tensor("i", "int64", (1, 3))).type == kt.TensorType("float64", (2, 3))
    # backwards: the index's own axis k is stated against the axis (3) it looks up
    k = var("k")
    answers = kt.query(op, ["float64[2,3]", kt.pattern("int64", (1, k))], [var("Z")])
    assert "k*min(1, 2*k) <= 3" in str(answers)
    bounded = kt.take_along_axis.bind(axis=None, values=(ArrayRef(0, (-7, 2)),))
    assert list(kt.query(bounded, ["float64[2,3]", "int64[4]"], [var("Z")])) == []
    assert [a["Z"] for a in kt.query(bounded, ["float64[2,4]", "int64[4]"], [var("Z")])] \
        == [kt.TensorType("float64", (4,))]
    assert [a["Z"] for a in kt.query(bounded, ["float64[2,3]", "int64[0]"], [var("Z")])] \
        == [kt.TensorType("float64", (0,))]


def test_the_index_op_states_a_permutation_in_its_relation():
    op = kt.index.bind(index=(ArrayRef(0, along=1),))
    assert list(kt.query(op, ["float64[2,3]", "int64[2,3]"], [var("Z")])) == []
    assert [a["Z"] for a in kt.query(op, ["float64[3,2]", "int64[4,3]"], [var("Z")])] == \
        [kt.TensorType("float64", (4, 3, 2))]
    assert [a["Z"] for a in kt.query(op, ["float64[0,2]", "int64[0,3]"], [var("Z")])] == \
        [kt.TensorType("float64", (0, 3, 2))]
    n = var("n")
    answers = kt.query(op, [kt.pattern("float64", (n, 2)), "int64[4,3]"], [var("Z")])
    assert "3 <= n" in str(answers)


def test_a_slice_of_a_permutation_is_a_size_input_of_take_along_axis():
    """Over named sizes the hull 0 .. B - 1 of a slice is a reach, a size input of the
    call: a function runs exactly where NumPy runs for every data draw."""
    b_, v_ = kt.Dim("B"), kt.Dim("V")
    x = kt.tensor("x", "float64", (b_, v_))
    y = np.take_along_axis(x, kt.argsort(x, axis=0)[:, :1], axis=1)
    f = kt.function([x], y, check=True)

    def numpy_fn(d):
        return np.take_along_axis(d, np.argsort(d, axis=0, kind="stable")[:, :1], axis=1)

    for b, v in SIZES:
        draws = _draws(b, v)
        try:
            got = f(draws[0])
        except kt.TypeInferenceError:
            got = None
        assert (got is not None) == all(_runs(numpy_fn, d) for d in draws), (b, v)
        if got is not None:
            np.testing.assert_array_equal(got, numpy_fn(draws[0]))


SIZES3 = list(itertools.product(range(4), repeat=3))


@pytest.mark.parametrize("source", ["x[np.argmax(y, 1)]", "x[np.argmin(y, axis=0)]",
                                    "x[np.argmax(y)]", "np.take(x, np.argmax(y, 1))",
                                    "x[None, np.argmax(y, axis=1, keepdims=True)]"])
def test_positions_of_another_input_hold_exactly_where_numpy_runs_for_every_data(source):
    """An index of argmax positions of y into x (hunt21's lead): held exactly where
    NumPy runs on every draw of y, at sizes N, B, V in 0..3."""
    fn = eval("lambda x, y: " + source, {"np": np})
    r = kt.eval_shape(fn, "float64[N]", "float64[B,V]")
    for n, b, v in SIZES3:
        x = np.zeros(n)
        runs = all(_runs(lambda d, x=x: fn(x, d), d) for d in _draws(b, v))
        assert r.holds({"N": n, "B": b, "V": v}) == runs, (source, n, b, v)


def test_positions_the_sizes_decide_are_not_bounded_by_the_hull():
    """``np.argmax`` of values no data decide: which positions are reached is the
    sizes' (all 0 for zeros), not the hull's, so the index is an assumption on an
    unknown that holds() cannot answer, never a refusal where NumPy runs."""
    r = kt.eval_shape(lambda x: x[np.argmax(np.zeros((3, x.shape[0] + 4)), axis=1)],
                      "float64[N]")
    with pytest.raises(ValueError, match="cannot say"):
        r.holds({"N": 1})


@pytest.mark.parametrize("b", range(4))
@pytest.mark.parametrize("v", range(4))
def test_a_transposed_permutation_is_read_in_a_kt_graph_of_unknown_sizes(b, v):
    """Of unknown sizes no hull is known: the transposed argsort's own axis says the
    values (along 1), so refine types exactly where NumPy runs."""
    x = kt.tensor("x", "float64", (None, None))
    y = np.take_along_axis(x, kt.argsort(x, axis=0).T, axis=1)
    assert dict(y.owner.op.params)["values"][0].along == 1
    data = np.random.default_rng(0).standard_normal((b, v))
    runs = _runs(lambda d: np.take_along_axis(d, np.argsort(d, axis=0).T, axis=1), data)
    assert _refines(y, x, b, v) == runs, (b, v)
