"""A node's call kept on its record (onnx/building.py, ``NodeRecord.call``): the next read
of the same node bytes by the same entry takes the call as bound, not read and bound
again; only where the call reads nothing of the inputs but the inputs. Every answer is
the one of emptied memos, of NumPy and of onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from exported_models import pool_stack
from kantensor.onnx import infer_shapes, modelmemo, nodecache
from test_onnx_memo_nodes import forget, fresh

F = TensorProto.FLOAT


def _shapes(model: onnx.ModelProto) -> dict[str, list]:
    """Each value's shape as an inferred model states it (ints and size names)."""
    return {info.name: [d.dim_value if d.HasField("dim_value") else d.dim_param
                        for d in info.type.tensor_type.shape.dim]
            for info in [*model.graph.value_info, *model.graph.output]}


def test_a_pool_stack_read_with_new_size_names_keeps_its_calls():
    """A pool stack read node by node (the model memo emptied) under new size names at
    each read: from the second read on, its Convs, pools and Concats take the call
    their record keeps, and each answer is the one made with every memo emptied."""
    model, _ = pool_stack(3)

    def renamed(suffix: str) -> onnx.ModelProto:
        out = onnx.ModelProto()
        out.CopyFrom(model)
        for value in out.graph.input:
            for dim in value.type.tensor_type.shape.dim:
                if dim.dim_param:
                    dim.dim_param += suffix
        return out

    models = [renamed(f"_{k}") for k in range(4)]
    want = [fresh(m) for m in models]
    forget()
    for k, m in enumerate(models):
        modelmemo.MODELS.clear()
        assert infer_shapes(m) == want[k]
    kept = {r.op_type for r in nodecache.NODES.values() if r.call is not None}
    assert {"Conv", "MaxPool", "Concat"} <= kept


def test_a_call_that_reads_an_inputs_value_is_not_kept():
    """Two models of the same Reshape node (the same bytes) whose shape initializers
    differ: each is typed as NumPy reshapes, and the record keeps no call (its
    parameters are the input's value, which the node's bytes do not hold). (It fails
    when every entry's call is kept: the second model takes the first's shape.)"""
    def model(shape: tuple[int, ...]) -> onnx.ModelProto:
        node = helper.make_node("Reshape", ["x", "shape"], ["y"])
        return helper.make_model(helper.make_graph(
            [node], "reshape", [helper.make_tensor_value_info("x", F, [2, 3, 4])],
            [helper.make_tensor_value_info("y", F, None)],
            [numpy_helper.from_array(np.array(shape, dtype=np.int64), "shape")]),
            opset_imports=[helper.make_opsetid("", 17)])

    forget()
    for shape in [(4, 6), (6, 4), (4, 6), (2, 12), (24,)]:
        modelmemo.MODELS.clear()
        typed = _shapes(infer_shapes(model(shape)))
        assert typed["y"] == list(np.zeros((2, 3, 4)).reshape(shape).shape)
    (rec,) = [r for r in nodecache.NODES.values() if r.op_type == "Reshape"]
    assert rec.call is None


