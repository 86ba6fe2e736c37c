"""kt.refine on every model kantensor.onnx reads: the relation a node was typed by is the
one refine runs, also where the model passes as tensors what builders read (opset 18's
ReduceX axes, Pad's pads, a Reshape's shape folded from Shape), and a Conv's weight of
another rank than its input is a rank error of the relation; checked on every node-case
model and on models PyTorch's dynamo exporter made."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
from kantensor.graph.walk import toposort
from kantensor.onnx import from_onnx, size_notes
from kantensor.onnx.registry import registry
from kantensor.ops.templateop import TemplateOp
from kantensor.types.symbols import substitute
from onnx_cases import cases, prepared

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def test_refine_runs_reduce_axes_pads_and_a_folded_shape_read_from_inputs():
    nodes = [helper.make_node("ReduceMean", ["x", "axes"], ["m"], name="mean"),
             helper.make_node("Pad", ["m", "pads"], ["p"], name="pad"),
             helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "zero"], ["b"], name="batch"),
             helper.make_node("Concat", ["b", "rest"], ["target"], axis=0, name="cat"),
             helper.make_node("Reshape", ["p", "target"], ["y"], name="reshape")]
    m = model(nodes, [helper.make_tensor_value_info("x", F, ["n", 3, "t"])],
              [helper.make_tensor_value_info("y", F, None)],
              [ints("axes", [-1]), ints("pads", [0, 1, 0, 0, 1, 0]), ints("zero", [0]),
               ints("rest", [-1])])
    ins, outs = from_onnx(m)
    assert str(outs[0].type) == "float32[n,5]"
    refined = kt.refine(outs)
    assert str(refined[outs[0]]) == "float32[n,5]"
    narrowed = kt.refine(outs, {outs[0]: "float32[7,5]"})
    assert str(narrowed[ins[0]]) == "float32[7,3,t]"
    x = np.random.default_rng(0).standard_normal((7, 3, 4)).astype(np.float32)
    (got,) = kt.function(ins, outs)(x)
    want = np.pad(x.mean(axis=-1, keepdims=True), [(0, 0), (1, 1), (0, 0)]).reshape(7, -1)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_a_failing_where_clause_names_its_unknown_axis_not_unknown():
    """A Reshape to 9216 of x[1,256,8,W] holds for no W: the explanation says so over the
    clause's own names ('2048*x.shape[3] == 9216 holds for no size x.shape[3]'), where it
    read '2048*unknown == 9216 is false' (a size named 'unknown'?). Oracle: onnxruntime
    refuses the model at every W of 1..40, as the sentence claims."""
    m = model([helper.make_node("Reshape", ["x", "shape"], ["y"], name="rs")],
              [helper.make_tensor_value_info("x", F, [1, 256, "H", "W"])],
              [helper.make_tensor_value_info("y", F, None)], [ints("shape", [1, 9216])],
              opset=17)
    (x,), (y,) = from_onnx(m)
    with pytest.raises(kt.RefinementError) as err:
        kt.refine(y, given={x: "float32[1,256,8,?]"})
    said = str(err.value).splitlines()[-1]
    assert said.endswith("fails: 2048*x.shape[3] == 9216 holds for no size x.shape[3]"), said
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for w in range(1, 41):
        with pytest.raises(Exception, match="(?i)shape|reshape|size"):
            session.run(None, {"x": np.ones((1, 256, 8, w), np.float32)})


def test_a_conv_weight_of_another_rank_is_a_rank_error_not_a_pool():
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], name="conv1")]
    m = model(nodes, [helper.make_tensor_value_info("x", F, ["n", 3, "l"]),
                      helper.make_tensor_value_info("w", F, [8, 3, 3, 3])],
              [helper.make_tensor_value_info("y", F, None)])
    with pytest.raises(ValueError, match="W has 4 dimensions and X 3: a Conv's weight is"):
        from_onnx(m)
    ok = model(nodes, [helper.make_tensor_value_info("x", F, ["n", 3, "l"]),
                       helper.make_tensor_value_info("w", F, [8, 3, 3])],
               [helper.make_tensor_value_info("y", F, None)])
    ins, outs = from_onnx(ok)
    conv = outs[0].owner.op
    with pytest.raises(ValueError, match="W has 4 dimensions and X 3"):
        conv.make_node(ins[0], kt.TensorType("float32", (8, 3, 3, 3))("w4"))
    refined = kt.refine(outs, {outs[0]: "float32[2,8,30]"})
    assert str(refined[ins[0]]) == "float32[2,3,32]"


def _symbolised_models():
    for case in cases():
        model_, _, _ = prepared(case, True)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield case.name, from_onnx(model_)
        except Exception:  # refused cases are counted by test_onnx_nodes
            continue


def test_every_node_case_model_refines_and_its_nodes_build_again_from_their_ops():
    """Each node's Op (its parameters resolved when the model was read) renders the
    relation that typed it again, for the same input types: the same output types; and
    refine runs on every model that from_onnx reads."""
    models = nodes = 0
    counting = {o.entry.name for ops in registry().values() for o in ops
                if o.declared.counts is not None}  # (the entries whose data decides a size)
    for name, (_, outs) in _symbolised_models():
        tensors = [o for o in outs if isinstance(o.type, kt.TensorType)]
        if not tensors:
            continue
        models += 1
        kt.refine(tensors)
        for node in toposort(tensors):
            if isinstance(node.op, TemplateOp):
                again = node.op.make_node(*node.inputs)
                types = [o.type for o in again.outputs]
                if node.op.name in counting:  # its count named after the node: a size of
                    types = [t.most_specific(o.type)  # the relation's own, bound
                             for t, o in zip(types, node.outputs, strict=True)]
                assert types == [o.type for o in node.outputs], (name, node.op)
                nodes += 1
    assert models > 1300
    assert nodes > 1100


DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.parametrize("name", ["dynamo_net", "dynamo_cond"])
def test_dynamo_exports_type_refine_and_run_as_onnxruntime(name):
    """PyTorch's dynamo exporter (tests/data/make_dynamo_exports.py): opset 20, ReduceMean
    axes as an input, torch.cond as an If on a computed condition."""
    m = onnx.load(DATA / f"{name}.onnx")
    ins, outs = from_onnx(m)
    want = {"dynamo_net": ["float32[batch,10]"],  # torch.cond's size: the If's own
            "dynamo_cond": ["float32[node_cond__0,3]"]}[name]
    assert [str(o.type) for o in outs] == want
    assert [str(kt.refine(outs)[o]) for o in outs] == want
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    fn = kt.function(ins, outs)
    rng = np.random.default_rng(5)
    for _ in range(5):
        shape = [int(rng.integers(1, 4)), 3, int(rng.integers(8, 20)),
                 int(rng.integers(8, 20))] if name == "dynamo_net" else \
            [int(rng.integers(1, 6)), 3]
        x = rng.standard_normal(shape).astype(np.float32)
        (theirs,) = session.run(None, {ins[0].name: x})
        (mine,) = fn(x)
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-4)
        sizes = dict(zip([str(d) for d in ins[0].type.shape], shape, strict=True))
        cases = [substitute(size, sizes) for note in size_notes(outs)
                 for _, size in note.cases]  # what the If's size is, either branch
        for d, n in zip(outs[0].type.shape, theirs.shape, strict=True):
            if d is not None:
                value = substitute(d, sizes) if isinstance(d, kt.Dim) else d
                assert value == n or str(value) == "node_cond__0" and n in cases
