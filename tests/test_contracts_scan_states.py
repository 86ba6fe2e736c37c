"""A Scan's state variables keep their shapes: onnxruntime refuses a run where an
iteration gives a state another shape (its kernel writes the state back into a buffer of
the initial shape; onnx.reference runs it), so a Scan needs the body to give each state
back at its initial sizes, and each state's size after the Scan is its initial size.

main typed a state the body changes with the rules of a Loop (``D + N`` per iteration,
or a size that changes from one iteration to the next): the contract called valid every
run of a growing state that onnxruntime refuses (36 of 64 points), and a state the body
broadcasts against its slice printed a size the data decide (``scan_s0``) in its
where-clauses, as if the caller chose it (``where T >= 1, scan_s0 == N``). Judged by
onnxruntime at every point of D, T, N in 0..3.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.types.symbols import DataSymbol, substitute

F = TensorProto.FLOAT


def _scan(body_nodes: list, scan_output: bool = False, state: str | None = "D"):
    """A Scan over the T rows of ``x: float[T, N]`` with the state ``s0: float[D]``
    (``s_in`` in the body, ``r`` the row; ``state`` None: an axis of unknown size); the
    body gives ``s_out`` (and ``o``, a scan output, with ``scan_output``)."""
    outs = ("s_out", "o")[:1 + scan_output]
    body = helper.make_graph(body_nodes, "body",
                             [helper.make_tensor_value_info(n, F, None) for n in ("s_in", "r")],
                             [helper.make_tensor_value_info(n, F, None) for n in outs])
    node = helper.make_node("Scan", ["s0", "x"], ["s", "y"][:len(outs)], body=body,
                            num_scan_inputs=1, name="scan")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("s0", F, [state]),
                                            helper.make_tensor_value_info("x", F, ["T", "N"])],
                              [helper.make_tensor_value_info(n, F, None)
                               for n in ("s", "y")[:len(outs)]])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=7)


MODELS = {
    # the state becomes the sum of itself and the row: D broadcast against N
    "sum": (lambda: _scan([helper.make_node("Add", ["s_in", "r"], ["s_out"], name="plus")]),
            ["float32[D]"]),
    # the state grows by a row: D + N after each iteration
    "grow": (lambda: _scan([helper.make_node("Concat", ["s_in", "r"], ["g"], axis=0),
                            helper.make_node("Add", ["g", "g"], ["s_out"], name="plus")]),
             ["float32[D]"]),
    # it grows, and each row is multiplied by the state it had (a scan output)
    "grow_times": (lambda: _scan([helper.make_node("Concat", ["s_in", "r"], ["s_out"], axis=0),
                                  helper.make_node("Mul", ["s_in", "r"], ["o"], name="times")],
                                 scan_output=True),
                   ["float32[D]", "float32[T,max(D,N)*min(1,D,N)]"]),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_a_scans_states_keep_their_shapes_as_onnxruntime_runs_them(name):
    build, want = MODELS[name]
    model = build()
    ins, outs = ko.from_onnx(model)
    assert [str(o.type) for o in outs] == want
    contract = ko.contract(model)
    graph = kt.contract(outs, ins)
    assert not any(isinstance(s, DataSymbol) for a in contract.atoms for s in a.symbols())
    assert "scan_s" not in contract.dsl() and "scan_s" not in str(contract)
    runs = 0
    for d, t, n in itertools.product(range(4), repeat=3):
        feeds = {"s0": np.ones(d, np.float32), "x": np.ones((t, n), np.float32)}
        ran = ortrun.run(model, feeds)
        ok = isinstance(ran, list)
        runs += ok
        assert contract.holds(D=d, T=t, N=n).value is ok, (name, d, t, n, ran)
        assert graph.holds(D=d, T=t, N=n).value is ok, (name, d, t, n, ran)
        if ok:  # each output the shape its type states
            sizes = {"D": d, "T": t, "N": n}
            for o, shape in zip(outs, ran, strict=True):
                assert [substitute(x, sizes) for x in o.type.shape] == list(shape), \
                    (name, sizes, o.type)
    assert runs == {"sum": 21, "grow": 12, "grow_times": 6}[name], runs


@pytest.mark.parametrize("name", ["sum", "grow"])
def test_a_state_of_unknown_size_is_kept_too(name):
    """``s0: float[?]``: the body's conditions are over the state's unknown axis
    (``s0.shape[0]``, no input size of a name of its own; main: a size the data decide,
    ``scan_s0``), judged as above."""
    body = {"sum": [helper.make_node("Add", ["s_in", "r"], ["s_out"], name="plus")],
            "grow": [helper.make_node("Concat", ["s_in", "r"], ["g"], axis=0),
                     helper.make_node("Add", ["g", "g"], ["s_out"], name="plus")]}[name]
    model = _scan(body, state=None)
    contract = ko.contract(model)
    assert contract.names == ("s0.shape[0]", "T", "N")
    assert not any(isinstance(s, DataSymbol) for a in contract.atoms for s in a.symbols())
    runs = 0
    for d, t, n in itertools.product(range(4), repeat=3):
        ran = ortrun.run(model, {"s0": np.ones(d, np.float32), "x": np.ones((t, n), np.float32)})
        runs += isinstance(ran, list)
        assert contract.holds(**{"s0.shape[0]": d, "T": t, "N": n}).value is \
            isinstance(ran, list), (name, d, t, n)
    assert runs == {"sum": 21, "grow": 12}[name]


def test_onnx_reference_runs_what_onnxruntime_refuses():
    """The spec's reference grows the state (D + T*N entries): the contract follows
    onnxruntime, and says which rule it is (the Scan node, onnxruntime's keeping)."""
    model = MODELS["grow"][0]()
    feeds = {"s0": np.ones(2, np.float32), "x": np.ones((2, 3), np.float32)}
    assert ReferenceEvaluator(model).run(None, feeds)[0].shape == (8,)
    assert isinstance(ortrun.run(model, feeds), ortrun.Refusal)
    contract = ko.contract(model)
    assert contract.exact and contract.dsl() == "where T >= 1, D + N == D"
    verdict = contract.holds(D=2, T=2, N=3)
    assert verdict.value is False and "(Scan scan)" in str(verdict)
    (kept,) = [a.clause for a in contract.atoms if str(a.clause) == "D + N == D"]
    assert "keeps each state variable's shape" in kept.source.detail


def test_a_scan_output_over_an_unknown_state_size_says_why_it_is_unknown():
    """The note names the state's unknown axis, not a symbol of the body's."""
    model = _scan([helper.make_node("Add", ["s_in", "r"], ["s_out"]),
                   helper.make_node("Mul", ["s_in", "r"], ["o"])], scan_output=True,
                  state=None)
    _, outs = ko.from_onnx(model)
    assert [str(o.type) for o in outs] == ["float32[?]", "float32[T,?]"]
    (note,) = ko.size_notes(outs)
    assert note.reason == ("it depends on a state's initial size, which is unknown "
                           "(max(N, s0.shape[0])*min(1, N, s0.shape[0]))")
