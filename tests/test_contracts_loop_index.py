"""A Loop's body needs its conditions at every iteration number ``i`` in ``0 .. iters -
1``, whatever their form, and its scan outputs one shape at every iteration; judged by
onnxruntime at every point of a grid of sizes and trip counts.

* A condition over ``i`` that is not affine (row ``i*i``, row ``i//2 + 3``, a Reshape to
  ``[i + 1, -1]``) is stated at each iteration where the count is a known int (of at
  most ``needs.MAX_ENUMERATED``), exactly; otherwise it is the data's (undecided where
  the Loop runs: never a guess).
* A body typed with ``i`` a size may be refused: where its relations hold at no ``i``
  (row ``i + 5`` of 2 rows), the Loop runs no iteration or fails (``m == 0``); any other
  refusal (a size nested past the limit a type text states) leaves each iteration's
  conditions to the data (``walk_fits == 1``). main typed such a body again without
  ``i`` and dropped every condition over it: it called valid every run onnxruntime
  refuses.
* A scan output whose shape changes between iterations (``Range(0, i)``): onnxruntime
  refuses to stack it, so the Loop needs it one shape (``m <= 1`` here). main called
  every count valid.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from differential import count as counted
from kantensor.onnx.needs import MAX_ENUMERATED
from test_onnx_loops import AXES, I64, B, F, const, graph, model, node, size_of, t, untyped


def _walk(body_nodes: list, inits: list, trips=None, row=("d",), more=()):
    """A Loop over ``x: [n, d]`` whose body (``body_nodes``, giving ``row`` from ``x`` and
    the iteration number ``i``) stacks ``row``; ``trips`` iterations (an int), or ``m``,
    the length of ``a``. ``more``: inputs the body reads besides x."""
    body = graph([*body_nodes, node("Identity", ["c_in"], ["c_out"])],
                 [t("i", I64, []), t("c_in", B, [])],
                 [*untyped("c_out"), t("row", F, list(row)) if row is not None else
                  untyped("row")[0]], "body", inits=inits)
    trip = "m" if trips is None else "trips"
    nodes = [*size_of("a", 0, "m"), node("Loop", [trip, "true"], ["rows"], body=body,
                                         name="walk")]
    inits = AXES + ([const("trips", trips)] if trips is not None else [])
    return model(graph(nodes, [t("x", F, ["n", "d"]), t("a", F, ["m"]), *more],
                       untyped("rows"), inits=inits))


def _judge(model_, points, feeds_of, undecided: int | None = 0) -> int:
    """``holds`` of the model's contract against onnxruntime at each point (a dict of
    sizes; ``feeds_of(point)`` its feeds): never the other answer; the number of runs."""
    contract = ko.contract(model_)
    runs = found = 0
    for point in points:
        ran = isinstance(ortrun.run(model_, feeds_of(point)), list)
        counted("loop iteration numbers: onnxruntime runs judged")
        claim = contract.holds(**point).value
        assert claim is None or claim is ran, (point, claim, ran, str(contract))
        found += claim is None
        runs += ran
    if undecided is not None:
        assert found == undecided, found
    return runs


def _xa(point):
    return {"x": np.zeros((point["n"], point["d"]), np.float32),
            "a": np.zeros(point["m"], np.float32)}


_GRID = [{"n": n, "d": d, "m": m} for n, d, m in itertools.product(range(12), (1, 2, 3),
                                                                      (0, 2))]

_SQUARE = ([node("Mul", ["i", "i"], ["at"]), node("Gather", ["x", "at"], ["row"], axis=0)],
           [])
_HALF = ([node("Div", ["i", "two"], ["h"]), node("Add", ["h", "off"], ["at"]),
          node("Gather", ["x", "at"], ["row"], axis=0)], [const("two", 2), const("off", 3)])
_RESHAPE = ([node("Add", ["i", "one"], ["i1"]), node("Unsqueeze", ["i1", "zero1"], ["i1v"]),
             node("Concat", ["i1v", "minus"], ["shape"], axis=0),
             node("Reshape", ["x", "shape"], ["r"]),
             node("ReduceSum", ["r", "zero1"], ["row"], keepdims=0)],
            [const("one", 1), const("minus", [-1])])


@pytest.mark.parametrize(("body", "row", "atoms"), [
    (_SQUARE, ("d",), {1: ["1 <= n"], 3: ["5 <= n"], 4: ["10 <= n"]}),
    (_HALF, ("d",), {1: ["4 <= n"], 3: ["5 <= n"], 4: ["5 <= n"]}),
    (_RESHAPE, None, {1: [], 3: ["(d*n) % 2 == 0", "(d*n) % 3 == 0", "(d*n)//2 == d*n",
                                 "(d*n)//3 == d*n"]}),
])
def test_a_condition_over_the_iteration_number_holds_at_each_iteration(body, row, atoms):
    """Row ``i*i`` of 4 iterations needs row 9 (``10 <= n``), row ``i//2 + 3`` of 3 or 4
    iterations row 4; a Reshape to ``[i + 1, -1]`` needs ``d*n`` divisible by each
    ``i + 1``, and (its rows stacked) one shape at every iteration: ``d*n == 0`` from 2
    iterations. Each exact where the count is known (main: undecided at every point);
    with the count ``m`` of the data's input, undecided where the Loop runs."""
    for trips, want in atoms.items():
        walk = _walk(*body, trips=trips, row=row)
        contract = ko.contract(walk)
        assert [str(a.clause) for a in contract.atoms] == want
        _judge(walk, _GRID, _xa)
    # (undecided where the Loop runs; and at m == 0 where the row's shape is not
    # declared: onnxruntime's rank there is not the type's, test_onnx_loop_idle_scans)
    undecided = 72 if row is None else 36
    assert _judge(_walk(*body, row=row), _GRID, _xa, undecided=undecided) >= 36


