"""infer_shapes's warm path must not change its answers: a model typed again is written
from the model memo (kantensor.onnx.modelmemo) without reading its nodes, and nodes are
read from records found by their bytes (kantensor.onnx.nodecache). Every change the
typing reads gives a new reading, checked against typed_model, which reads every node
and writes every value info afresh."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
from kantensor.onnx import importer as importer_module
from kantensor.onnx import infer_shapes, intervals, modelmemo, nodecache, sequence
from kantensor.onnx.loading import OnnxImportError
from kantensor.onnx.shapes import typed_model
from kantensor.types import numpyrules as dt

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def base(shape: tuple = ("batch", "seq", 8), small: tuple = (2, 4), big: int = 1,
         to: int = F, opset: int = 21, outputs: tuple = ("y",)) -> onnx.ModelProto:
    """x reshaped by a Shape -> Gather -> Concat chain with the small initializer
    ``small``; a ConstantOfShape whose size is the sum of a 100-element initializer
    (``big`` each, folded: its data is read); a Cast to ``to``; a Constant node."""
    inits = [numpy_helper.from_array(np.array(v, np.int64), name) for name, v in
             [("i0", 0), ("i1", 1), ("axes", [0]), ("small", list(small))]]
    inits.append(numpy_helper.from_array(np.full(100, big, np.int64), "big"))
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "i0"], ["g0"]),
        helper.make_node("Gather", ["s", "i1"], ["g1"]),
        helper.make_node("Unsqueeze", ["g0", "axes"], ["u0"]),
        helper.make_node("Unsqueeze", ["g1", "axes"], ["u1"]),
        helper.make_node("Concat", ["u0", "u1", "small"], ["c"], axis=0),
        helper.make_node("Reshape", ["x", "c"], ["y"]),
        helper.make_node("ReduceSum", ["big"], ["total"], keepdims=1),
        helper.make_node("ConstantOfShape", ["total"], ["z"]),
        helper.make_node("Cast", ["y"], ["w"], to=to),
        helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(
            np.arange(3, dtype=np.int64))),
        helper.make_node("Identity", ["k"], ["kk"]),
    ]
    graph = helper.make_graph(
        nodes, "memo", [helper.make_tensor_value_info("x", F, list(shape))],
        [helper.make_tensor_value_info(o, F, None) for o in outputs], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def types(model: onnx.ModelProto) -> dict[str, str]:
    graph = model.graph
    return {v.name: str(v.type).replace("\n", " ") for v in [*graph.value_info,
                                                             *graph.output]}


VARIANTS = {
    "base": {},
    "a small initializer's value": {"small": [4, 2]},
    "a large initializer's data, read by folding": {"big": 2},
    "an input's dims": {"shape": ["n", "seq", 8]},
    "a node's attribute": {"to": TensorProto.DOUBLE},
    "the opset": {"opset": 18},
    "the outputs": {"outputs": ("y", "w", "z")},
}


def test_a_model_typed_again_is_written_as_reading_every_node_writes_it(monkeypatch):
    reads = []
    read_nodes = importer_module._Reader.read_nodes

    def counted(self, *args):
        reads.append(1)
        return read_nodes(self, *args)

    monkeypatch.setattr(importer_module._Reader, "read_nodes", counted)
    modelmemo.MODELS.clear()
    answers = {}
    for name, change in VARIANTS.items():
        model = base(**change)
        want = typed_model(model)[0]
        reads.clear()
        first = infer_shapes(model)
        again = infer_shapes(model.SerializeToString())  # a copy of it, as bytes
        assert first == want and again == want, name
        assert len(reads) == 1, name  # the second from the memo
        answers[name] = types(want)
    seen = answers["base"]
    assert seen["y"] != answers["a small initializer's value"]["y"]
    assert seen["z"] != answers["a large initializer's data, read by folding"]["z"]
    assert seen["y"] != answers["an input's dims"]["y"]
    assert seen["w"] != answers["a node's attribute"]["w"]
    assert "w" not in {o.name for o in base().graph.output}
    assert "dim_value: 100" in seen["z"] and "dim_value: 200" in \
        answers["a large initializer's data, read by folding"]["z"]


def test_a_model_whose_data_is_external_is_read_each_time(tmp_path, monkeypatch):
    path = tmp_path / "m.onnx"
    onnx.save(base(), path, save_as_external_data=True, all_tensors_to_one_file=True,
              location="m.data", size_threshold=0)
    modelmemo.MODELS.clear()
    for _ in range(2):
        assert types(infer_shapes(path)) == types(typed_model(base())[0])
    assert not modelmemo.MODELS


def test_records_and_models_are_found_by_their_whole_bytes():
    """Two nodes that differ in one attribute, one input name or one output name have
    two records; a model's key holds each node's bytes."""
    a = helper.make_node("Cast", ["x"], ["y"], to=F)
    variants = [a, helper.make_node("Cast", ["x"], ["y"], to=I64),
                helper.make_node("Cast", ["x2"], ["y"], to=F),
                helper.make_node("Cast", ["x"], ["y2"], to=F)]
    records = [nodecache.record(n) for n in variants]
    assert len({id(r) for r in records}) == 4
    assert nodecache.record(helper.make_node("Cast", ["x"], ["y"], to=F)) is records[0]
    assert [(r.names, r.wanted) for r in records] == [
        (("x",), ("y",)), (("x",), ("y",)), (("x2",), ("y",)), (("x",), ("y2",))]
    assert records[0].attribute_key(a) != records[1].attribute_key(variants[1])


def _fields(rec: nodecache.NodeRecord, node: onnx.NodeProto) -> tuple:
    return rec.op_type, rec.domain, rec.names, rec.wanted, rec.attribute_key(node)


@pytest.mark.parametrize("node", [
    helper.make_node("Relu", ["x"], ["y"]),
    helper.make_node("Relu", ["a*b"], ["c:0"]),  # names holding the keys' bytes
    helper.make_node("Relu", ["é"], ["y"], name="ü"),  # UTF-8 past ASCII
    helper.make_node("Cast", ["x"], ["y"], to=F),
    helper.make_node("Cast", ["x:0"], ["y*"], to=F, domain="ai.onnx"),
    helper.make_node("Gelu", ["x"], ["y"], domain="com.microsoft"),
    helper.make_node("Gelu", ["x"], ["y"], domain="com.microsoft", name="n:*"),
    helper.make_node("Pad", ["x", "", "c"], ["y", ""], mode="edge")])
def test_a_record_read_with_its_bytes_reads_as_protobuf_reads_each_field(node):
    """A record made from the node's bytes (its domain and attributes taken as absent
    where their keys' bytes are nowhere in them) holds what protobuf reads of each field."""
    assert _fields(nodecache.NodeRecord(node, True, node.SerializeToString()), node) == \
        _fields(nodecache.NodeRecord(node, False), node) == \
        (node.op_type, node.domain, tuple(node.input), tuple(node.output),
         tuple(a.SerializeToString() for a in node.attribute))


