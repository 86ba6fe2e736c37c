"""Ops whose inputs are of several float types, each of its own set: BatchNormalization
(one T up to opset 13; X, scale and B of T and the statistics of U at 14; X of T, scale
and B of T1, the statistics of T2 from 15) and the training optimizers (each tensor
float32 or float64 on its own), judged by onnxruntime at load, else onnx's strict
inference (tests/onnxsweep.truth), their outputs' dtypes by onnx's inference and their
values by onnxruntime's."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, shape_inference

import kantensor as kt
from kantensor.onnx import from_onnx
from onnxsweep import ELEMS, kantensor_says, model_of, truth

ort = pytest.importorskip("onnxruntime")

_F, _D, _H = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16
_OUTS = ("y", "o1", "o2", "o3", "o4")


def _batch_norm(opset: int, x: int, scale: int, stats: int, outputs: int = 1,
                shape: tuple = (2, 3, 4)) -> onnx.ModelProto:
    attrs = {"training_mode": 1} if opset >= 14 and outputs > 1 else {}
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                            list(_OUTS[:outputs]), **attrs)
    c = [shape[1]]
    ins = [helper.make_tensor_value_info("x", x, list(shape)),
           *(helper.make_tensor_value_info(n, scale, c) for n in "sb"),
           *(helper.make_tensor_value_info(n, stats, c) for n in "mv")]
    return model_of([node], ins, opset, outputs=_OUTS[:outputs])


def _verdicts(model: onnx.ModelProto, op: str) -> tuple:
    valid, who = truth(model, op)
    return valid, who, kantensor_says(model)


@pytest.mark.parametrize("opset", [7, 9, 13, 14, 15, 21])
@pytest.mark.parametrize("place", ["x", "scale", "stats"])
def test_batch_norm_types_each_of_its_schemas_set(opset, place):
    """Each type parameter of BatchNormalization varied over every element type, the
    others float32: kantensor types the model exactly where the oracles take it (before
    opset 15 it was not typed; from 15 a scale or statistics of another float type than
    X's was refused)."""
    wrong = []
    for code, dtype in ELEMS.items():
        types = {"x": _F, "scale": _F, "stats": _F} | {place: code}
        valid, who, said = _verdicts(_batch_norm(opset, *types.values()), "BatchNormalization")
        if valid is None:
            continue
        assert said != "unsupported", (dtype, who)
        if (said == "accepts") != valid:
            wrong.append((dtype, who, said))
    assert not wrong


@pytest.mark.parametrize(("opset", "types", "outputs"), [
    (9, (_D, _D, _D), 5), (9, (_F, _F, _F), 5), (14, (_F, _F, _D), 3),
    (14, (_H, _H, _F), 3), (15, (_F, _H, _H), 3), (15, (_F, _D, _H), 3),
    (21, (_D, _F, _H), 3), (15, (_F, _H, _D), 1)])
def test_batch_norm_outputs_of_their_schemas_types(opset, types, outputs):
    """The outputs past Y are of the statistics' dtype (T2, U), Y of X's, as onnx's
    inference gives them; where onnxruntime runs the model, kt.function's values are
    its values (Y in training normalised by the batch's statistics; at opset 9, 5
    outputs: the running mean and variance, the batch's mean and inverse deviation)."""
    model = _batch_norm(opset, *types, outputs=outputs)
    inferred = shape_inference.infer_shapes(model, strict_mode=True, check_type=True)
    want = [o.type.tensor_type.elem_type for o in inferred.graph.output]
    ins, outs = from_onnx(model)
    assert [onnx.helper.np_dtype_to_tensor_dtype(np.dtype(o.type.dtype)) for o in outs] \
        == want
    rng = np.random.default_rng(1)
    values = {i.name: rng.uniform(0.5, 2.0, [d.dim_value for d in
                                               i.type.tensor_type.shape.dim]).astype(
        helper.tensor_dtype_to_np_dtype(i.type.tensor_type.elem_type))
        for i in model.graph.input}
    try:
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
    except Exception:  # no kernel for these types: the dtypes are all there is to judge
        return
    expected = session.run(None, values)
    got = kt.function(ins, outs)(*[values[v.name] for v in ins])
    got = got if isinstance(got, list) else [got]
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g.astype(np.float64), e.astype(np.float64),
                                   rtol=2e-2 if e.dtype == np.float16 else 1e-4, atol=1e-3)


_OPTIMIZERS = {"Adagrad": (3, 2), "Adam": (4, 3), "Momentum": (3, 2)}
_ATTRS = {"Momentum": {"alpha": 0.9, "beta": 0.1, "mode": "standard",
                       "norm_coefficient": 0.0}}


def _optimizer(op: str, rate: int, tensors: list[int]) -> onnx.ModelProto:
    groups, outs = _OPTIMIZERS[op]
    names = [f"t{i}" for i in range(len(tensors))]
    out_names = [f"y{i}" for i in range(len(tensors) // groups * outs)]
    node = helper.make_node(op, ["r", "n", *names], out_names,
                            domain="ai.onnx.preview.training", **_ATTRS.get(op, {}))
    ins = [helper.make_tensor_value_info("r", rate, []),
           helper.make_tensor_value_info("n", TensorProto.INT64, []),
           *(helper.make_tensor_value_info(n, e, [2, 3]) for n, e in zip(
               names, tensors, strict=True))]
    graph = helper.make_graph([node], "g", ins, [onnx.ValueInfoProto(name=o)
                                                 for o in out_names])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.preview.training", 1)])
    model.ir_version = 10
    return model


@pytest.mark.parametrize("op", sorted(_OPTIMIZERS))
def test_optimizer_tensors_each_float32_or_float64(op):
    """Every tensor of an optimizer is float32 or float64 on its own (the schema's T3),
    the rate of T1, and each output has its input's dtype (the updated value its value's,
    a state its state's), as onnx's strict inference says: a value of float64 with a
    gradient of float32 was refused; every other element type still is."""
    groups, outs = _OPTIMIZERS[op]
    for k in range(2 * groups):  # two values: each tensor's type varied in turn
        for code, dtype in ELEMS.items():
            tensors = [_F] * (2 * groups)
            tensors[k] = code
            model = _optimizer(op, _D if k % 2 else _F, tensors)
            valid, _, said = _verdicts(model, op)
            assert (said == "accepts") == valid, (k, dtype, said)
            if not valid:
                continue
            inferred = shape_inference.infer_shapes(model, strict_mode=True, check_type=True)
            want = [o.type.tensor_type.elem_type for o in inferred.graph.output]
            got = [onnx.helper.np_dtype_to_tensor_dtype(np.dtype(o.type.dtype))
                   for o in from_onnx(model)[1]]
            assert got == want, (k, dtype)
