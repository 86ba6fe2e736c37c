"""Col2Im of image and block shapes known as sizes, or not known at all.

``image_shape`` and ``block_shape`` are int64 vectors (the schema's ``tensor(int64)``)
of one length, the number of spatial axes; the output is ``(N, C, *image_shape)`` with
``C = input's C / prod(block_shape)`` (divisible), and the input's last size is the
number of block positions (onnxruntime checks it). An image shape read from a Shape
node (symbolic sizes) types the output with those sizes and states the conditions; an
image shape no tool can know still gives the output's rank, N and C. Oracle:
onnxruntime's runs (the contract holds exactly where it runs, and the sizes are its).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from kantensor.onnx import from_onnx

pytest.importorskip("onnxruntime")


def _model(image: str, block: list[int], image_elem: int = TensorProto.INT64,
           **attrs: object) -> onnx.ModelProto:
    """Col2Im of ``x: [N, CK, L]``, its image shape ``shape`` (the sizes of ``ref:
    [1, 1, H, W]`` from a Shape node), ``input`` (a graph input) or ``cast`` (the Shape's
    value cast to ``image_elem``), and a constant block shape."""
    nodes, inputs = [], [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                       ["N", "CK", "L"])]
    if image == "input":
        inputs.append(helper.make_tensor_value_info("img", image_elem, [2]))
    else:
        inputs.append(helper.make_tensor_value_info("ref", TensorProto.FLOAT,
                                                    [1, 1, "H", "W"]))
        nodes.append(helper.make_node("Shape", ["ref"], ["shape"], start=2))
        nodes.append(helper.make_node("Cast", ["shape"], ["img"], to=image_elem))
    nodes.append(helper.make_node("Col2Im", ["x", "img", "blk"], ["y"], **attrs))
    graph = helper.make_graph(nodes, "g", inputs, [onnx.ValueInfoProto(name="y")],
                              [numpy_helper.from_array(np.array(block, np.int64), "blk")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 10
    return model


@pytest.mark.parametrize(("block", "attrs"), [
    ([2, 3], {"strides": [1, 2]}),
    ([1, 2], {"dilations": [2, 1], "pads": [1, 0, 0, 1]}),
])
def test_an_image_shape_of_symbolic_sizes_types_the_output_as_onnxruntime_runs(block, attrs):
    """The output is ``[N, CK // prod(block), H, W]`` (it was left untyped: the image
    shape was not constant), and the contract (CK divisible, L the number of block
    positions, every position count >= 1) holds exactly where onnxruntime runs the model,
    whose output has those sizes."""
    model = _model("shape", block, **attrs)
    _, outs = from_onnx(model)
    assert str(outs[0].type) == f"float32[N,CK//{block[0] * block[1]},H,W]"
    contract = ko.contract(model)
    seen = set()
    for ck, h, w in itertools.product((2, 6, 12), range(1, 5), range(1, 6)):
        positions = [(n + sum(attrs.get("pads", [0] * 4)[i::2]) - attrs.get(
            "dilations", [1, 1])[i] * (block[i] - 1) - 1) // attrs.get("strides", [1, 1])[i] + 1
            for i, n in enumerate((h, w))]
        for el in {max(0, positions[0] * positions[1]), 2}:
            feeds = {"x": np.ones((1, ck, el), np.float32),
                     "ref": np.ones((1, 1, h, w), np.float32)}
            ran = ortrun.run(model, feeds)
            runs = not isinstance(ran, ortrun.Refusal)
            assert contract.holds(N=1, CK=ck, L=el, H=h, W=w).value is runs, (ck, el, h, w)
            seen.add(runs)
            if runs:
                assert tuple(ran[0]) == (1, ck // (block[0] * block[1]), h, w)
    assert seen == {True, False}


def test_an_unknown_image_shape_gives_the_rank_n_and_c():
    """An image shape no tool can know (a graph input) of two entries: the output is
    ``[N, CK // prod(block), ?, ?]`` (it was left untyped), of onnxruntime's rank, N and
    C wherever it runs."""
    model = _model("input", [2, 2])
    _, outs = from_onnx(model)
    shape = outs[0].type.shape
    assert len(shape) == 4 and str(shape[0]) == "N" and str(shape[1]) == "CK//4"
    for h, w in ((2, 2), (3, 5)):
        feeds = {"x": np.ones((2, 8, (h - 1) * (w - 1)), np.float32),
                 "img": np.array([h, w], np.int64)}
        ran = ortrun.run(model, feeds)
        assert tuple(ran[0]) == (2, 2, h, w)


@pytest.mark.parametrize("elem", [TensorProto.INT32, TensorProto.FLOAT, TensorProto.INT64])
def test_the_shapes_are_int64_as_onnxruntime_says(elem):
    """An int32 or float image shape is refused, as onnxruntime refuses the model for
    its types (any dtype was taken)."""
    model = _model("input", [2, 2], elem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from_onnx(model)
            accepted = True
        except TypeError:
            accepted = False
    ran = ortrun.run(model, {"x": np.ones((1, 4, 4), np.float32),
                             "img": np.array([3, 3], helper.tensor_dtype_to_np_dtype(elem))})
    assert accepted is not isinstance(ran, ortrun.Refusal), ran


def test_a_block_shape_of_symbolic_sizes_states_c_and_the_positions_over_them():
    """Both shapes from Shape nodes (block ``[P, Q]``): C is ``CK // (P*Q)``, divisible,
    and the position counts are expressions over H, W, P and Q; the contract holds
    exactly where onnxruntime runs."""
    nodes = [helper.make_node("Shape", ["ref"], ["img"], start=2),
             helper.make_node("Shape", ["kb"], ["blk"], start=2),
             helper.make_node("Col2Im", ["x", "img", "blk"], ["y"], strides=[2, 1],
                              dilations=[1, 2])]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in (
        ("x", ["N", "CK", "L"]), ("ref", [1, 1, "H", "W"]), ("kb", [1, 1, "P", "Q"]))]
    graph = helper.make_graph(nodes, "g", inputs, [onnx.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 10
    assert str(from_onnx(model)[1][0].type) == "float32[N,CK//(P*Q),H,W]"
    contract = ko.contract(model)
    seen = set()
    for ck, h, w, p, q in itertools.product((2, 4), range(1, 5), range(1, 5), (1, 2), (1, 2)):
        positions = ((h - p) // 2 + 1) * (w - 2 * (q - 1))
        for el in {max(0, positions), 2}:
            feeds = {"x": np.ones((1, ck, el), np.float32),
                     "ref": np.ones((1, 1, h, w), np.float32),
                     "kb": np.ones((1, 1, p, q), np.float32)}
            ran = ortrun.run(model, feeds)
            runs = not isinstance(ran, ortrun.Refusal)
            seen.add(runs)
            assert contract.holds(N=1, CK=ck, L=el, H=h, W=w, P=p, Q=q).value is runs, (
                ck, el, h, w, p, q)
            if runs:
                assert tuple(ran[0]) == (1, ck // (p * q), h, w)
    assert seen == {True, False}
