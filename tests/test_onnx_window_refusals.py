"""Window ops whose sizes onnxruntime refuses where kantensor's relation said they hold
(review20B): MaxUnpool with a constant output_shape whose batch or channel is not X's,
SAME pools whose kernel is shorter than the stride (a negative total pad) and a
ConvTranspose of an empty spatial input with output_padding. Each one-node model has
named sizes and is judged by onnxruntime at assignments in which every name differs (0
and 1 among them): where onnxruntime refuses, kantensor's contract does not hold; where
it runs, the contract holds and the model at those sizes is typed with its shapes.
"""

from __future__ import annotations

import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun

#: Assignments of three names (every value differs from the others'), 0 and 1 among them.
SIZES = [(2, 1, 4), (0, 3, 5), (1, 2, 0), (3, 0, 1), (4, 5, 2), (5, 4, 3), (1, 0, 6),
         (2, 3, 7), (1, 0, 3)]


def _model(node: onnx.NodeProto, inputs: list, opset: int, initializers: list = ()
           ) -> onnx.ModelProto:
    values = [helper.make_tensor_value_info(name, elem, shape) for name, elem, shape in inputs]
    out = helper.make_tensor_value_info(node.output[0], TensorProto.FLOAT, None)
    graph = helper.make_graph([node], "g", values, [out], list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _concrete(model: onnx.ModelProto, sizes: dict[str, int]) -> onnx.ModelProto:
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    for value in fixed.graph.input:
        for d in value.type.tensor_type.shape.dim:
            if d.HasField("dim_param"):
                d.dim_value = sizes[d.dim_param]
    return fixed


def _feed(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    feed = {}
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        elem = onnx.helper.tensor_dtype_to_np_dtype(value.type.tensor_type.elem_type)
        feed[value.name] = np.zeros(shape, dtype=elem)
    return feed


def _judge(model: onnx.ModelProto, names: str) -> tuple[int, int]:
    """The model judged at :data:`SIZES` (see the module's docstring): how many
    assignments onnxruntime ran and refused."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            contract = ko.contract(model)
        except (kt.TypeInferenceError, ValueError):
            contract = None
    ran = refused = 0
    for values in SIZES:
        sizes = dict(zip(names.split(), values, strict=True))
        fixed = _concrete(model, sizes)
        answer = ortrun.run(fixed, _feed(fixed))
        holds = contract is not None and bool(contract.holds(**sizes))
        if isinstance(answer, ortrun.Refusal):
            refused += 1
            assert not holds, (sizes, answer.why)
            continue
        ran += 1
        assert holds, sizes
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            typed = ko.infer_shapes(fixed)
        dims = typed.graph.output[0].type.tensor_type.shape.dim
        shape = tuple(d.dim_value if d.HasField("dim_value") else None for d in dims)
        assert len(shape) == len(answer[0]), (sizes, shape, answer[0])
        assert all(s in (None, t) for s, t in zip(shape, answer[0], strict=True)), (
            sizes, shape, answer[0])  # (None: a size kantensor leaves open)
    return ran, refused


@pytest.mark.parametrize("opset", [9, 11, 22])
@pytest.mark.parametrize("output_shape", [[3, 1, 8], [2, 2, 8], [4, 3, 9], [2, 1, 8],
                                          [5, 4, 7]])
def test_max_unpool_output_shape_keeps_batch_and_channel(output_shape, opset):
    """onnxruntime refuses an output_shape whose batch or channel is not X's ("batch and
    channel dimensions must match input"); it was typed as output_shape."""
    node = helper.make_node("MaxUnpool", ["x", "i", "s"], ["y"], kernel_shape=[2],
                            strides=[2])
    shape = ["n", "c", "w"]
    model = _model(node, [("x", TensorProto.FLOAT, shape), ("i", TensorProto.INT64, shape)],
                   opset, [helper.make_tensor("s", TensorProto.INT64, [3], output_shape)])
    ran, refused = _judge(model, "n c w")
    assert refused >= 1


POOLS = [("MaxPool", 7), ("MaxPool", 8), ("MaxPool", 10), ("MaxPool", 12), ("MaxPool", 22),
         ("AveragePool", 7), ("AveragePool", 11), ("AveragePool", 19), ("AveragePool", 22),
         ("LpPool", 11), ("LpPool", 18), ("LpPool", 22)]


@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER"])
@pytest.mark.parametrize("op, opset", POOLS)
@pytest.mark.parametrize("kernel, stride", [(1, 3), (2, 3), (1, 2), (2, 5)])
def test_same_pool_with_a_kernel_shorter_than_its_stride(kernel, stride, op, opset, auto_pad):
    """A SAME pool's total pad, (ceil(w / s) - 1) * s + k - w, is negative at some w when
    k < s: MaxPool and AveragePool before 19 refuse it in onnxruntime ("padding values must
    be non-negative"), the later AveragePool and LpPool run it; the contract says which."""
    node = helper.make_node(op, ["x"], ["y"], kernel_shape=[kernel], strides=[stride],
                            auto_pad=auto_pad)
    model = _model(node, [("x", TensorProto.FLOAT, ["n", "c", "w"])], opset)
    ran, refused = _judge(model, "c n w")
    assert ran >= 1


@pytest.mark.parametrize("op, opset", POOLS)
def test_same_pool_2d_kernel_shorter_than_its_stride(op, opset):
    """The case review20B found: kernel [1, 1], strides [3, 3] over [n, c, h, 2]."""
    node = helper.make_node(op, ["x"], ["y"], kernel_shape=[1, 1], strides=[3, 3],
                            auto_pad="SAME_UPPER")
    model = _model(node, [("x", TensorProto.FLOAT, ["n", "c", "h", 2])], opset)
    ran, refused = _judge(model, "n c h")
    assert ran >= 1


@pytest.mark.parametrize("op, opset", [p for p in POOLS if p[1] >= {
    "MaxPool": 10, "AveragePool": 19, "LpPool": 18}[p[0]]])  # (those with dilations)
def test_same_dilated_pool_with_a_kernel_shorter_than_its_stride(op, opset):
    """Dilated (kantensor leaves the size open: onnxruntime pads a SAME pool as if
    undilated), onnxruntime runs these pads: no clause refuses them."""
    node = helper.make_node(op, ["x"], ["y"], kernel_shape=[2], strides=[5], dilations=[2],
                            auto_pad="SAME_LOWER")
    model = _model(node, [("x", TensorProto.FLOAT, ["n", "c", "w"])], opset)
    _judge(model, "c n w")


@pytest.mark.parametrize("opset", [7, 11, 22])
@pytest.mark.parametrize("kernel", [1, 2, 3])
@pytest.mark.parametrize("attributes", [
    dict(strides=[2], output_padding=[1]), dict(strides=[3], output_padding=[2], pads=[1, 0]),
    dict(strides=[3], output_padding=[1], dilations=[2]), dict(strides=[2]),
    dict(strides=[2], output_shape=[3]), dict(strides=[2], output_padding=[1], output_shape=[4]),
    dict(strides=[2], output_padding=[1], auto_pad="SAME_UPPER"),
    dict(strides=[3], output_padding=[1], auto_pad="VALID")])
def test_conv_transpose_of_an_empty_axis(attributes, kernel, opset):
    """onnxruntime refuses an empty spatial input given an output_padding (its check of
    the input size against the output's, ``(out + pads - span) / stride + 1`` in C's
    division, gives 1) or an output_shape; it was typed."""
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], **attributes)
    model = _model(node, [("x", TensorProto.FLOAT, ["a", 2, "w"]),
                          ("w", TensorProto.FLOAT, [2, "m", kernel])], opset)
    ran, _ = _judge(model, "m a w")
    assert ran >= 1


@pytest.mark.parametrize("opset", [12, 22])
@pytest.mark.parametrize("elem", [TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE,
                                  TensorProto.INT8, TensorProto.UINT8])
def test_same_max_pool_of_a_short_kernel_by_dtype(elem, opset):
    """Only onnxruntime's float32 and float16 MaxPool kernels refuse a negative SAME total
    pad; its float64, int8 and uint8 kernels run it to ``ceil(w / s)``, as onnx.reference
    does (the contract said invalid: found by tests/onnxprograms.py at seed 2705, a
    float64 MaxPool of kernel 1, stride 2 over 2)."""
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 1], strides=[1, 2],
                            auto_pad="SAME_UPPER")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(
        "x", elem, [1, "c", "h", "w"])], [helper.make_tensor_value_info("y", elem, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    ran, refused = _judge(model, "c h w")
    assert ran >= 1
