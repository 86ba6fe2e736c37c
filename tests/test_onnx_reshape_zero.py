"""Reshape's copying 0 (allowzero 0) at a size the model reads (``Shape(y)[0]``), judged
by ONNX's reference implementation and onnxruntime at every size of a small domain, 0
included (issue 33: never a wrong answer).

ONNX: an entry 0 copies the input's size at its position, so an entry ``S`` read from
another tensor is ``S`` where ``S >= 1`` and the input's size where ``S == 0``; -1 is the
input's size over the others, and invalid among sizes of product 0; a 0 beyond the
input's rank is invalid. For every assignment, four answers must agree with whether
the model runs and the shape it gives: the forward typing of the model with
those sizes given (ints), the symbolic type evaluated at them, ``contract.holds`` (its
``inner`` and ``outer`` sufficient and necessary) and ``kt.refine`` at them (one
relation).

The oracle is ONNX's reference implementation (``onnx.reference``), with onnxruntime run
beside it without graph optimisations: the two agree at every point here but one kind,
allowzero 1 with a 0 beside -1, which ONNX calls invalid and onnxruntime runs. With its
optimisations on, onnxruntime's Reshape fusion rewrites ``[Shape(y)[0], Shape(x)[1]]``
into ``[-1, 0]``, which refuses x of shape (1, 0) that the model's own shape reshapes;
kantensor follows ONNX.
"""

from __future__ import annotations

import itertools

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import kantensor as kt
import kantensor.onnx as ko
from kantensor.onnx.contract import with_input_dims
from kantensor.types.symbols import substitute

F, I64 = TensorProto.FLOAT, TensorProto.INT64

#: the sizes each input axis is read from: ``Shape(x)[k]`` or ``Shape(y)[0]``
READ = {"A": ("x", 0), "B": ("x", 1), "S": ("y", 0)}


def _init(name: str, value) -> TensorProto:
    return numpy_helper.from_array(np.asarray(value, np.int64), name)


