"""The importer's own reads and writes of protobuf bytes (kantensor.onnx.wire): types
written as bytes are exactly what protobuf writes for the TypeProto onnx.helper builds,
and a type read from a value's bytes is exactly what reading its fields through protobuf
gives (the same type, or no answer so that protobuf's reading says what is wrong)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from kantensor.onnx import infer_shapes, loading, protos, typebytes
from kantensor.onnx.dtypes import DTYPES, ELEM_TYPES
from kantensor.onnx.loading import MAX_RANK, shown
from kantensor.onnx.shapes import type_bytes, typed_model
from kantensor.onnx.wire import fields, read_varint, varint
from kantensor.types.containers import OptionalType, SequenceType
from kantensor.types.dim import Dim
from kantensor.types.numpy_dtypes import numpy_dtype
from kantensor.types.type import TensorType

n, seq = Dim("n"), Dim("seq")
SIZES = [0, 1, 2, 127, 128, 300, 16383, 16384, 2**40, 2**63 - 1]
SHAPES = [(), (None,), (n,), (2 * seq + 1,), (n, 3, None), tuple(SIZES),
          tuple([n] * MAX_RANK), (Dim("x" * 200),)]


def helper_type(t) -> onnx.TypeProto:
    """The TypeProto onnx.helper builds for ``t`` (the oracle)."""
    def dims(shape):
        return None if shape is None else [
            d if isinstance(d, int) or d is None else str(d) for d in shape]
    if isinstance(t, TensorType):
        return helper.make_tensor_type_proto(ELEM_TYPES[t.dtype], dims(t.shape))
    if isinstance(t, SequenceType):
        return helper.make_sequence_type_proto(
            helper.make_tensor_type_proto(ELEM_TYPES[t.dtype], dims(t.shape)))
    return helper.make_optional_type_proto(helper_type(t.element))


TYPES = [TensorType(dtype, shape) for dtype in sorted(ELEM_TYPES) for shape in SHAPES[:3]]
TYPES += [TensorType("float32", shape) for shape in SHAPES]
TYPES += [SequenceType("int64", None), SequenceType("float16", (n, 2)),
          OptionalType(TensorType("bool", (3,))), OptionalType(SequenceType("int8", (n,)))]


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_a_type_is_written_as_protobuf_writes_the_type_onnx_helper_builds(t):
    assert type_bytes(t) == helper_type(t).SerializeToString()
    info = helper.make_value_info("v", helper_type(t))
    assert protos.value_type(info) == t  # and read back as itself


# tensors whose TypeProto.Tensor takes 118 to 135 bytes: a rank of one-byte sizes and a
# named size of each length in turn, so the lengths of the type field and of its
# tensor_type field cross 128 (where each length takes a second byte) at every offset
EDGES = [TensorType("float32", (*[1] * rank, Dim("a" * k)))
         for rank in (27, 28, 29, 30) for k in range(1, 9)]


def test_every_size_of_one_or_two_bytes_is_written_as_protobuf_writes_it():
    """Each size below 2**14 (a varint of one or two bytes, written from tables by the
    size's low and high bits) and the next ones, alone and beside a named size, as
    onnx.helper's TypeProto serializes them."""
    for size in range(0x4000 + 3):
        for t in (TensorType("float32", (size,)), TensorType("int8", (n, size))):
            assert type_bytes(t) == helper_type(t).SerializeToString(), t


@pytest.mark.parametrize("t", EDGES, ids=lambda t: f"{t.ndim}-{len(str(t.shape[-1]))}")
def test_types_whose_lengths_take_one_or_two_bytes_are_written_as_protobuf_writes_them(t):
    assert type_bytes(t) == helper_type(t).SerializeToString()
    info = helper.make_value_info("v", helper_type(t))
    assert protos.value_type(info) == t


def test_value_infos_are_written_as_one_blob_that_protobuf_reads():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 300])
    nodes = [helper.make_node("Relu", ["x"], ["é" * 70]),
             helper.make_node("Neg", ["é" * 70], ["y"])]
    graph = helper.make_graph(nodes, "g", [x], [helper.make_tensor_value_info(
        "y", TensorProto.FLOAT, None)])
    out = infer_shapes(helper.make_model(graph))
    want = helper.make_tensor_value_info("é" * 70, TensorProto.FLOAT, ["n", 300])
    assert list(out.graph.value_info) == [want]
    assert out.graph.output[0] == helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                                                ["n", 300])
    assert typed_model(helper.make_model(graph))[0] == out  # (read afresh)