def test_a_kept_call_types_other_input_sizes_as_onnxruntime_runs_them():
    """One MaxPool node (kernel 3, stride 2, ceil mode) read again over inputs of other
    sizes, its record keeping its call: every output shape is the one onnxruntime's run
    gives."""
    ort = pytest.importorskip("onnxruntime")
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                            ceil_mode=1)
    forget()
    for h, w in [(9, 9), (10, 7), (9, 9), (16, 33), (3, 4), (64, 5)]:
        modelmemo.MODELS.clear()
        m = helper.make_model(helper.make_graph(
            [node], "pool", [helper.make_tensor_value_info("x", F, [1, 2, h, w])],
            [helper.make_tensor_value_info("y", F, None)]),
            opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        run = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        (got,) = run.run(None, {"x": np.zeros((1, 2, h, w), np.float32)})
        assert _shapes(infer_shapes(m))["y"] == list(got.shape)
    (rec,) = [r for r in nodecache.NODES.values() if r.op_type == "MaxPool"]
    assert rec.call is not None


def _scatter(indices: list[int]) -> onnx.ModelProto:
    node = helper.make_node("ScatterND", ["data", "indices", "updates"], ["y"])
    m = helper.make_model(helper.make_graph(
        [node], "scatter", [helper.make_tensor_value_info("data", F, [4]),
                            helper.make_tensor_value_info("updates", F, [1])],
        [helper.make_tensor_value_info("y", F, None)],
        [numpy_helper.from_array(np.array([indices], dtype=np.int64), "indices")]),
        opset_imports=[helper.make_opsetid("", 16)])
    m.ir_version = 8
    return m


def test_a_call_that_reads_an_inputs_value_as_data_is_not_kept():
    """Two models of the same ScatterND node (the same bytes) whose indices initializers
    differ, one of them out of range: each is refused exactly where onnxruntime's run
    fails, and typed as its run gives where it runs; the record keeps no call (its
    parameters hold the indices' value, which the node's bytes do not). (It fails when
    every entry's call is kept: the out-of-range model takes the first's indices.)"""
    ort = pytest.importorskip("onnxruntime")
    forget()
    for indices in ([1], [7], [3], [-9], [0]):
        m = _scatter(indices)
        try:
            run = ort.InferenceSession(m.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
            (got,) = run.run(None, {"data": np.zeros(4, np.float32),
                                    "updates": np.ones(1, np.float32)})
        except Exception:  # noqa: BLE001 - onnxruntime's own errors have no common class
            got = None
        modelmemo.MODELS.clear()
        try:
            typed = _shapes(infer_shapes(m))["y"]
        except (ValueError, TypeError, IndexError):
            typed = None
        assert typed == (None if got is None else list(got.shape)), indices
    (rec,) = [r for r in nodecache.NODES.values() if r.op_type == "ScatterND"]
    assert rec.call is None


@pytest.mark.parametrize(("op", "attrs", "shape", "dtype", "opsets"), [
    ("Relu", {}, [2, 3], TensorProto.INT32, [14, 13, 14]),  # int Relu from opset 14 only
    ("ReduceSum", {"axes": [1]}, [2, 3, 4], F, [11, 13, 11]),  # axes an input from 13
    ("Squeeze", {"axes": [1]}, [2, 1, 4], F, [11, 13, 11]),
])
def test_a_kept_call_is_not_taken_by_another_opsets_entry(op, attrs, shape, dtype, opsets):
    """One node (the same bytes) in models of other opset imports, read one after the
    other, the first's record keeping its call: each model is typed where onnxruntime
    runs it (as its run gives) and its output left untyped or refused where
    onnxruntime refuses the graph (the node's entry at that opset differs). (It fails
    when the kept call is taken whatever the entry: the opset-13 model takes the
    call the opset-14 or opset-11 entry bound.)"""
    ort = pytest.importorskip("onnxruntime")
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    forget()
    for opset in opsets:
        m = helper.make_model(helper.make_graph(
            [node], "g", [helper.make_tensor_value_info("x", dtype, shape)],
            [helper.make_tensor_value_info("y", dtype, None)]),
            opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        x = np.zeros(shape, helper.tensor_dtype_to_np_dtype(dtype))
        try:
            run = ort.InferenceSession(m.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
            (got,) = run.run(None, {"x": x})
        except Exception:  # noqa: BLE001 - onnxruntime's own errors have no common class
            got = None
        modelmemo.MODELS.clear()
        try:
            out = infer_shapes(m).graph.output[0].type.tensor_type
            typed = [d.dim_value for d in out.shape.dim] if out.HasField("shape") else None
        except (ValueError, TypeError, IndexError):
            typed = None
        assert typed == (None if got is None else list(got.shape)), opset
    (rec,) = [r for r in nodecache.NODES.values() if r.op_type == op]
    assert rec.call is not None
