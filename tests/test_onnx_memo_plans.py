"""Node plans (onnx/nodeslot.py) of nodes with conditions, typed node by node (the
model memo missing): each answer is the one made with every memo emptied."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from kantensor.onnx import infer_shapes, modelmemo, nodecache
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
