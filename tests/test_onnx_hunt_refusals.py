"""What a hunt of one-node models at edge sizes found (2026-12-01), each judged by
onnxruntime: models of named sizes run at every assignment of a small grid (0 and 1
among the sizes). Each contract held where onnxruntime refuses:

* LRN: onnxruntime's kernel takes X of 4 axes and an odd size of 1 or more (the spec's X
  has 3 axes or more, its size any);
* GroupNormalization: onnxruntime's function reshapes X to (N, num_groups, -1), refused
  for an empty X (one corner it runs, rank 4 with one group and C and the first spatial
  axis empty, stays refused: counted, never claimed);
* Unique along an axis whose slices hold no element (an axis after it empty, the axes
  up to it not) aborts onnxruntime's process.

Where onnxruntime runs, the contract holds and the model at those sizes is typed with
onnxruntime's shape (a size the data decides, Unique's count, left open).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor.onnx as ko
import ortrun
from differential import count
from onnxsweep import model_of


def _model(op: str, opset: int, inputs: dict, outputs: int = 1, **attributes):
    node = helper.make_node(op, list(inputs), [f"y{i}" for i in range(outputs)],
                            **attributes)
    return model_of([node], [helper.make_tensor_value_info(n, TensorProto.FLOAT, dims)
                             for n, dims in inputs.items()], opset,
                    outputs=tuple(node.output))


def _judge(model, grid: list[dict], inputs: dict, corner=lambda s: False) -> tuple:
    """The contract of ``model`` (named sizes) against onnxruntime at each assignment of
    ``grid``; where it runs, the shapes ``infer_shapes`` states. ``corner``: the
    assignments onnxruntime runs that the contract may leave invalid (counted).
    Returns (ran, refused, corners)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            contract = ko.contract(model)
            typed = ko.infer_shapes(model)
        except (TypeError, ValueError):  # (refused: kantensor's errors are both)
            contract = typed = None
    ran = refused = corners = 0
    for sizes in grid:
        feeds = {n: np.ones([sizes.get(d, d) for d in dims], np.float32)
                 for n, dims in inputs.items()}
        got = ortrun.run(model, feeds)
        holds = None if contract is None else contract.holds(**sizes).value
        if isinstance(got, ortrun.Refusal):
            assert holds is not True, (sizes, got.why)
            assert holds is False or contract is None, (sizes, got.why)
            refused += 1
            continue
        ran += 1
        if corner(sizes) and holds is not True:
            corners += 1
            continue
        assert holds is True, (sizes, got)
        for out, shape in zip(typed.graph.output, got, strict=True):
            dims = out.type.tensor_type.shape.dim
            assert len(dims) == len(shape), (sizes, out.name, shape)
            for d, n in zip(dims, shape, strict=True):
                if d.HasField("dim_value"):
                    assert d.dim_value == n, (sizes, out.name, shape)
                elif d.dim_param in sizes:
                    assert sizes[d.dim_param] == n, (sizes, out.name, shape)
    return ran, refused, corners


def _grid(names: str, values=(0, 1, 2)) -> list[dict]:
    return [dict(zip(names.split(), v, strict=True))
            for v in itertools.product(values, repeat=len(names.split()))]


@pytest.mark.parametrize("opset", [1, 13])
@pytest.mark.parametrize("rank", [2, 3, 4, 5])
@pytest.mark.parametrize("size", [0, 1, 2, 3, 4])
def test_lrn_takes_four_axes_and_an_odd_size(opset, rank, size):
    dims = ["n", "c", "h", 2, 2][:rank]
    inputs = {"x": dims}
    ran, refused, _ = _judge(_model("LRN", opset, inputs, size=size), _grid("n c h"), inputs)
    assert (ran > 0) is (rank == 4 and size % 2 == 1), (ran, refused)


@pytest.mark.parametrize("rank", [2, 3, 4])
@pytest.mark.parametrize("groups", [1, 2])
def test_group_normalization_of_an_empty_x(rank, groups):
    names = ["n", "c", "h", "w"][:rank]
    inputs = {"x": names, "s": ["c"], "b": ["c"]}
    grid = [s for s in _grid(" ".join(names), (0, 1, 2, 4)) if s["c"] % groups == 0]
    corner = (lambda s: s["c"] == s["h"] == 0 and s["n"] >= 1 and s["w"] >= 1) \
        if rank == 4 and groups == 1 else (lambda s: False)
    ran, refused, corners = _judge(_model("GroupNormalization", 21, inputs,
                                          num_groups=groups), grid, inputs, corner)
    count("GroupNormalization: a corner onnxruntime runs, left refused", corners)
    assert ran >= 4 and refused >= 4, (ran, refused)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, -2])
@pytest.mark.parametrize("rank", [1, 2, 3])
def test_unique_along_an_axis_of_slices_of_no_element(axis, rank):
    if axis is not None and not -rank <= axis < rank:
        axis = 0
    names = ["n", "m", "k"][:rank]
    inputs = {"x": names}
    attributes = {} if axis is None else {"axis": axis}
    ran, refused, _ = _judge(_model("Unique", 11, inputs, outputs=4, **attributes),
                             _grid(" ".join(names)), inputs)
    assert ran >= 1
