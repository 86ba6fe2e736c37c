"""What folding a value while a model is read (onnx/values.py ``computed``) declines, and
what it lets through: a kernel that cannot compute a value now (a comparison the sizes
do not decide, a size in a dtype that does not hold it, NumPy refusing a Dim, a division
by zero) leaves it to the run; a bug in a kernel (a NameError, an AttributeError, a
KeyError) propagates. main caught every ``Exception``: a NameError in the folding code
once made fold decline silently, so a bug became a value left unknown (a size lost)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from kantensor.onnx.tensor.cast import cast
from kantensor.onnx.values import DECLINED, Undecided, computed
from kantensor.types.dim import Dim
from kantensor.types.type import TensorType

_INT64_1 = TensorType("int64", (1,))


def _apply(kernel, out: TensorType = _INT64_1):
    """A stand-in for an Apply whose op's kernel is ``kernel`` (computed reads
    ``op.impl``, ``op._kwargs`` and the outputs' types)."""
    return SimpleNamespace(op=SimpleNamespace(impl=kernel, _kwargs={}),
                           outputs=[SimpleNamespace(type=out)])


def _raising(exc: BaseException):
    def kernel(*_, **__):
        raise exc
    return kernel


@pytest.mark.parametrize("exc", [NameError("name 'x' is not defined"),
                                 AttributeError("'Dim' object has no attribute 'sizes'"),
                                 KeyError("axis"), AssertionError(), RuntimeError("bug")])
def test_a_bug_in_a_kernel_propagates(exc):
    """main: computed returned None (the value unknown, the model typed less well)."""
    with pytest.raises(type(exc)):
        computed(_apply(_raising(exc)), [np.array([3], dtype="int64")])


@pytest.mark.parametrize("exc", [Undecided("n == 1"), ValueError("n in uint8"),
                                 TypeError("unsupported operand"), IndexError("5 of 3"),
                                 ZeroDivisionError("by 0"), OverflowError("too large"),
                                 NotImplementedError("only typed")])
def test_what_cannot_be_computed_now_is_left_to_the_run(exc):
    assert isinstance(exc, DECLINED)
    assert computed(_apply(_raising(exc)), [np.array([3], dtype="int64")]) is None


def test_the_kernels_own_refusals_on_sizes_decline():
    """Real kernels on a size (an object array holding a Dim): Cast of ``n`` to uint8
    (not ``n`` at every size) and ``n == 1`` (undecided) leave the value unknown."""
    n = np.empty(1, dtype=object)
    n[0] = Dim("n")
    cast_u8 = SimpleNamespace(op=SimpleNamespace(impl=cast, _kwargs={"to": TensorProto.UINT8}),
                              outputs=[SimpleNamespace(type=TensorType("uint8", (1,)))])
    assert computed(cast_u8, [n]) is None
    equal = SimpleNamespace(op=SimpleNamespace(impl=np.equal, _kwargs={}),
                            outputs=[SimpleNamespace(type=TensorType("bool", (1,)))])
    assert computed(equal, [n, np.array([1], dtype="int64")]) is None
    assert computed(equal, [n, np.array([-1], dtype="int64")])[0].tolist() == [False]


def _divided(values: list, index: int):
    """``Shape(x) + c // c[index]`` over the constant ``c`` (``values``)."""
    nodes = [helper.make_node("Gather", ["c", "i"], ["g"], axis=0),
             helper.make_node("Div", ["c", "g"], ["q"]),
             helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Add", ["s", "q"], ["y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                   ["n"] * len(values))],
        [helper.make_tensor_value_info("y", TensorProto.INT64, None)],
        [numpy_helper.from_array(np.array(values, np.int64), "c"),
         numpy_helper.from_array(np.array(index, np.int64), "i")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _halved(divisor: int):
    """``Reshape(x, Shape(x) // divisor)`` over ``x: float[n]``."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Div", ["s", "d"], ["q"]),
             helper.make_node("Reshape", ["x", "q"], ["y"])]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array([divisor], np.int64), "d")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_size_divided_by_zero_declines_and_the_model_is_still_read():
    """``n // 0`` (the size kernel's ZeroDivisionError) leaves the shape to the run: the
    model is read, y has one axis of unknown size; ``n // 1`` folds to ``n``, which is
    what onnxruntime gives."""
    _, (y,) = ko.from_onnx(_halved(0))
    assert str(y.type) == "float32[?]"
    model = _halved(1)
    _, (y,) = ko.from_onnx(model)
    assert str(y.type) == "float32[n]"
    assert ortrun.run(model, {"x": np.zeros(3, np.float32)}) == [(3,)]


def test_an_index_out_of_range_is_refused_with_a_clear_error():
    """The Gather's builder refuses ``c[5]`` of 3 entries, naming the node, before any
    fold; onnxruntime refuses the model too."""
    with pytest.raises(kt.TypeInferenceError, match="node 'Gather -> g'.*6 <= 3 is false"):
        ko.from_onnx(_divided([1, 2, 3], 5))
    assert isinstance(ortrun.run(_divided([1, 2, 3], 5),
                                 {"x": np.zeros((2, 2, 2), np.float32)}), ortrun.Refusal)


@pytest.mark.parametrize(("op", "operands"), [("Pow", 2), ("ReduceMean", 1)])
def test_a_value_that_is_no_size_is_not_folded(op, operands):
    """A kernel on sizes may give entries that are no size: ``Pow(Shape(x), Shape(x))``
    built symbolic tensors (``N ** N``) and settling them raised a TypeError naming no
    node; ``ReduceMean(Shape(x))`` gave a fraction ``(N + 3)/2`` as an int64 value, whose
    memo key then raised "unhashable type: 'Ratio'". Such a value is left to the run:
    the model is typed, each output's shape onnxruntime's."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node(op, ["s"] * operands, ["v"]),
             helper.make_node("Shape", ["v"], ["w"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, ["N", 3])], [helper.make_tensor_value_info(
            o, TensorProto.INT64, None) for o in ("v", "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    typed = ko.infer_shapes(model).graph.output
    ran = ortrun.run(model, {"x": np.zeros((2, 3), np.float32)})
    for info, shape in zip(typed, ran, strict=True):
        assert tuple(d.dim_value for d in info.type.tensor_type.shape.dim) == shape
    assert ko.contract(model).holds(N=2).value is True
