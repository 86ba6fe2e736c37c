"""kantensor.onnx on models built with onnx.helper: reading, symbolic sizes, folded
shape chains, typed copies, errors, the command; checked against NumPy's results and
onnx's own checker."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
from kantensor import cli
from kantensor.onnx import UnsupportedOp, from_onnx, infer_shapes, supported
from kantensor.onnx.registry import load_onnx_file, registry
from kantensor.ops.catalogue import CatalogueError, load_file
from kantensor.signature.forward import infer
from kantensor.signature.signature import Signature

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=21):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def attention_reshape():
    """x:(batch, seq, 64) -> reshape to (batch, seq, 4, 16) with the shape built by
    Shape -> Gather -> Unsqueeze -> Concat, then a transpose and a relu."""
    idx = [numpy_helper.from_array(np.array(i, dtype=np.int64), f"i{i}") for i in (0, 1)]
    heads = numpy_helper.from_array(np.array([4, 16], dtype=np.int64), "heads")
    zero = numpy_helper.from_array(np.array([0], dtype=np.int64), "axis0")
    nodes = [
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "i0"], ["b"], name="batch"),
        helper.make_node("Gather", ["s", "i1"], ["t"], name="time"),
        helper.make_node("Unsqueeze", ["b", "axis0"], ["b1"], name="ub"),
        helper.make_node("Unsqueeze", ["t", "axis0"], ["t1"], name="ut"),
        helper.make_node("Concat", ["b1", "t1", "heads"], ["shape4"], axis=0, name="cat"),
        helper.make_node("Reshape", ["x", "shape4"], ["r"], name="split_heads"),
        helper.make_node("Transpose", ["r"], ["p"], perm=[0, 2, 1, 3], name="swap"),
        helper.make_node("Relu", ["p"], ["y"], name="relu"),
    ]
    return model(nodes, [helper.make_tensor_value_info("x", F, ["batch", "seq", 64])],
                 [helper.make_tensor_value_info("y", F, None)], [*idx, heads, zero])


def test_inputs_initializers_and_a_folded_shape_chain():
    ins, outs = from_onnx(attention_reshape())
    (x,) = ins
    assert x.name == "x" and x.type == kt.TensorType("float32", (kt.Dim("batch"),
                                                                 kt.Dim("seq"), 64))
    (y,) = outs
    assert y.name == "y"
    assert y.type == kt.TensorType("float32", (kt.Dim("batch"), 4, kt.Dim("seq"), 16))
    assert y.owner.tag["name"] == "relu"
    value = np.random.default_rng(0).standard_normal((3, 5, 64)).astype(np.float32)
    (got,) = kt.function(ins, outs)(value)
    want = np.maximum(value.reshape(3, 5, 4, 16).transpose(0, 2, 1, 3), 0)
    np.testing.assert_array_equal(got, want)


def test_infer_shapes_writes_dim_params_and_keeps_the_model():
    m = attention_reshape()
    typed = infer_shapes(m)
    assert len(m.graph.value_info) == 0  # a copy
    onnx.checker.check_model(typed)
    infos = {v.name: v for v in [*typed.graph.value_info, *typed.graph.output]}

    def dims(name):
        return [d.dim_param or d.dim_value for d in infos[name].type.tensor_type.shape.dim]

    assert dims("y") == ["batch", 4, "seq", 16]
    assert dims("r") == ["batch", "seq", 4, 16]
    assert dims("s") == [3]
    assert infos["b"].type.tensor_type.elem_type == TensorProto.INT64


def test_symbolic_sizes_in_dsl_syntax():
    nodes = [helper.make_node("Concat", ["x", "x"], ["c"], axis=1),
             helper.make_node("Flatten", ["c"], ["y"], axis=1)]
    m = model(nodes, [helper.make_tensor_value_info("x", F, ["n", "seq", 3])],
              [helper.make_tensor_value_info("y", F, None)])
    out = infer_shapes(m).graph.output[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in out] == ["n", "6*seq"]
    ins, outs = from_onnx(infer_shapes(m))  # the written text reads back as the Dims
    assert str(outs[0].type) == "float32[n,6*seq]"


def test_an_unknown_dim_stays_unknown():
    m = model([helper.make_node("Relu", ["x"], ["y"])],
              [helper.make_tensor_value_info("x", F, [None, 3])],
              [helper.make_tensor_value_info("y", F, None)])
    (dim0, dim1) = infer_shapes(m).graph.output[0].type.tensor_type.shape.dim
    assert not dim0.HasField("dim_value") and not dim0.HasField("dim_param")
    assert dim1.dim_value == 3


def test_a_reshape_by_an_unknown_shape_has_unknown_sizes():
    m = model([helper.make_node("Reshape", ["x", "shape"], ["y"])],
              [helper.make_tensor_value_info("x", F, [2, 6]),
               helper.make_tensor_value_info("shape", TensorProto.INT64, [3])],
              [helper.make_tensor_value_info("y", F, None)])
    ins, outs = from_onnx(m)
    assert outs[0].type == kt.TensorType("float32", (None, None, None))
    (got,) = kt.function(ins, outs)(np.arange(12, dtype=np.float32).reshape(2, 6),
                                 np.array([0, 3, -1]))
    np.testing.assert_array_equal(got, np.arange(12, dtype=np.float32).reshape(2, 3, 2))


def test_unsupported_op_names_node_type_domain_opset_and_where_to_read_more():
    m = model([helper.make_node("Det", ["x"], ["y"], name="my_det", domain="com.example")],
              [helper.make_tensor_value_info("x", F, [2, 2])],
              [helper.make_tensor_value_info("y", F, None)])
    m.opset_import.append(helper.make_opsetid("com.example", 3))
    with pytest.raises(UnsupportedOp) as err:
        from_onnx(m)
    text = str(err.value)
    assert "'my_det'" in text and "Det" in text and "'com.example'" in text
    assert "opset 3" in text and "kantensor.onnx.supported()" in text
    assert ", ".join(supported()[:5]) not in text  # where to read it, not the whole list


def test_an_opset_outside_the_entries_is_refused_clearly():
    # (GroupNormalization is in ONNX since opset 18, its entry since 21: ONNX's schema
    # marks opsets 18 to 20 deprecated, their scale and bias per group, and kantensor
    # leaves them untyped)
    groups = [numpy_helper.from_array(np.ones(2, np.float32), n) for n in ("s", "b")]
    m = model([helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], name="gn",
                                num_groups=2)],
              [helper.make_tensor_value_info("x", F, [1, 4, 3])],
              [helper.make_tensor_value_info("y", F, None)], groups, opset=18)
    with pytest.raises(UnsupportedOp, match="'gn': GroupNormalization .*opset 18.* "
                                            "supported in opsets 21 to the newest only"):
        from_onnx(m)


@pytest.mark.parametrize("op, gates", [("RNN", 4), ("GRU", 1), ("LSTM", 1)])
def test_a_gates_attribute_is_refused(op, gates):
    """``gates`` is the op's (RNN 1, GRU 3, LSTM 4), not an ONNX attribute: a node giving
    it, with weights of that many gates, is refused, as onnxruntime refuses it."""
    ort = pytest.importorskip("onnxruntime")
    w = numpy_helper.from_array(np.zeros((1, 4 * gates, 3), np.float32), "w")
    r = numpy_helper.from_array(np.zeros((1, 4 * gates, 4), np.float32), "r")
    m = model([helper.make_node(op, ["x", "w", "r"], ["y"], hidden_size=4, gates=gates)],
              [helper.make_tensor_value_info("x", F, [5, 2, 3])],
              [helper.make_tensor_value_info("y", F, None)], [w, r], opset=14)
    with pytest.raises(Exception, match="gates"):
        ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(UnsupportedOp, match="attribute 'gates' is not supported"):
        from_onnx(m)


def test_an_unknown_attribute_is_refused():
    m = model([helper.make_node("Relu", ["x"], ["y"], name="r")],
              [helper.make_tensor_value_info("x", F, [2])],
              [helper.make_tensor_value_info("y", F, None)])
    m.graph.node[0].attribute.append(helper.make_attribute("alpha", 2.0))
    with pytest.raises(UnsupportedOp, match="'r' \\(Relu\\): attribute 'alpha'"):
        from_onnx(m)


def test_the_command_prints_types_and_writes_the_typed_model(tmp_path, capsys):
    path = tmp_path / "m.onnx"
    onnx.save(attention_reshape(), path)
    assert cli.main(["onnx", str(path), "-o", str(tmp_path / "typed.onnx")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "input  x: float32[batch,seq,64]", "output y: float32[batch,4,seq,16]"]
    typed = onnx.load(tmp_path / "typed.onnx")
    assert len(typed.graph.value_info) == 8
    (tmp_path / "bad.onnx").write_bytes(b"not a model")
    assert cli.main(["onnx", str(tmp_path / "bad.onnx")]) == 1
    assert "not an ONNX model" in capsys.readouterr().err


def test_partial_typing_types_what_an_unsupported_node_does_not_reach(tmp_path, capsys):
    nodes = [helper.make_node("Det", ["x"], ["d"], name="det", domain="com.example"),
             helper.make_node("Relu", ["d"], ["r"], name="after"),
             helper.make_node("Neg", ["x"], ["y"], name="beside")]
    m = model(nodes, [helper.make_tensor_value_info("x", F, ["n", 3])],
              [helper.make_tensor_value_info(name, F, None) for name in ("r", "y")])
    m.opset_import.append(helper.make_opsetid("com.example", 1))
    ins, outs = from_onnx(m, outputs=["y"])
    assert [str(v.type) for v in outs] == ["float32[n,3]"]
    with pytest.raises(UnsupportedOp, match="output 'r' is not typed: node 'det'"):
        from_onnx(m)
    with pytest.raises(ValueError, match="'z' is not an output"):
        from_onnx(m, outputs=["z"])
    typed = infer_shapes(m)
    assert [v.name for v in typed.graph.value_info] == []
    assert [d.dim_param or d.dim_value for d in
            typed.graph.output[1].type.tensor_type.shape.dim] == ["n", 3]
    onnx.save(m, tmp_path / "partial.onnx")
    assert cli.main(["onnx", str(tmp_path / "partial.onnx")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "input  x: float32[n,3]"
    assert lines[1].startswith("output r: not typed (node 'det': Det (domain 'com.example', "
                               "opset 1) is not supported")
    assert lines[2] == "output y: float32[n,3]"


def test_every_entry_runs_its_examples():
    ran = sum(o.entry.run_examples(o.op) for ops in registry().values() for o in ops)
    assert ran >= 20


def test_catalogue_files_take_extra_keys_from_a_layer_above():
    text = '[[op]]\nname = "Relu"\nsignature = "+():T->():T"\nimpl = "numpy.abs"\nsince = 14\n'
    (entry,) = load_file("x.toml", text, extra=("since",))
    assert entry.extra == (("since", 14),)
    with pytest.raises(CatalogueError, match="unknown key since"):
        load_file("x.toml", text)


def test_a_lone_size_compared_with_a_constant_is_an_unknown_size():
    (out,) = infer(Signature.parse("(a):T->(u):T where u >= 0"),
                   (kt.TensorType("float32", (3,)),))
    assert out == kt.TensorType("float32", (None,))


def flatten_project():
    w = numpy_helper.from_array(np.ones((64, 10), np.float32), "W")
    nodes = [helper.make_node("Flatten", ["x"], ["f"], axis=1, name="flat"),
             helper.make_node("MatMul", ["f", "W"], ["y"], name="proj")]
    return model(nodes, [helper.make_tensor_value_info("x", F, ["n", None, None])],
                 [helper.make_tensor_value_info("y", F, None)], [w])


def test_refine_on_an_imported_model_solves_back_to_the_inputs():
    ins, outs = from_onnx(flatten_project())
    assert str(outs[0].type) == "float32[n,10]"
    refined = kt.refine(outs, {ins[0]: "float32[n,8,?]"})
    assert str(refined[ins[0]]) == "float32[n,8,8]"  # 8 * 8 == 64, the rows of W


def test_a_conflict_chain_names_the_onnx_nodes_values_and_ops():
    ins, outs = from_onnx(flatten_project())
    with pytest.raises(kt.RefinementError) as err:
        kt.refine(outs, {ins[0]: "float32[n,7,?]"})
    text = str(err.value)
    assert "y = MatMul(f, W) (node 'proj')" in text
    assert "f = Flatten(x) (node 'flat')" in text  # (the entry of opsets 21 and 22: named
    # by its op type, as ONNX names it)


def test_query_on_a_single_onnx_op_runs_in_both_directions():
    from unification import var

    matmul = registry()[("", "MatMul")][0].op
    x = var("X")
    answers = kt.query(matmul, ["float32[3,4]", x], ["float32[3,5]"], limit=3)
    assert [str(a["X"]) for a in answers] == ["float32[4,5]"]
    reshape = registry()[("", "Reshape")][0].op.bind(shape_value=(0, -1))
    (answer,) = kt.query(reshape, ["float32[2,3,4]", "int64[2]"], [x])
    assert str(answer["X"]) == "float32[2,12]"


@pytest.mark.parametrize("to", [TensorProto.FLOAT8E8M0, TensorProto.FLOAT8E4M3FN,
                                TensorProto.FLOAT8E5M2FNUZ, TensorProto.INT4,
                                TensorProto.BFLOAT16])
@pytest.mark.parametrize("saturate", [0, 1])
@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
def test_cast_to_low_precision_matches_the_reference(to, saturate, round_mode):
    """Cast to a low-precision type (saturation, FLOAT8E8M0's rounding modes; ONNX's own
    node cases use only the defaults) bit for bit as onnx.reference casts."""
    from onnx.reference import ReferenceEvaluator

    rng = np.random.default_rng(to * 10 + saturate)
    x = np.concatenate([rng.standard_normal(200) * 10.0 ** rng.integers(-40, 40, 200),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, 3.0, 2.0 ** 127 * 1.5,
                         2.0 ** -130, 1e6, -1e6, 7.5, -8.5, 0.75]]).astype(np.float32)
    if to == TensorProto.INT4:
        x = np.clip(np.nan_to_num(x), -8, 7)  # Cast to int4 outside its range: undefined
    node = helper.make_node("Cast", ["x"], ["y"], to=to, saturate=saturate,
                            round_mode=round_mode)
    m = model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
              [helper.make_tensor_value_info("y", to, ["n"])], opset=25)
    want = ReferenceEvaluator(m).run(None, {"x": x})[0]
    (got,) = kt.function(*from_onnx(m))(x)
    assert got.dtype == want.dtype
    assert np.array_equal(got.view(np.uint8 if got.itemsize == 1 else np.uint16),
                          want.view(np.uint8 if want.itemsize == 1 else np.uint16))


def test_size_and_shape_fold_by_their_entries_not_by_their_op_type():
    """Shape and Size are ordinary entries: their kernels run on the inputs' types when
    the model is read (``reads_only = "shapes"``), so Size gives the product of symbolic
    sizes and Shape(start=1) the sizes after the first; both run as NumPy computes."""
    one = numpy_helper.from_array(np.array([1], dtype=np.int64), "one")
    zero = numpy_helper.from_array(np.array([0], dtype=np.int64), "zero")
    nodes = [helper.make_node("Size", ["x"], ["n"]),
             helper.make_node("Unsqueeze", ["n", "zero"], ["n1"]),
             helper.make_node("Reshape", ["x", "n1"], ["flat"]),
             helper.make_node("Shape", ["x"], ["tail"], start=1),
             helper.make_node("Concat", ["one", "tail"], ["s"], axis=0),
             helper.make_node("Reshape", ["x", "s"], ["y"])]
    m = model(nodes, [helper.make_tensor_value_info("x", F, ["batch", "seq", 3])],
              [helper.make_tensor_value_info("flat", F, None),
               helper.make_tensor_value_info("y", F, None)], [one, zero])
    ins, (flat, y) = from_onnx(m)
    batch, seq = kt.Dim("batch"), kt.Dim("seq")
    assert flat.type == kt.TensorType("float32", (batch * seq * 3,))
    assert y.type.shape[1:] == (seq, 3)  # the folded tail; the 1 then asks batch == 1
    shapes = (*registry()["", "Shape"], *registry()["", "Size"])  # (one entry per opset
    assert all(e.reads_shapes for e in shapes)  # range where the element types change)
    value = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    got_flat, got_y = kt.function(ins, [flat, y])(value)
    np.testing.assert_array_equal(got_flat, value.ravel())
    np.testing.assert_array_equal(got_y, value)


def test_reads_only_names_what_a_kernel_reads():
    text = ('[[op]]\nname = "Size"\nreads_only = "values"\nsignature = "(...):T->():int64"\n'
            'impl = "kantensor.onnx.tensor.shape.size"\n')
    with pytest.raises(CatalogueError, match="reads_only must be one of 'shapes', got 'values'"):
        load_onnx_file("x.toml", text)