_TEXT = st.text(st.sampled_from("ab*:\n\x12\"é"), max_size=4)  # the keys' bytes among them


@settings(max_examples=60, deadline=None)
@given(inputs=st.lists(_TEXT, max_size=3), outputs=st.lists(_TEXT, max_size=2),
       name=_TEXT, domain=st.sampled_from(["", "ai.onnx", "com.microsoft", "a:b*"]),
       attributes=st.dictionaries(st.sampled_from(["axis", "mode", "to"]),
                                  st.one_of(st.integers(-3, 300), _TEXT), max_size=2))
def test_records_from_bytes_read_as_protobuf_on_any_node(inputs, outputs, name, domain,
                                                         attributes):
    node = helper.make_node("Op*:", inputs, outputs, name=name, domain=domain, **attributes)
    assert _fields(nodecache.NodeRecord(node, True, node.SerializeToString()), node) == \
        _fields(nodecache.NodeRecord(node, False), node)


def test_a_constants_shared_value_cannot_be_changed():
    modelmemo.MODELS.clear()
    reader = typed_model(base())[1]
    with pytest.raises(ValueError, match="read-only"):
        reader.values["k"][0] = 7
    assert types(infer_shapes(base()))["kk"] == types(typed_model(base())[0])["kk"]


def test_constant_nodes_of_one_value_share_it_and_each_is_still_checked():
    """Constant nodes whose attribute bytes are equal (an exporter's repeated ``axes``
    and scalars, each naming its output anew) are read once (nodecache.CONSTANTS), the
    shared value read-only; a node of those attribute bytes that is not a well-formed
    Constant (an input, two outputs) is refused as it is when met first."""
    value = numpy_helper.from_array(np.array([2, 3], np.int64))
    nodes = [helper.make_node("Constant", [], [f"k{i}"], value=value) for i in range(3)]
    nodes += [helper.make_node("Concat", ["k0", "k1", "k2"], ["y"], axis=0)]
    graph = helper.make_graph(nodes, "consts", [], [helper.make_tensor_value_info(
        "y", I64, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    nodecache.CONSTANTS.clear()
    modelmemo.MODELS.clear()
    typed, reader = typed_model(model)
    assert len(nodecache.CONSTANTS) == 1
    assert reader.values["k0"] is reader.values["k1"] is reader.values["k2"]
    with pytest.raises(ValueError, match="read-only"):
        reader.values["k1"][0] = 7
    assert types(typed)["y"] == types(onnx.shape_inference.infer_shapes(model))["y"]
    assert [int(d.dim_value) for d in typed.graph.output[0].type.tensor_type.shape.dim] \
        == [6]
    for inputs, outputs in (([], ["a", "b"]), (["k0"], ["a"])):
        bad = helper.make_node("Constant", inputs, outputs, value=value)
        wrong = helper.make_model(helper.make_graph(
            [nodes[0], bad], "bad", [], [helper.make_tensor_value_info("a", I64, None)]),
            opset_imports=[helper.make_opsetid("", 21)])
        with pytest.raises(OnnxImportError, match="a Constant has one attribute"):
            typed_model(wrong)


def test_constants_of_a_value_read_before_are_written_without_a_record():
    """infer_shapes writes a Constant whose key (the bytes past its output and name) was
    read before straight from nodecache.CONSTANTS, without a record: the same types and
    the same shared value as the reader's own path (typed_model), and a node of that key
    that is no well-formed Constant (an input, two outputs), or whose output is assigned
    already, still refused as there."""
    value = numpy_helper.from_array(np.array([2, 3], np.int64))
    nodes = [helper.make_node("Constant", [], [f"k{i}"], value=value, name=f"c{i}")
             for i in range(4)]
    nodes += [helper.make_node("Concat", ["k0", "k1", "k2", "k3"], ["y"], axis=0)]

    def model(nodes: list) -> onnx.ModelProto:
        return helper.make_model(helper.make_graph(nodes, "consts", [], [
            helper.make_tensor_value_info("y", I64, None)]),
            opset_imports=[helper.make_opsetid("", 21)])

    nodecache.CONSTANTS.clear()
    nodecache.NODES.clear()
    modelmemo.MODELS.clear()
    typed = infer_shapes(model(nodes))
    assert len(nodecache.CONSTANTS) == 1 and len(nodecache.NODES) == 2  # (k0, Concat)
    assert typed == typed_model(model(nodes))[0]
    assert [int(d.dim_value) for d in typed.graph.output[0].type.tensor_type.shape.dim] == [8]
    for bad, message in ((helper.make_node("Constant", ["k0"], ["a"], value=value),
                          "a Constant has one attribute"),
                         (helper.make_node("Constant", [], ["a", "b"], value=value),
                          "a Constant has one attribute"),
                         (helper.make_node("Constant", [], ["k0"], value=value),
                          "k0")):
        wrong = model([nodes[0], bad, nodes[1], *nodes[2:4], nodes[4]])
        for reading in (infer_shapes, typed_model):
            modelmemo.MODELS.clear()
            with pytest.raises(OnnxImportError, match=message):
                reading(wrong)


def test_constants_written_without_a_record_are_found_by_their_bytes_when_met_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A Constant written from nodecache.CONSTANTS without a record is found by its
    bytes (nodecache.SHARED) when its model is read again node by node: its bytes are
    not decoded again, and every answer is the same, also after CONSTANTS is emptied
    (a value is read from there: SHARED holds only its key)."""
    value = numpy_helper.from_array(np.array([2, 3], np.int64))
    nodes = [helper.make_node("Constant", [], [f"k{i}"], value=value, name=f"c{i}")
             for i in range(4)]
    nodes += [helper.make_node("Concat", ["k0", "k1", "k2", "k3"], ["y"], axis=0)]
    model = helper.make_model(helper.make_graph(nodes, "consts", [], [
        helper.make_tensor_value_info("y", I64, None)]),
        opset_imports=[helper.make_opsetid("", 21)])
    for table in (nodecache.CONSTANTS, nodecache.NODES, nodecache.SHARED, modelmemo.MODELS):
        table.clear()
    first = infer_shapes(model)
    assert len(nodecache.SHARED) == 3  # (k1, k2, k3: k0 has its record)
    decoded = []
    real = nodecache._constant_parts
    monkeypatch.setattr(nodecache, "_constant_parts",
                        lambda data: decoded.append(data) or real(data))
    modelmemo.MODELS.clear()
    again = infer_shapes(model)
    assert decoded == []
    assert again == first == typed_model(model)[0]
    nodecache.CONSTANTS.clear()
    modelmemo.MODELS.clear()
    assert infer_shapes(model) == first


def test_a_returned_model_changed_by_its_caller_changes_no_later_answer():
    """The model memo keeps the value infos as bytes, the types written as bytes and the
    types read by their bytes: a copy the caller changes (its value infos, an output's
    type, a dim) shares none of them."""
    modelmemo.MODELS.clear()
    model = base(outputs=("y", "w"))
    want = typed_model(model)[0]
    for _ in range(3):
        out = infer_shapes(model)
        assert out == want
        out.graph.value_info[0].type.tensor_type.shape.dim[0].dim_param = "changed"
        out.graph.output[0].type.tensor_type.elem_type = I64
        del out.graph.value_info[1:]
        out.graph.input[0].type.tensor_type.shape.dim[1].dim_value = 99
    assert len(modelmemo.MODELS) == 1 and model == base(outputs=("y", "w"))


def test_models_typed_in_any_order_are_typed_as_each_alone():
    """Sixteen models that differ in a small initializer's value, a large one's data, an
    input's dims and an attribute, each typed twice in a shuffled order: every answer is
    the reading of every node's, whatever the memo holds from the others."""
    grid = [dict(small=s, big=b, shape=shape, to=to) for s in ((2, 4), (4, 2))
            for b in (1, 3) for shape in (("batch", "seq", 8), ("n", "seq", 8))
            for to in (F, TensorProto.DOUBLE)]
    want = [typed_model(base(**change))[0] for change in grid]
    assert len({want_one.SerializeToString() for want_one in want}) == 16
    order = [*range(16), *range(16)]
    np.random.default_rng(36).shuffle(order)
    modelmemo.MODELS.clear()
    for k in order:
        assert infer_shapes(base(**grid[k])) == want[k], grid[k]
    # the large initializer's data is not in the key: two models differing only in it
    # share one, and the data kept beside the typing tells them apart
    assert len(modelmemo.MODELS) == 8


def test_a_remembered_model_counts_its_nodes_and_small_initializers_bytes():
    """The memo's byte bound holds what it keeps: each entry's size counts the key's
    serialized nodes and small initializers (by field, whatever the key's order)."""
    modelmemo.MODELS.clear()
    model = base()
    infer_shapes(model)
    (key, typed), = modelmemo.MODELS.items()
    assert key.nodes == tuple(n.SerializeToString() for n in model.graph.node)
    assert typed.size >= sum(map(len, key.nodes)) + sum(map(len, key.small))


def _sequence_at() -> onnx.ModelProto:
    """The second of two tensors put in a sequence: float32[3] while the sequence's type
    lists its elements (at most sequence.MAX_ELEMENTS), else of unknown size."""
    nodes = [helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
             helper.make_node("SequenceAt", ["s", "one"], ["e"])]
    return helper.make_model(helper.make_graph(
        nodes, "seq", [helper.make_tensor_value_info("a", F, [2]),
                       helper.make_tensor_value_info("b", F, [3])],
        [helper.make_tensor_value_info("e", F, None)],
        [numpy_helper.from_array(np.array(1, np.int64), "one")]),
        opset_imports=[helper.make_opsetid("", 17)])


def _gathered_then_sliced() -> onnx.ModelProto:
    """``x[idx]`` with 8 known indices, then ``x[:8]``: the indices' interval (read from
    values of at most intervals.MAX_ELEMENTS elements) makes ``n >= 8`` a fact, so the
    slice is float32[8], else float32[min(8, n)]."""
    nodes = [helper.make_node("Gather", ["x", "idx"], ["g"], axis=0),
             helper.make_node("Slice", ["x", "zero", "eight"], ["s"])]
    return helper.make_model(helper.make_graph(
        nodes, "gather", [helper.make_tensor_value_info("x", F, ["n"])],
        [helper.make_tensor_value_info("s", F, None)],
        [numpy_helper.from_array(np.arange(8, dtype=np.int64), "idx"),
         numpy_helper.from_array(np.array([0]), "zero"),
         numpy_helper.from_array(np.array([8]), "eight")]),
        opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("module, limit, model", [
    (sequence, "MAX_ELEMENTS", _sequence_at), (intervals, "MAX_ELEMENTS",
                                               _gathered_then_sliced)])
def test_a_model_typed_after_a_limit_changed_is_typed_anew(monkeypatch, module, limit,
                                                           model):
    """A limit a caller may set is in the memo's key: a model typed again after it
    changed gets the reading at the new limit, not the one remembered at the old."""
    modelmemo.MODELS.clear()
    before = infer_shapes(model())
    assert before == typed_model(model())[0]
    monkeypatch.setattr(module, limit, 1)
    after = infer_shapes(model())
    assert after == typed_model(model())[0]
    assert types(after) != types(before)  # the limit decides the answer


def test_a_model_typed_under_other_dtype_rules_is_typed_anew(monkeypatch):
    """The dtype rules are in every memo's key (the model memo, the node memo, the
    slots and templates): NumPy's (``numpy_rules()``, eval_shape's) have the default
    float64 too, so a key of the default dtype alone took a typing made under
    ``default_dtype("float64")`` inside ``numpy_rules()``. Each reading under new rules
    builds its nodes again, and each answer is typed_model's (every node read afresh)."""
    builds = []
    build = importer_module._Reader.build

    def counted(self, *args):
        builds.append(1)
        return build(self, *args)

    monkeypatch.setattr(importer_module._Reader, "build", counted)
    model = base()
    counts = []
    for rules in (kt.default_dtype("float64"), dt.numpy_rules(), dt.numpy_rules(),
                  kt.default_dtype("float64")):
        modelmemo.MODELS.clear()  # (the node memos answer, not the model memo)
        builds.clear()
        with rules:
            got = infer_shapes(model)
            counts.append((dt.rules_key(), len(builds)))
            assert got == typed_model(model)[0]
    assert counts[0][1] > 0 and counts[1][1] == counts[0][1]  # numpy's: built anew
    assert counts[2][1] < counts[1][1] and counts[3][1] < counts[0][1]  # (remembered)
    assert [k for k, _ in counts] == ["float64", "numpy", "numpy", "float64"]