def _read(info: onnx.ValueInfoProto):
    """protobuf's reading of ``info``'s type (the oracle): its type, or its error."""
    try:
        return protos.proto_type(info.type, lambda: f"value {shown(info.name)}")
    except Exception as exc:  # noqa: BLE001 (compared by class and message)
        return type(exc), str(exc)


def _fast(info: onnx.ValueInfoProto):
    try:
        return protos.value_type(info)
    except Exception as exc:  # noqa: BLE001
        return type(exc), str(exc)


#: changes to a ValueInfoProto (and its tensor type) that the bytes reader leaves to
#: protobuf's reading, or whose reading is an error
ODD = [
    lambda info, t: setattr(t.shape.dim[0], "denotation", "BATCH"),
    lambda info, t: setattr(info.type, "denotation", "TENSOR"),
    lambda info, t: setattr(t.shape.dim[1], "dim_value", -4),
    lambda info, t: t.ClearField("shape"),
    lambda info, t: setattr(t, "elem_type", 0),
    lambda info, t: setattr(t, "elem_type", 999),
    lambda info, t: t.shape.dim.extend([t.shape.dim[0]] * MAX_RANK),
    lambda info, t: setattr(info, "doc_string", "a doc"),
    lambda info, t: info.ClearField("name"),
]


def _infos():
    plain = [helper.make_tensor_value_info("v", TensorProto.FLOAT, list(s) if s else [])
             for s in ([2, 3], [], ["n", None, 7], [128, 2**40], [0, 1], ["2*seq"],
                       [16383, 16384, 2**21 - 1, 2**21],
                       ["", "a b", "x" * 300], [None] * MAX_RANK)]
    odd = []
    for change in ODD:
        info = helper.make_tensor_value_info("v", TensorProto.FLOAT, ["n", 3])
        change(info, info.type.tensor_type)
        odd.append(info)
    strings = helper.make_tensor_value_info("v", TensorProto.STRING, [2])
    sequence = helper.make_tensor_sequence_value_info("v", TensorProto.FLOAT, [2])
    return [*plain, *odd, strings, sequence]


@pytest.mark.parametrize("info", _infos(), ids=lambda i: str(i.type).replace("\n", " "))
def test_a_type_read_from_bytes_is_the_type_protobuf_reading_gives(info):
    assert _fast(info) == _read(info)


def test_plain_tensor_types_are_read_from_their_bytes():
    """(so that the test above compares two readings)"""
    for info in _infos()[:9]:
        assert typebytes._tensor_type(info.SerializeToString()) is not None


def _field(number: int, body: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(body)) + body


def _number(number: int, value: int) -> bytes:
    return varint(number << 3) + varint(value)


def _laid_out(pieces: st.SearchStrategy, *canonical: st.SearchStrategy
              ) -> st.SearchStrategy:
    """A message's bytes: as protobuf writes it (the ``canonical`` fields in order), or
    any list of ``pieces`` (a field given twice, which protobuf merges, fields out of
    order, fields the reader does not read)."""
    return st.one_of(st.tuples(*canonical).map(b"".join),
                     st.lists(pieces, max_size=4).map(b"".join))


_DIM = [b"", _number(1, 3), _number(1, 300), _number(1, 20000), _number(1, 2**40),
        _field(2, b"n"), _field(2, b"2*n"), _field(2, b""), _field(2, b"x" * 130)]
#: a size's varint written longer than it need be (3 in two bytes, 300 in three), or cut
#: short (its last byte says more follow), which protobuf reads too, or not at all
_ODD_SIZES = [b"\x08\x83\x00", b"\x08\xac\x82\x00", b"\x08\xac", b"\x08\xac\x82"]
_dims = _laid_out(st.sampled_from([*_DIM, *_ODD_SIZES, _field(3, b"BATCH"),
                                   _number(1, 2**64 - 4), _field(2, b"\xff"),
                                   _number(9, 1)]),
                  st.sampled_from(_DIM)).map(lambda d: _field(1, d))
