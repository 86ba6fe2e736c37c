"""ONNX STRING tensors: Equal (opset 19 on) types and compares them; every other op, and
every attribute naming a dtype to compute in, refuses them with UnsupportedType. Oracles:
ONNX's own node cases, onnx.reference.ReferenceEvaluator, onnx.shape_inference and
NumPy's ``equal`` on the object arrays ONNX uses."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import kantensor as kt
from kantensor.onnx import UnsupportedType, from_onnx, infer_shapes
from kantensor.onnx.nodememo import _value_key
from kantensor.types.dtypes import NUMPY_STRING
from onnx_cases import cases, run_case, type_case

S, F, B = TensorProto.STRING, TensorProto.FLOAT, TensorProto.BOOL


def model(nodes, inputs, outputs, inits=(), opset=21):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def equal_model(x_dims, y_dims, opset=21):
    return model([helper.make_node("Equal", ["x", "y"], ["z"], name="eq")],
                 [helper.make_tensor_value_info("x", S, x_dims),
                  helper.make_tensor_value_info("y", S, y_dims)],
                 [helper.make_tensor_value_info("z", B, None)], opset=opset)


def dims(info: onnx.ValueInfoProto) -> list:
    return [d.dim_param or d.dim_value for d in info.type.tensor_type.shape.dim]


@pytest.mark.parametrize("name", ["test_equal_string", "test_equal_string_broadcast"])
def test_the_node_cases_type_exactly_and_run_equal(name):
    (case,) = [c for c in cases() if c.name == name]
    for symbolic in (False, True):
        assert type_case(case, symbolic) == ("exact", "")
    assert run_case(case) is True


def test_symbolic_sizes_broadcast_and_the_types_match_onnx():
    m = equal_model(["n", 1], ["k"])
    typed = infer_shapes(m)
    (z,) = typed.graph.output
    assert z.type.tensor_type.elem_type == B and dims(z) == ["n", "k"]
    theirs = onnx.shape_inference.infer_shapes(m, strict_mode=True).graph.output[0]
    assert theirs.type.tensor_type.elem_type == B and dims(theirs) == ["n", "k"]
    ins, outs = from_onnx(m)
    assert [str(v.type) for v in ins] == ["string[n,1]", "string[k]"]
    assert str(outs[0].type) == "bool[n,k]"


words = st.sampled_from(["", "a", "ab", "é", "string1", "string2", "日本", "a\x00b"])


@st.composite
def operands(draw):
    """Two object arrays of str (ONNX's form) whose shapes broadcast."""
    shape = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    other = [draw(st.sampled_from([1, n])) for n in shape][draw(st.integers(0, len(shape))):]
    make = lambda s: np.array(draw(st.lists(words, min_size=int(np.prod(s)),  # noqa: E731
                                            max_size=int(np.prod(s)))), dtype=object
                              ).reshape(s)
    return make(tuple(shape)), make(tuple(other))


@settings(max_examples=25, deadline=None)
@given(operands())
def test_equal_computes_what_numpy_and_the_reference_evaluator_compute(xy):
    x, y = xy
    m = equal_model([f"x{i}" for i in range(x.ndim)], [f"y{i}" for i in range(y.ndim)])
    (got,) = kt.function(*from_onnx(m))(x, y)
    want = np.equal(x, y)
    (reference,) = ReferenceEvaluator(m).run(None, {"x": x, "y": y})
    assert got.dtype == want.dtype == reference.dtype == np.bool_
    assert np.array_equal(got, want) and np.array_equal(got, reference)


def test_string_initializers_and_constants_feed_equal():
    words_ = np.array(["yes", "no", "maybe"], dtype=object)
    init = numpy_helper.from_array(words_, "w")
    const = helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(
        np.array(["no"], dtype=object), "c"))
    m = model([const, helper.make_node("Equal", ["x", "w"], ["a"]),
               helper.make_node("Equal", ["w", "c"], ["b"])],
              [helper.make_tensor_value_info("x", S, ["n", 3])],
              [helper.make_tensor_value_info("a", B, None),
               helper.make_tensor_value_info("b", B, None)], [init])
    ins, outs = from_onnx(m)
    assert [str(o.type) for o in outs] == ["bool[n,3]", "bool[3]"]
    x = np.array([["yes", "yes", "maybe"], ["no", "no", "no"]], dtype=object)
    got = kt.function(ins, outs)(x)
    want = ReferenceEvaluator(m).run(None, {"x": x})
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    assert [dims(o) for o in infer_shapes(m).graph.output] == [["n", 3], [3]]