_BY_I = ([node("Unsqueeze", ["i", "zero1"], ["iv"]),
          node("Concat", ["minus", "iv"], ["shape"], axis=0),
          node("Reshape", ["x", "shape"], ["r"], allowzero=1),
          node("ReduceSum", ["r"], ["row"], keepdims=0)], [const("minus", [-1])])


def test_a_condition_that_divides_by_the_iteration_number_fails_where_it_is_0():
    """A Reshape to ``[-1, i]`` (allowzero) needs ``(d*n) % i == 0``: at ``i = 0`` it
    divides by 0, so it has no value and does not hold (as ``Condition.holds`` says; the
    spec and onnxruntime refuse a 0 beside a -1 with allowzero). main raised
    ZeroDivisionError from ``contract``: asking whether it is affine in ``i`` put ``i =
    0`` in it, and so did stating it at each iteration of a known count. Now: of 3
    iterations, no size is valid (onnxruntime refuses each); of ``m`` (the length of
    ``a``), it is left to the data (not affine in ``i``), and ``i >= 1`` at ``i = 0``
    makes every count but 0 invalid, exactly as onnxruntime.
    (Of an empty ``x``, onnxruntime computes the -1 beside the 0, which the spec refuses:
    docs/contracts.rst; those points are left out.)"""
    grid = [p for p in _GRID if p["n"] >= 1]
    walk = _walk(*_BY_I, trips=3, row=())
    assert "0 != 0" in [str(a.clause) for a in ko.contract(walk).atoms]
    assert _judge(walk, grid, _xa) == 0
    assert _judge(_walk(*_BY_I, row=()), grid, _xa) == 33  # (m == 0)


_CAST_BACK = ([node("Shape", ["x"], ["s"]), node("Gather", ["s", "zero1"], ["n1"]),
               node("Cast", ["n1"], ["n32"], to=6), node("Cast", ["n32"], ["nb"], to=7),
               node("Concat", ["nb", "minus"], ["shape"], axis=0),
               node("Add", ["shape", "bump"], ["shape1"]),
               node("Reshape", ["x", "shape1"], ["r"]),
               node("ReduceSum", ["r"], ["row"], keepdims=0)],
              [const("minus", [-1]), const("bump", [1, 0])])
_FLOAT_DELTA = ([node("Shape", ["x"], ["s"]), node("Gather", ["s", "axis_0"], ["n0"]),
                 node("Cast", ["n0"], ["nf"], to=1), node("Cast", ["i"], ["delta"], to=1),
                 node("Cast", ["zero0"], ["start"], to=1),
                 node("Range", ["start", "nf", "delta"], ["r"]),
                 node("ReduceSum", ["r"], ["row"], keepdims=0)], [const("zero0", 0)])