_shapes = st.lists(_dims, max_size=4).map(lambda d: _field(2, b"".join(d)))
_elems = st.sampled_from([TensorProto.FLOAT, TensorProto.INT64, 0, 40]).map(
    lambda e: _number(1, e))
_tensors = _laid_out(st.one_of(_elems, _shapes), _elems, _shapes).map(
    lambda t: _field(1, t))
_types = _laid_out(st.one_of(_tensors, st.just(_field(6, b"TENSOR"))), _tensors).map(
    lambda t: _field(2, t))
_names = st.sampled_from([b"", _field(1, b"v")])
_infos_bytes = _laid_out(st.one_of(_names, _types, st.sampled_from(
    [_field(3, b"doc"), _number(7, 1)])), _names, _types)


@settings(max_examples=400, deadline=None)
@given(_infos_bytes)
def test_bytes_protobuf_parses_are_read_as_protobuf_reads_them_or_not_at_all(raw):
    """Any bytes protobuf takes for a ValueInfoProto (a field given twice, which protobuf
    merges, fields out of order, fields the reader does not read): read as protobuf's
    reading gives, or not read (None)."""
    info = onnx.ValueInfoProto()
    try:
        info.ParseFromString(raw)
    except Exception:  # noqa: BLE001 (not a message: nothing to compare)
        return
    found = typebytes._tensor_type(raw)
    if found is not None:
        assert found is _read(info)
    assert _fast(info) == _read(info)


def test_varints_round_trip_through_protobufs_own_reading():
    for value in [0, 1, 127, 128, 300, 2**35, 2**63 - 1, 2**64 - 1]:
        assert read_varint(varint(value), 0) == (value, len(varint(value)))
        message = TensorProto(dims=[value % 2**63])
        data = message.SerializeToString()
        ((number, kind, start, end),) = list(fields(data, 0, len(data)))
        assert (number, kind) == (1, 0) and read_varint(data, start) == (value % 2**63,
                                                                           end)
    assert set(DTYPES.values()) == set(ELEM_TYPES)


def test_a_type_read_again_from_the_same_bytes_is_the_same_type():
    typebytes._READ.clear()
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n", 300])
    b = helper.make_tensor_value_info("b" * 200, TensorProto.FLOAT, ["n", 300])
    c = helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n", 301])
    assert protos.value_type(a) is protos.value_type(b) is TensorType("float32", (n, 300))
    assert protos.value_type(c) is TensorType("float32", (n, 301))
    assert len(typebytes._READ) == 2  # one per type's bytes, whatever the name


@settings(max_examples=80, deadline=None)
@given(code=st.sampled_from(sorted(c for c, name in DTYPES.items() if name != "string")),
       dims=st.lists(st.integers(0, 3), max_size=3), seed=st.binary(min_size=64,
                                                                     max_size=64))
