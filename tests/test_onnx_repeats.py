"""The first-seen node typed by the template of its op type's last node
(kantensor.onnx.repeats) must be typed exactly as the node-by-node path types it: on
chains of repeated blocks of random widths (0, 1, equal and distinct sizes, named and
unknown sizes, initializers, broadcasts that fail, facts made midway), by hypothesis,
comparing every type, condition, untyped name and error, and the model infer_shapes
writes; and it must actually type the blocks of a model of layers of other widths."""

from __future__ import annotations

import numpy as np
import onnx
import onnx.numpy_helper
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper

from kantensor.graph import codegen
from kantensor.onnx import (
    generic,
    importer,
    infer_shapes,
    modelmemo,
    nodecache,
    nodememo,
    nodeslot,
    repeats,
)
from kantensor.onnx.importer import read_types

#: the kinds of node a block is made of (each on the chain's value x of shape [batch, w])
KINDS = ("matmul", "add", "mul", "relu", "concat", "gemm", "weight", "facts")


def _forget() -> None:
    for table in (generic.TEMPLATES, generic.PINNED, nodememo.MEMO, nodecache.NODES,
                  modelmemo.MODELS):
        table.clear()


def _read(model: onnx.ModelProto, repeats: bool) -> tuple:
    """The reader's types, conditions and untyped names (or the error), the model
    infer_shapes writes (or the error), every memo emptied first, and the outputs of the nodes
    the reader typed by :mod:`kantensor.onnx.repeats` (with ``repeats`` False: none)."""
    real, counted = importer.repeated, []

    def counting(reader: object, rec: nodecache.NodeRecord, node: object) -> bool:
        typed = real(reader, rec, node)
        if typed:
            counted.append(rec.wanted[0])
        return typed
    importer.repeated = counting if repeats else (lambda *a: False)
    try:
        _forget()
        try:
            reader = read_types(model)
            read = (tuple((k, str(v)) for k, v in reader.types.items()),
                    tuple(map(str, reader.conditions)), tuple(sorted(reader.untyped)))
        except Exception as exc:  # noqa: BLE001 - the error is the answer compared
            read = type(exc).__name__, str(exc)
        typed = tuple(counted)  # (by read_types)
        _forget()
        try:
            written = infer_shapes(model).SerializeToString()
        except Exception as exc:  # noqa: BLE001
            written = type(exc).__name__, str(exc)
    finally:
        importer.repeated = real
    return read, written, typed


def _chain(block: list[str], choices: list[list[str | int]], batch: str | int | None,
           names: list[str]) -> onnx.ModelProto:
    """``len(choices)`` repetitions of ``block`` on x of shape [batch, w]: each node's
    new width, or the size its other operand gives where x's width is expected, is by
    its choice a fresh size (each one greater than all before: distinct, above 1), 0,
    1, the width w itself, or (``"named"``) one of ``names``."""
    fresh = iter(range(2, 1 << 20))
    x, w = "x", next(fresh)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, w])]
    nodes, weights = [], []
    for i, chosen in enumerate(choices):
        for j, kind in enumerate(block):
            choice = chosen[j % len(chosen)]
            if choice == "named" and not names:
                choice = "fresh"
            v = next(fresh) if choice == "fresh" else w if choice == "same" else \
                names[i % len(names)] if choice == "named" else choice
            # the size given where x's width w is expected: w unless the choice says
            u = w if choice == "fresh" else v
            other, out = f"p{i}_{j}", f"y{i}_{j}"
            if kind == "matmul":
                inputs.append(helper.make_tensor_value_info(other, TensorProto.FLOAT, [w, v]))
                nodes.append(helper.make_node("MatMul", [x, other], [out]))
            elif kind == "add":
                inputs.append(helper.make_tensor_value_info(other, TensorProto.FLOAT, [u]))
                nodes.append(helper.make_node("Add", [x, other], [out]))
            elif kind == "mul":
                inputs.append(helper.make_tensor_value_info(other, TensorProto.FLOAT,
                                                            [batch, u]))
                nodes.append(helper.make_node("Mul", [x, other], [out]))
            elif kind == "relu":
                nodes.append(helper.make_node("Relu", [x], [out]))
            elif kind == "concat":
                inputs.append(helper.make_tensor_value_info(other, TensorProto.FLOAT,
                                                            [batch, v]))
                nodes.append(helper.make_node("Concat", [x, other], [out], axis=1))
            elif kind == "gemm":  # (attributes)
                inputs.append(helper.make_tensor_value_info(other, TensorProto.FLOAT, [v, w]))
                nodes.append(helper.make_node("Gemm", [x, other], [out], transB=1))
            elif kind == "weight":  # a known weight: typed by its type alone
                weights.append(onnx.numpy_helper.from_array(np.ones(
                    (w if type(w) is int else 2, v if type(v) is int else 2),
                    dtype=np.float32), other))
                nodes.append(helper.make_node("MatMul", [x, other], [out]))
            else:  # facts: a MatMul of a named size makes a condition midway
                inputs.append(helper.make_tensor_value_info(other, TensorProto.FLOAT,
                                                            [f"k{i % 2}", v]))
                nodes.append(helper.make_node("MatMul", [x, other], [out]))
            x = out
            if kind in ("matmul", "gemm", "weight", "facts"):
                w = v
            elif kind == "concat":  # (a sum of sizes: the next node's own form)
                w = w + v if type(w) is int and type(v) is int else None
    graph = helper.make_graph(nodes, "chain", inputs,
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)],
                              initializer=weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


