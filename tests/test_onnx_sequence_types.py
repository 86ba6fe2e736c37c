"""The element types the sequence ops take: their schemas' at each opset.

A sequence's elements (the schemas' ``S``, ``seq(tensor(...))``) and the tensors the
sequence ops take (``T``) are of 15 types at every opset: no bfloat16, no float8 or
sub-byte type; positions and splits (``I``) are int32 or int64; SplitToSequence's input
may be bfloat16 from opset 24; Identity takes sequences from opset 14 and optionals
from 16. Any dtype was taken before (a bfloat16 SequenceConstruct, an int4 sequence
input, a float position, an Identity of a sequence at opset 13).

Oracles nobody here wrote: onnxruntime (a one-node model is refused by kantensor exactly
where onnxruntime refuses it with a type error naming the op; where it accepts, kantensor
types it) and, where onnxruntime refuses for another reason (complex elements, a type
it does not register; a missing kernel), onnx's shape inference (``strict_mode``,
``check_type``), which reads the schema; SequenceEmpty of a bfloat16 ``dtype`` attribute,
which onnxruntime does not check, is judged by the schema too.
"""

from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper, shape_inference

from kantensor.onnx.dtypes import DTYPES
from onnxverdicts import kantensor_accepts, ort_refusal


def _model(nodes: list, inputs: list, opset: int) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, [onnx.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def _tensor(name: str, elem: int, shape: tuple = (2, 3)) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, list(shape))


def _sequence(name: str, elem: int) -> onnx.ValueInfoProto:
    return helper.make_tensor_sequence_value_info(name, elem, [2, 3])


def _node(op: str, ins: list, **attrs: object) -> onnx.NodeProto:
    return helper.make_node(op, ins, ["y"], **attrs)


F, I64 = TensorProto.FLOAT, TensorProto.INT64

#: One-node models, each with one element type varied (``e``): (the op, the model).
CASES = {
    "construct": lambda e, o: ("SequenceConstruct", _model(
        [_node("SequenceConstruct", ["x"])], [_tensor("x", e)], o)),
    "empty": lambda e, o: ("SequenceEmpty", _model(
        [_node("SequenceEmpty", [], dtype=e)], [], o)),
    "insert": lambda e, o: ("SequenceInsert", _model(
        [_node("SequenceInsert", ["s", "x"])], [_sequence("s", e), _tensor("x", e)], o)),
    "insert position": lambda e, o: ("SequenceInsert", _model(
        [_node("SequenceInsert", ["s", "x", "p"])],
        [_sequence("s", F), _tensor("x", F), _tensor("p", e, ())], o)),
    "at": lambda e, o: ("SequenceAt", _model(
        [_node("SequenceAt", ["s", "p"])], [_sequence("s", e), _tensor("p", I64, ())], o)),
    "at position": lambda e, o: ("SequenceAt", _model(
        [_node("SequenceAt", ["s", "p"])], [_sequence("s", F), _tensor("p", e, ())], o)),
    "erase": lambda e, o: ("SequenceErase", _model(
        [_node("SequenceErase", ["s"])], [_sequence("s", e)], o)),
    "erase position": lambda e, o: ("SequenceErase", _model(
        [_node("SequenceErase", ["s", "p"])], [_sequence("s", F), _tensor("p", e, ())], o)),
    "length": lambda e, o: ("SequenceLength", _model(
        [_node("SequenceLength", ["s"])], [_sequence("s", e)], o)),
    "split": lambda e, o: ("SplitToSequence", _model(
        [_node("SplitToSequence", ["x"])], [_tensor("x", e)], o)),
    "split split": lambda e, o: ("SplitToSequence", _model(
        [_node("SplitToSequence", ["x", "k"])], [_tensor("x", F), _tensor("k", e, ())], o)),
    "concat": lambda e, o: ("ConcatFromSequence", _model(
        [_node("ConcatFromSequence", ["s"], axis=0)], [_sequence("s", e)], o)),
    "identity": lambda e, o: ("Identity", _model(
        [_node("Identity", ["s"])], [_sequence("s", e)], o)),
}


def _said(model: onnx.ModelProto, op: str) -> str:
    """``ok``, ``type`` (refused for the types of the op's inputs) or onnxruntime's other
    refusal."""
    text = ort_refusal(model)
    if text is None:
        return "ok"
    return "type" if "Type Error" in text and f"of operator ({op})" in text else text


def _schema(model: onnx.ModelProto) -> bool:
    try:
        shape_inference.infer_shapes(model, strict_mode=True, check_type=True)
    except Exception:  # onnx's inference errors
        return False
    return True


@pytest.mark.parametrize("opset", [11, 13, 14, 16, 22, 24, 25])
def test_refused_exactly_where_onnxruntime_refuses_the_element_type(opset):
    judged = 0
    for case, code in ((c, e) for c in CASES for e in DTYPES):
        op, model = CASES[case](code, opset)
        said, accepted = _said(model, op), kantensor_accepts(model)
        if said in ("ok", "type") and case != "empty":
            assert accepted == (said == "ok"), (case, opset, DTYPES[code], said)
            judged += 1
        else:
            assert accepted == _schema(model), (case, opset, DTYPES[code], said[:80])
    assert judged > 100


@pytest.mark.parametrize("opset", [15, 16])
@pytest.mark.parametrize("elem", [TensorProto.FLOAT, TensorProto.BFLOAT16, TensorProto.INT4])
def test_identity_of_an_optional(opset, elem):
    """Identity of an optional: from opset 16, of the 15 element types (onnxruntime and
    onnx's inference agree here)."""
    model = _model([helper.make_node("Optional", ["x"], ["o"]),
                    helper.make_node("Identity", ["o"], ["y"])], [_tensor("x", elem)], opset)
    said = _said(model, "Identity")
    wanted = said == "ok" if said in ("ok", "type") else _schema(model)
    assert kantensor_accepts(model) == wanted, (opset, DTYPES[elem], said[:80])
