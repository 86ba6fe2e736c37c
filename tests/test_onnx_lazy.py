"""What infer_shapes skips must not change its answers: the ONNX catalogue's tables are
found without parsing the files (each is parsed when a model uses its op type), each
distinct node is typed once (kantensor.onnx.nodememo), and initializers' values are read
only when a node asks. Checked against TOML's own reading of the files, from_onnx's graph
and NumPy's results: for repeated layers, nodes that differ only in a known value, and a
model typed again."""

from __future__ import annotations

import gc
import itertools

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
from kantensor.onnx import from_onnx, infer_shapes
from kantensor.onnx.bounds import arity
from kantensor.onnx.importer import read_types
from kantensor.onnx.loading import OnnxImportError
from kantensor.onnx.registry import Tables, _key, _split, _table, _tables, registry
from kantensor.ops import keyed, shipped
from kantensor.ops.catalogue import catalogue_files, catalogue_root, read_tables

F = TensorProto.FLOAT


def layers(n: int) -> onnx.ModelProto:
    """``n`` identical layers, each reshaping x:(batch, seq, 8) to (batch, seq, 2, 4) and
    to (batch, seq, 4, 2) by Shape -> Gather -> Concat chains that differ only in the
    values of their initializers, then back, plus a folded constant (-0.0 apart from
    0.0: 1 / -0.0 is -inf)."""
    inits = [numpy_helper.from_array(np.array(v, np.int64), name) for name, v in
             [("i0", 0), ("i1", 1), ("axes", [0]), ("a", [2, 4]), ("b", [4, 2]),
              ("flat", [0, 0, 8])]]
    inits += [numpy_helper.from_array(np.array([v], np.float32), name) for name, v in
              [("pz", 0.0), ("nz", -0.0), ("one", 1.0)]]
    inits.append(numpy_helper.from_array(np.zeros((8, 8), np.float32), "w"))
    nodes, x = [], "x"
    for i in range(n):
        def node(op: str, ins: list, out: str, i: int = i, **attrs: object) -> str:
            nodes.append(helper.make_node(op, ins, [f"{out}{i}"], **attrs))
            return f"{out}{i}"
        s = node("Shape", [x], "s")
        b = node("Unsqueeze", [node("Gather", [s, "i0"], "g0"), "axes"], "u0")
        t = node("Unsqueeze", [node("Gather", [s, "i1"], "g1"), "axes"], "u1")
        ra = node("Reshape", [x, node("Concat", [b, t, "a"], "ca", axis=0)], "ra")
        rb = node("Reshape", [x, node("Concat", [b, t, "b"], "cb", axis=0)], "rb")
        back = node("Add", [node("Reshape", [ra, "flat"], "fa"),
                            node("Reshape", [rb, "flat"], "fb")], "sum")
        node("Div", ["one", "pz"], "inf")
        node("Div", ["one", "nz"], "ninf")
        x = node("MatMul", [back, "w"], "mm")
    graph = helper.make_graph(
        nodes, "layers", [helper.make_tensor_value_info("x", F, ["batch", "seq", 8])],
        [helper.make_tensor_value_info(x, F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def typed(model: onnx.ModelProto) -> dict[str, onnx.TypeProto]:
    graph = model.graph
    return {v.name: v.type for v in [*graph.value_info, *graph.output]}


def test_repeated_layers_are_typed_as_the_graph_and_numpy_say():
    model = layers(3)
    ins, outs = from_onnx(model)
    graph_types = {}
    stack = list(outs)
    while stack:  # every variable of from_onnx's graph, by name
        v = stack.pop()
        if v.name and v.name not in graph_types:
            graph_types[v.name] = v.type
            if v.owner is not None:
                stack.extend(v.owner.inputs)
    first, again = typed(infer_shapes(model)), typed(infer_shapes(model.SerializeToString()))
    assert first == again
    for name, t in first.items():
        dims = [d.dim_param or d.dim_value for d in t.tensor_type.shape.dim]
        if name in graph_types:
            assert dims == [str(d) if isinstance(d, kt.Dim) else d
                            for d in graph_types[name].shape], name
    for i in range(3):
        dims = {name: [d.dim_param or d.dim_value for d in first[f"{name}{i}"]
                       .tensor_type.shape.dim] for name in ("ra", "rb", "mm")}
        assert dims == {"ra": ["batch", "seq", 2, 4], "rb": ["batch", "seq", 4, 2],
                        "mm": ["batch", "seq", 8]}
    value = np.ones((2, 3, 8), np.float32)
    (got,) = kt.function(ins, outs)(value)
    assert got.shape == (2, 3, 8)


def test_a_folded_value_follows_its_inputs_values_bit_for_bit():
    model = layers(2)
    with np.errstate(divide="ignore"):
        want = {f"{name}{i}": np.float32(1) / np.array([z], np.float32)
                for name, z in (("inf", 0.0), ("ninf", -0.0)) for i in range(2)}
    for _ in range(2):  # the second pass types every node from the memo
        values = read_types(model).values
        assert {name: values[name].tolist() for name in want} == \
            {name: v.tolist() for name, v in want.items()}


def test_the_tables_found_without_parsing_are_the_files_tables():
    for name, text in catalogue_files("onnx"):
        split = _split(text)
        assert split is not None, name  # the shipped files are written to be split
        raws = read_tables(name, text)
        assert [(key, entry) for key, entry, _ in split] == \
            [(_key(raw), raw["name"]) for raw in raws]
        assert [read_tables(name, chunk) for _, _, chunk in split] == [[r] for r in raws]


def test_the_quick_input_check_agrees_with_arity_on_every_entry():
    """``OnnxOp.fits`` (the importer's check of each node's inputs) says yes exactly
    where :func:`kantensor.onnx.bounds.arity` raises nothing: every entry, every pattern
    of given and absent inputs up to two past its inputs."""
    checked = 0
    for ops in registry().values():
        for op in ops:
            for n in range(min(len(op.inputs), 6) + 3):
                for given in itertools.product((True, False), repeat=n):
                    names = [f"x{k}" if g else "" for k, g in enumerate(given)]
                    try:
                        arity(op.inputs, helper.make_node("X", names, ["y"]), "node")
                        fits = True
                    except OnnxImportError as exc:
                        assert "is required" in str(exc) or "expected" in str(exc)
                        fits = False
                    assert op.fits(names) is fits, (op.entry.where, names)
                    checked += 1
    assert checked > 4000


def test_reading_a_model_leaves_the_cycle_collector_as_it_was():
    """infer_shapes and from_onnx pause the collector while they read (the objects a read
    makes live until it ends) and restore it as they found it, also when they raise."""
    bad = layers(1)
    bad.graph.node[0].input[0] = "nowhere"  # an input no node, initializer or input defines
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            infer_shapes(layers(2))
            from_onnx(layers(1))
            assert gc.isenabled() is enabled
            for read in (infer_shapes, from_onnx):
                with pytest.raises(OnnxImportError, match="nowhere"):
                    read(bad)
                assert gc.isenabled() is enabled
    finally:
        gc.enable()


def _read(tables: Tables) -> dict:
    """Each table of ``registry._tables()``'s answer as its data (a key's shipped rows
    one string: kantensor.ops.keyed)."""
    return {key: [(file, index, _table(file, index, table, key, tables.verified))
                  for file, index, table in
                  (keyed.rows("onnx", rows) if isinstance(rows, str) else rows)]
            for key, rows in tables.items()}


def toml_index() -> dict:
    """What ``_read(_tables())`` must be: each file's tables as TOML reads them, by key,
    in the files' order."""
    out: dict = {}
    for name, text in catalogue_files("onnx"):
        for index, raw in enumerate(read_tables(name, text)):
            out.setdefault(_key(raw), []).append((f"onnx/{name}", index, raw))
    return out


def test_the_shipped_tables_are_the_files_tables():
    """Made again from the TOML files, the ONNX folder's precompiled tables are the
    shipped file, byte for byte (if this fails: ``make catalogue-index`` and commit it);
    each file's tables are TOML's reading of it, and the registry reads them from there
    (no table is left as text to parse)."""
    assert (catalogue_root() / "onnx" / shipped.TABLES).read_text(encoding="utf-8") == \
        shipped.serialized("onnx")
    assert all(isinstance(rows, str) for rows in _tables().values())  # (all shipped)
    assert _read(_tables()) == toml_index()