def reshape_model(x_dims: tuple[str, ...], entries: list, allowzero: int = 0):
    """``Reshape(x, Concat(entries))``: an entry is an int (a constant), a size's name
    (``A``, ``B`` of x, ``S`` of y, read with Shape and Gather) or a product of two of
    them (``A*S``: Mul), as exporters write a view."""
    nodes = [helper.make_node("Shape", ["x"], ["sx"]), helper.make_node("Shape", ["y"], ["sy"])]
    inits = [_init("ax", [0])]
    parts = []
    for k, entry in enumerate(entries):
        name = f"e{k}"
        if isinstance(entry, int):
            inits.append(_init(name, [entry]))
        else:
            factors = entry.split("*")
            read = []
            for j, f in enumerate(factors):
                tensor, axis = READ[f]
                inits.append(_init(f"i{k}_{j}", axis))
                nodes.append(helper.make_node("Gather", [f"s{tensor}", f"i{k}_{j}"],
                                              [f"g{k}_{j}"], axis=0))
                read.append(f"g{k}_{j}")
            if len(read) == 2:
                nodes.append(helper.make_node("Mul", read, [f"m{k}"]))
                read = [f"m{k}"]
            nodes.append(helper.make_node("Unsqueeze", [read[0], "ax"], [name]))
        parts.append(name)
    nodes += [helper.make_node("Concat", parts, ["shape"], axis=0),
              helper.make_node("Reshape", ["x", "shape"], ["out"], name="view",
                               allowzero=allowzero)]
    graph = helper.make_graph(
        nodes, "view", [helper.make_tensor_value_info("x", F, list(x_dims)),
                        helper.make_tensor_value_info("y", F, ["S"])],
        [helper.make_tensor_value_info("out", F, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _runs(model):
    """The oracle: a function of the inputs giving the output's shape or None (refused),
    by ONNX's reference implementation, checked against onnxruntime (no graph
    optimisations) where ONNX does not call a 0 beside -1 invalid."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = 4
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    reference = ReferenceEvaluator(model)
    allowzero = any(a.name == "allowzero" and a.i for a in model.graph.node[-1].attribute)

    def run(inputs):
        shapes = []
        for one in (reference, session):
            try:
                shapes.append(one.run(None, inputs)[0].shape)
            except Exception:  # (each runtime's own errors)
                shapes.append(None)
        assert shapes[0] == shapes[1] or allowzero and shapes[0] is None, shapes
        return shapes[0]
    return run


def judged(model, x_dims: tuple[str, ...], domain: int = 4):
    """For each assignment of the sizes in ``range(domain)``: the oracle's output shape
    (or its refusal) beside kantensor's four answers; a mismatch fails."""
    run = _runs(model)
    contract = ko.contract(model)
    _, (out,) = ko.from_onnx(model)
    names = sorted(set(x_dims) | {"S"})
    graph = set(x_dims) | ({"S"} if "sy" in {i for n in model.graph.node for i in n.input}
                           else set())  # the sizes of out's graph: y's if Shape(y) is read
    ran_count = 0
    for values in itertools.product(range(domain), repeat=len(names)):
        sizes = dict(zip(names, values, strict=True))
        shape_x = tuple(sizes[d] for d in x_dims)
        ran = run({"x": np.zeros(shape_x, np.float32), "y": np.zeros(sizes["S"], np.float32)})
        ran_count += ran is not None
        where, used = (sizes, ran), {n: sizes[n] for n in contract.names}
        assert contract.holds(**used).value == (ran is not None), \
            (where, str(contract.holds(**used)))
        if ran is None:  # the approximations: inner sufficient, outer necessary
            assert contract.inner.holds(**used).value is not True, where
        else:
            assert contract.outer.holds(**used).value is not False, where
        concrete = with_input_dims(model, {"x": shape_x, "y": (sizes["S"],)})
        if ran is not None:
            _, (y,) = ko.from_onnx(concrete)
            assert y.type.shape == ran, where
            assert tuple(substitute(d, sizes) for d in out.type.shape) == ran, (where, out.type)
            assert kt.refine(out, given={n: sizes[n] for n in graph})[out].shape == ran, where
        else:
            with pytest.raises((kt.TypeInferenceError, ValueError), match="Reshape"):
                ko.from_onnx(concrete)
            with pytest.raises(kt.TypeInferenceError):
                kt.refine(out, given={n: sizes[n] for n in graph})
    return contract, out, ran_count


def test_a_size_read_from_another_tensor_copies_the_input_s_size_where_it_is_0():
    """``Reshape(x, [S, -1])``: at S = 0 the entry copies A (onnxruntime gives (2, 3) at
    A=2, B=3), so S >= 1 is not necessary; A = S = 0 leaves -1 among sizes of product 0,
    refused."""
    dims = ("A", "B")
    contract, out, ran = judged(reshape_model(dims, ["S", -1]), dims)
    assert contract.holds(A=2, B=3, S=0)
    assert not contract.holds(A=0, B=3, S=0)
    assert str(out.type) == "float32[A+S-A*min(1,S),(A*B)//(A+S-A*min(1,S))]"
    assert ran > 10


def test_a_size_at_an_axis_the_input_lacks_must_not_be_0():
    """``Reshape(x[A], [-1, S])``: a 0 at position 1 would copy an axis x does not
    have (onnxruntime refuses)."""
    contract, out, ran = judged(reshape_model(("A",), [-1, "S"]), ("A",), domain=5)
    assert not contract.holds(A=0, S=0) and contract.holds(A=0, S=3)
    assert str(out.type) == "float32[A//S,S]"
    assert ran > 5


def test_an_expression_of_sizes_copies_where_it_is_0():
    """``Reshape(x, [A*S, -1])``: A*S is 0 where A or S is; the copy is A either way."""
    dims = ("A", "B")
    contract, _, ran = judged(reshape_model(dims, ["A*S", -1]), dims)
    assert contract.holds(A=2, B=3, S=0) and not contract.holds(A=0, B=3, S=2)
    assert ran > 10


def test_minus_one_beside_an_input_size_at_another_axis_divides_by_the_copy():
    """``Reshape(x, [-1, A])`` (a view moving a size, as ``[-1, seq, 16]`` of a
    ``(batch, 4, seq, 16)`` tensor): where A >= 1 the entry A cancels out of the -1
    (``B``); where A is 0 it copies B, the input is empty and the -1 is 0, valid only
    where B >= 1."""
    dims = ("A", "B")
    contract, out, ran = judged(reshape_model(dims, [-1, "A"]), dims)
    assert str(out.type) == "float32[B*min(1,A),A+B-B*min(1,A)]"
    assert contract.holds(A=0, B=2, S=0) and not contract.holds(A=0, B=0, S=0)
    assert ran > 10


def test_without_minus_one_the_copied_size_must_keep_the_volume():
    """``Reshape(x, [S, B])``: valid at S = 0 (a copy of A) and where S == A (B >= 1)."""
    dims = ("A", "B")
    contract, _, ran = judged(reshape_model(dims, ["S", "B"]), dims)
    assert contract.holds(A=3, B=2, S=0) and not contract.holds(A=3, B=2, S=2)
    assert ran > 10


def test_where_the_volume_refuses_a_copy_the_entry_keeps_its_own_size():
    """``Reshape(x, [B, 1])``: where B is 0 the input is empty and a copied A >= 1 would
    not be, so the type stays ``(B, 1)`` under ``min(B, 1) >= min(A, 1)`` (exact); with
    ``[A*S, 3]`` an S of 0 leaves the input full, and the copy is a case of the type."""
    dims = ("A", "B")
    contract, out, ran = judged(reshape_model(dims, ["B", 1]), dims)
    assert str(out.type) == "float32[B,1]"
    assert contract.holds(A=0, B=0, S=0) and not contract.holds(A=2, B=0, S=0)
    assert ran > 5
    contract, out, ran = judged(reshape_model(dims, ["A*S", 3]), dims)
    assert str(out.type) == "float32[A*S-A*min(1,A*S)+A,3]"
    assert contract.holds(A=1, B=3, S=0) and ran > 5


def test_sizes_swapped_copy_each_other_where_they_are_0():
    """``Reshape(x, [B, A])``: where B is 0 the first entry copies A, so (A, B) = (2, 0)
    asks for (2, 2) and is refused, while (0, 0) runs."""
    dims = ("A", "B")
    contract, _, ran = judged(reshape_model(dims, ["B", "A"]), dims, domain=5)
    assert not contract.holds(A=2, B=0, S=1) and contract.holds(A=0, B=0, S=1)
    assert ran > 10


def test_with_allowzero_a_0_beside_minus_one_is_invalid():
    """allowzero 1: a 0 is a size, and ONNX calls it invalid beside a -1; onnxruntime
    refuses it too."""
    dims = ("A", "B")
    contract, out, _ = judged(reshape_model(dims, ["S", -1], allowzero=1), dims)
    assert not contract.holds(A=2, B=3, S=0)
    assert str(out.type) == "float32[S,(A*B)//S]"


def test_an_entry_that_is_0_only_where_the_axis_is_keeps_its_size():
    """``Reshape(Reshape(x, [-1]), [A, B])`` (a flattened mask viewed back, as
    TorchScript exports write it): where A is 0 the copy is the flat size A*B, 0 too, so
    the type stays (A, B); B at an axis the flat tensor lacks must be >= 1."""
    nodes = [helper.make_node("Shape", ["x"], ["sx"]),
             helper.make_node("Reshape", ["x", "minus_one"], ["flat"]),
             helper.make_node("Reshape", ["flat", "sx"], ["out"], name="view")]
    graph = helper.make_graph(
        nodes, "view", [helper.make_tensor_value_info("x", F, ["A", "B"])],
        [helper.make_tensor_value_info("out", F, None)], [_init("minus_one", [-1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    _, (out,) = ko.from_onnx(model)
    assert str(out.type) == "float32[A,B]"
    contract, run = ko.contract(model), _runs(model)
    assert contract.exact
    for a, b in itertools.product(range(4), range(4)):
        ran = run({"x": np.zeros((a, b), np.float32)})
        assert contract.holds(A=a, B=b).value == (ran is not None) == (b >= 1), (a, b)
        if ran is not None:
            assert kt.refine(out, given={"A": a, "B": b})[out].shape == ran