#: most sizes fresh (so that templates form and repeat), some 0, 1, equal or named
CHOICES = st.sampled_from(["fresh"] * 8 + [0, 1, "same", "named"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4),
       st.integers(4, 8).flatmap(lambda n: st.lists(
           st.lists(CHOICES, min_size=1, max_size=4), min_size=n, max_size=n)),
       st.sampled_from(["batch", 3, None]), st.sampled_from([[], ["n"], ["n", "m"]]))
def test_repeated_blocks_are_typed_as_node_by_node(block, choices, batch, names):
    model = _chain(block, choices, batch, names)
    with_, written, _ = _read(model, True)
    without, written_without, none = _read(model, False)
    assert with_ == without
    assert written == written_without
    assert not none
    with codegen.plain():  # the checks as the plain loop makes them, never generated
        assert _read(model, True)[:2] == (with_, written)


def test_repeated_blocks_of_growing_widths_are_typed_by_repeats():
    """onnx_distinct.py's chain (block i of widths i+2 -> i+3): after its first blocks,
    every node is typed by its op type's last template, as node by node."""
    blocks = repeats.GENERATE_AT + 8  # (each op type's template types more nodes)
    model = _chain(["matmul", "add", "relu"], [["fresh"]] * blocks, "batch", [])
    made = []
    real = repeats._typing

    def generated(last: object) -> object:
        made.append(real(last))
        return made[-1]
    repeats._typing = generated
    try:
        with_, written, counted = _read(model, True)
    finally:
        repeats._typing = real
    without, written_without, none = _read(model, False)
    assert with_ == without and written == written_without
    assert dict(with_[0])[f"y{blocks - 1}_2"] == f"float32[batch,{3 * blocks}]"
    assert not none and 3 * (blocks - 4) <= len(counted) < 3 * blocks
    # each op type's checks and typing generated once it typed GENERATE_AT nodes
    # (straight-line code, one function), in each of the two reads (read_types,
    # infer_shapes)
    assert len(made) == 2 * 3 and all("for " not in fn.__source__ for fn in made)


def test_a_template_of_few_nodes_is_typed_without_generated_code():
    """A template that types fewer than GENERATE_AT nodes is never compiled (compiling
    costs more than its loop's extra steps over so few): the loop types them all, as
    node by node."""
    model = _chain(["matmul", "add", "relu"], [["fresh"]] * 8, "batch", [])
    made = []
    real = repeats._typing

    def generated(last: object) -> object:
        made.append(real(last))
        return made[-1]
    repeats._typing = generated
    try:
        with_, written, counted = _read(model, True)
    finally:
        repeats._typing = real
    assert (with_, written) == _read(model, False)[:2]
    assert counted and not made


def test_equal_sizes_zero_one_and_new_facts_are_left_to_the_node_path():
    """A node whose sizes repeat where its op type's last template had distinct ones, a
    size of 0 or 1, or a reader whose facts changed: not typed by repeats (its key is
    another), and typed as node by node."""
    model = _chain(["matmul", "add", "relu"], [["fresh"]] * 6 + [["same"], [1], [0]],
                   "batch", [])
    with_, written, counted = _read(model, True)
    assert (with_, written) == _read(model, False)[:2]
    # [batch, 8] @ [8, 8]: one slot where the last MatMul's template had two; its Add
    # and Relu ([batch, 8] + [8]) have the form of the last ones'; then sizes of 1 and 0
    assert "y5_0" in counted and "y6_0" not in counted and "y6_1" in counted
    assert not any(name.startswith(("y7", "y8")) for name in counted)
    facts = _chain(["matmul", "facts", "relu"], [["fresh"]] * 8, "batch", [])
    with_, written, counted = _read(facts, True)
    assert (with_, written) == _read(facts, False)[:2]
    assert with_[1] and not counted  # (each MatMul of named sizes made new facts)


