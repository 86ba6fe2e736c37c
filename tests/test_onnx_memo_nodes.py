"""infer_shapes's warm path node by node (the model memo missing, as for a model edited
slightly): every node is found by its bytes and typed from the node memo, with the
caches beside it (entries by op type and opset, facts about input sizes, value
intervals, value infos as bytes, large folded values keyed by their bytes). None may
change an answer: each reading is compared with one made with every memo emptied."""

from __future__ import annotations

import random

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import sizing
from kantensor import TypeInferenceError
from kantensor.onnx import (
    generic,
    importer,
    infer_shapes,
    intervals,
    modelmemo,
    nodecache,
    nodememo,
    nodeslot,
    shapes,
    sources,
    values,
)
from kantensor.onnx.loading import OnnxImportError
from kantensor.onnx.shapes import typed_model
from onnx_chains import fixed
from onnx_shape_graphs import assignments, random_model
from test_onnx_contradictions import _broadcast
from test_onnx_memo import _gathered_then_sliced, base, types

F = TensorProto.FLOAT


def forget() -> None:
    """Empty every memo infer_shapes keeps across models."""
    for memo in (modelmemo.MODELS, nodememo.MEMO, nodecache.NODES, generic.TEMPLATES,
                 generic.PINNED, importer._ENTRIES, nodememo._ABOUT, intervals._KNOWN,
                 intervals._OUTPUTS, shapes._INFOS, shapes._INFO_TYPES, shapes._TYPES,
                 sources._HEADERS):
        memo.clear()
    nodememo._held[0] = nodecache._held[0] = modelmemo._held[0] = 0


def fresh(model: onnx.ModelProto) -> onnx.ModelProto:
    """The typing of ``model`` with every memo emptied first."""
    forget()
    return typed_model(model)[0]


def folded_bias(bias: float = 1.0, size: int = 100) -> onnx.ModelProto:
    """y = x + Identity(b), and a shape from the sum of Identity(b) cast to int: the
    Identity of a ``size``-element initializer is folded (every input known), and the
    folded sum decides z's size."""
    b = numpy_helper.from_array(np.full(size, bias, np.float32), "b")
    nodes = [helper.make_node("Identity", ["b"], ["bb"]),
             helper.make_node("Add", ["x", "bb"], ["y"]),
             helper.make_node("ReduceSum", ["bb"], ["s"], keepdims=1),
             helper.make_node("Cast", ["s"], ["n"], to=TensorProto.INT64),
             helper.make_node("ConstantOfShape", ["n"], ["z"])]
    graph = helper.make_graph(nodes, "bias", [helper.make_tensor_value_info(
        "x", F, ["batch", size])], [helper.make_tensor_value_info(o, F, None)
                                    for o in ("y", "z")], [b])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


GRID = [("base", {}), ("small", {"small": [4, 2]}), ("big", {"big": 2}),
        ("dims", {"shape": ["n", "seq", 8]}), ("attribute", {"to": TensorProto.DOUBLE}),
        ("opset", {"opset": 18}), ("outputs", {"outputs": ("y", "w", "z")})]
MODELS = [base(**change) for _, change in GRID] + [folded_bias(), folded_bias(2.0),
                                                   folded_bias(size=70)]


def test_models_typed_node_by_node_in_any_order_are_typed_as_each_alone(monkeypatch):
    """Each model typed three times in a shuffled order, the model memo emptied before
    each: every answer is the one made with every memo emptied, and a model met again
    builds no node (each is typed from the node memo, a large folded value by its
    bytes)."""
    want = [fresh(m) for m in MODELS]
    assert types(want[-3])["z"] != types(want[-2])["z"]  # the bias's data decides z
    assert "dim_value: 100" in types(want[-3])["z"]
    builds = []
    build = importer._Reader.build
    monkeypatch.setattr(importer._Reader, "build",
                        lambda self, *args: builds.append(args[1].op_type) or
                        build(self, *args))
    order = [*range(len(MODELS))] * 3
    np.random.default_rng(36).shuffle(order)
    seen = set()
    forget()
    for k in order:
        modelmemo.MODELS.clear()
        builds.clear()
        assert infer_shapes(MODELS[k]) == want[k], k
        if k in seen:
            assert builds == [], (k, builds)
        seen.add(k)


