"""Many nodes' op types and names read at once from their bytes (kantensor.onnx.nodenames):
each node's op type, input names and its one output's name are exactly protobuf's
reading of that node (``op_type``, ``input[:]``, ``output``), for nodes of every field
layout, attributes, domains, empty names and field orders protobuf writes or only
parses; bytes it would not read so (a name not ASCII, a field not length-delimited, no
op type or two) are left unread; and ``infer_shapes`` writes the same model whether the
names are read so or node by node."""

from __future__ import annotations

import random
import warnings

import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from kantensor.onnx import (
    generic,
    infer_shapes,
    modelmemo,
    nodecache,
    nodememo,
    nodenames,
    nodeslot,
)

ASCII = st.text(st.characters(min_codepoint=0, max_codepoint=127), max_size=20)
ANY = st.text(max_size=12)  # (not ASCII at times: then not read so)


@st.composite
def nodes(draw, names=ASCII) -> onnx.NodeProto:
    """A node as make_node makes one: inputs (some empty), outputs (none, one or more),
    perhaps a name, a domain, a doc string and attributes."""
    kwargs = {}
    if draw(st.booleans()):
        kwargs["domain"] = draw(names)
    if draw(st.booleans()):
        kwargs["doc_string"] = draw(names)
    if draw(st.booleans()):
        kwargs["axis"] = draw(st.integers(-3, 3))
    if draw(st.booleans()):
        kwargs["axes"] = draw(st.lists(st.integers(0, 5), min_size=1, max_size=4))
    return helper.make_node(draw(names), draw(st.lists(names, max_size=5)),
                            draw(st.lists(names, max_size=3)),
                            name=draw(st.one_of(st.none(), names)), **kwargs)


def _protobufs(data: list[bytes]) -> tuple | None:
    """protobuf's reading of each node's op type and names (the oracle), as names_of lists
    them: per node its op type (None for a node not all ASCII: not read so), every
    node's inputs in one list and where each node's begin, per node its one output (None
    where it has not one); None for none read so."""
    read = [onnx.NodeProto.FromString(d) for d in data]
    if not any(d.isascii() for d in data):
        return None
    op_types, given, starts, outputs = [], [], [0], []
    for node, d in zip(read, data, strict=True):
        ascii = d.isascii()
        op_types.append(node.op_type if ascii else None)
        given += node.input[:] if ascii else []
        starts.append(len(given))
        outputs.append(node.output[0] if ascii and len(node.output) == 1 else None)
    return op_types, given, starts, outputs


def _op_types(data: list[bytes]) -> list[int]:
    """How many op type fields each node's bytes state (walked by hand: ASCII bytes of
    length-delimited fields, each key and length one byte)."""
    counts = []
    for d in data:
        k = n = 0
        while k + 1 < len(d):
            n += d[k] == 4 << 3 | 2
            k += 2 + d[k + 1]
        counts.append(n)
    return counts


def _expected(data: list[bytes]) -> list | None:
    """What names_of must give: protobuf's reading, or None where an ASCII node states
    no op type or two."""
    ascii = [d for d in data if d.isascii()]
    if any(n != 1 for n in _op_types(ascii)):
        return None
    return _protobufs(data)


@settings(max_examples=200, deadline=None)
@given(st.lists(nodes(), max_size=12))
def test_names_are_protobufs(made):
    data = [n.SerializeToString() for n in made]
    assert nodenames.names_of(data) == _expected(data)


@settings(max_examples=200, deadline=None)
@given(st.lists(nodes(ANY), min_size=1, max_size=6))
def test_any_text_read_or_left(made):
    """Names of any text: a node not all ASCII is left to protobuf, the others read."""
    data = [n.SerializeToString() for n in made]
    assert nodenames.names_of(data) == _expected(data)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, 2, 3, 4]), ASCII), max_size=12),
       st.integers(1, 4))
def test_fields_in_any_order(fields, cut):
    """Bytes protobuf parses but does not write: inputs and outputs interleaved, a name
    or op type stated twice; cut into two nodes anywhere between fields."""
    pieces = [bytes([number << 3 | 2, len(text)]) + text.encode() for number, text in fields]
    data = [b"".join(pieces[:cut]), b"".join(pieces[cut:])]
    assert nodenames.names_of(data) == _expected(data)


