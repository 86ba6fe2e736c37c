"""Consumers of an int64 vector of unknown length (issue 32), judged by onnxruntime.

``Slice(Shape(x), [-1], [INT64_MAX], [0], [-1])`` has a length kantensor leaves unknown on
purpose: onnxruntime runs an end of INT64_MAX with a negative step through index 0 (all
of the shape, reversed) where the spec clamps it to ``n - 1`` (nothing). Each consumer of
that vector (or of a size of unknown value computed from it) is typed as far as is
known, never refused where onnxruntime runs it:

* where the output's rank is known (Tile, Pad, Slice, Gather, Range, Concat, ...), every
  value is onnxruntime's shape or unknown, and the contract agrees with onnxruntime or
  is undecided (:func:`test_onnx_shape_differential.check`);
* where the rank itself depends on the length (ConstantOfShape, Expand, Reshape, Squeeze
  without axes, a reduction without keepdims by such axes) no TensorType can state it:
  ``infer_shapes`` gives the value no shape, the contract is undecided with a note
  naming the node, and ``from_onnx`` types the other outputs.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from test_onnx_shape_differential import check

BIG = 2**63 - 1
H = helper.make_node
POINTS = [(2, 3), (0, 3), (3, 1), (1, 0), (4, 2)]

#: v: the shape reversed by onnxruntime, empty by the spec; r: the sum of its entries
BASE = [H("Shape", ["x"], ["v_shape"]),
        H("Slice", ["v_shape", "m1", "big", "a0", "m1"], ["v"]),
        H("ReduceSum", ["v"], ["r"], keepdims=0),
        H("Sub", ["v", "v"], ["vz"]),
        H("Unsqueeze", ["r", "a0"], ["ru"])]

#: consumers whose output rank is known: (nodes after BASE)
RANKED = {
    "Slice(x, 0*v, v)": [H("Slice", ["x", "vz", "v"], ["y"])],
    "Slice(x, 0*v, v, range(len(v)))": [H("Size", ["v"], ["n"]),
                                        H("Range", ["zero", "n", "one"], ["axes"]),
                                        H("Slice", ["x", "vz", "v", "axes"], ["y"])],
    "Tile(x, v)": [H("Tile", ["x", "v"], ["y"])],
    "Pad(x, Concat(0*v, 0*v))": [H("Concat", ["vz", "vz"], ["p"], axis=0),
                                 H("Pad", ["x", "p"], ["y"])],
    "Gather(x, 0*v)": [H("Gather", ["x", "vz"], ["y"], axis=0)],
    "Range(0, sum(v), 1)": [H("Range", ["zero", "r", "one"], ["y"])],
    "Concat(v, v), Mul(v, v), Shape(v), Size(v)": [
        H("Concat", ["v", "v"], ["y"], axis=0), H("Mul", ["v", "v"], ["y2"]),
        H("Shape", ["v"], ["y3"]), H("Size", ["v"], ["y4"])],
    "Unsqueeze(v, 0), OneHot(v)": [H("Unsqueeze", ["v", "a0"], ["y"]),
                                   H("OneHot", ["v", "three", "onoff"], ["y2"])],
    "ReduceSum(x, 0*v, keepdims=1)": [H("ReduceSum", ["x", "vz"], ["y"], keepdims=1)],
    "Expand(x, [sum(v)])": [H("Expand", ["x", "ru"], ["y"])],
    "ConstantOfShape([sum(v)])": [H("ConstantOfShape", ["ru"], ["y"])],
    "Reshape(x, [-1, sum(v)])": [H("Concat", ["m1", "ru"], ["t"], axis=0),
                                 H("Reshape", ["x", "t"], ["y"])],
    "Tile(x, [1, sum(v)])": [H("Concat", ["a1", "ru"], ["t"], axis=0),
                             H("Tile", ["x", "t"], ["y"])],
}

#: consumers whose output rank depends on the unknown length
UNRANKED = {
    "ConstantOfShape(v)": H("ConstantOfShape", ["v"], ["y"]),
    "Expand(x, v)": H("Expand", ["x", "v"], ["y"]),
    "Reshape(x, v)": H("Reshape", ["x", "v"], ["y"]),
    "Squeeze(v)": H("Squeeze", ["v"], ["y"]),
    "ReduceSum(x, 0*v, keepdims=0)": H("ReduceSum", ["x", "vz"], ["y"], keepdims=0),
}


def _model(extra):
    consts = {"m1": [-1], "big": [BIG], "a0": [0], "a1": [1], "zero": 0, "one": 1,
              "three": 3, "onoff": [0, 1]}
    inits = [numpy_helper.from_array(np.array(v, np.int64), k) for k, v in consts.items()]
    nodes = BASE + extra
    graph = helper.make_graph(nodes, "unknown_length", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, ["N", "S"])], [], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    inferred = {v.name: v.type.tensor_type.elem_type
                for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
    model.graph.output.extend(helper.make_tensor_value_info(
        o, inferred.get(o, TensorProto.FLOAT), None) for n in nodes for o in n.output)
    return model


def test_the_slice_has_onnxruntimes_length_and_the_spec_none():
    """The premise: onnxruntime gives the whole shape reversed, ONNX's reference none."""
    model = _model([])
    ran = ortrun.run(model, {"x": np.zeros((2, 3), np.float32)})
    assert ran[1] == (2,)
    from onnx.reference import ReferenceEvaluator
    assert ReferenceEvaluator(model).run(["v"], {"x": np.zeros((2, 3), np.float32)})[0].shape \
        == (0,)


@pytest.mark.parametrize("name", sorted(RANKED))
def test_a_consumer_of_known_rank_is_typed_as_onnxruntime_runs_it(name):
    stats: dict[str, int] = {}
    problems: list[str] = []
    check(_model(RANKED[name]), "NS", [dict(N=n, S=s) for n, s in POINTS], stats, problems)
    assert not problems, "\n".join(problems)
    assert stats.get("onnxruntime ran", 0) >= 1, stats
    assert stats.get("values exact", 0) + stats.get("values unknown", 0) >= 1, stats


@pytest.mark.parametrize("name", sorted(UNRANKED))
def test_a_consumer_whose_rank_the_length_decides_has_no_shape(name):
    model = _model([UNRANKED[name]])
    runs = [ortrun.run(model, {"x": np.zeros(p, np.float32)}) for p in POINTS]
    assert any(not isinstance(r, ortrun.Refusal) for r in runs)
    out = {v.name: v for v in ko.infer_shapes(model).graph.output}["y"]
    assert not out.type.tensor_type.HasField("shape")
    contract = ko.contract(model)
    assert all(contract.holds(N=n, S=s).value is None for n, s in POINTS)
    assert any(f"-> y' ({UNRANKED[name].op_type})" in note for note in contract.notes)
    others = [o.name for o in model.graph.output if o.name != "y"]
    _, typed = ko.from_onnx(model, outputs=others)
    assert [str(t.type) for t in typed][:3] == ["int64[2]", "int64[?]", "int64[]"]
