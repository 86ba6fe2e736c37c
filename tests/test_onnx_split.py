"""A model's nodes and graph inputs cut from one serialization of it (kantensor.onnx.split):
each cut is exactly the bytes protobuf's ``SerializeToString`` gives that node or input
alone, the copy parsed from the whole is the model (protobuf's equality and bytes), and
``infer_shapes`` writes the same model whether it cuts or serializes each node alone."""

from __future__ import annotations

import warnings

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from kantensor.onnx import (
    UnsupportedType,
    infer_shapes,
    modelmemo,
    nodecache,
    shapes,
    split,
    typebytes,
)
from kantensor.onnx.importer import _Reader
from kantensor.onnx.loading import OnnxImportError
from kantensor.onnx.modelfile import open_model

NAMES = st.text(min_size=0, max_size=150)  # (any text: lengths past 127 take two bytes)
SIZES = st.one_of(st.integers(0, 200), st.integers(16300, 16500), st.just(2**40),
                  st.text("abcn", min_size=1, max_size=3))


ELEMENTS = st.sampled_from([TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL])


@st.composite
def infos(draw, names=NAMES) -> onnx.ValueInfoProto:
    """A graph input: most often as ``make_tensor_value_info`` makes one (a name and a
    tensor type, both stated), else built by hand, its name and its type each stated or
    not (a type a tensor's, a sequence's, or stated empty), perhaps with a doc string
    after them."""
    def tensor() -> onnx.TypeProto:
        return helper.make_tensor_type_proto(draw(ELEMENTS), draw(
            st.one_of(st.none(), st.lists(SIZES, max_size=6))))
    if draw(st.booleans()):
        return helper.make_tensor_value_info(draw(names), draw(ELEMENTS), draw(
            st.one_of(st.none(), st.lists(SIZES, max_size=6))))
    info = onnx.ValueInfoProto()
    if draw(st.booleans()):
        info.name = draw(names)
    kind = draw(st.sampled_from(["none", "tensor", "sequence", "empty"]))
    if kind == "tensor":
        info.type.CopyFrom(tensor())
    elif kind == "sequence":
        info.type.CopyFrom(helper.make_sequence_type_proto(tensor()))
    elif kind == "empty":
        info.type.SetInParent()  # (stated, of no field: its bytes empty)
    if draw(st.booleans()):
        info.doc_string = draw(names)
    return info


@st.composite
def models(draw) -> onnx.ModelProto:
    """A model of drawn nodes (names, op types, domains, attributes of any text) and
    graph inputs (:func:`infos`: names, element types, shapes, a name or a type left
    out): protobuf's bytes and reading of each are the oracle, whatever kantensor makes
    of the model."""
    inputs = draw(st.lists(infos(), max_size=6))
    nodes = []
    for _ in range(draw(st.integers(0, 8))):
        node = helper.make_node(draw(st.sampled_from(["Relu", "Add", "MatMul", "Custom"])),
                                draw(st.lists(NAMES, max_size=4)),
                                draw(st.lists(NAMES, min_size=1, max_size=3)),
                                name=draw(NAMES), domain=draw(st.sampled_from(["", "x.y"])))
        if draw(st.booleans()):
            node.attribute.append(helper.make_attribute(draw(NAMES) or "a",
                                                        draw(st.integers(-5, 2**40))))
        nodes.append(node)
    graph = helper.make_graph(nodes, draw(NAMES), inputs, [], initializer=[
        numpy_helper.from_array(np.zeros(draw(st.integers(0, 40)), np.float32), "k")]
        if draw(st.booleans()) else [])
    if draw(st.booleans()):
        graph.doc_string = draw(NAMES)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@given(models())
@settings(max_examples=200, deadline=None)
def test_each_cut_is_the_bytes_protobuf_serializes_it_to(model):
    graph = model.graph
    found = split.cut(model, len(graph.node), len(graph.input))
    assert found is not None
    whole, nodes, inputs = found
    assert whole == model.SerializeToString()
    assert nodes == [node.SerializeToString() for node in graph.node]
    stated = all(info.HasField("name") and info.HasField("type") for info in graph.input)
    assert inputs == (([info.name for info in graph.input],
                       [info.type.SerializeToString() for info in graph.input])
                      if stated else None)
    if inputs is not None:  # (each type read from its bytes as from the input's)
        assert typebytes.held_types(inputs[1]) == typebytes.tensor_types(list(graph.input))
    copy = split.copied(whole)
    assert copy == model and copy.SerializeToString() == model.SerializeToString()


def test_a_count_that_is_not_the_graphs_cuts_or_lists_nothing():
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], []))
    assert split.cut(model, 1, 1) is not None
    assert split.cut(model, 2, 1) is None
    assert split.cut(model, 1, 0)[2] is None  # (the inputs not listed)


