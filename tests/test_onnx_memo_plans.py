"""Node plans (onnx/nodeslot.py) of nodes with conditions, typed node by node (the
model memo missing): each answer is the one made with every memo emptied."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from exported_models import pool_stack
from kantensor.onnx import infer_shapes, modelmemo, nodecache, nodeslot
from test_onnx_memo_nodes import forget, fresh

F = TensorProto.FLOAT


def test_a_node_whose_conditions_name_an_unnamed_input_size_has_no_plan():
    """``x[idx]`` (8 indices) and ``x[:8]`` of an ``x`` whose size is unnamed (``dim {}``)
    or named: the Gather's condition over an unnamed size names its input by position,
    which only the reader's note() can place (on that input's Variable), so its typing
    makes no plan (the named one's does: one record, x's size is not in its bytes);
    each answer, typed node by node in turns, is the one with every memo emptied. (It
    fails when _plan's check of InputAxis conditions is removed: placing them without
    the inputs raises.)"""
    def model(dim: str | None) -> onnx.ModelProto:
        nodes = [helper.make_node("Gather", ["x", "idx"], ["g"], axis=0),
                 helper.make_node("Slice", ["x", "zero", "eight"], ["s"])]
        return helper.make_model(helper.make_graph(
            nodes, "gather", [helper.make_tensor_value_info("x", F, [dim])],
            [helper.make_tensor_value_info(o, F, None) for o in ("g", "s")],
            [numpy_helper.from_array(np.arange(8, dtype=np.int64), "idx"),
             numpy_helper.from_array(np.array([0]), "zero"),
             numpy_helper.from_array(np.array([8]), "eight")]),
            opset_imports=[helper.make_opsetid("", 17)])
    models = [model(None), model("n")]
    want = [fresh(m) for m in models]
    forget()
    planned = []
    for k in (0, 0, 0, 1, 1, 1, 0, 0, 1, 0):
        modelmemo.MODELS.clear()
        assert infer_shapes(models[k]) == want[k]
        (gather,) = [r for r in nodecache.NODES.values() if r.op_type == "Gather"]
        plan = gather.plan
        if plan is None and gather.later is not None:  # (made when the record is met
            plan = gather.later.made(gather, models[k].graph.node[0])  # again)
        planned.append(plan is not None)
    assert planned == [False, False, False, True, True, True, False, False, True, False]


def test_a_model_read_with_new_size_names_makes_no_plan(monkeypatch):
    """A pool stack read node by node with its size names changed between reads: a
    record met again whose inputs' tokens are not its slot's makes no plan (it could
    not apply: the node is typed anew and keeps another slot), and a read of the same
    names again makes and uses the plans; every answer is the one with every memo
    emptied. (It fails when replay makes a record's plan before comparing its tokens:
    the renamed reads make one a node.)"""
    def renamed(suffix: str) -> onnx.ModelProto:
        out = onnx.ModelProto()
        out.CopyFrom(model)
        for value in out.graph.input:
            for d in value.type.tensor_type.shape.dim:
                if d.dim_param:
                    d.dim_param += suffix
        return out

    model, _ = pool_stack(2)
    models = [renamed(s) for s in ("_a", "_b", "_c")]
    want = [fresh(m) for m in models]
    forget()
    made = []
    real = nodeslot._plan
    monkeypatch.setattr(nodeslot, "_plan", lambda *a: made.append(1) or real(*a))
    counts = []
    for k in (0, 1, 2, 2, 1, 1):
        modelmemo.MODELS.clear()
        made.clear()
        assert infer_shapes(models[k]) == want[k]
        counts.append(len(made))
    nodes = len(model.graph.node)
    assert counts[:3] == [0, 0, 0]  # (a first read, then new names: no plan made)
    assert counts[3] == nodes and counts[5] == nodes  # (the same names: every plan)
    assert counts[4] == 0
