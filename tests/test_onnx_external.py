"""External data of ONNX models: read from the model's own folder (or the ``base_dir``
given) with onnx's rules, never from the working directory. Every hostile file is made
by the test in a temporary folder; the working directory holds decoys that must never
be read."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
from kantensor import cli
from kantensor.onnx import from_onnx, infer_shapes
from kantensor.onnx.loading import OnnxImportError

SECRET = b"TOPSECRET-do-not-read-me"  # 24 bytes
SECRET8 = b"hunter2!"  # 8 bytes: as an int64, 2392100132157814120... read nowhere


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def external(name, elem, dims, location, offset=None, length=None):
    """A tensor whose data is in the external file ``location``."""
    t = TensorProto(name=name, data_type=elem, dims=dims,
                    data_location=TensorProto.EXTERNAL)
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            entry = t.external_data.add()
            entry.key, entry.value = key, str(value)
    return t


def leak_model(location="secret.txt", **kw):
    """Identity of a uint8[24] initializer kept at ``location``."""
    return model([helper.make_node("Identity", ["data"], ["y"])], [],
                 [helper.make_tensor_value_info("y", TensorProto.UINT8, None)],
                 [external("data", TensorProto.UINT8, [24], location, **kw)])


def reshape_model(location="secret8.bin"):
    """x: float32[n] reshaped by an int64[1] shape kept at ``location``."""
    return model([helper.make_node("Reshape", ["x", "s"], ["y"])],
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                 [external("s", TensorProto.INT64, [1], location)])


@pytest.fixture
def decoys(tmp_path, monkeypatch):
    """A working directory holding the files a hostile model names, and an empty folder
    ``models`` to put models in."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "secret.txt").write_bytes(SECRET)
    (cwd / "secret8.bin").write_bytes(SECRET8)
    (cwd / ".ssh").mkdir()
    (cwd / ".ssh" / "id_test").write_bytes(SECRET)
    monkeypatch.chdir(cwd)
    models = tmp_path / "models"
    models.mkdir()
    return models


def _refused(call, *fragments):
    with pytest.raises(OnnxImportError) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    assert "TOPSECRET" not in message and "2392100132157814120" not in message
    return message


@pytest.mark.parametrize("location", ["secret.txt", ".ssh/id_test", "./secret.txt"])
def test_external_data_is_not_read_from_the_working_directory(decoys, location):
    path = decoys / "m.onnx"
    onnx.save(leak_model(location), path)
    for read in (from_onnx, infer_shapes):
        _refused(lambda read=read: read(path), "cannot be opened", "No such file")


def test_typing_reads_no_shape_from_the_working_directory(decoys, capsys):
    path = decoys / "m.onnx"
    onnx.save(reshape_model(), path)
    _refused(lambda: infer_shapes(path), "secret8.bin", "cannot be opened")
    _refused(lambda: from_onnx(path), "secret8.bin")
    assert cli.main(["onnx", str(path), "-o", str(decoys / "typed.onnx")]) == 1
    out = capsys.readouterr()
    assert out.out == "" and "2392100132157814120" not in out.err
    assert out.err.count("\n") == 1 and out.err.startswith("error: initializer 's'")
    assert not (decoys / "typed.onnx").exists()