def test_string_values_are_keyed_by_their_text():
    """The node memo keys a known value; a string's bytes are NumPy's pointers, so the
    key is its text: equal texts in different arrays meet, different texts do not."""
    long = "a string longer than the sixteen bytes NumPy keeps inline"
    a = np.array([long, "x"], dtype=NUMPY_STRING)
    b = np.array([long, "x"], dtype=object).astype(NUMPY_STRING)
    c = np.array([long + "!", "x"], dtype=NUMPY_STRING)
    assert _value_key(a) == _value_key(b) != _value_key(c)


@pytest.mark.parametrize("op", ["Add", "Sub", "Less", "Max", "Concat", "Where"])
def test_other_ops_refuse_strings(op):
    args = ["c", "x", "y"] if op == "Where" else ["x", "y"]
    node = helper.make_node(op, args, ["z"], name="node", **({"axis": 0} if op == "Concat"
                                                           else {}))
    inputs = [helper.make_tensor_value_info("x", S, ["n"]),
              helper.make_tensor_value_info("y", S, ["n"])]
    if op == "Where":
        inputs.append(helper.make_tensor_value_info("c", B, ["n"]))
    m = model([node], inputs, [helper.make_tensor_value_info("z", S, None)])
    with pytest.raises(UnsupportedType, match=f"node 'node' \\({op}\\): element type STRING "
                                              f"is not supported by {op}"):
        from_onnx(m)
    typed = infer_shapes(m)  # left untyped, as the model gave it: no value_info, no shape
    assert not typed.graph.value_info
    assert not typed.graph.output[0].type.tensor_type.HasField("shape")


@pytest.mark.parametrize("op", ["Identity", "Shape", "Reshape", "Transpose"])
def test_ops_without_arithmetic_refuse_strings_too(op):
    shape = numpy_helper.from_array(np.array([-1], dtype=np.int64), "s")
    args = ["x", "s"] if op == "Reshape" else ["x"]
    m = model([helper.make_node(op, args, ["z"], name="node")],
              [helper.make_tensor_value_info("x", S, ["n", 2])],
              [helper.make_tensor_value_info("z", S, None)], [shape])
    with pytest.raises(UnsupportedType, match="STRING is not supported by"):
        from_onnx(m)


def test_equal_before_opset_19_refuses_strings():
    """Equal-11 (opsets 11 to 18) takes no STRING in ONNX either."""
    with pytest.raises(UnsupportedType, match=r"\(Equal\): element type STRING"):
        from_onnx(equal_model(["n"], ["n"], opset=18))
    (z,) = from_onnx(equal_model(["n"], ["n"], opset=19))[1]
    assert str(z.type) == "bool[n]"


def test_equal_over_strings_still_checks_shapes_and_dtypes():
    with pytest.raises(TypeError, match="could not be broadcast"):
        from_onnx(equal_model([2], [3]))
    m = model([helper.make_node("Equal", ["x", "y"], ["z"])],
              [helper.make_tensor_value_info("x", S, [2]),
               helper.make_tensor_value_info("y", F, [2])],
              [helper.make_tensor_value_info("z", B, None)])
    with pytest.raises(TypeError, match="dtype T is string in input 0 but float32"):
        from_onnx(m)


@pytest.mark.parametrize("op, attrs", [("Cast", {"to": S}), ("EyeLike", {"dtype": S})])
def test_an_attribute_naming_string_is_refused(op, attrs):
    m = model([helper.make_node(op, ["x"], ["z"], name="node", **attrs)],
              [helper.make_tensor_value_info("x", F, [2, 2])],
              [helper.make_tensor_value_info("z", S, None)])
    with pytest.raises(UnsupportedType, match="element type STRING is not supported here"):
        from_onnx(m)


def test_kt_function_refuses_what_is_not_a_string():
    ins, outs = from_onnx(equal_model([2], [2]))
    f = kt.function(ins, outs)
    ok = np.array(["a", "b"], dtype=object)
    (got,) = f(ok, np.array(["a", "c"]))  # NumPy's fixed-width str dtype too
    assert got.tolist() == [True, False]
    for bad in (np.array([b"a", b"b"], dtype=object), np.array([1, 2], dtype=object),
                np.array([1.0, 2.0])):
        with pytest.raises(TypeError):
            f(bad, ok)
