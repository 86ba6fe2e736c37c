"""ONNX's random ops typed (they were not): RandomNormal and RandomUniform of the
``shape`` attribute's sizes, their Like forms of the input's shape (the input of any
type of T1), Multinomial of [batch_size, sample_size]; each output of its ``dtype``
attribute's type, of its schema's set (T, T2), judged by onnxruntime at load, else onnx's
strict inference (tests/onnxsweep.truth), and their shapes and sizes by onnxruntime's
runs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from onnxsweep import ELEMS, kantensor_says, model_of, truth

pytest.importorskip("onnxruntime")


@pytest.mark.parametrize("op", ["RandomNormalLike", "RandomUniformLike"])
@pytest.mark.parametrize("opset", [1, 21, 22])
@pytest.mark.parametrize("dtype", [None, TensorProto.FLOAT, TensorProto.BFLOAT16])
def test_a_like_op_takes_any_input_and_gives_its_sets_dtype(op, opset, dtype):
    """The input of every element type (T1: its values unread), with the dtype named or
    not (then the input's, which T2 must hold): typed exactly where the oracles take it
    (bfloat16 from opset 22)."""
    wrong = []
    for code, name in ELEMS.items():
        attrs = {} if dtype is None else {"dtype": dtype}
        node = helper.make_node(op, ["x"], ["y"], **attrs)
        model = model_of([node], [helper.make_tensor_value_info("x", code, [2, 3])], opset)
        valid, who = truth(model, op)
        said = kantensor_says(model)
        assert said != "unsupported", name
        if valid is not None and (said == "accepts") != valid:
            wrong.append((name, who, said))
    assert not wrong


@pytest.mark.parametrize(("op", "attrs"), [
    ("RandomNormal", {"shape": [2, 0, 3]}), ("RandomUniform", {"shape": [4], "dtype": 11}),
    ("RandomNormal", {"shape": [1], "dtype": 11, "seed": 2.0})])
def test_a_random_op_has_its_shape_attributes_sizes(op, attrs):
    """The output's shape is the attribute's and its dtype the named one, as
    onnxruntime's run gives it; kt.function computes values of that type."""
    model = model_of([helper.make_node(op, [], ["y"], **attrs)], [], 21)
    ins, (y,) = ko.from_onnx(model)
    ran = ortrun.ask(model.SerializeToString(), {}, typed=True)
    assert [(y.type.shape, y.type.dtype)] == [(tuple(s), d) for s, d in ran]
    (got,) = kt.function(ins, [y], check=True)()
    assert got.shape == y.type.shape and got.dtype == np.dtype(y.type.dtype)


def _multinomial(**attrs):
    node = helper.make_node("Multinomial", ["x"], ["y"], **attrs)
    return model_of([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                           ["B", "C"])], 21)


@pytest.mark.parametrize("attrs", [{}, {"sample_size": 3, "dtype": 7}])
def test_multinomial_draws_from_a_batch_and_classes_that_are_not_empty(attrs):
    """[batch_size, sample_size] of the dtype named (int32 unless given); onnxruntime
    refuses a batch or classes of no entry ("batch_size is < 1", "num_classes is < 1"),
    and the contract holds exactly where it runs."""
    model = _multinomial(**attrs)
    contract = ko.contract(model)
    (y,) = ko.from_onnx(model)[1]
    for b, c in itertools.product(range(3), repeat=2):
        ran = ortrun.ask(model.SerializeToString(), {"x": np.zeros((b, c), np.float32)},
                         typed=True)
        refused = isinstance(ran, ortrun.Refusal)
        assert contract.holds(B=b, C=c).value is not refused, (b, c, ran)
        if not refused:
            want = tuple(b if str(d) == "B" else d for d in y.type.shape)
            assert [(want, y.type.dtype)] == [(tuple(s), d) for s, d in ran]


@pytest.mark.parametrize(("shape", "attrs"), [([3], {}), ([2, 3, 4], {}),
                                              ([2, 3], {"sample_size": 0})])
def test_multinomial_refuses_what_onnxruntime_refuses(shape, attrs):
    """An input not of rank 2 (onnxruntime: "Input tensor must have rank 2"), a
    sample_size below 1 (refused at every value: "num_samples is < 1")."""
    node = helper.make_node("Multinomial", ["x"], ["y"], **attrs)
    model = model_of([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                            shape)], 21)
    ran = ortrun.run(model, {"x": np.zeros(shape, np.float32)})
    assert isinstance(ran, ortrun.Refusal)
    assert kantensor_says(model) == "refuses"