def test_the_models_own_external_data_is_read_from_its_folder(decoys, monkeypatch):
    """A genuine model saved with external data (as onnx saves it), read from another
    working directory: the values are the model's, not the decoys'."""
    w = np.arange(24, dtype=np.uint8)
    shape = np.array([2, -1], dtype=np.int64)
    m = model([helper.make_node("Identity", ["w"], ["y"]),
               helper.make_node("Reshape", ["x", "s"], ["z"])],
              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6])],
              [helper.make_tensor_value_info("y", TensorProto.UINT8, None),
               helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(shape, "s")])
    path = decoys / "m.onnx"
    cwd = os.getcwd()
    monkeypatch.chdir(decoys)  # onnx.save looks for an existing data file in the cwd
    onnx.save(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
              location="secret.txt", size_threshold=0)
    monkeypatch.chdir(cwd)
    assert (decoys / "secret.txt").stat().st_size == 24 + 16 + 0  # both tensors, no pad
    assert any(t.data_location == TensorProto.EXTERNAL
               for t in onnx.load(path, load_external_data=False).graph.initializer)
    inputs, (y, z) = from_onnx(path)
    assert str(z.type) == "float32[2,3]"
    got_y, got_z = kt.function(inputs, [y, z])(np.ones(6, dtype=np.float32))
    np.testing.assert_array_equal(got_y, w)
    assert got_z.shape == (2, 3)
    typed = infer_shapes(path)
    assert [d.dim_value for d in typed.graph.output[1].type.tensor_type.shape.dim] == [2, 3]
    # as bytes or a ModelProto, the folder is given by base_dir
    raw = onnx.load(path, load_external_data=False)
    for given in (raw, raw.SerializeToString()):
        assert str(from_onnx(given, base_dir=decoys)[1][1].type) == "float32[2,3]"
        assert infer_shapes(given, base_dir=str(decoys)).graph.output[1] == \
            typed.graph.output[1]


@pytest.mark.parametrize("given", ["ModelProto", "bytes"])
def test_bytes_or_a_modelproto_with_external_data_need_base_dir(decoys, given):
    m = leak_model()
    arg = m if given == "ModelProto" else m.SerializeToString()
    for read in (from_onnx, infer_shapes):
        _refused(lambda read=read: read(arg), f"given as {'a ' * (given != 'bytes')}"
                 f"{given}", "pass base_dir")


@pytest.mark.parametrize(("location", "fragment"), [
    ("../cwd/secret.txt", "'..'"),
    ("sub/../../cwd/secret.txt", "'..'"),
    ("/etc/passwd", "absolute"),
    ("C:/secret.txt", "absolute"),
    ("", "no location"),
    ("sub\\..\\secret.txt", "backslash"),
    ("link.bin", "symbolic link"),
    ("linkdir/data.bin", "symbolic link"),
    ("zero", "symbolic link"),
    ("fifo", "not a regular file"),
    ("folder", "not a regular file"),
    ("missing.bin", "No such file"),
])
def test_hostile_locations_are_refused_by_onnx_rules(decoys, location, fragment):
    (decoys / "data.bin").write_bytes(bytes(24))
    (decoys / "sub").mkdir()
    (decoys / "folder").mkdir()
    os.symlink(os.path.abspath("secret.txt"), decoys / "link.bin")
    os.symlink(os.getcwd(), decoys / "linkdir")
    (decoys.parent / "cwd" / "data.bin").write_bytes(SECRET)
    os.symlink("/dev/zero", decoys / "zero")
    os.mkfifo(decoys / "fifo")
    path = decoys / "m.onnx"
    onnx.save(leak_model(location), path)
    for read in (from_onnx, infer_shapes):
        _refused(lambda read=read: read(path), fragment)


@pytest.mark.parametrize(("offset", "length", "fragment"), [
    (40, None, "offset 40 is past the end"),
    (30, None, "of 2 bytes, its dims (24,) need 24"),
    (10, 24, "runs past the end"),
    (0, 23, "need 24"),
    (None, None, "need 24"),  # the whole 32-byte file
    ("-1", 24, "not a byte count"),
    ("1e3", 24, "not a byte count"),
    (8, 24, None),  # fits: read
])
def test_offsets_and_lengths_stay_within_the_file(decoys, offset, length, fragment):
    (decoys / "data.bin").write_bytes(bytes(range(32)))
    path = decoys / "m.onnx"
    onnx.save(leak_model("data.bin", offset=offset, length=length), path)
    if fragment is None:
        inputs, (y,) = from_onnx(path)
        np.testing.assert_array_equal(kt.function(inputs, y)(), np.arange(8, 32))
        return
    for read in (from_onnx, infer_shapes):
        _refused(lambda read=read: read(path), fragment)


