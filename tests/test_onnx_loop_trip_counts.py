"""A Loop's trip count that is 0 or less under the facts runs no iteration, whatever its
body's condition: judged by onnxruntime at every ``N`` in 0..8.

The trip count ``M`` stands for ``max(0, M)`` simplified under the facts; where that is
the int 0 the Loop runs no iteration. Checked before the rule "a first condition true and
a body condition constant false runs once", which holds only of a positive trip count
(review24G: ``-N`` trips typed a scan ``float32[1]`` where onnxruntime gives ``(0,)``).
"""

from __future__ import annotations

import warnings

import numpy as np
import onnxruntime as ort

from kantensor.onnx import contract, from_onnx
from test_onnx_loops import AXES, I64, B, F, const, graph, model, node, size_of, t


def _stopping_body():
    """A body whose condition is constant false: it ends the loop after one turn."""
    return graph([node("Constant", [], ["cout"], value=const("vf", False, np.bool_)),
                  node("Constant", [], ["f"], value=const("v", 1.0, np.float32))],
                 [t("i", I64, []), t("cin", B, [])], [t("cout", B, []), t("f", F, [])],
                 name="body")


def _typed_and_run(nodes, outputs, sizes):
    m = model(graph(nodes, [t("x", F, ["N"])], outputs,
                    inits=[*AXES, const("zero", 0), const("five", 5), const("four", 4)]),
              opset=17)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, outs = from_onnx(m)
        stated = contract(m)
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    runs = {n: session.run(None, {"x": np.zeros(n, np.float32)}) for n in sizes}
    return outs, stated, runs


def test_a_trip_count_of_minus_n_runs_no_iteration():
    nodes = [*size_of("x", 0, "n"), node("Sub", ["zero", "n"], ["m"]),
             node("Loop", ["m", "true"], ["y"], body=_stopping_body(), name="Loop_1")]
    outs, stated, runs = _typed_and_run(nodes, [t("y", F)], range(9))
    assert str(outs[0].type) == "float32[0]", outs[0].type
    assert all(got[0].shape == (0,) for got in runs.values())
    assert stated.exact and all(stated.holds(N=n).value is True for n in runs)


def test_a_trip_count_the_facts_show_not_positive_runs_no_iteration():
    """``x[4]`` states ``N >= 5``; under it ``5 - N`` trips are none."""
    nodes = [node("Gather", ["x", "four"], ["g"], axis=0), *size_of("x", 0, "n"),
             node("Sub", ["five", "n"], ["m"]),
             node("Loop", ["m", "true"], ["y"], body=_stopping_body(), name="Loop_1")]
    outs, stated, runs = _typed_and_run(nodes, [t("g", F), t("y", F)], range(5, 9))
    assert str(outs[1].type) == "float32[0]", outs[1].type
    assert all(got[1].shape == (0,) for got in runs.values())