def test_a_tensors_raw_data_is_read_as_onnx_reads_it(code, dims, seed):
    """A checked tensor's value read from its raw data (one ``np.frombuffer`` for the
    plain element types, loading._PLAIN) is onnx's numpy_helper.to_array's, in the
    dtype kantensor computes in: the same dtype, shape and bytes, read-only alike."""
    dtype = DTYPES[code]
    count = int(np.prod(dims)) if dims else 1
    nbytes = (count * loading._BITS[dtype] + 7) // 8
    proto = TensorProto(data_type=code, dims=dims, raw_data=(seed * (nbytes // 64 + 1))[:nbytes])
    tensors = loading.Tensors(None)
    tensors.check(proto, "t")
    got = tensors.array(proto, "t")
    want = np.asarray(numpy_helper.to_array(proto)).astype(numpy_dtype(dtype), copy=False)
    assert (got.dtype, got.shape, got.tobytes()) == (want.dtype, want.shape, want.tobytes())
    assert got.flags.writeable == want.flags.writeable


_plain_sizes = st.one_of(st.integers(0, 200), st.integers(16300, 16500),
                         st.sampled_from([None, "n", "2*seq"]))


@settings(max_examples=300, deadline=None)
@given(name=st.text(st.characters(codec="utf-8"), max_size=140),
       code=st.sampled_from([*sorted(DTYPES), 0, 40]),
       dims=st.lists(_plain_sizes, max_size=34))
def test_a_graph_inputs_type_is_read_from_its_layout_as_protobuf_reads_it(name, code, dims):
    """The reader's check of a whole layout at once (a name below 128 bytes, a tensor of
    sizes below 128, or of sizes from 128 to 2**14): every ValueInfoProto onnx.helper
    makes, names, sizes and ranks on both sides of the layouts' limits, is read as
    protobuf's reading gives, by a layout where it is one, else byte by byte or by
    protobuf."""
    info = helper.make_tensor_value_info(name, code, dims)
    data = info.SerializeToString()
    found = typebytes._tensor_type(data)
    ints = all(type(d) is int for d in dims)
    plain = len(name.encode()) < 128 and code in DTYPES and ints and (
        len(dims) <= 30 and all(d < 128 for d in dims) or
        len(dims) <= 24 and all(128 <= d < 2**14 for d in dims))
    assert (typebytes._laid_out(data) is not None) == plain
    assert found is not None or not plain
    if found is not None:
        assert found is _read(info)
    assert typebytes.tensor_types([info]) == [found]
    assert _fast(info) == _read(info)


def test_value_infos_of_every_name_length_are_written_as_protobuf_writes_them():
    """Value infos written at once (each info's parts put together by maps, or each alone
    where a length takes two bytes): names of 1 to 300 bytes, types of lengths on both
    sides of 128, a graph output left out; each info is what onnx.helper makes."""
    types = [TensorType("float32", (n, 3)), *EDGES[::5], TensorType("int64", ())]
    names = [f"{'v' * k}{k}" for k in range(1, 301, 7)]
    inputs, nodes, want = [], [], []
    for k, name in enumerate(names):
        t = types[k % len(types)]
        inputs.append(helper.make_value_info(f"x{k}", helper_type(t)))
        nodes.append(helper.make_node("Identity", [f"x{k}"], [name]))
        want.append(helper.make_value_info(name, helper_type(t)))
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(
        names[-1], TensorProto.FLOAT, None)])
    out = infer_shapes(helper.make_model(graph))
    assert list(out.graph.value_info) == want[:-1]  # (a graph output: typed there)
    assert typed_model(helper.make_model(graph))[0] == out  # (read afresh)


def _parsed(raw: bytes) -> onnx.ValueInfoProto | None:
    info = onnx.ValueInfoProto()
    try:
        info.ParseFromString(raw)
    except Exception:  # noqa: BLE001 (not a message)
        return None
    return info


_listed_sizes = st.one_of(st.integers(0, 200), st.integers(16300, 16500),
                          st.sampled_from([None, "n"]))
_listed = st.one_of(
    st.builds(lambda name, code, dims: helper.make_tensor_value_info(name, code, dims),
              st.sampled_from(["a", "w1", "é", "x" * 130, ""]),
              st.sampled_from([TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL, 40]),
              st.lists(_listed_sizes, max_size=6)),
    _infos_bytes.map(_parsed).filter(lambda info: info is not None))


@settings(max_examples=300, deadline=None)
@given(st.lists(_listed, max_size=24))
def test_a_graphs_inputs_read_together_are_read_as_protobuf_reads_each(infos):
    """The inputs of one layout read together (checked at once, their types made at once):
    lists of infos of every layout, rank and element type mixed (the same type twice,
    names of one and two length bytes, infos protobuf parsed from odd bytes), each read
    as protobuf's reading gives, or not read, exactly as when read alone."""
    found = typebytes.tensor_types(infos)
    assert len(found) == len(infos)
    for info, t in zip(infos, found, strict=True):
        assert t is typebytes._tensor_type(info.SerializeToString())
        if t is not None:
            assert t is _read(info)


def test_types_made_together_are_the_types_made_alone():
    """A type made at once with others is the one object of its dtype and shape: one
    already live is found, and the same shape twice in one call is one object."""
    from kantensor.types.type import sized_all

    live = TensorType("float32", (5, 7))
    made = sized_all("float32", [(5, 7), (9001, 3), (9001, 3)], 2)
    assert made[0] is live and made[1] is made[2] is TensorType("float32", (9001, 3))
    fresh = sized_all("int8", [(9002, 1), (9002, 2), (9002, 1)], 2)
    assert fresh[0] is fresh[2] is TensorType("int8", (9002, 1))
    assert fresh[1] is TensorType("int8", (9002, 2)) and fresh[1].shape == (9002, 2)
    later = sized_all("float32", [(9003, 1), (5, 7), (9003, 1)], 2)  # (a live one not
    assert later[1] is live and later[0] is later[2]  # first: found by the filing)
    assert later[0] is TensorType("float32", (9003, 1))


def test_value_infos_written_together_are_what_onnx_helper_makes():
    """Value infos of short names written at once (their parts put together by maps):
    types shared by several values and types new to the writer, a graph output among
    them (left out), each info what onnx.helper makes, and the same when typed again."""
    types = [TensorType("float32", (n, 3)), TensorType("int64", ()),
             TensorType("float32", (9003, n)), TensorType("bool", (2, 7, 9004))]
    inputs, nodes, want = [], [], []
    for k in range(40):
        t = types[k % len(types)]
        inputs.append(helper.make_value_info(f"x{k}", helper_type(t)))
        nodes.append(helper.make_node("Identity", [f"x{k}"], [f"y{k}"]))
        want.append(helper.make_value_info(f"y{k}", helper_type(t)))
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(
        "y7", TensorProto.FLOAT, None)])
    out = infer_shapes(helper.make_model(graph))
    assert list(out.graph.value_info) == want[:7] + want[8:]
    assert out.graph.output[0].type == want[7].type
    assert typed_model(helper.make_model(graph))[0] == out  # (read afresh)


