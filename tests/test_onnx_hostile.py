"""Hostile ONNX models: the work is bounded by the input before anything is built from
it, every error is a documented one with a message of bounded length, and from_onnx
and infer_shapes agree. Each hostile file is made by the test; the claimed sizes are
refused under a memory limit in a forked child (tests/bounded.py)."""

from __future__ import annotations

import contextlib
import io
import json
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
from bounded import run_cases
from kantensor import cli
from kantensor.onnx import (
    UnsupportedOp,
    UnsupportedType,
    from_onnx,
    importer,
    infer_shapes,
    loading,
    modelfile,
    modelmemo,
    nodecache,
    nodememo,
    shapes,
    typebytes,
)
from kantensor.onnx.bounds import oversized
from kantensor.onnx.contract import contract
from kantensor.onnx.loading import MAX_MESSAGE, OnnxImportError
from kantensor.onnx.modelfile import raw_sizes
from kantensor.types.dim import Dim
from kantensor.types.dimminmax import dim_min
from kantensor.types.symbols import substitute

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def out(name="y", elem=F):
    return helper.make_tensor_value_info(name, elem, None)


def claimed_shape(op, k, as_input):
    """``op(x, s)`` where ``s`` claims ``k`` entries: a graph input int64[k], or an
    initializer whose header says k and which holds none."""
    x = helper.make_tensor_value_info("x", F, ["n"])
    if as_input:
        return model([helper.make_node(op, ["x", "s"], ["y"])],
                     [x, helper.make_tensor_value_info("s", I64, [k])], [out()])
    s = TensorProto(name="s", data_type=I64, dims=[k])
    return model([helper.make_node(op, ["x", "s"], ["y"])], [x], [out()], [s])


def _both(m, *fragments, error=OnnxImportError):
    """from_onnx and infer_shapes refuse ``m`` alike, saying ``fragments``."""
    messages = []
    for read in (from_onnx, infer_shapes):
        with pytest.raises(error) as info:
            read(m)
        message = str(info.value)
        assert len(message) <= MAX_MESSAGE
        for fragment in fragments:
            assert fragment in message, message
        messages.append(message)
    assert messages[0] == messages[1]
    return messages[0]


# ------------------------------------------------------------------ work bounded by the input

@pytest.mark.parametrize("k", [300, 10**7, 2**31, 2**62])
@pytest.mark.parametrize("op", ["Reshape", "Expand"])
def test_a_claimed_rank_is_refused_before_anything_is_built(op, k):
    """An 83-byte model claiming a rank of 2**31 took 4 GB; now it is refused from the
    input's type, in a child under a 1 GiB limit, with a short message."""
    m = claimed_shape(op, k, as_input=True)
    assert m.ByteSize() < 100
    records, memory = run_cases([m.SerializeToString()] * 2,
                                lambda data: infer_shapes(data) and None)
    assert [r["outcome"] for r in records] == ["OnnxImportError"] * 2, records
    assert all(r["length"] < 300 for r in records)
    assert memory["peak_kb"] - memory["start_kb"] < 200 * 1024
    _both(m, f"input 1 (shape) is int64[{k}]", "at most 256 entries")


@pytest.mark.parametrize("k", [10**7, 2**31])
def test_an_initializer_claiming_more_values_than_it_holds_is_refused(k):
    _both(claimed_shape("Reshape", k, as_input=False), "initializer 's'", "holds 0 ",
          f"its dims ({k},) need {k}")


def test_a_computed_shape_of_a_huge_length_is_refused_too():
    """ConstantOfShape makes an int64[10**7] (a type: nothing is allocated), which a
    Reshape then reads as its shape."""
    length = numpy_helper.from_array(np.array([10**7], np.int64), "length")
    m = model([helper.make_node("ConstantOfShape", ["length"], ["s"],
                                value=numpy_helper.from_array(np.array([1], np.int64))),
               helper.make_node("Reshape", ["x", "s"], ["y"])],
              [helper.make_tensor_value_info("x", F, ["n"])], [out()], [length])
    _both(m, "input 1 (shape) is int64[10000000]")


@pytest.mark.parametrize("rank", [65, 1000])
def test_ranks_past_numpys_limit_are_refused(rank):
    m = model([helper.make_node("Relu", ["x"], ["y"])],
              [helper.make_tensor_value_info("x", F, [1] * rank)], [out()])
    _both(m, "value 'x'", f"{rank} dims, at most 64")
    w = TensorProto(name="w", data_type=F, dims=[1] * rank, float_data=[1.0])
    m = model([helper.make_node("Relu", ["w"], ["y"])], [], [out()], [w])
    _both(m, "initializer 'w'", f"{rank} dims, at most 64")


