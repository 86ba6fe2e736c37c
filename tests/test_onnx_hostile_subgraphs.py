"""Hostile ONNX models whose weight is in their subgraphs (If branches, Loop and Scan
bodies): every bound of the main graph holds inside them (ranks, a size's nesting, the
entries of a shape input, initializers' data, external data, names assigned once), and
the readings of nested bodies are bounded by the model's size (scope.READS_PER_NODE).
Each hostile file is made by the test."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from bounded import run_cases
from kantensor.onnx import UnsupportedOp, contract, from_onnx, importer, infer_shapes, scope, unread
from kantensor.onnx.loading import OnnxImportError

F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64


def info(name, elem=F, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def in_if(nodes, result, inits=(), shape=("n",)):
    """``y = If(c)``, both branches ``nodes`` (renamed apart) giving ``result``; x:
    float32[*shape] and c: bool are graph inputs the branches capture."""
    def branch(tag):
        copies = []
        for node in nodes:
            copy = helper.make_node(node.op_type, [_renamed(n, tag, nodes) for n in node.input],
                                    [f"{tag}_{o}" for o in node.output])
            copy.attribute.extend(node.attribute)
            copies.append(copy)
        renamed = [numpy_helper.from_array(numpy_helper.to_array(t), f"{tag}_{t.name}")
                   for t in inits]
        return helper.make_graph(copies, tag, [], [info(f"{tag}_{result}")], renamed)
    node = helper.make_node("If", ["c"], ["y"], then_branch=branch("t"),
                            else_branch=branch("e"))
    return model([node], [info("x", F, list(shape)), info("c", B, [])], [info("y")])


def _renamed(name, tag, nodes):
    inside = {o for n in nodes for o in n.output}
    return f"{tag}_{name}" if name in inside or name.startswith("k_") else name


def _both(m, *fragments, error=OnnxImportError):
    for read in (from_onnx, infer_shapes):
        with pytest.raises(error) as caught:
            read(m)
        for fragment in fragments:
            assert fragment in str(caught.value), str(caught.value)


def test_a_rank_grown_in_a_branch_is_refused():
    """Unsqueeze chains add 30 axes a node; the 64-axis bound holds in a branch too."""
    axes = numpy_helper.from_array(np.arange(30, dtype=np.int64), "k_axes")
    nodes, previous = [], "x"
    for i in range(4):
        nodes.append(helper.make_node("Unsqueeze", [previous, "k_axes"], [f"u{i}"]))
        previous = f"u{i}"
    _both(in_if(nodes, previous, [axes]), "(Unsqueeze): output 0 would have 91 axes, "
          "at most 64")


def test_a_size_nested_in_a_loop_body_is_refused():
    """The min()s and floors a Concat, Slice-to-Shape(y) by a step of 2, Concat chain
    nests: past 32 levels in a Loop's body, as in the main graph."""
    nodes, previous = [helper.make_node("Shape", ["w"], ["m"])], "x_in"
    for i in range(40):
        nodes += [helper.make_node("Concat", [previous, previous], [f"c{i}"], axis=0),
                  helper.make_node("Slice", [f"c{i}", "k_st", "m", "k_st", "k_two"],
                                   [f"s{i}"]),
                  helper.make_node("Concat", [f"s{i}", "k_one"], [f"u{i}"], axis=0)]
        previous = f"u{i}"
    nodes += [helper.make_node("Identity", ["c_in"], ["c_out"]),
              helper.make_node("Identity", [previous], ["x_out"])]
    body = helper.make_graph(nodes, "body", [info("i", I64, []), info("c_in", B, []),
                                             info("x_in", F, None)],
                             [info("c_out", B, []), info("x_out")],
                             [numpy_helper.from_array(np.array([0], np.int64), "k_st"),
                              numpy_helper.from_array(np.array([2], np.int64), "k_two"),
                              numpy_helper.from_array(np.zeros([1], np.float32), "k_one")])
    loop = helper.make_node("Loop", ["", "c", "x"], ["y"], body=body)
    m = model([loop], [info("x", F, ["n"]), info("w", F, ["m"]), info("c", B, [])],
              [info("y")])
    _both(m, "(Concat): output 0 axis 0 would be 2*((min(2*((min(", "a size nested 33 "
          "levels deep, at most 32")


@pytest.mark.parametrize("k", [300, 2**31])
def test_a_shape_input_claiming_many_entries_in_a_branch_is_refused(k):
    shape = info("s", I64, [k])
    node = helper.make_node("Reshape", ["x", "s"], ["r"])
    branch = helper.make_graph([node], "b", [], [info("r")])
    m = model([helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)],
              [info("x", F, ["n"]), shape, info("c", B, [])], [info("y")])
    _both(m, f"input 1 (shape) is int64[{k}]; an input whose value decides the types has "
          "at most 256 entries")