_node_texts = st.text(st.characters(max_codepoint=0x7F), max_size=12) | st.sampled_from(
    ["é", "\n", "x" * 130, ""])
_node_fields = st.one_of(
    st.tuples(st.sampled_from([1, 1, 1, 2, 2, 3, 4, 6, 7, 8]), _node_texts).map(
        lambda f: _field(f[0], f[1].encode())),
    st.just(_field(5, _field(1, b"alpha") + _number(20, 2) + _number(3, 1))),
    st.just(_number(1, 5)), st.just(_field(15, b"unknown")))


@settings(max_examples=400, deadline=None)
@given(st.lists(_node_fields, max_size=10), st.none() | _node_texts)
@example([_field(1, b"b"), _field(2, b"y"), _field(1, b"a")], "Add")
def test_a_nodes_names_read_from_its_bytes_are_protobufs(fields_, op_type):
    """A node record's op type, inputs and outputs, read from the node's bytes where they
    are all ASCII, are protobuf's reading of them: nodes protobuf parsed from fields in
    any order (inputs and outputs interleaved, given twice, names of any ASCII byte and
    of 130 bytes, unknown fields, no op type), serialized again as a model's are."""
    from kantensor.onnx.nodecache import NodeRecord

    node = onnx.NodeProto()
    try:
        node.ParseFromString(b"".join(fields_))
    except Exception:  # noqa: BLE001 (not a message)
        return
    if op_type is not None:
        node.op_type = op_type
    data = node.SerializeToString()
    try:
        rec = NodeRecord(node, True, data)
    except Exception as exc:  # noqa: BLE001 (a name that is not text: refused alike)
        assert not data.isascii(), exc
        return
    assert (rec.op_type, rec.names, rec.wanted, rec.domain) == (
        node.op_type, tuple(node.input), tuple(node.output), node.domain)