def test_a_large_folded_value_is_keyed_by_its_bytes_and_bounded(monkeypatch):
    """The node memo keeps large folded values (and keys by them) within its byte
    bound: models whose biases differ are each typed as alone, and what it holds stays
    under the bound."""
    monkeypatch.setattr(nodememo, "MEMO_BYTES", 4_000)
    forget()
    for bias in range(1, 30):
        model = folded_bias(float(bias))
        want = types(fresh(model))
        forget()
        modelmemo.MODELS.clear()
        assert types(infer_shapes(model)) == want
        assert f"dim_value: {100 * bias}" in want["z"]
        assert 0 < nodememo._held[0] <= 4_000, (bias, len(nodememo.MEMO))


def test_a_value_larger_than_a_folded_one_is_not_read_for_a_key(monkeypatch):
    """A known input past the fold limit is neither read nor keyed: the node is built
    each time, as before the limit allowed it."""
    model = folded_bias(size=100)
    forget()
    infer_shapes(model)
    monkeypatch.setattr(values, "MAX_FOLD", 50)
    modelmemo.MODELS.clear()
    lowered = infer_shapes(model)
    assert lowered == fresh(model)
    assert "dim_value: 100" not in types(lowered)["z"]  # not folded at the new limit


@pytest.mark.parametrize("module, limit, model", [
    (values, "MAX_FOLD", base), (intervals, "MAX_ELEMENTS", _gathered_then_sliced)])
def test_a_limit_changed_is_read_node_by_node(monkeypatch, module, limit, model):
    """A limit a caller may set decides a node's typing: typed node by node after it
    changed (the nodes typed from their slots before), the reading is the one at the
    new limit, not the node memo's nor a slot's."""
    forget()
    for _ in range(3):
        modelmemo.MODELS.clear()
        before = infer_shapes(model())
    monkeypatch.setattr(module, limit, 1)
    modelmemo.MODELS.clear()
    after = infer_shapes(model())
    assert after == fresh(model())
    assert types(after) != types(before)


def test_value_infos_are_written_for_each_model_of_their_own(monkeypatch):
    """A value info kept as bytes is found by its name and type: a name that is an
    output in one model and a value in another is written as each model says, and the
    caches stay within their bounds."""
    monkeypatch.setattr(shapes, "_INFOS_SIZE", 4)
    forget()
    for outputs in (("y",), ("y", "w", "z"), ("y",)):
        model = base(outputs=outputs)
        modelmemo.MODELS.clear()
        out = infer_shapes(model)
        assert out == fresh(model)
        assert {v.name for v in out.graph.value_info}.isdisjoint(outputs)
        assert len(shapes._INFOS) <= 4