@pytest.mark.parametrize(("body", "what"), [(_CAST_BACK, "shape"), (_FLOAT_DELTA, "limit")])
def test_a_body_value_computed_from_sizes_but_not_known_is_noted(body, what):
    """A body's Reshape to ``[int64(int32(n)) + 1, -1]`` (a cast and back is not folded),
    a Range of delta ``float(i)`` (0 at the first iteration; no builder reads a float of
    sizes): what they need of those values was not stated, and the contract, which
    noted only the main graph's such nodes, said valid where onnxruntime refuses (the
    volume is not divisible, the delta is 0). The subgraph's are noted too now: never
    valid where onnxruntime refuses."""
    walk = _walk(*body, trips=2, row=())
    notes = " ".join(ko.contract(walk).notes)
    assert f"its {what} is computed from sizes but not known" in notes, notes
    _judge(walk, _GRID, _xa, undecided=None)


@pytest.mark.parametrize(("offset", "rows"), [(5, 2), (0, 0), (2, 2)])
def test_a_body_that_fails_at_every_iteration_number_needs_no_iteration(offset, rows):
    """Row ``i + offset`` of ``rows`` rows fails at every ``i``: the body typed with
    ``i`` a size is refused, and the Loop needs ``m == 0`` (main typed it again without
    ``i`` and said every size is valid). Of no rows, no index fits whatever its value:
    the body typed again without ``i`` is refused too, as it is where the index is a
    constant (``x[0]``); the Loop runs where it runs no iteration, as onnxruntime does
    at ``m == 0`` (main refused the model), and its rows are ``[m, ?]``: onnxruntime's
    ``(0, 0)`` there, which the graph gives too."""
    body = [node("Add", ["i", "off"], ["at"]), node("Gather", ["x", "at"], ["row"], axis=0)]
    walk = _walk(body, [const("off", offset)])
    walk.graph.input[0].CopyFrom(t("x", F, [rows, "d"]))
    constant = _walk([node("Gather", ["x", "off"], ["row"], axis=0)], [const("off", 0)])
    constant.graph.input[0].CopyFrom(t("x", F, [rows, "d"]))
    points = [{"d": 2, "m": m} for m in range(5)]
    for model_ in (walk, constant) if rows == 0 else (walk,):
        contract = ko.contract(model_)
        assert [str(a.clause) for a in contract.atoms] == ["m == 0"] and contract.exact
        (atom,) = contract.atoms
        assert "was refused" in atom.clause.source.detail
        assert _judge(model_, points, lambda point: _xa({"n": rows, **point})) == 1
    if rows == 0:
        inputs, (out,) = ko.from_onnx(walk)
        assert str(out.type) == "float32[m,?]"
        ran = kt.function(inputs, out)(**_xa({"n": 0, "d": 2, "m": 0}))
        assert ran.shape == ortrun.run(walk, _xa({"n": 0, "d": 2, "m": 0}))[0] == (0, 0)
        for trips in (0, 2):  # a known count: it runs (0), or fails at every size (2)
            fixed = _walk(body, [const("off", offset)], trips=trips)
            fixed.graph.input[0].CopyFrom(t("x", F, [rows, "d"]))
            ran = isinstance(ortrun.run(fixed, _xa({"n": 0, "d": 2, "m": 0})), list)
            assert ran is (trips == 0)
            if trips:
                with pytest.raises(kt.TypeInferenceError, match="a0 >= 1 fails"):
                    ko.contract(fixed)
            else:
                assert ko.contract(fixed).atoms == ()


def _deep(links: int):
    """A body reading row ``i`` of x, and summing a vector grown from ``Range(0, i)`` by
    ``links`` times Concat(v, v) -> Slice to Shape(w) by a step of 2 -> one more entry:
    past 12 links the size nests deeper than a type text may state."""
    body = [node("Range", ["k0", "i", "k1"], ["rg"]), node("Cast", ["rg"], ["v0"], to=1),
            node("Shape", ["w"], ["wm"])]
    previous = "v0"
    for j in range(links):
        body += [node("Concat", [previous, previous], [f"c{j}"], axis=0),
                 node("Slice", [f"c{j}", "k_st", "wm", "k_st", "k_two"], [f"s{j}"]),
                 node("Concat", [f"s{j}", "k_one"], [f"u{j}"], axis=0)]
        previous = f"u{j}"
    body += [node("Gather", ["x", "i"], ["got"], axis=0),
             node("ReduceSum", [previous], ["total"], keepdims=0),
             node("Add", ["got", "total"], ["row"])]
    inits = [const("k0", 0), const("k1", 1), const("k_st", [0]), const("k_two", [2]),
             const("k_one", [0.0], np.float32)]
    return _walk(body, inits, more=[t("w", F, ["k"])])