def _chain(blocks: int) -> onnx.ModelProto:
    """onnx_distinct.py's chain: MatMul -> Add -> Relu, block i of width i+2 to i+3 (its
    nodes named as no other test's, so that their records are made here)."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2])]
    nodes, x = [], "x"
    for i in range(blocks):
        inputs += [helper.make_tensor_value_info(f"w{i}", TensorProto.FLOAT, [i + 2, i + 3]),
                   helper.make_tensor_value_info(f"c{i}", TensorProto.FLOAT, [i + 3])]
        nodes += [helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"], name="first sight"),
                  helper.make_node("Add", [f"m{i}", f"c{i}"], [f"a{i}"], name="first sight"),
                  helper.make_node("Relu", [f"a{i}"], [f"r{i}"], name="first sight")]
        x = f"r{i}"
    graph = helper.make_graph(nodes, "chain", inputs,
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_value_infos_of_a_model_typed_at_first_sight_are_those_kept_for_reading_again(
        monkeypatch):
    """The value infos of a model whose nodes were mostly typed at first sight (written
    without keeping them, shapes._new_infos) are the bytes _infos writes and keeps, and
    what onnx.helper makes of the types inferred; a chain of blocks that all differ,
    typed so (its reader's fresh count), is written as a reading that types it node by
    node (typed_model) writes it, and so is an edited copy read after it."""
    from kantensor.onnx import shapes
    from kantensor.onnx.shapes import _typed_model

    names = [f"v{k}" for k in range(50)] + ["w" * 130]
    types = [TensorType("float32", (k, Dim("n"))) for k in range(51)]
    assert b"".join(shapes._new_infos(names, types)) == shapes._infos(names, types, set())
    want = b"".join(helper.make_value_info(name, helper_type(t)).SerializeToString()
                    for name, t in zip(names, types, strict=True))
    graph = onnx.GraphProto()
    graph.MergeFromString(b"".join(shapes._new_infos(names, types)))
    assert b"".join(v.SerializeToString() for v in graph.value_info) == want
    model = _chain(60)
    fresh = []
    written = shapes._written
    monkeypatch.setattr(shapes, "_written", lambda m, s, r, *cut: (
        fresh.append(r.fresh), written(m, s, r, *cut))[1])
    out = infer_shapes(model)
    monkeypatch.undo()
    assert fresh[0] * 2 > len(out.graph.value_info)  # (most typed at first sight)
    assert out == _typed_model(model, None)[0]
    assert [v.type for v in out.graph.value_info[:3]] == [
        helper.make_tensor_type_proto(TensorProto.FLOAT, ["batch", 3])] * 3
    model.graph.node[5].output[0] = "edited"
    model.graph.node[6].input[0] = "edited"
    assert infer_shapes(model) == _typed_model(model, None)[0]


_held_sizes = st.one_of(st.integers(0, 200), st.integers(16300, 16500))
_held_infos = st.one_of(
    st.builds(lambda code, dims: helper.make_tensor_value_info("v", code, dims),
              st.sampled_from([TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL, 40]),
              st.lists(_held_sizes, max_size=4)),
    _listed)


@settings(max_examples=60, deadline=None)
@given(st.lists(_held_infos, min_size=typebytes.ARRAY_AT, max_size=3 * typebytes.ARRAY_AT))
def test_many_graph_inputs_types_read_as_arrays_are_read_as_protobuf_reads_each(infos):
    """The graph inputs' types of a model of many inputs (as .split lists them: each
    TypeProto's bytes), read as arrays (every layout's rows checked and their sizes read
    at once): each read as protobuf's reading of it gives, or not read, exactly as
    when read alone (lists of every layout, rank, element type and size width mixed,
    the same type twice, odd bytes protobuf parses)."""
    infos = [info for info in infos if info.HasField("type")]
    helds = [info.type.SerializeToString() for info in infos]
    found = typebytes.held_types(helds)
    assert len(found) == len(helds)
    for info, held, t in zip(infos, helds, found, strict=True):
        assert t is typebytes.held_types([held])[0]  # (alone: below ARRAY_AT)
        if t is not None:
            assert t is _read(info)


@pytest.mark.parametrize("rows", [None, 7])
def test_many_graph_inputs_of_plain_layouts_are_all_read_as_arrays(rows, monkeypatch):
    """(so that the test above compares two readings: the plain ones are read, by the
    arrays, as protobuf reads them; and so when each length's rows are gathered a few at
    a time, as a model of very many inputs has them)"""
    if rows is not None:
        monkeypatch.setattr(typebytes, "_ROWS", rows)
    sizes = [s for k in range(40) for s in ([k % 128, 7 * k % 128], [128 + k, 16300 + k],
                                            [k % 128], [], [200 + k])]
    infos = [helper.make_tensor_value_info("v", TensorProto.FLOAT, s) for s in sizes]
    helds = [info.type.SerializeToString() for info in infos]
    found: list = [None] * len(helds)
    assert typebytes._held_arrays(helds, found) == []  # (none left to be read alone)
    assert found == typebytes.held_types(helds) == [TensorType("float32", tuple(s))
                                                    for s in sizes]