def test_other_wire_types_left_unread():
    node = helper.make_node("Relu", ["x"], ["y"]).SerializeToString()
    varint = bytes([15 << 3 | 0, 5])  # (an unknown field of a varint: protobuf reads the
    # node, whose fields are not walked so)
    assert onnx.NodeProto.FromString(node + varint).input[:] == ["x"]
    assert nodenames.names_of([node, node + varint]) is None
    assert nodenames.names_of([node, node[:-1]]) is None  # (a field cut short)
    assert nodenames.names_of([node] * 3) == (["Relu"] * 3, ["x"] * 3, [0, 1, 2, 3],
                                              ["y"] * 3)
    two = helper.make_node("Relu", ["x"], ["y"]).SerializeToString() + b"\x22\x04Relu"
    assert onnx.NodeProto.FromString(two).op_type == "Relu"  # (stated twice: not read so)
    assert nodenames.names_of([node, two]) is None
    assert nodenames.names_of([node, b"\x0a\x01x\x12\x01y"]) is None  # (no op type)


def test_nodes_of_many_fields_walked_within_the_budget():
    """Nodes of many fields each (unknown fields protobuf keeps): one among many is read
    as protobuf reads it (only the nodes not yet at their end walked); many, past
    WALKED fields each on average, are left to protobuf, as those past FIELDS are."""
    node = helper.make_node("Relu", ["x"], ["y"]).SerializeToString()
    wide = node + b"\x1a\x00" * (nodenames.FIELDS - 4)  # (name stated again and again)
    one = [node] * nodenames.NAMES_AT + [wide]
    assert nodenames.names_of(one) == _protobufs(one)
    assert nodenames.names_of([node] * 3 + [wide]) == _protobufs([node] * 3 + [wide])
    fair = node + b"\x1a\x00" * (nodenames.WALKED - 3)  # (WALKED fields: read)
    many = 2 * nodenames.FIELDS  # (past the budget's slack of FIELDS fields)
    assert nodenames.names_of([fair] * many) == _protobufs([fair] * many)
    assert nodenames.names_of([fair + b"\x1a\x00"] * many) is None
    assert nodenames.names_of([wide] * nodenames.NAMES_AT) is None


