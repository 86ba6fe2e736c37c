"""Sparse initializers (``GraphProto.sparse_initializer``): each is typed as the dense
tensor it stands for, as onnxruntime densifies it; a name given to a dense and a sparse
initializer is refused, as onnx's checker refuses it (onnxruntime takes one of them,
warning; kantensor typed the dense one, silently). Judged by onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun

F = TensorProto.FLOAT


def _sparse(name, dims, values, indices, index_dims=None):
    return helper.make_sparse_tensor(
        helper.make_tensor(name, F, [len(values)], values),
        helper.make_tensor(f"{name}_indices", TensorProto.INT64,
                           index_dims or [len(indices)], indices), list(dims))


def _model(sparse, dense=(), inputs=(("x", ["N", 3]),)):
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(n, F, d) for n, d in inputs],
        [helper.make_tensor_value_info("y", F, ["N", 3])],
        [numpy_helper.from_array(d, "w") for d in dense], sparse_initializer=sparse)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("indices", [([1, 4], None), ([0, 1, 1, 1], [2, 2])])
def test_a_sparse_initializer_is_typed_as_its_dense_tensor(indices):
    """``w`` a sparse [2, 3] tensor (linear indices, or one row of coordinates per
    entry): it was 'defined by no graph input, initializer or earlier node'. Typed
    ``float32[2,3]``; ``y = x + w`` runs as onnxruntime runs it, values and all."""
    model = _model([_sparse("w", (2, 3), [1.0, 2.0], *indices)])
    ins, (y,) = ko.from_onnx(model)
    assert str(y.type) == "float32[2,3]"
    dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    assert [d.dim_value for d in dims] == [2, 3]
    assert "N == 2 or N == 1" in str(ko.contract(model))
    run = kt.function(ins, [y])
    for n in (1, 2):
        x = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
        want = np.zeros(6, np.float32)
        want[[1, 4]] = [1.0, 2.0]
        got = run(x)[0]
        assert ortrun.run(model, {"x": x}) == [got.shape]
        assert np.array_equal(got, x + want.reshape(2, 3))


def test_a_name_given_to_a_dense_and_a_sparse_initializer_is_refused():
    model = _model([_sparse("w", (2, 3), [1.0, 2.0], [1, 4])],
                   dense=[np.ones((1, 3), np.float32)])
    with pytest.raises(onnx.checker.ValidationError, match="not unique"):
        onnx.checker.check_model(model)
    for read in (ko.from_onnx, ko.infer_shapes, ko.contract):
        with pytest.raises(ko.OnnxImportError, match=r"sparse initializer 'w': the name is "
                           r"given to a dense initializer too \(onnx's checker refuses"):
            read(model)
    twice = _model([_sparse("w", (2, 3), [1.0], [1]), _sparse("w", (2, 3), [2.0], [4])])
    with pytest.raises(ko.OnnxImportError, match="given to two sparse initializers"):
        ko.infer_shapes(twice)


def test_a_sparse_initializer_a_graph_input_declares_is_its_default():
    """Named by a graph input too: the input's declaration types it (a default a caller
    may override), as for a dense initializer."""
    model = _model([_sparse("w", (2, 3), [1.0], [1])], inputs=(("x", ["N", 3]),
                                                                ("w", ["K", 3])))
    ins, (y,) = ko.from_onnx(model)
    assert [v.name for v in ins] == ["x", "w"] and str(ins[1].type) == "float32[K,3]"


def test_hostile_sparse_initializers_are_refused_or_typed_without_densifying():
    """A few bytes standing for a tensor of 3 * 10**12 entries: typed by ``infer_shapes``
    (nothing densified), refused by ``from_onnx`` (whose constant would be that tensor)
    with the bytes it would take; indices out of range, of the wrong shape or more than
    the entries are refused, naming the initializer."""
    big = _model([_sparse("w", (10**12, 3), [1.0], [5])])
    dims = ko.infer_shapes(big).graph.output[0].type.tensor_type.shape.dim
    assert [d.dim_value for d in dims] == [10**12, 3]
    with pytest.raises(ko.OnnxImportError, match=r"sparse initializer 'w': float32\["
                       r"1000000000000,3\] densified takes 12000000000000 bytes"):
        ko.from_onnx(big)
    with pytest.raises(ko.OnnxImportError, match="an index is out of the dims"):
        ko.from_onnx(_model([_sparse("w", (2, 3), [1.0], [6])]))
    with pytest.raises(ko.OnnxImportError, match=r"its indices are int64\[3\], int64\[1\] "
                       r"or int64\[1,2\] expected"):
        ko.infer_shapes(_model([_sparse("w", (2, 3), [1.0], [0, 1, 2])]))
    with pytest.raises(ko.OnnxImportError, match="7 entries of a tensor of 6"):
        ko.infer_shapes(_model([_sparse("w", (2, 3), [1.0] * 7, list(range(7)))]))


def test_a_scalar_sparse_initializer_is_its_one_entry():
    """A sparse scalar (dims ``[]``) of linear index 0: ``float32[]`` of its value, as
    onnxruntime computes. Its index as a coordinate of no axes (``int64[1,0]``, NumPy's
    ravelling raised ValueError) is refused, as onnxruntime refuses it."""
    def model(index_dims):
        sparse = helper.make_sparse_tensor(
            helper.make_tensor("w", F, [1], [3.0]),
            helper.make_tensor("w_indices", TensorProto.INT64, index_dims,
                               [0] * (index_dims[-1] if len(index_dims) == 1 else 0)), [])
        graph = helper.make_graph([helper.make_node("Neg", ["w"], ["y"])], "g", [],
                                  [helper.make_tensor_value_info("y", F, [])],
                                  sparse_initializer=[sparse])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])

    ins, (y,) = ko.from_onnx(model([1]))
    assert str(y.type) == "float32[]" and kt.function(ins, [y])()[0] == -3.0
    assert ortrun.run(model([1]), {}) == [()]
    assert isinstance(ortrun.run(model([1, 0]), {}), ortrun.Refusal)
    for read in (ko.from_onnx, ko.infer_shapes):
        with pytest.raises(ko.OnnxImportError, match="coordinates of no axes"):
            read(model([1, 0]))