def _offset_positions(start: int, rows: int = 10) -> onnx.ModelProto:
    """``table[start + arange(seq)]``: the Range's type is int64[seq] whatever ``start``
    (a small initializer) is, but its values' interval is [start, start + seq), which
    decides the Gather's condition ``start + seq <= rows``."""
    inits = [numpy_helper.from_array(np.array(v, np.int64), name)
             for name, v in (("start", start), ("zero", 0), ("one", 1))]
    inits.append(numpy_helper.from_array(np.zeros((rows, 4), np.float32), "table"))
    nodes = [helper.make_node("Shape", ["x"], ["sh"]),
             helper.make_node("Gather", ["sh", "zero"], ["seq"], axis=0),
             helper.make_node("Add", ["start", "seq"], ["limit"]),
             helper.make_node("Range", ["start", "limit", "one"], ["pos"]),
             helper.make_node("Gather", ["table", "pos"], ["y"], axis=0)]
    graph = helper.make_graph(nodes, "positions", [helper.make_tensor_value_info(
        "x", F, ["seq"])], [helper.make_tensor_value_info("y", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _reading(model: onnx.ModelProto) -> tuple:
    out, reader = typed_model(model)
    return out, tuple(map(str, reader.conditions)), str(reader.facts)


@pytest.mark.parametrize("models", [
    [_offset_positions(0), _offset_positions(3), _offset_positions(0)],
    [_gathered_then_sliced(), _gathered_then_sliced()],
])
def test_a_node_met_again_under_other_intervals_or_facts_is_typed_anew(models):
    """A node whose inputs' types are as before but whose inputs' value intervals (the
    Gather's positions) or the facts about their sizes differ is typed anew: the
    conditions and facts are those of the reading with every memo emptied."""
    want = []
    for m in models:
        forget()
        want.append(_reading(m))
    if len(models) == 3:
        assert want[0][1] != want[1][1]  # the start decides the Gather's condition
    forget()
    for m, expected in zip(models * 2, want * 2, strict=True):
        modelmemo.MODELS.clear()
        assert _reading(m) == expected


def test_a_remembered_folded_value_cannot_be_changed():
    """A value the node memo keeps (a folded shape, a folded bias) is shared by every
    model meeting its key: the reader's copy of it refuses writes, and the next typing
    is unchanged."""
    forget()
    model = folded_bias()
    reader = typed_model(model)[1]
    for name in ("bb", "n"):  # a large folded value, a small one
        with pytest.raises(ValueError, match="read-only"):
            reader.values[name][0] = 7
    modelmemo.MODELS.clear()
    assert infer_shapes(model) == fresh(model)


def test_an_initializer_header_met_before_still_has_its_data_checked():
    """The type of an initializer's header is kept across models; its data is still
    checked against it in each: a model whose tensor holds too few bytes is refused after
    a model with the same header was typed."""
    good = folded_bias()
    forget()
    infer_shapes(good)
    bad = onnx.ModelProto()
    bad.CopyFrom(good)
    bad.graph.initializer[0].raw_data = bad.graph.initializer[0].raw_data[:-4]
    modelmemo.MODELS.clear()
    with pytest.raises(Exception, match="holds 396 bytes"):
        infer_shapes(bad)


def _graph(nodes: list, inits: tuple = ()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "slots", [helper.make_tensor_value_info("x", F, [
        "n", 4])], [helper.make_tensor_value_info("z", F, None)], list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


RELU = helper.make_node("Relu", ["x"], ["y"], name="a")
SPLIT = helper.make_node("Split", ["y"], ["s0", "s1"], name="s", axis=1, num_outputs=2)
CONSTANT = helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(
    np.arange(3, dtype=np.int64)))
LAST = helper.make_node("Concat", ["s0", "s1"], ["z"], name="c", axis=1)
DEFAULT_Y = numpy_helper.from_array(np.ones((2, 4), np.float32), "y")
DEFAULT_S1 = numpy_helper.from_array(np.ones((2, 2), np.float32), "s1")


def _typed_from_slots(model: onnx.ModelProto, want: onnx.ModelProto, monkeypatch) -> None:
    """Type ``model`` node by node until each of its nodes is typed from its slot (none
    read by the reader's ``node``), its answer ``want`` each time."""
    read = []
    node = importer._Reader.node
    monkeypatch.setattr(importer._Reader, "node", lambda self, *args: read.append(
        args[1].op_type) or node(self, *args))
    forget()
    for _ in range(3):
        read.clear()
        modelmemo.MODELS.clear()
        assert infer_shapes(model) == want
    assert read == []
    monkeypatch.setattr(importer._Reader, "node", node)


@pytest.mark.parametrize("nodes, inits", [
    ([RELU, RELU, SPLIT, CONSTANT, LAST], ()),  # a node met again in the same model
    ([RELU, SPLIT, CONSTANT, CONSTANT, LAST], ()),  # a Constant met again
    ([RELU, SPLIT, CONSTANT, LAST], (DEFAULT_Y,)),  # an output that is an initializer
    ([RELU, SPLIT, CONSTANT, LAST], (DEFAULT_S1,)),  # one of several outputs
])
def test_a_node_typed_from_its_slot_still_refuses_a_name_assigned_twice(nodes, inits,
                                                                        monkeypatch):
    """Nodes typed node by node often enough to be typed from their slots, met in a
    model that assigns one of their outputs twice: refused as a reading with every memo
    emptied refuses it."""
    good = _graph([RELU, SPLIT, CONSTANT, LAST])
    want = fresh(good)
    forget()
    with pytest.raises(OnnxImportError) as fresh_error:
        typed_model(_graph(nodes, inits))
    assert "is assigned already" in str(fresh_error.value)
    _typed_from_slots(good, want, monkeypatch)
    modelmemo.MODELS.clear()
    with pytest.raises(OnnxImportError) as error:
        infer_shapes(_graph(nodes, inits))
    assert str(error.value) == str(fresh_error.value)


def test_a_node_whose_input_is_left_untyped_is_not_typed_from_its_slot(monkeypatch):
    """A node whose slot holds its typing, met where an unsupported node computes its
    input: what the unsupported node reaches is left untyped, as with every memo
    emptied."""
    good = _graph([RELU, SPLIT, CONSTANT, LAST])
    unsupported = _graph([helper.make_node("NoSuchOp", ["x"], ["y"], name="a"), SPLIT,
                          CONSTANT, LAST])
    want = fresh(unsupported)
    assert "z" not in {v.name for v in want.graph.value_info} and not want.graph.output[
        0].type.tensor_type.HasField("shape")
    typed = fresh(good)
    _typed_from_slots(good, typed, monkeypatch)
    modelmemo.MODELS.clear()
    assert infer_shapes(unsupported) == want
    modelmemo.MODELS.clear()
    assert infer_shapes(good) == typed


def test_intervals_a_plan_read_are_checked_again_after_their_limit_changed(monkeypatch):
    """A node whose slot read the interval of a known input (a Gather's indices, an
    initializer) is typed from its slot without reading that interval again while the
    interval limit stays, and reads it again once the limit changed (the interval of a
    known value is a function of the value and the limit), the answer the one with every
    memo emptied."""
    table = numpy_helper.from_array(np.zeros((10, 4), np.float32), "table")
    idx = numpy_helper.from_array(np.arange(8, dtype=np.int64), "idx")
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Gather", ["table", "idx"], ["g"], axis=0),
         helper.make_node("Relu", ["g"], ["y"])], "gather", [],
        [helper.make_tensor_value_info("y", F, None)], [table, idx]),
        opset_imports=[helper.make_opsetid("", 18)])
    want = fresh(model)
    _typed_from_slots(model, want, monkeypatch)
    read = []
    bounds = nodeslot._bounds
    monkeypatch.setattr(nodeslot, "_bounds", lambda *args: read.append(1) or bounds(*args))
    modelmemo.MODELS.clear()
    assert infer_shapes(model) == want and read == []
    monkeypatch.setattr(intervals, "MAX_ELEMENTS", 4)
    modelmemo.MODELS.clear()
    after = infer_shapes(model)
    assert read  # (read again: the slot's own, then a new slot's)
    assert after == fresh(model)


