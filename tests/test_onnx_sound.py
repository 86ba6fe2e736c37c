"""ONNX relations state what a run requires (issue 38): refine and a forward build
agree on a model's sizes, and a model that the relations accept runs with the stated
shapes; each checked against a forward build at concrete sizes, NumPy's run of the
imported graph and onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
from kantensor.onnx import from_onnx

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def init(name, value, dtype=np.float32):
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


# -- point 4: refine at the sizes of a forward build that fails, fails ------------------
def bert_embeddings(shape=("batch", "seq"), positions=64):
    """A BERT embedding as torch exports it: the positions are a buffer of ``positions``
    ids sliced ``[:, :seq]`` (Shape -> Gather -> Unsqueeze -> Slice), looked up in a
    table of as many rows and added to the word embeddings."""
    nodes = [
        helper.make_node("Shape", ["ids"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["seq"], axis=0),
        helper.make_node("Unsqueeze", ["seq", "zero1"], ["seq1"]),
        helper.make_node("Slice", ["position_ids", "zero1", "seq1", "one1"], ["pos"],
                         name="positions"),
        helper.make_node("Gather", ["ptab", "pos"], ["pemb"], axis=0),
        helper.make_node("Gather", ["wtab", "ids"], ["wemb"], axis=0),
        helper.make_node("Add", ["wemb", "pemb"], ["out"], name="embed"),
    ]
    inits = [init("one", 1, np.int64), init("zero1", [0], np.int64),
             init("one1", [1], np.int64),
             init("position_ids", np.arange(positions)[None], np.int64),
             init("ptab", np.ones((positions, 16))), init("wtab", np.ones((100, 16)))]
    return model(nodes, [helper.make_tensor_value_info("ids", I64, list(shape))],
                 [helper.make_tensor_value_info("out", F, None)], inits)


def forward(make, *shape):
    """The output type of a forward build of ``make(shape)`` (None: refused)."""
    try:
        return from_onnx(make(shape))[1][0].type
    except TypeError:
        return None


def test_refine_refuses_a_sequence_longer_than_the_position_table():
    ins, outs = from_onnx(bert_embeddings())
    for seq in (1, 63, 64, 65, 100):
        want = forward(bert_embeddings, 2, seq)
        try:
            got = kt.refine(outs, given={ins[0]: f"int64[2,{seq}]"})[outs[0]]
        except kt.RefinementError as exc:
            got, message = None, str(exc)
        assert got == want, seq
        assert (want is None) == (seq > 64)
    # the conflict is the slice's 64 rows against the 65 positions
    assert "pos axis 1 is 64 because of pos = Slice" in message
    assert "fails with wemb axis 1 = 100, pemb axis 1 = 64" in message
    # and the run says the same
    f = kt.function(ins, outs)
    assert f(np.zeros((2, 64), np.int64))[0].shape == (2, 64, 16)
    with pytest.raises(ValueError) as info:
        f(np.zeros((2, 65), np.int64))
    assert "could not be broadcast together with shapes (2,65,16) (1,64,16)" in str(info.value)


def test_a_slice_by_a_named_size_is_clamped_to_the_axis():
    _, outs = from_onnx(bert_embeddings())
    pemb = outs[0].owner.inputs[1]
    assert str(pemb.owner.inputs[1].type) == "int64[1,min(64,seq)]"