def test_a_branch_initializer_claiming_more_values_than_it_holds_is_refused():
    claimed = TensorProto(name="w", data_type=F, dims=[2**40])
    branch = helper.make_graph([helper.make_node("Add", ["x", "w"], ["r"])], "b", [],
                               [info("r")], [claimed])
    m = model([helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)],
              [info("x", F, ["n"]), info("c", B, [])], [info("y")])
    _both(m, "initializer 'w': holds 0 float_data entries, its dims (1099511627776,) need "
          "1099511627776")


def test_external_data_of_a_branch_initializer_follows_the_models_folder(tmp_path,
                                                                         monkeypatch):
    (tmp_path / "secret.txt").write_bytes(b"s" * 8)
    monkeypatch.chdir(tmp_path)  # the working directory holds the decoy
    folder = tmp_path / "models"
    folder.mkdir()

    def leaky(location):
        weight = TensorProto(name="w", data_type=TensorProto.UINT8, dims=[8],
                             data_location=TensorProto.EXTERNAL)
        entry = weight.external_data.add()
        entry.key, entry.value = "location", location
        branch = helper.make_graph([helper.make_node("Identity", ["w"], ["r"])], "b", [],
                                   [info("r", TensorProto.UINT8)], [weight])
        m = model([helper.make_node("If", ["c"], ["y"], then_branch=branch,
                                    else_branch=branch)],
                  [info("c", B, [])], [info("y", TensorProto.UINT8)])
        path = folder / "m.onnx"
        path.write_bytes(m.SerializeToString())
        return m, str(path)

    m, path = leaky("secret.txt")
    _both(m, "initializer 'w': its data is in the external file 'secret.txt', but the "
          "model was given as a ModelProto, which names no folder")
    _both(path, "its external data 'secret.txt' cannot be opened: No such file",
          f"(in {str(folder)!r})")
    _both(leaky("../secret.txt")[1], "external data at a location with '..'")
    (folder / "secret.txt").write_bytes(bytes(range(8)))  # its own data: read
    (_c,), (y,) = from_onnx(leaky("secret.txt")[1])
    assert str(y.type) == "uint8[8]"


def test_a_name_assigned_twice_in_a_body_is_refused_naming_it():
    branch = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]),
                                helper.make_node("Neg", ["x"], ["r"])], "b", [], [info("r")])
    m = model([helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)],
              [info("x", F, ["n"]), info("c", B, [])], [info("y")])
    _both(m, "(Neg): its output 'r' is assigned already, by node 'Relu -> r' (Relu)")
    shadow = helper.make_graph([helper.make_node("Relu", ["x"], ["x"])], "b", [], [info("x")])
    m = model([helper.make_node("If", ["c"], ["y"], then_branch=shadow, else_branch=shadow)],
              [info("x", F, ["n"]), info("c", B, [])], [info("y")])
    _both(m, "its output 'x' is assigned already, by the graph around this subgraph")


def nested_loops(depth, width):
    """Loops nested ``depth`` deep, each body ``width`` nodes whose carried value grows
    (a Concat), so each body is read several times (its symbolic typing, the fixpoint,
    the function it runs as)."""
    def body(level):  # (names unique across the model's graphs, as ONNX requires)
        c_in, c_out, x_in, x_out = (f"{n}{level}" for n in ("c_in", "c_out", "x_in", "x_out"))
        nodes = [helper.make_node("Identity", [c_in], [c_out]),
                 helper.make_node("Concat", [x_in, x_in], [f"r{level}_0"], axis=0)]
        for i in range(1, width):
            nodes.append(helper.make_node("Relu", [f"r{level}_{i - 1}"], [f"r{level}_{i}"]))
        previous = f"r{level}_{width - 1}"
        if level > 1:
            nodes.append(helper.make_node("Loop", ["", c_in, previous], [f"in{level}"],
                                          body=body(level - 1)))
            previous = f"in{level}"
        nodes.append(helper.make_node("Identity", [previous], [x_out]))
        return helper.make_graph(nodes, f"body{level}",
                                 [info(f"i{level}", I64, []), info(c_in, B, []), info(x_in)],
                                 [info(c_out, B, []), info(x_out)])
    loop = helper.make_node("Loop", ["M", "c", "x"], ["y"], body=body(depth), name="outer")
    return model([loop], [info("M", I64, []), info("c", B, []), info("x", F, ["n"])],
                 [info("y")])