def test_an_interval_a_node_typed_from_its_slot_makes_is_recorded():
    """``x[:10]`` after ``table[start + arange(seq)]`` (a 10-row table): the Range's
    values' interval, recorded when the Range is typed, makes the Gather's condition
    ``start + seq <= 10`` a fact, so the slice is float32[seq]. Typed node by node until
    the Range is typed from its slot, each answer is the one with every memo emptied."""
    model = _offset_positions(0)
    graph = model.graph
    graph.initializer.append(numpy_helper.from_array(np.array([10]), "ten"))
    graph.initializer.append(numpy_helper.from_array(np.array([0]), "zero1"))
    graph.node.append(helper.make_node("Slice", ["x", "zero1", "ten"], ["s"]))
    graph.output.append(helper.make_tensor_value_info("s", F, None))
    want = fresh(model)
    assert "dim_param: \"seq\"" in types(want)["s"]
    forget()
    for _ in range(4):
        modelmemo.MODELS.clear()
        assert infer_shapes(model) == want


def test_conditions_a_plan_notes_are_facts_for_the_nodes_after_it(monkeypatch):
    """The Gather of ``table[start + arange(seq)]`` (a 10-row table) has the condition
    ``start + seq <= 10``, a fact that makes ``x[:10]`` float32[seq]: typed node by node
    until every node, the Gather too, is written from its plan (its condition noted as
    the reader notes it), each answer is the one with every memo emptied, and so are
    those of the table at other starts (another condition, other facts) met after it."""
    def model(start: int) -> onnx.ModelProto:
        m = _offset_positions(start)
        m.graph.initializer.append(numpy_helper.from_array(np.array([10]), "ten"))
        m.graph.initializer.append(numpy_helper.from_array(np.array([0]), "zero1"))
        m.graph.node.append(helper.make_node("Slice", ["x", "zero1", "ten"], ["s"]))
        m.graph.output.append(helper.make_tensor_value_info("s", F, None))
        return m
    models = [model(start) for start in (0, 3, 12)]
    want = [fresh(m) for m in models]
    assert "dim_param: \"seq\"" in types(want[0])["s"]
    noted = []
    note = importer._Reader.note
    monkeypatch.setattr(importer._Reader, "note", lambda self, *args: noted.append(
        args[0].op_type) or note(self, *args))
    _typed_from_slots(models[0], want[0], monkeypatch)
    assert noted == ["Gather", "Gather"]  # (the first two readings': the second made
    # its plan, which the third wrote: the reader's node read none)
    assert [r.plan.own for r in nodecache.NODES.values() if r.op_type == "Gather" and
            r.plan is not None and r.plan.own]  # (a plan noting conditions)
    for m, expected in zip(models * 3, want * 3, strict=True):
        modelmemo.MODELS.clear()
        assert infer_shapes(m) == expected