def _chain(blocks: int, data: int = 0, dtype: int = TensorProto.FLOAT) -> onnx.ModelProto:
    """MatMul -> Add -> Relu blocks of widths i+2 to i+3 (every block typed differently),
    and an initializer of ``data`` elements (of ``dtype``) that no node reads."""
    x, nodes = "x", []
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])]
    for i in range(blocks):
        inputs += [helper.make_tensor_value_info(f"w{i}", TensorProto.FLOAT, [i + 2, i + 3]),
                   helper.make_tensor_value_info(f"c{i}", TensorProto.FLOAT, [i + 3])]
        nodes += [helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"], name=f"m{i}"),
                  helper.make_node("Add", [f"m{i}", f"c{i}"], [f"a{i}"]),
                  helper.make_node("Relu", [f"a{i}"], [f"r{i}"])]
        x = f"r{i}"
    held = [helper.make_tensor("k", dtype, [data], [b"s"] * data if dtype ==
                               TensorProto.STRING else [0.0] * data)] if data else []
    return helper.make_model(helper.make_graph(
        nodes, "chain", inputs, [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)],
        initializer=held), opset_imports=[helper.make_opsetid("", 18)])


def _cut_by(model: onnx.ModelProto) -> bool:
    """Whether infer_shapes' reading of ``model`` cuts its bytes (first, before any
    input is checked: also where its inputs are refused)."""
    source, tensors = open_model(model)
    reader = _Reader(source, tensors, graph=False)
    try:
        reader.read_sources(variables=False, cut=True)
    except (OnnxImportError, UnsupportedType):
        pass
    return reader.cut is not None


def test_a_model_of_much_data_is_not_serialized_whole():
    assert _cut_by(_chain(3)) and _cut_by(_chain(3, split.CUT_ELEMENTS))
    assert not _cut_by(_chain(3, split.CUT_ELEMENTS + 1))
    assert not _cut_by(_chain(3, 1, TensorProto.STRING))  # (a string of any length)


def _forgotten() -> None:
    """Every table a reading of another model of the same nodes would find, emptied."""
    for table in (nodecache.NODES, modelmemo.MODELS, shapes._TYPES, shapes._INFOS,
                  shapes._INFO_TYPES):
        table.clear()


def _typed(model: onnx.ModelProto, limit: int) -> bytes | tuple[str, str]:
    """``infer_shapes``' model of ``model`` (or its error's type and text), its reading
    cut where ``limit`` is :data:`~kantensor.onnx.split.CUT_ELEMENTS` (else each
    graph input's object read, as before the cut listed them), every table emptied."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(split, "CUT_ELEMENTS", limit)
        assert _cut_by(model) == (limit >= 0)
        _forgotten()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return infer_shapes(model).SerializeToString()
            except (OnnxImportError, UnsupportedType) as exc:
                return type(exc).__name__, str(exc)


@given(st.lists(infos(st.sampled_from(["", "v"])), min_size=1, max_size=4))
@settings(max_examples=150, deadline=None)
def test_inputs_without_a_name_or_a_type_type_as_their_objects_read(inputs):
    """A graph input that states no name or no type is not listed by the cut (protobuf
    lists the names and types stated: fewer than the inputs), and the model is typed as
    where each input's object is read: the same bytes, or the same error."""
    for k, info in enumerate(inputs):
        if info.name:  # (each name its own; an empty one, stated or not, may be twice)
            info.name = f"v{k}"
    outputs = sorted({info.name for info in inputs if info.name})
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Identity", [name], [f"{name}_out"]) for name in outputs], "g",
        inputs, [helper.make_value_info(f"{name}_out", onnx.TypeProto())
                 for name in outputs]), opset_imports=[helper.make_opsetid("", 18)])
    stated = all(info.HasField("name") and info.HasField("type") for info in inputs)
    listed = split.cut(model, len(model.graph.node), len(inputs))[2]
    assert (listed is not None) == stated
    if listed is not None:
        assert listed == ([info.name for info in inputs],
                          [info.type.SerializeToString() for info in inputs])
    assert _typed(model, split.CUT_ELEMENTS) == _typed(model, -1)


@pytest.mark.parametrize("blocks", [1, 40, 150])
def test_infer_shapes_writes_the_same_model_cut_or_node_by_node(blocks, monkeypatch):
    model = _chain(blocks)
    readings = []
    for limit in (split.CUT_ELEMENTS, -1):  # (cut, then each node serialized alone)
        monkeypatch.setattr(split, "CUT_ELEMENTS", limit)
        assert _cut_by(model) == (limit >= 0)
        _forgotten()
        first = infer_shapes(model).SerializeToString()
        again = infer_shapes(model).SerializeToString()  # (the model memo's hit)
        modelmemo.MODELS.clear()
        nodes = infer_shapes(model.SerializeToString()).SerializeToString()  # (records)
        readings.append((first, again, nodes))
    assert readings[0] == readings[1]
    assert len(set(readings[0])) == 1
    assert model.graph.value_info == []  # (the model given is left as it was)