def test_a_body_refused_for_another_reason_leaves_its_iterations_to_the_data():
    """14 links: the body typed with ``i`` a size is refused (a size nested too deep),
    typed again without it: its need of row ``i`` is the data's (``walk_fits == 1``),
    undecided wherever the Loop runs (main: valid everywhere, wrong at 6 of 16 points);
    2 links: typed with ``i``, exact at both ends of the iterations."""
    def feeds(point):
        return {**_xa(point), "w": np.zeros(point["k"], np.float32)}
    points = [{"n": n, "d": 2, "m": m, "k": 5} for n, m in itertools.product(range(4),
                                                                             range(4))]
    deep = _deep(14)
    contract = ko.contract(deep)  # (row i needs some row, whatever i: n >= 1)
    assert [str(a.clause) for a in contract.atoms] == ["m == 0 or n >= 1",
                                                       "m == 0 or walk_fits == 1"]
    assert "where n >= 1, walk_fits == 1" in contract.dsl().splitlines()  # (its words
    assert str(contract).endswith(  # say what walk_fits is: no size the caller chooses)
        "(walk_fits is decided by the data when the model runs, no input size: a clause "
        "over it is a check made then)")
    assert _judge(deep, points, feeds, undecided=9) == 10  # (n == 0 decided now)
    shallow = _deep(2)
    assert [str(a.clause) for a in ko.contract(shallow).atoms] == [
        "m == 0 or (1 <= n and m <= n)"]
    assert _judge(shallow, points, feeds) == 10


@pytest.mark.parametrize(("trips", "atoms", "runs"), [
    (None, ["m >= 1", "m == 0 or m - 1 == 0"], 2), (1, [], 4), (2, ["1 == 0"], 0),
    (MAX_ENUMERATED + 1, [f"{MAX_ENUMERATED} == 0"], 0)])
def test_a_scan_output_of_a_changing_shape_is_not_stacked(trips, atoms, runs):
    """``Range(0, i)`` stacked: 0 then 1 entries; onnxruntime refuses from 2 iterations
    (main: every count valid). Its row's shape is not declared: at ``m == 0`` onnxruntime
    gives ``(0,)``, not ``float32[m,?]`` (the choice ``m >= 1``: not covered there)."""
    walk = _walk([node("Range", ["k0", "i", "k1"], ["row"])],
                 [const("k0", 0), const("k1", 1)], trips=trips, row=None)
    assert [str(a.clause) for a in ko.contract(walk).atoms] == atoms
    points = [{"n": 1, "d": 1, "m": m} for m in range(4)]
    assert _judge(walk, points, _xa, undecided=int(trips is None)) == runs


@pytest.mark.parametrize("initial", ["k", None])
def test_a_scan_output_shaped_by_a_carried_size_that_changes_is_never_called_valid(initial):
    """An accumulator ``acc`` grows by ``x`` (n entries) at each iteration and is stacked
    as it was: two iterations stack two shapes unless ``n == 0``. Its size at the first
    iteration is ``k`` (or, where its initial size is unknown, a size the data decide:
    main dropped the condition there and called 12 runs onnxruntime refuses valid);
    every point is undecided where the Loop runs, never the wrong answer."""
    body = graph([node("Concat", ["acc_in", "x"], ["acc_out"], axis=0),
                  node("Identity", ["acc_in"], ["row"]), node("Identity", ["c_in"], ["c_out"])],
                 [t("i", I64, []), t("c_in", B, []), t("acc_in", F, None)],
                 [*untyped("c_out", "acc_out", "row")], "body")
    nodes = [*size_of("a", 0, "m"), node("Loop", ["m", "true", "acc0"], ["acc", "rows"],
                                         body=body, name="walk")]
    walk = model(graph(nodes, [t("x", F, ["n"]), t("a", F, ["m"]), t("acc0", F, [initial])],
                       untyped("acc", "rows"), inits=AXES))
    size = "k" if initial else "acc0.shape[0]"
    points = [{"n": n, "m": m, size: k} for n, m, k in itertools.product(range(3), range(4),
                                                                         range(3))]

    def feeds(point):
        return {"x": np.zeros(point["n"], np.float32), "a": np.zeros(point["m"], np.float32),
                "acc0": np.zeros(point[size], np.float32)}
    # (m == 0 too: the row's shape is not declared, onnxruntime's rank there is not the
    # type's: test_onnx_loop_idle_scans)
    assert _judge(walk, points, feeds, undecided=36) == 24  # (m <= 1, or n == 0)