def test_a_node_whose_conditions_contradict_each_other_is_refused_node_by_node():
    """A node whose conditions contradict each other (contradiction.py) makes no plan:
    typed node by node again and again, the model is refused each time as a reading with
    every memo emptied refuses it."""
    model = _broadcast(3, (2, 3))
    forget()
    with pytest.raises(TypeInferenceError) as first:
        infer_shapes(model)
    assert "contradict each other" in str(first.value)
    for _ in range(4):
        modelmemo.MODELS.clear()
        with pytest.raises(TypeInferenceError) as again:
            infer_shapes(model)
        assert str(again.value) == str(first.value)
    assert all(r.plan is None for r in nodecache.NODES.values() if r.op_type == "Add")


def test_a_node_reading_a_large_folded_value_as_a_type_is_typed_from_its_plan(monkeypatch):
    """``x + Identity(b)`` with a 100-element ``b``: the Identity folds a value too large
    for a token to hold, which the Add reads as its type only, so the Add is written from
    its plan; a ReduceSum of the value (which reads it) and the Identity are read by the
    reader each time, and each answer, with ``b`` changed too, is the one with every
    memo emptied."""
    models = [folded_bias(), folded_bias(2.0)]
    want = [fresh(m) for m in models]
    read = []
    node = importer._Reader.node
    monkeypatch.setattr(importer._Reader, "node", lambda self, *args: read.append(
        args[1].op_type) or node(self, *args))
    forget()
    for k in (0, 0, 0, 1, 0, 1):
        read.clear()
        modelmemo.MODELS.clear()
        assert infer_shapes(models[k]) == want[k]
    assert "Add" not in read and {"Identity", "ReduceSum"} <= set(read)