def test_values_are_folded_from_small_inputs_only(monkeypatch):
    """A weight's data is not read to fold a value (ReduceSum of a 100,000-element
    initializer gives a one-element output, but reading it is the graph's work)."""
    w = numpy_helper.from_array(np.ones(100_000, np.float32), "w")
    m = model([helper.make_node("ReduceSum", ["w"], ["y"], keepdims=0)], [], [out()], [w])
    reads = []
    monkeypatch.setattr(loading.Tensors, "array",
                        lambda self, proto, where: reads.append(where))
    infer_shapes(m)
    assert reads == []


def test_files_that_are_no_regular_file_are_refused_unread(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in ("/dev/zero", fifo, tmp_path):
        for read in (from_onnx, infer_shapes):
            with pytest.raises(OnnxImportError, match="not a regular file"):
                read(path)


def _command(argv: list[str]) -> str:
    """``kantensor`` on ``argv`` as JSON: its exit status, what it printed to stdout and
    to stderr (run in a forked child: :func:`bounded.run_cases`)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(argv)
    return json.dumps([status, out.getvalue(), err.getvalue()])


def test_the_command_answers_at_once_on_a_device_a_fifo_or_a_folder(tmp_path):
    """Under a time and a memory limit (a forked child: a FIFO without a writer would
    block the command, /dev/zero fill its memory), each is refused in one line."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    paths = ["/dev/zero", str(fifo), str(tmp_path)]
    records, _ = run_cases([["onnx", path] for path in paths], _command, deadline=120)
    for path, record in zip(paths, records, strict=True):
        assert record["documented"], (path, record)
        status, out, err = json.loads(record["outcome"])
        assert status == 1 and out == "", (path, record)
        assert err.endswith(": not a regular file\n") and err.count("\n") == 1, (path, err)


def test_a_model_file_stops_at_the_byte_limit(tmp_path, monkeypatch):
    path = tmp_path / "m.onnx"
    m = claimed_shape("Reshape", 2, as_input=True)
    onnx.save(m, path)
    monkeypatch.setattr(modelfile, "MAX_MODEL_BYTES", path.stat().st_size - 1)
    for given in (path, path.read_bytes()):
        with pytest.raises(OnnxImportError, match="larger than"):
            infer_shapes(given)
    monkeypatch.setattr(modelfile, "MAX_MODEL_BYTES", path.stat().st_size)
    assert infer_shapes(path).graph.output[0].name == "y"


def test_the_sizes_of_raw_data_are_read_from_the_bytes_without_copying_them():
    """A large model's initializers' raw data sizes come from the wire format; they are
    the parsed tensors' sizes, also when the graph is given twice (protobuf merges)."""
    inits = [numpy_helper.from_array(np.arange(k * 1000, dtype=np.float32), f"w{k}")
             for k in range(1, 80)]
    inits.append(TensorProto(name="f", data_type=F, dims=[2], float_data=[1, 2]))
    m = model([helper.make_node("Identity", ["w1"], ["y"])], [], [out()], inits)
    data = m.SerializeToString()
    assert len(data) > modelfile.SCAN_BYTES
    parsed = [len(t.raw_data) if t.HasField("raw_data") else None
              for t in m.graph.initializer]
    assert raw_sizes(data) == parsed
    extra = model([], [], [], [numpy_helper.from_array(np.ones(3, np.int8), "z")])
    twice = onnx.ModelProto()
    twice.ParseFromString(data + extra.SerializeToString())
    assert raw_sizes(data + extra.SerializeToString()) == parsed + [3]
    assert [t.name for t in twice.graph.initializer][-1] == "z"
    # a raw size that is short is found from the bytes alone
    short = TensorProto(name="short", data_type=F, dims=[4], raw_data=bytes(12))
    bad = model([helper.make_node("Identity", ["w1"], ["y"])], [], [out()],
                [*inits, short]).SerializeToString()
    for read in (from_onnx, infer_shapes):
        with pytest.raises(OnnxImportError, match=r"'short': holds 12 bytes, its dims "
                                                  r"\(4,\) need 16"):
            read(bad)


# ------------------------------------------------------------------ malformed models

@pytest.mark.parametrize("tensor, fragment", [
    (TensorProto(name="w", data_type=F, dims=[4], raw_data=bytes(12)), "holds 12 bytes"),
    (TensorProto(name="w", data_type=F, dims=[2, 3], float_data=[1, 2]),
     "holds 2 float_data entries, its dims (2, 3) need 6"),
    (TensorProto(name="w", data_type=TensorProto.COMPLEX64, dims=[2], float_data=[1, 2]),
     "need 4"),
    (TensorProto(name="w", data_type=TensorProto.INT4, dims=[5], int32_data=[1, 2]),
     "need 3"),
    (TensorProto(name="w", data_type=TensorProto.STRING, dims=[1], string_data=[b"\xff"]),
     "not UTF-8"),
    (TensorProto(name="w", data_type=F, dims=[-1]), "must be an int >= 0"),
    (TensorProto(name="w", data_type=99, dims=[1]), "element type 99 is not supported"),
])
def test_from_onnx_and_infer_shapes_agree_on_malformed_initializers(tensor, fragment):
    """The initializer is used by no node: infer_shapes, which reads no data it does not
    need, still checks its header against its data as from_onnx does."""
    m = model([helper.make_node("Relu", ["x"], ["y"])],
              [helper.make_tensor_value_info("x", F, [2])], [out()], [tensor])
    error = UnsupportedType if "element type" in fragment else OnnxImportError
    _both(m, "initializer 'w'", fragment, error=error)


@pytest.mark.parametrize("text", ["", " ", "n//0", "n+", "a b", "x" * 300, "(" * 70 + "n"])
def test_a_dim_param_kantensor_cannot_read_is_an_unknown_size(text):
    m = model([helper.make_node("Relu", ["x"], ["y"])],
              [helper.make_tensor_value_info("x", F, [text, 3])], [out()])
    (x,), (y,) = from_onnx(m)
    assert str(x.type) == "float32[?,3]" == str(y.type)
    assert infer_shapes(m).graph.output[0].type.tensor_type.shape.dim[1].dim_value == 3


def test_a_dim_param_that_is_not_utf8_is_an_unknown_size():
    """protobuf gives the bytes of a string field that is not UTF-8 (onnx's fields are
    proto2): such a dim_param is a size kantensor cannot read, not an AttributeError."""
    m = model([helper.make_node("Relu", ["x"], ["y"])],
              [helper.make_tensor_value_info("x", F, ["QQ", 3])], [out()])
    data = m.SerializeToString().replace(b"QQ", b"\xff\xfe")
    for read in (data, onnx.load_from_string(data)):
        (x,), (y,) = from_onnx(read)
        assert str(x.type) == "float32[?,3]" == str(y.type)
        assert infer_shapes(read).graph.output[0].type.tensor_type.shape.dim[1].dim_value == 3


def _names_model() -> bytes:
    """A model whose every name (values, nodes, ops, graphs, opsets) is marked ``Q<k>Z``."""
    then = helper.make_graph([helper.make_node("Relu", ["tQ5Z"], ["bQaZ"], name="nQbZ")],
                             "gQcZ", [], [helper.make_tensor_value_info("bQaZ", F, None)])
    other = helper.make_graph([helper.make_node("Neg", ["tQ5Z"], ["eQdZ"])], "else", [],
                              [helper.make_tensor_value_info("eQdZ", F, None)])
    nodes = [helper.make_node("Add", ["xQ1Z", "wQ2Z"], ["tQ5Z"], name="nQ3Z"),
             helper.make_node("If", ["cQfZ"], ["yQ4Z"], then_branch=then, else_branch=other)]
    graph = helper.make_graph(
        nodes, "gQ8Z", [helper.make_tensor_value_info("xQ1Z", F, ["N"]),
                        helper.make_tensor_value_info("cQfZ", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("yQ4Z", F, None)],
        [numpy_helper.from_array(np.ones(1, np.float32), "wQ2Z")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid("dQjZ", 1)])
    return m.SerializeToString()


@pytest.mark.parametrize("k", "1234abdfj")
def test_a_name_that_is_not_utf8_is_refused_by_every_reader(k, tmp_path, capsys):
    """A value's, node's, graph's or opset's name that is not UTF-8 (protobuf gives its
    bytes) is refused with OnnxImportError naming it, by from_onnx, infer_shapes,
    contract and the command alike: it raised TypeError where a message joined names."""
    data = _names_model().replace(f"Q{k}Z".encode(), b"\xff" + f"{k}Z".encode())
    for read in (from_onnx, infer_shapes, contract):
        with pytest.raises(OnnxImportError, match=rf"the name b'.\\xff{k}Z' is not UTF-8"):
            read(data)
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    assert cli.main(["onnx", str(path)]) == 1  # (in this process: not about start-up)
    said = capsys.readouterr()
    assert said.out == "" and said.err.startswith("error: ") and said.err.count("\n") == 1
    assert "is not UTF-8 text" in said.err


def test_a_graph_name_that_is_not_utf8_is_read_around():
    """A subgraph's or the main graph's own name is never needed as text."""
    clean = _names_model()
    for k in "8c":
        data = clean.replace(f"Q{k}Z".encode(), b"\xff" + f"{k}Z".encode())
        assert str(from_onnx(data)[1][0].type) == "float32[N]"


def test_a_name_assigned_twice_is_refused_naming_it():
    x = helper.make_tensor_value_info("x", F, [2])
    w = numpy_helper.from_array(np.ones(2, np.float32), "w")
    cases = [
        ([helper.make_node("Relu", ["x"], ["y"], name="a"),
          helper.make_node("Neg", ["x"], ["y"], name="b")], [x], [],
         "node 'b' (Neg): its output 'y' is assigned already, by node 'a' (Relu)"),
        ([helper.make_node("Relu", ["x"], ["w"], name="a")], [x], [w],
         "node 'a' (Relu): its output 'w' is assigned already, by an initializer"),
        ([helper.make_node("Relu", ["x"], ["x"], name="a")], [x], [],
         "node 'a' (Relu): its output 'x' is assigned already, by a graph input"),
        ([helper.make_node("Split", ["x"], ["y", "y"], name="a", num_outputs=2)], [x], [],
         "node 'a' (Split): its output 'y' is assigned already, by itself"),
        ([helper.make_node("Relu", ["x"], ["y"])], [x], [w, w],
         "initializer 'w': the name is given to two initializers"),
        ([helper.make_node("Relu", ["x"], ["y"])], [x, x], [],
         "graph input 'x': the name is given to two graph inputs"),
        ([helper.make_node("Constant", [], ["y"], value_ints=[1]),
          helper.make_node("Relu", ["x"], ["y"], name="r")], [x], [],
         "node 'r' (Relu): its output 'y' is assigned already, by node 'Constant -> y'"),
    ]
    for nodes, inputs, inits, message in cases:
        _both(model(nodes, inputs, [out()], inits, opset=18), message)


def test_messages_are_capped_and_names_cut_short():
    long = "N" * 100_000
    m = model([helper.make_node("Reshape", ["x", "s"], ["y"], name=long)],
              [helper.make_tensor_value_info("x", F, [6]),
               helper.make_tensor_value_info("s", I64, [10**7])], [out()])
    message = _both(m, "N" * 100 + "...", "at most 256 entries")
    assert len(message) < 400
    m = model([helper.make_node(long, ["x"], ["y"], domain=long)],
              [helper.make_tensor_value_info("x", F, [6])], [out()])
    with pytest.raises(UnsupportedOp, match="is not supported") as info:
        from_onnx(m)  # (partial typing: infer_shapes leaves y untyped)
    assert len(str(info.value)) < 600
    assert [i.name for i in infer_shapes(m).graph.value_info] == []
    m = model([helper.make_node("Relu", ["nowhere" * 10_000], ["y"])],
              [helper.make_tensor_value_info("x", F, [6])], [out()])
    assert len(_both(m, "is defined by no graph input")) < 400


def test_constant_nodes_of_the_wrong_form_are_refused():
    x = helper.make_tensor_value_info("x", F, [2])
    node = helper.make_node("Constant", [], ["c"], value_ints=[1])
    node.attribute.append(helper.make_attribute("value_int", 2))
    _both(model([node, helper.make_node("Relu", ["x"], ["y"])], [x], [out()]),
          "(Constant): 2 attributes")
    node = helper.make_node("Constant", [], ["c"], value_string="text")
    _both(model([node, helper.make_node("Relu", ["x"], ["y"])], [x], [out()]),
          "attribute 'value_string' is not supported")
    node = helper.make_node("LeakyRelu", ["x"], ["y"], alpha=1.0, name="l")
    node.attribute.append(helper.make_attribute("alpha", 2.0))
    _both(model([node], [x], [out()]), "node 'l' (LeakyRelu): attribute 'alpha' is given "
                                       "twice")


def test_the_command_reports_every_refusal_in_one_error_line(tmp_path, capsys):
    for i, m in enumerate([claimed_shape("Reshape", 2**31, True),
                           claimed_shape("Expand", 2**31, False)]):
        path = tmp_path / f"m{i}.onnx"
        onnx.save(m, path)
        assert cli.main(["onnx", str(path), "-o", str(tmp_path / "typed.onnx")]) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
    path = tmp_path / "ok.onnx"
    onnx.save(claimed_shape("Reshape", 2, True), path)
    assert cli.main(["onnx", str(path), "-o", str(tmp_path / "no" / "such" / "t.onnx")]) == 1
    assert capsys.readouterr().err.startswith("error: cannot write")


# ------------------------------------------------------------------ bounded caches

def test_typing_many_distinct_models_keeps_the_onnx_caches_bounded(monkeypatch):
    """Every cache infer_shapes fills per model holds at most its bound (the memory
    over many models is measured by benchmarks/onnx_memory.py)."""
    monkeypatch.setattr(nodememo, "MEMO_SIZE", 64)
    monkeypatch.setattr(shapes, "_TYPES_SIZE", 32)
    monkeypatch.setattr(shapes, "_INFOS_SIZE", 32)
    monkeypatch.setattr(typebytes, "_READ_SIZE", 32)
    monkeypatch.setattr(modelmemo, "MODELS_SIZE", 16)
    monkeypatch.setattr(modelmemo, "MODELS_BYTES", 1 << 12)
    monkeypatch.setattr(nodecache, "NODES_SIZE", 48)
    monkeypatch.setattr(nodecache, "NODES_BYTES", 1 << 12)
    monkeypatch.setattr(nodecache, "CONSTANTS_SIZE", 8)
    for i in range(200):
        m = model([helper.make_node("Relu", ["x"], ["h"]), helper.make_node("Neg", ["h"],
                                                                            ["y"]),
                   helper.make_node("Constant", [], ["k"], value_int=i)],
                  [helper.make_tensor_value_info("x", F, [f"batch{i}", i + 1,
                                                          f"size {i}"])], [out()])
        infer_shapes(m)
        assert len(nodememo.MEMO) <= 64 and len(shapes._TYPES) <= 32
        assert 0 < len(shapes._INFOS) <= 32
        assert 0 < len(typebytes._READ) <= 32
        assert len(modelmemo.MODELS) <= 16 and len(nodecache.NODES) <= 48
        assert 0 < len(nodecache.CONSTANTS) <= 8
        assert 0 < modelmemo._held[0] <= 1 << 12 and 0 < nodecache._held[0] <= 1 << 12
        assert typebytes._dim_param.cache_info().currsize <= 1024


# ------------------------------------------------------------------ inputs of every shape

def _wrong_inputs(entry, opset):
    """Models of one node of ``entry``'s op type whose input ``k`` has a rank or length
    its op does not take (a scalar, a matrix, an empty vector, three axes), given as a
    graph input and, where the entry reads its value, as a constant; the other inputs
    float32[1,3,4,4]; and the node with no input or one."""
    op_type, n = entry.op_type, len(entry.inputs)
    shapes = {"scalar": [], "matrix": [2, 2], "empty": [0], "rank3": [1, 2, 1]}
    for k in range(n):
        for kind, shape in shapes.items():
            for constant in (False, True) if k in entry.reads else (False,):
                inputs, inits = [], []
                for j in range(n):
                    if j == k and constant:
                        inits.append(numpy_helper.from_array(
                            np.ones(shape, np.int64) * 2, f"i{j}"))
                    else:
                        elem = I64 if j in entry.reads else F
                        inputs.append(helper.make_tensor_value_info(
                            f"i{j}", elem, shape if j == k else [1, 3, 4, 4]))
                node = helper.make_node(op_type, [f"i{j}" for j in range(n)], ["y"])
                yield f"{op_type} input {k} {kind}{' constant' * constant}", model(
                    [node], inputs, [out()], inits, opset)
    for count in (0, 1):
        node = helper.make_node(op_type, [f"i{j}" for j in range(count)], ["y"])
        yield f"{op_type} with {count} inputs", model(
            [node], [helper.make_tensor_value_info("i0", F, [2])][:count], [out()], [], opset)


def test_every_entry_refuses_inputs_of_a_wrong_shape_with_a_documented_error():
    """Conv, ConvInteger, QLinearConv, ConvTranspose, the pools, Expand and Reshape
    indexed past a tuple (an IndexError) for such inputs; now each entry's builder
    refuses them with a ParamError or a type error, or types them."""
    from kantensor.onnx.registry import registry

    failures, cases = [], 0
    for (domain, _), entries in registry().items():
        for entry in entries if not domain else ():
            opset = entry.until or max(entry.since, 17)
            for label, m in _wrong_inputs(entry, opset):
                for read in (from_onnx, infer_shapes):
                    cases += 1
                    try:
                        read(m)
                    except (ValueError, TypeError) as exc:  # ParamError, AxisError too
                        assert len(str(exc)) <= MAX_MESSAGE
                    except Exception as exc:
                        failures.append(f"{label} ({read.__name__}): "
                                        f"{type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures)
    assert cases > 4000


@pytest.mark.parametrize(("node", "x", "w", "fragment"), [
    (dict(op_type="MaxPool", kernel_shape=[2, 2, 2]), [1, 3, 8, 8], None,
     "kernel_shape has 3 entries, the input's 2 spatial axes need 2"),
    (dict(op_type="AveragePool", kernel_shape=[2, 2], pads=[1, 1]), [1, 3, 8, 8], None,
     "pads has 2 entries, the input's 2 spatial axes need 4"),
    (dict(op_type="LpPool", kernel_shape=[2, 2], strides=[0, 1]), [1, 3, 8, 8], None,
     "strides must be at least 1 on each axis, got (0, 1)"),
    (dict(op_type="MaxPool", kernel_shape=[2]), [3, 8], None,
     "the input has 2 axes; it must have (N, C, spatial...)"),
    (dict(op_type="Conv"), [1, 3, 8, 8], [4, 3, 3], "W has 3 dimensions and X 4"),
    (dict(op_type="Conv", dilations=[1]), [1, 3, 8, 8], [4, 3, 3, 3],
     "dilations has 1 entries"),
    (dict(op_type="ConvTranspose", output_shape=[5]), [1, 3, 8, 8], [3, 4, 3, 3],
     "output_shape has 1 entries"),
    (dict(op_type="ConvTranspose", output_padding=[1, 1, 1]), [1, 3, 8, 8], [3, 4, 3, 3],
     "output_padding has 3 entries"),
    (dict(op_type="MaxUnpool", kernel_shape=[2, 2], strides=[2, 2]), [1, 1, 2, 2, 2],
     [1, 1, 2, 2], "kernel_shape has 2 entries, the input's 3 spatial axes need 3"),
])
def test_window_attributes_that_do_not_fit_the_input_are_refused(node, x, w, fragment):
    op_type = node.pop("op_type")
    inputs = [helper.make_tensor_value_info("x", F, x)]
    if w is not None:
        inputs.append(helper.make_tensor_value_info("w", I64 if op_type == "MaxUnpool"
                                                    else F, w))
    m = model([helper.make_node(op_type, [i.name for i in inputs], ["y"], name="n", **node)],
              inputs, [out()])
    _both(m, f"node 'n' ({op_type}): ", fragment, error=ValueError)


@pytest.mark.parametrize("op", ["Reshape", "Expand"])
def test_a_shape_that_is_no_vector_is_refused(op):
    for shape in ([], [2, 1]):
        m = model([helper.make_node(op, ["x", "s"], ["y"], name="n")],
                  [helper.make_tensor_value_info("x", F, [6]),
                   helper.make_tensor_value_info("s", I64, shape)], [out()])
        _both(m, f"shape must be a 1-D tensor, got one of {len(shape)} axes",
              error=ValueError)


def test_outputs_past_the_ops_are_refused_also_when_the_node_memo_knows_the_node():
    """infer_shapes typed Relu -> (y, "") and remembered it under the number of outputs;
    Relu -> (y, extra) then hit the memo and was typed while from_onnx refused it. Relu
    has one output (its schema's most: onnxruntime refuses (y, "") too), each refused
    before any memo is read."""
    x = helper.make_tensor_value_info("x", F, ["n", 7])
    for outputs in (["y", ""], ["y", "extra"], ["", "y"], ["y"]):
        m = model([helper.make_node("Relu", ["x"], outputs, name="r")], [x], [out()])
        if outputs == ["y"]:
            assert [o.name for o in infer_shapes(m).graph.output] == ["y"]
            continue
        _both(m, "node 'r' (Relu): 2 outputs, 1 expected (output)")


def _outcome(m: onnx.ModelProto) -> str:
    """``infer_shapes(m)`` in a forked child under tests/bounded.py's limits: "ok", the
    name of the exception it raised, or "Hang" if it outlived the child's deadline. The
    deadline (``KANTENSOR_FUZZ_DEADLINE``, 20 s by default) is the bound on the work: the
    regressions these tests guard took 29 s, 232 s or never ended, while the cases now take
    about a second of CPU time at most. It is generous on purpose, and no test compares
    the seconds a case took: at a load of 9 on two cores a case of one second of CPU time
    took five to nine seconds of wall time."""
    records, _ = run_cases([m.SerializeToString()], lambda data: infer_shapes(data) and None)
    return records[0]["outcome"]


def test_a_chain_of_nodes_cannot_grow_a_rank_without_end():
    """200 Unsqueeze nodes adding 60 axes each (a 6.5 kB model) took 232 s, each node's
    builder naming every axis of a rank in the thousands; no node output may have more
    than 64 axes, so the second node is refused."""
    axes = numpy_helper.from_array(np.arange(60, dtype=np.int64), "axes")
    nodes, previous = [], "x"
    for i in range(200):
        nodes.append(helper.make_node("Unsqueeze", [previous, "axes"], [f"u{i}"]))
        previous = f"u{i}"
    m = model(nodes, [helper.make_tensor_value_info("x", F, [2])], [out(previous)], [axes])
    assert _outcome(m) == "OnnxImportError"
    _both(m, "node 'Unsqueeze -> u1' (Unsqueeze): output 0 would have 121 axes, at most 64")


def _chain(first, make, count, inputs, inits=()):
    nodes, previous = list(first), first[-1].output[0] if first else "x"
    for i in range(count):
        nodes.append(make(previous, f"u{i}"))
        previous = f"u{i}"
    return model(nodes, inputs, [out(previous, I64 if first else F)], inits)


def _halving_chain(count: int, start: str = "st") -> list:
    """Concat(v, v) -> Slice to Shape(y) from ``start`` (by a step of 2 unless ``start``
    is a size) -> Concat with one more entry, ``count`` times."""
    nodes, previous = [helper.make_node("Shape", ["y"], ["m"])], "x"
    for i in range(count):
        steps = ["st", "m", "ax", "two"] if start == "st" else [start, "m"]
        nodes += [helper.make_node("Concat", [previous, previous], [f"c{i}"], axis=0),
                  helper.make_node("Slice", [f"c{i}", *steps], [f"s{i}"]),
                  helper.make_node("Concat", [f"s{i}", "one"], [f"u{i}"], axis=0)]
        previous = f"u{i}"
    return nodes


_CHAIN_INITS = [numpy_helper.from_array(np.array([v], np.int64), name)
                for name, v in (("st", 0), ("two", 2), ("ax", 0), ("zero", 0))] + \
    [numpy_helper.from_array(np.zeros([1], np.float32), "one")]


def test_a_chain_of_nodes_cannot_nest_a_size_without_end():
    """Each Concat(v, v) -> Slice to Shape(y) by a step of 2 -> Concat with one more
    entry nests a min and a floor one level deeper (``(min(2*((min(2*n, m) + 1)//2) +
    2, m) + 1)//2 + 1``); a size may nest at most 32 levels (as a type text may), so the
    33rd is refused, quickly and in bounded memory."""
    m = model(_halving_chain(100), [helper.make_tensor_value_info("x", F, ["n"]),
                                    helper.make_tensor_value_info("y", F, ["m"])],
              [out("u99")], _CHAIN_INITS)
    assert _outcome(m) == "OnnxImportError"
    _both(m, "node 'Concat -> c11' (Concat): output 0 axis 0 would be 2*((min(2*((min(",
          "a size nested 33 levels deep, at most 32")


def _deepest(text: str) -> int:
    depth = deepest = 0
    for c in text:
        depth += (c == "(") - (c == ")")
        deepest = max(deepest, depth)
    return deepest


def test_a_size_is_refused_by_its_nesting_not_by_its_parentheses():
    """``oversized`` walks a size's text only where it has more opening parentheses than
    the nesting allowed (a window's size has two): the same answer as walking every
    text, at each depth around the limit, and for many shallow floors."""
    d = Dim("n")
    for level in range(1, 20):  # each level nests two: (min(..., m) + 1)//2
        d = (dim_min(d, Dim(f"m{level}")) + 1) // 2
        deepest = _deepest(str(d))
        assert deepest == 2 * level
        assert oversized(d) == (None if deepest <= 32 else
                                f"a size nested {deepest} levels deep, at most 32")
    shallow = sum(((Dim("n") + k) // (k + 2) for k in range(40)), 0)
    assert str(shallow).count("(") > 32 and _deepest(str(shallow)) == 1
    assert oversized(shallow) is None and oversized(Dim("n")) is None and oversized(7) is None


def test_a_chain_of_mins_that_flatten_is_typed_with_one_min():
    """Without the step the chain's mins are one concave min (types.lattice):
    ``min(2*min(2*n, m) + 2, m)`` is ``min(4*n + 2, m)``; 60 links give one min of
    ``2**60*n``, exact at 0, 1 and on (by the recurrence), quickly."""
    m = model(_halving_chain(60, start="zero"),
              [helper.make_tensor_value_info("x", F, ["n"]),
               helper.make_tensor_value_info("y", F, ["m"])], [out("u59")], _CHAIN_INITS)
    assert _outcome(m) == "ok"
    size = from_onnx(m)[1][0].type.shape[0]
    assert str(size) == f"min({2**60}*n + {2**60 - 2}, m) + 1"
    for n, mm in ((0, 0), (1, 0), (0, 1), (1, 1), (3, 5), (7, 2**61), (2**50, 2**59)):
        length = n
        for _ in range(60):
            length = min(2 * length, mm) + 1
        assert substitute(size, {"n": n, "m": mm}) == length


def test_sizes_a_chain_computes_stay_within_what_a_type_text_states():
    """200 Slices by a step of 2 gave a floor division nested 200 deep (a RecursionError
    after 15 s); the size algebra now keeps one floor, ``(n + 2**k - 1)//2**k``. A chain
    ``v = (3*v + 1)//2`` over a Shape's value doubles its text at each step (16 steps took
    1.3 s, each two more four times longer): a value holding a size longer than a type
    text may state (MAX_TYPE_TEXT) is not folded, so what it decides is an unknown size
    (ConstantOfShape of it: one axis, of unknown size)."""
    inits = [numpy_helper.from_array(np.array([v], np.int64), name)
             for name, v in (("st", 0), ("en", 2**62), ("ax", 0), ("sp", 2))]
    m = _chain([], lambda a, b: helper.make_node("Slice", [a, "st", "en", "ax", "sp"], [b]),
               200, [helper.make_tensor_value_info("x", F, ["n"])], inits)
    assert _outcome(m) == "ok"
    assert str(from_onnx(m)[1][0].type) == f"float32[(n+{2**200 - 1})//{2**200}]"
    assert _outcome(_thirds(200)) == "ok"
    _, (z,) = from_onnx(_thirds(200))  # the value is not known: its one entry is an
    assert str(z.type) == "float32[?]"  # unknown size (its length is the Shape's, 1)
    (x,), (z,) = from_onnx(_thirds(4))  # a short chain is folded, exactly
    for n in range(40):
        v = n
        for _ in range(4):
            v = (3 * v + 1) // 2
        assert kt.function([x], [z])(np.zeros(n, np.float32))[0].shape == (v,)
        assert substitute(z.type.shape[0], {"n": n}) == v


def _thirds(steps):
    """``ConstantOfShape(v)`` after ``steps`` times ``v = (3*v + 1)//2`` from Shape(x)."""
    inits = [numpy_helper.from_array(np.array([v], np.int64), name)
             for name, v in (("three", 3), ("one", 1), ("two", 2))]
    nodes, previous = [helper.make_node("Shape", ["x"], ["v"])], "v"
    for i in range(steps):
        nodes += [helper.make_node("Mul", [previous, "three"], [f"a{i}"]),
                  helper.make_node("Add", [f"a{i}", "one"], [f"b{i}"]),
                  helper.make_node("Div", [f"b{i}", "two"], [f"u{i}"])]
        previous = f"u{i}"
    nodes.append(helper.make_node("ConstantOfShape", [previous], ["z"]))
    return model(nodes, [helper.make_tensor_value_info("x", F, ["n"])], [out("z")], inits)


def test_long_values_of_sizes_are_not_folded():
    """Shape -> Tile to 65,536 Dims, then Adds: each Add folded 65,536 Dims in Python
    (0.7 s a node, 29 s for a 959-byte model); a value of sizes is folded up to 256."""
    first = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Tile", ["s", "reps"], ["t"])]
    reps = numpy_helper.from_array(np.array([32768], np.int64), "reps")
    m = _chain(first, lambda a, b: helper.make_node("Add", [a, a], [b]), 40,
               [helper.make_tensor_value_info("x", F, ["n", "m"])], [reps])
    assert _outcome(m) == "ok"
    short = model(first + [helper.make_node("Add", ["t", "t"], ["y"])],
                  [helper.make_tensor_value_info("x", F, ["n", "m"])], [out("y", I64)],
                  [numpy_helper.from_array(np.array([2], np.int64), "reps")])
    reader = importer.read_types(short)
    assert reader.values["y"].tolist() == [2 * Dim("n"), 2 * Dim("m")] * 2


def test_a_shape_input_that_is_an_optional_leaves_the_node_untyped():
    """The fuzz found a Reshape whose shape is an optional (an AttributeError where the
    entries of a shape input were counted): the node is not typed (partial typing)."""
    m = model([helper.make_node("Optional", ["s"], ["o"]),
               helper.make_node("Reshape", ["x", "o"], ["y"])],
              [helper.make_tensor_value_info("x", F, ["n"]),
               helper.make_tensor_value_info("s", I64, [1])], [out()], opset=18)
    with pytest.raises(UnsupportedOp, match="output 'y' is not typed: .*takes tensors only"):
        from_onnx(m)
    assert "y" not in {v.name for v in infer_shapes(m).graph.value_info}