def _chain(blocks: int, attribute: bool) -> onnx.ModelProto:
    """Blocks MatMul -> Add -> Relu (or Softmax of an axis) that all differ (as
    benchmarks/onnx_distinct.py's), one node asking two outputs, one a domain."""
    made, inputs = [], [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])]
    x = "x"
    for i in range(blocks):
        inputs += [helper.make_tensor_value_info(f"w{i}", TensorProto.FLOAT, [i + 2, i + 3]),
                   helper.make_tensor_value_info(f"c{i}", TensorProto.FLOAT, [i + 3])]
        made += [helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"]),
                 helper.make_node("Add", [f"m{i}", f"c{i}"], [f"a{i}"],
                                  domain="ai.onnx" if i == blocks // 2 else None),
                 helper.make_node("Softmax", [f"a{i}"], [f"r{i}"], axis=-1) if attribute
                 else helper.make_node("Relu", [f"a{i}"], [f"r{i}"])]
        x = f"r{i}"
    made.append(helper.make_node("Split", [x], ["s0", "s1"], axis=0, num_outputs=2))
    graph = helper.make_graph(made, "chain", inputs,
                              [helper.make_tensor_value_info("s0", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _typed(model: onnx.ModelProto) -> bytes:
    """``infer_shapes``' model of ``model``, every memo emptied first."""
    for table in (generic.TEMPLATES, generic.PINNED, nodememo.MEMO, nodecache.NODES,
                  modelmemo.MODELS):
        table.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return infer_shapes(model).SerializeToString()


@pytest.mark.parametrize("attribute", [False, True])
def test_typed_models_the_same(monkeypatch, attribute):
    """The chain typed with its names read at once (the nodes typed at first sight
    without their protobuf objects) and node by node through protobuf: the same model."""
    model = _chain(nodenames.NAMES_AT // 3 + 2, attribute)
    data = [n.SerializeToString() for n in model.graph.node]
    assert nodenames.names_of(data) == _protobufs(data)  # (read so)
    real, run, typed = nodeslot.flat_typed, nodeslot.typed_run, []

    def counted(*args):
        found = real(*args)
        typed.append(found is True)
        return found

    def counted_run(*args):
        found = run(*args)
        typed.extend([True] * found)
        return found
    monkeypatch.setattr(nodeslot, "flat_typed", counted)
    monkeypatch.setattr(nodeslot, "typed_run", counted_run)
    read = _typed(model)
    assert sum(typed) > nodenames.NAMES_AT // 2
    monkeypatch.setattr(nodeslot, "names_of", lambda serialized: None)
    typed.clear()
    assert _typed(model) == read
    assert not typed


def _broken_chain(blocks: int, seed: int) -> onnx.ModelProto:
    """The chain of _chain, with nodes that no template types at first sight spread at
    random: a Constant, a node of an op type met nowhere else, one of a domain, of an
    attribute, of an empty output name or of a name typed already (the model then
    refused)."""
    rng = random.Random(seed)
    model = _chain(blocks, False)
    nodes = list(model.graph.node)
    for _ in range(rng.randrange(1, 6)):
        k = rng.randrange(1, len(nodes) - 1)
        node = nodes[k]
        kind = rng.choice([0, 0, 1, 1, 2, 2, 3, 4, 5])  # (4, 5: the model refused)
        if kind == 0:  # (a Constant beside the chain)
            nodes.insert(k, helper.make_node("Constant", [], [f"k{k}"], value_float=1.0))
        elif kind == 1:  # (a node beside the chain, of an op type met nowhere else)
            nodes.insert(k, helper.make_node("Identity", [nodes[k - 1].output[0]],
                                             [f"i{k}"]))
        elif kind == 2:
            node.domain = "ai.onnx"
        elif kind == 3:  # (an attribute it does not take: the model refused)
            node.attribute.append(helper.make_attribute("axis", 0))
        elif kind == 4:  # (its output unnamed: a later node's input is then no value)
            node.output[0] = ""
        else:  # (its output's name given twice: refused)
            node.output[0] = nodes[k - 1].output[0]
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    return model


def _typed_or_error(model: onnx.ModelProto) -> bytes | tuple[str, str]:
    try:
        return _typed(model)
    except Exception as exc:  # (the same error either way: its type and text)
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("seed", range(12))
def test_runs_broken_anywhere_type_as_node_by_node(monkeypatch, seed):
    """Nodes that break a run of nodes typed at first sight (typed_run) anywhere in the
    chain: the same model, or the same error, as with each node read through protobuf."""
    model = _broken_chain(nodenames.NAMES_AT // 3 + 2, seed)
    read = _typed_or_error(model)
    monkeypatch.setattr(nodeslot, "names_of", lambda serialized: None)
    assert _typed_or_error(model) == read


def _custom_domain(node: onnx.NodeProto) -> None:
    node.domain = "com.example"  # (a node of a custom domain: no template of onnx's)


def _raw_attribute(node: onnx.NodeProto) -> None:
    # (an attribute without its type field, as a writer other than onnx's may leave it:
    # ASCII, unlike helper.make_attribute's, so the node stays on the fast path)
    node.attribute.add().ParseFromString(b"\x0a\x04axis\x18\x00")


def _one_input_more(node: onnx.NodeProto) -> None:
    node.input.append(node.input[0])  # (one input more than its op type's template)


@pytest.mark.parametrize("change", [_custom_domain, _raw_attribute, _one_input_more])
@pytest.mark.parametrize("at", [152, 155])
def test_a_node_unlike_its_template_types_as_node_by_node(monkeypatch, change, at):
    """A node of the chain (within a run typed at first sight, or first after one)
    of a custom domain, of an ASCII attribute, or of one input more than its template:
    the same model, or the same error, as with each node read through protobuf."""
    model = _chain(nodenames.NAMES_AT // 3 + 2, False)
    change(model.graph.node[at])
    assert model.graph.node[at].SerializeToString().isascii()  # (read at once)
    read = _typed_or_error(model)
    monkeypatch.setattr(nodeslot, "names_of", lambda serialized: None)
    assert _typed_or_error(model) == read