def test_nested_bodies_are_read_within_a_budget_linear_in_the_model(monkeypatch):
    """Each level of nesting read its body about three times over: 8 levels of 10 nodes
    took 9,732 node readings at 5 levels and 3**8 times a body's at 8. Now every model's
    subgraphs take at most READS_PER_NODE readings per node of the model (MIN_READS at
    least); past it a node's subgraphs are left untyped (partial typing)."""
    readings = []
    typed_node = importer._Reader.typed_node

    def counted(self, node, rec):
        readings.append(self.depth)
        return typed_node(self, node, rec)

    monkeypatch.setattr(importer._Reader, "typed_node", counted)
    monkeypatch.setattr(scope, "MIN_READS", 200)
    m = nested_loops(8, 10)
    nodes = scope.nodes_in(m.graph)
    assert nodes == 7 * 13 + 12 + 1
    with pytest.raises(UnsupportedOp, match=r"output 'y' is not typed: .*the model's "
                       r"subgraphs would be read past 832 node readings in all \(8 per "
                       "node of the model"):
        from_onnx(m)
    assert sum(1 for d in readings if d > 0) <= 8 * nodes + 12  # (a body's last nodes)
    readings.clear()
    typed = infer_shapes(m)
    assert [o.name for o in typed.graph.output] == ["y"]
    assert "y" not in {v.name for v in typed.graph.value_info}
    assert sum(1 for d in readings if d > 0) <= 8 * nodes + 12
    monkeypatch.setattr(scope, "MIN_READS", 1 << 14)
    assert str(from_onnx(nested_loops(2, 10))[1][0].type) == "float32[?]"


def test_a_body_read_many_times_is_planned_for_its_notes_once(monkeypatch):
    """The notes of values computed from sizes but not known (onnx/unread.py) walk a
    subgraph's structure (names read from around it, through its own subgraphs; entries;
    value inputs) once per model, not at each of its reads: it took 36-43% of the
    contract of nested Loops (1,328 reads of 9 bodies at depth 8)."""
    planned, reads = [], []
    plan, graph_unread = unread._plan, unread.graph_unread

    def counted_plan(graph, opset):
        planned.append(graph.name)
        return plan(graph, opset)

    def counted_read(graph, reader):
        reads.append(graph.name)
        return graph_unread(graph, reader)

    monkeypatch.setattr(unread, "_plan", counted_plan)
    monkeypatch.setattr(scope, "graph_unread", counted_read)
    contract(nested_loops(5, 10))
    assert sorted(planned) == ["body1", "body2", "body3", "body4", "body5", "g"]
    assert len(reads) > 100


def test_nested_bodies_take_bounded_time_at_the_default_budget():
    """Typed in a forked child whose own deadline (60 s, generous: "Hang" past it) bounds
    the work; the readings budget bounds the nodes read (the test above). No wall-clock
    seconds are compared: a loaded machine takes several times a quiet one's."""
    records, _ = run_cases([nested_loops(8, 10).SerializeToString()],
                           lambda data: infer_shapes(data) and None, deadline=60)
    assert records[0]["outcome"] == "ok", records


def _field(message, name, payload):
    """The wire bytes of field ``name`` of ``message`` (a protobuf class) holding
    ``payload`` (bytes: a length-delimited field; int: a varint)."""
    number = message.DESCRIPTOR.fields_by_name[name].number
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _varint(value):
    out = bytearray()
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def test_subgraphs_nested_past_protobufs_limit_are_no_model():
    """Ifs nested 200 deep (made as wire bytes: onnx's helpers cannot copy them) are
    refused as no model: protobuf stops parsing past its depth limit (100)."""
    graph = b""
    for _ in range(200):
        branch = _field(onnx.AttributeProto, "name", b"then_branch") + \
            _field(onnx.AttributeProto, "type", onnx.AttributeProto.GRAPH) + \
            _field(onnx.AttributeProto, "g", graph)
        node = _field(onnx.NodeProto, "input", b"c") + \
            _field(onnx.NodeProto, "output", b"r") + \
            _field(onnx.NodeProto, "op_type", b"If") + \
            _field(onnx.NodeProto, "attribute", branch)
        graph = _field(onnx.GraphProto, "node", node)
    opset = _field(onnx.OperatorSetIdProto, "version", 17)
    data = _field(onnx.ModelProto, "ir_version", 8) + \
        _field(onnx.ModelProto, "opset_import", opset) + _field(onnx.ModelProto, "graph", graph)
    for read in (from_onnx, infer_shapes):
        with pytest.raises(OnnxImportError, match="not an ONNX model"):
            read(data)