#: How many random shape-arithmetic models (each with five variants) the differential
#: test of the node plans types; its long run: KANTENSOR_MEMO_NODES_MODELS=60
FUZZ_MODELS = sizing.size("MEMO_NODES_MODELS", 4, 60)


def _variant(model: onnx.ModelProto, how: str) -> onnx.ModelProto:
    """``model`` edited in one thing a node's typing may read: its opset, its input's
    element type, one int initializer's data, its IR version."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    if how == "opset":
        out.opset_import[0].version = 11  # (Unsqueeze takes an axes attribute)
    elif how == "dtype":
        out.graph.input[0].type.tensor_type.elem_type = TensorProto.DOUBLE
    elif how == "data":
        for t in out.graph.initializer:
            a = numpy_helper.to_array(t)
            if a.dtype.kind == "i" and a.size:
                a = a.copy()
                a.flat[0] += 1
                t.CopyFrom(numpy_helper.from_array(a, t.name))
                break
    else:
        out.ir_version = 7
    return out


def _outcome(model: onnx.ModelProto) -> bytes | tuple:
    try:  # (infer_shapes: its nodes replayed from their plans, see nodeslot.replay)
        return infer_shapes(model).SerializeToString()
    except (ValueError, TypeError) as exc:  # (the typing errors: refused alike)
        return type(exc).__name__, str(exc)


def test_shape_arithmetic_models_edited_slightly_are_typed_from_plans_as_each_alone():
    """Random graphs of the shape arithmetic exporters emit (tests/onnx_shape_graphs.py),
    each with variants of one edit (opset, element type, an initializer's data, IR
    version, fixed input sizes) that share most nodes' bytes: typed node by node in a
    shuffled order three times, each answer (the typed model, or the refusal) is the one
    made with every memo emptied, and plans were made. (It fails when replay's check of
    the inputs' tokens or of the entry a plan holds is removed.)"""
    rng = random.Random(36)
    models = []
    for _ in range(FUZZ_MODELS):
        model, names = random_model(rng)
        models += [model, *[_variant(model, how) for how in ("opset", "dtype", "data", "ir")],
                   *[fixed(model, sizes) for sizes in assignments(rng, names, 1)]]
    want = []
    for m in models:
        forget()
        want.append(_outcome(m))
    forget()
    order = list(range(len(models))) * 3
    rng.shuffle(order)
    for k in order:
        modelmemo.MODELS.clear()
        assert _outcome(models[k]) == want[k], k
    assert any(r.plan is not None for r in nodecache.NODES.values())  # (plans were
    # made, so replayed)


def test_a_value_info_kept_is_written_again_for_another_type_of_its_name():
    """A value info is kept by its name with the type it states: a model typed again
    whose value of that name has another type (its input resized, the model memo missed)
    is written with the new type, as a fresh read writes it."""
    def chain(width: int) -> onnx.ModelProto:
        vi = helper.make_tensor_value_info
        nodes = [helper.make_node("Relu", ["x"], ["h"]), helper.make_node("Neg", ["h"], ["y"]),
                 helper.make_node("Shape", ["x"], ["s"])]
        graph = helper.make_graph(nodes, "g", [vi("x", TensorProto.FLOAT, ["b", width])],
                                  [vi("y", TensorProto.FLOAT, None)])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])

    expected = {width: fresh(chain(width)) for width in (3, 5)}
    forget()
    for width in (3, 3, 5, 3, 5):
        modelmemo.MODELS.clear()
        out = infer_shapes(chain(width))
        assert out == expected[width]
        assert str(shapes._INFO_TYPES["h"]) == f"float32[b,{width}]"
        assert shapes._INFOS["h"] in out.graph.SerializeToString()