def test_overlapping_ranges_read_no_more_than_the_files_hold(decoys):
    """Many tensors over the same bytes would multiply what one file makes us read:
    the ranges a model claims add up to at most the size of the files they name."""
    (decoys / "data.bin").write_bytes(bytes(64))
    tensors = [external(f"w{i}", TensorProto.UINT8, [24], "data.bin", offset=8 * i,
                        length=24) for i in range(6)]
    nodes = [helper.make_node("Identity", [f"w{i}"], [f"y{i}"]) for i in range(6)]
    outs = [helper.make_tensor_value_info(f"y{i}", TensorProto.UINT8, None) for i in range(6)]
    path = decoys / "m.onnx"
    onnx.save(model(nodes[:2], [], outs[:2], tensors[:2]), path)  # 48 of 64 bytes: read
    assert len(from_onnx(path)[1]) == 2
    onnx.save(model(nodes, [], outs, tensors), path)  # 144 of 64 bytes
    for read in (from_onnx, infer_shapes):
        _refused(lambda read=read: read(path), "claim 72 bytes", "more than the 64 bytes")


def test_one_range_named_many_times_is_read_once(decoys):
    """Tensors naming the same range (as copies of a subgraph do, or a Loop's body read
    once more) claim it once, and share one array: 1,000 names of one 24-byte range
    are 24 bytes read, not 24,000."""
    (decoys / "data.bin").write_bytes(bytes(range(24)))
    tensors = [external(f"w{i}", TensorProto.UINT8, [24], "data.bin") for i in range(1000)]
    nodes = [helper.make_node("Identity", [f"w{i}"], [f"y{i}"]) for i in range(1000)]
    outs = [helper.make_tensor_value_info(f"y{i}", TensorProto.UINT8, None)
            for i in range(1000)]
    path = decoys / "m.onnx"
    onnx.save(model(nodes, [], outs, tensors), path)
    _, ys = from_onnx(path)
    values = {id(y.owner.inputs[0].data) for y in ys}
    assert len(values) == 1
    assert (ys[0].owner.inputs[0].data == np.arange(24)).all()


def test_a_constant_nodes_external_tensor_follows_the_same_rules(decoys):
    t = external("c", TensorProto.UINT8, [24], "secret.txt")
    m = model([helper.make_node("Constant", [], ["y"], value=t)], [],
              [helper.make_tensor_value_info("y", TensorProto.UINT8, None)])
    path = decoys / "m.onnx"
    onnx.save(m, path)
    for read in (from_onnx, infer_shapes):
        _refused(lambda read=read: read(path), "attribute 'value'", "cannot be opened")


def test_a_node_memo_hit_does_not_skip_the_external_data_check(decoys):
    """ConstantOfShape's value attribute kept in a file: typed from its folder, then the
    same node given as bytes (no folder) is refused, not typed from the node memo."""
    (decoys / "v.bin").write_bytes(np.float32(1.5).tobytes())
    value = external("v", TensorProto.FLOAT, [1], "v.bin")
    shape = numpy_helper.from_array(np.array([2, 3], np.int64), "s")
    m = model([helper.make_node("ConstantOfShape", ["s"], ["y"], value=value)], [],
              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [shape])
    path = decoys / "m.onnx"
    onnx.save(m, path)
    assert [d.dim_value for d in
            infer_shapes(path).graph.output[0].type.tensor_type.shape.dim] == [2, 3]
    for read in (infer_shapes, from_onnx):
        _refused(lambda read=read: read(m.SerializeToString()), "attribute 'value'",
                 "pass base_dir")


def test_a_contract_reads_external_data_from_the_models_folder(decoys):
    """``kantensor.onnx.contract`` reads a model as from_onnx does: the decoy in the
    working directory is never read, the model's own file is."""
    from kantensor.onnx.contract import contract

    path = decoys / "m.onnx"
    onnx.save(reshape_model(), path)
    _refused(lambda: contract(path), "secret8.bin", "cannot be opened")
    _refused(lambda: contract(reshape_model()), "names no folder: pass base_dir")
    (decoys / "secret8.bin").write_bytes(np.array([-1], np.int64).tobytes())
    assert contract(path).holds(n=7).value is True  # its own shape, (-1,): any n
    assert contract(reshape_model(), base_dir=decoys).holds(n=7).value is True