def test_a_pinned_size_is_left_to_the_node_path():
    """3x3 Conv -> Relu layers, their weights initializers: the Conv's template keeps the
    kernel's 3 a constant (pinned), so a layer of 3 channels has another template key
    than the layers before it; typed as node by node."""
    vi = helper.make_tensor_value_info
    widths = [4, 5, 6, 7, 8, 9, 10, 3, 11, 12, 13, 14]
    nodes, weights, x, c = [], [], "x", 2
    for i, w in enumerate(widths):
        weights.append(onnx.numpy_helper.from_array(np.zeros((w, c, 3, 3), np.float32),
                                                    f"w{i}"))
        nodes += [helper.make_node("Conv", [x, f"w{i}"], [f"y{i}_0"], pads=[1, 1, 1, 1],
                                   kernel_shape=[3, 3]),
                  helper.make_node("Relu", [f"y{i}_0"], [f"y{i}_1"])]
        x, c = f"y{i}_1", w
    graph = helper.make_graph(nodes, "g", [vi("x", TensorProto.FLOAT, ["b", 2, 32, "w"])],
                              [vi(x, TensorProto.FLOAT, None)], initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with_, written, counted = _read(model, True)
    assert (with_, written) == _read(model, False)[:2]
    assert dict(with_[0])["y11_1"] == "float32[b,14,32,w]"
    # the Conv's template is made at its seventh layer (see test_onnx_generic), the
    # next two have 3 channels out, then in; the Relus' template pins nothing
    assert "y9_0" in counted and "y11_0" in counted and "y7_1" in counted
    assert "y7_0" not in counted and "y8_0" not in counted


def test_nodes_typed_by_a_template_without_records_read_again_as_with_them(monkeypatch):
    """A first infer_shapes types a node by its op type's last template without making
    its record (nodecache.SEEN in its place); a reading of the model again node by node
    (the model memo emptied) makes that record then, with the slot a record typed once
    has, and a third reading uses the slots the second made. Each reading writes the
    model the reading with records made at once writes (nodeslot.first_typed off), and
    the records are the same, field by field, and their slots the same (ONCE, then the
    same kind of slot)."""
    model = _chain(["matmul", "add", "relu"], [["fresh"]] * 12, "batch", [])
    data = list(map(onnx.NodeProto.SerializeToString, model.graph.node))

    def readings() -> tuple[list[bytes], list[tuple]]:
        _forget()
        written, states = [], []
        for _ in range(3):
            modelmemo.MODELS.clear()
            written.append(infer_shapes(model).SerializeToString())
            states.append(tuple(_state(nodecache.NODES.get(d)) for d in data))
        return written, states

    def _state(rec: object) -> object:
        if rec is nodecache.SEEN:
            return "seen"
        return (rec.op_type, rec.domain, rec.names, rec.wanted, rec.attributes, rec.kept,
                rec.literal, rec.slot is nodecache.ONCE, rec.slot is None, rec.plan is None)
    written, states = readings()
    assert states[0].count("seen") >= 3 * 8  # (the first blocks' nodes have records)
    assert "seen" not in states[1] and "seen" not in states[2]
    monkeypatch.setattr(nodeslot, "first_typed", lambda *a: False)
    with_records, states_with = readings()
    assert "seen" not in states_with[0]
    assert written == with_records and len(set(written)) == 1
    # the records made when met again are those made at once; their slots alike
    assert states[1:] == states_with[1:]
    assert [s for s in states[0] if s != "seen"] == \
        [s for s, t in zip(states_with[0], states[0], strict=True) if t != "seen"]


def test_nodes_typed_at_first_sight_are_filed_at_once_within_the_bounds(monkeypatch):
    """nodecache.seen_all files a reading's nodes typed at first sight as SEEN at once:
    all of them beside what NODES holds where they fit; else NODES emptied and as many
    of the last ones as fit its count and bytes, the large ones never (brute force over
    the counts and sizes against the bounds one by one filing keeps)."""
    monkeypatch.setattr(nodecache, "NODES_SIZE", 8)
    monkeypatch.setattr(nodecache, "NODES_BYTES", 40)
    monkeypatch.setattr(nodecache, "MAX_NODE", 9)
    for held in range(4):
        for count in range(12):
            nodecache.NODES.clear()
            nodecache._held[0] = 0
            old = [b"old%d" % k for k in range(held)]
            for d in old:
                nodecache.NODES[d] = object()
                nodecache._held[0] += len(d)
            datas = [(b"n%d" % k).ljust(3 + k % 4, b".") for k in range(count)]
            datas.insert(count // 2, b"L" * 10)  # (larger than MAX_NODE: never filed)
            nodecache.seen_all(datas)
            small = [d for d in datas if len(d) <= 9]
            filed = [d for d in nodecache.NODES if nodecache.NODES[d] is nodecache.SEEN]
            if held + len(small) <= 8 and 4 * held + sum(map(len, small)) <= 40:
                assert list(nodecache.NODES) == old + small
            else:  # (emptied: a run of the last ones, the longest within both bounds)
                assert list(nodecache.NODES) == filed == small[len(small) - len(filed):]
                k = len(small) - len(filed)
                assert len(filed) <= 8 and sum(map(len, filed)) <= 40
                assert k == 0 or len(filed) == 8 or sum(map(len, small[k - 1:])) > 40
            assert nodecache._held[0] == sum(map(len, nodecache.NODES))
    nodecache.NODES.clear()
    nodecache._held[0] = 0
