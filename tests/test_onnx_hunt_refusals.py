"""What a hunt of one-node models at edge sizes found (2026-12-01), each judged by
onnxruntime: models of named sizes run at every assignment of a small grid (0 and 1
among the sizes). Each contract held where onnxruntime refuses:

* LRN: onnxruntime's kernel takes X of 4 axes and an odd size of 1 or more (the spec's X
  has 3 axes or more, its size any);
* GroupNormalization: onnxruntime's function reshapes X to (N, num_groups, -1), refused
  for an empty X (one corner it runs, rank 4 with one group and C and the first spatial
  axis empty, stays refused: counted, never claimed);
* Unique along an axis whose slices hold no element (an axis after it empty, the axes
  up to it not) aborts onnxruntime's process;
* DFT of an empty signal axis to an output that is not empty (one-sided, or of a
  dft_length) is refused ("signal dimension must be greater than zero");
* GRU of an empty batch, sequence or input size, LSTM of an empty batch, abort its process;
* GatherND and ScatterND with constant indices out of range of an indexed axis (the
  indices were taken as data: each indexed axis needed an entry);
* ReverseSequence with a constant sequence length longer than the time axis, or
  negative (lengths were not checked);
* ScatterElements (and Scatter) with constant indices out of range of the axis (taken
  as data; Gather's and GatherElements' intervals, over one axis, were exact already);
* RoiAlign with a constant batch index past X's batch (an empty one among them), or
  negative (batch indices were not checked).

And gaps the other way: Pad in reflect or edge mode over an empty input
was refused where each empty axis stays empty (onnxruntime runs it); Squeeze without
axes over named sizes was left untyped (now typed where no named size is 1: the
condition kept, a choice).

Where onnxruntime runs, the contract holds and the model at those sizes is typed with
onnxruntime's shape (a size the data decides, Unique's count, left open).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
from differential import count
from onnxsweep import model_of


def _model(op: str, opset: int, inputs: dict, outputs: int = 1,
           constants: dict | None = None, nodes: bool = False, **attributes):
    """A one-node model; ``constants`` its initializers (Constant nodes if ``nodes``)."""
    constants = constants or {}
    node = helper.make_node(op, [*inputs, *(n if v is not None else "" for n, v in
                                            constants.items())],
                            [f"y{i}" for i in range(outputs)], **attributes)
    given = tuple(numpy_helper.from_array(np.asarray(v), n)
                  for n, v in constants.items() if v is not None)
    made = [helper.make_node("Constant", [], [t.name], value=t) for t in given] \
        if nodes else []
    return model_of([*made, node], [helper.make_tensor_value_info(n, TensorProto.FLOAT,
                                                                   dims)
                                    for n, dims in inputs.items()], opset,
                    outputs=tuple(node.output), initializers=() if nodes else given)


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


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("onesided", [0, 1])
@pytest.mark.parametrize("length", [None, 4])
def test_dft_of_an_empty_signal_axis(opset, onesided, length):
    inputs = {"x": ["n", "m", 1]}
    constants = {} if length is None else {"l": np.int64(length)}
    if opset >= 20:
        constants = {"l": None if length is None else np.int64(length), "a": np.int64(1)}
    attributes = {"onesided": onesided, **({"axis": 1} if opset < 20 else {})}
    ran, refused, _ = _judge(_model("DFT", opset, inputs, constants=constants, **attributes),
                             _grid("n m"), inputs)
    assert ran >= 6


def _recurrence(op: str, gates: int, opset: int, direction: str, features: int) -> tuple:
    """``(ran, refused)`` of a one-node recurrence (hidden size 2, X ``[s, b, features]``)
    judged over the grid of ``s`` and ``b``."""
    dirs = 2 if direction == "bidirectional" else 1
    inputs = {"x": ["s", "b", features]}
    constants = {"w": np.zeros((dirs, gates * 2, features), np.float32),
                 "r": np.zeros((dirs, gates * 2, 2), np.float32)}
    ran, refused, _ = _judge(_model(op, opset, inputs, outputs=2, constants=constants,
                                    hidden_size=2, direction=direction),
                             _grid("s b"), inputs)
    return ran, refused


@pytest.mark.parametrize("op, gates", [("RNN", 1), ("GRU", 3), ("LSTM", 4)])
@pytest.mark.parametrize("opset", [7, 14, 22])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_a_recurrence_of_an_empty_batch_or_sequence(op, gates, opset, direction):
    ran, refused = _recurrence(op, gates, opset, direction, 3)
    assert ran >= 4 and (refused > 0) is (op != "RNN"), (ran, refused)


@pytest.mark.parametrize("op, gates", [("RNN", 1), ("GRU", 3), ("LSTM", 4)])
@pytest.mark.parametrize("opset", [7, 14, 22])
@pytest.mark.parametrize("direction", ["forward", "bidirectional"])
def test_a_recurrence_of_an_empty_input_size(op, gates, opset, direction):
    """X of no feature (W's last axis 0): onnxruntime's GRU aborts at every size, its RNN
    and LSTM run (LSTM with a batch)."""
    ran, refused = _recurrence(op, gates, opset, direction, 0)
    assert (ran == 0) is (op == "GRU") and ran + refused == 9, (ran, refused)


@pytest.mark.parametrize("opset", [11, 12, 13])
@pytest.mark.parametrize("x, bound", [(["n", "m"], []), (["n", "m"], ["k"]),
                                      (["n", "m"], [1]), (["n", "m"], [1, "k"]), ([], ["k"]),
                                      (["n"], ["k"])])
def test_clip_takes_scalar_bounds(opset, x, bound):
    """onnxruntime's Clip takes a min (and max) of no axis or one axis of 1 ("min should
    be a scalar"), Y of X's shape; they were broadcast with X."""
    inputs = {"x": x, "lo": bound}
    names = " ".join(d for d in ("n", "m", "k") if d in x + bound)
    ran, refused, _ = _judge(_model("Clip", opset, inputs), _grid(names), inputs)
    assert ran >= 1 or len(bound) > 1, (ran, refused)


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("size", [0, 1, 3])
@pytest.mark.parametrize("computed", [False, True])
def test_a_window_of_size_zero(op, size, computed):
    """onnx's inference (run by onnxruntime at load) refuses a constant size 0, its
    kernel runs a computed one: the contract never holds where onnxruntime refuses, and
    holds or is undecided where it runs (typed with its shape where it holds)."""
    nodes = [helper.make_node("Sub", ["a", "b"], ["n"])] if computed else []
    nodes.append(helper.make_node(op, ["n"], ["y"]))
    values = {"a": size, "b": 0} if computed else {"n": size}
    model = model_of(nodes, [], 17, initializers=tuple(
        numpy_helper.from_array(np.array(v, np.int64), k) for k, v in values.items()))
    got = ortrun.run(model, {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            holds = ko.contract(model).holds().value
        except (TypeError, ValueError):
            holds = False
    if isinstance(got, ortrun.Refusal):
        assert holds is not True and not computed and size == 0, got.why
        return
    assert holds is not False, got
    if size:
        assert holds is True
        (out,) = ko.infer_shapes(model).graph.output
        assert tuple(d.dim_value for d in out.type.tensor_type.shape.dim) == got[0]


_INDICES = [[[0, 1]], [[1, 0], [0, 2]], [[-1, 0]], [[0, -3]], [[2, 2]], [[3, -1], [0, 0]],
            np.zeros((0, 2), np.int64)]


@pytest.mark.parametrize("indices", _INDICES, ids=str)
@pytest.mark.parametrize("op, opset", [("GatherND", 11), ("GatherND", 13),
                                       ("ScatterND", 11), ("ScatterND", 16)])
@pytest.mark.parametrize("nodes", [False, True])
def test_constant_nd_indices_fit_column_by_column(indices, op, opset, nodes):
    """Constant indices (an initializer, a Constant node) of GatherND and ScatterND:
    onnxruntime refuses an index outside ``[-d, d)`` of its column's axis ``d``; the
    contract holds exactly where it runs (each column's least and greatest value known)."""
    i = np.asarray(indices, np.int64).reshape(-1, 2)
    gather = op == "GatherND"
    constants = {"i": i} if gather else {"i": i, "u": np.ones(len(i), np.float32)}
    inputs = {"x": ["n", "m", "k"] if gather else ["n", "m"]}
    ran, refused, _ = _judge(_model(op, opset, inputs, constants=constants, nodes=nodes),
                             _grid("n m k", (0, 1, 2, 3)) if gather else _grid("n m", range(5)),
                             inputs)
    assert ran >= 1 and (refused > 0) is (len(i) > 0), (ran, refused)


@pytest.mark.parametrize("indices", [[[[1], [0]], [[0], [2]]], [[[-2]], [[1]]]], ids=str)
def test_constant_nd_indices_after_batch_axes(indices):
    """GatherND with batch_dims 1: column k of the indices indexes data's axis 1 + k; the
    slice each tuple reads empty (``m`` 0), onnxruntime checks no index."""
    i = np.asarray(indices, np.int64)
    inputs = {"x": [2, "n", "m"]}
    ran, refused, _ = _judge(_model("GatherND", 13, inputs, constants={"i": i},
                                    batch_dims=1), _grid("n m", (0, 1, 2, 3)), inputs)
    assert ran >= 1 and refused >= 1, (ran, refused)


@pytest.mark.parametrize("lens", [[0, 2], [3, 1], [-1, 1], [1, 1], [0, 0]], ids=str)
@pytest.mark.parametrize("time_axis", [0, 1])
@pytest.mark.parametrize("nodes", [False, True])
def test_constant_sequence_lengths_fit_the_time_axis(lens, time_axis, nodes):
    """ReverseSequence's constant sequence_lens: onnxruntime refuses one longer than the
    time axis, and a negative one at any size."""
    inputs = {"x": ["t", 2, "k"] if time_axis == 0 else [2, "t", "k"]}
    model = _model("ReverseSequence", 10, inputs, constants={"l": np.array(lens, np.int64)},
                   nodes=nodes, time_axis=time_axis, batch_axis=1 - time_axis)
    ran, refused, _ = _judge(model, _grid("t k", range(5)), inputs)
    assert (ran > 0) is (min(lens) >= 0) and (refused > 0) is (max(lens) > 0), (ran, refused)


@pytest.mark.parametrize("indices", [[[0, 1]], [[2, -1]], [[-3, 0]], [[0, 0]]], ids=str)
@pytest.mark.parametrize("op, opset", [("Scatter", 9), ("ScatterElements", 11),
                                       ("ScatterElements", 16), ("GatherElements", 13),
                                       ("Gather", 13)])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("nodes", [False, True])
def test_constant_indices_fit_one_axis(indices, op, opset, axis, nodes):
    """Constant indices along one axis: onnxruntime refuses one outside ``[-d, d)``; the
    interval of their values, over the one axis, states exactly where it runs."""
    i = np.array(indices, np.int64)
    constants = {"i": i} if op.startswith("Gather") else \
        {"i": i, "u": np.ones(i.shape, np.float32)}
    inputs = {"x": ["n", "m"]}
    ran, refused, _ = _judge(_model(op, opset, inputs, constants=constants, nodes=nodes,
                                    axis=axis), _grid("n m", range(4)), inputs)
    assert ran >= 2 and refused >= 4, (ran, refused)


@pytest.mark.parametrize("batch", [[0], [1], [-1], [], [0, 2]], ids=str)
@pytest.mark.parametrize("opset", [10, 16])
@pytest.mark.parametrize("nodes", [False, True])
def test_constant_batch_indices_name_an_image(batch, opset, nodes):
    """RoiAlign's constant batch_indices: onnxruntime refuses an index past X's batch
    (any where X's batch is empty) and a negative one."""
    rois = np.array([[0, 0, 1, 1]] * len(batch), np.float32).reshape(-1, 4)
    inputs = {"x": ["n", "c", "h", 2]}
    model = _model("RoiAlign", opset, inputs, nodes=nodes,
                   constants={"rois": rois, "b": np.array(batch, np.int64)})
    ran, refused, _ = _judge(model, _grid("n c h", range(4)), inputs)
    assert (ran > 0) is (not batch or min(batch) >= 0) and (refused > 0) is bool(batch), \
        (ran, refused)


_PADS = [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [1, 1, 1, 1], [0, -1, 0, 0], [2, 0, 0, 0],
         [-1, -1, 1, 1], [1, -1, 0, 2], [0, 0, 0, 0]]


@pytest.mark.parametrize("pads", _PADS, ids=str)
@pytest.mark.parametrize("mode, opset", [("reflect", 10), ("edge", 10), ("reflect", 11),
                                         ("edge", 18), ("reflect", 19), ("wrap", 19)])
def test_pad_of_an_empty_input(pads, mode, opset):
    """Pad outside constant mode over an empty input: onnxruntime runs reflect and edge
    where each empty axis stays empty (and none is cropped below 0), wrap nowhere; the
    contract holds exactly there (and where the input is not empty, as before)."""
    inputs = {"x": ["n", "m"]}
    model = _model("Pad", opset, inputs, pads=pads, mode=mode) if opset < 11 else \
        _model("Pad", opset, inputs, constants={"p": np.array(pads, np.int64)}, mode=mode)
    ran, refused, _ = _judge(model, _grid("n m", range(5)), inputs)
    assert ran >= 1 or mode == "wrap", (ran, refused)


@pytest.mark.parametrize("x", [["n", 1, "m"], ["n"], [1, "n", 1], [2, 3], ["n", "m", 1, 2]],
                         ids=str)
@pytest.mark.parametrize("opset", [11, 13, 21])
def test_squeeze_without_axes_over_named_sizes(x, opset):
    """Squeeze without axes drops the axes of size 1, which named sizes leave open: the
    type drops the axes known to be 1 where no named size is 1 (the condition kept, a
    choice); where one is, onnxruntime drops it too and the contract is undecided
    (counted)."""
    inputs = {"x": x}
    names = " ".join(d for d in x if isinstance(d, str))
    grid = _grid(names, range(4)) if names else [{}]
    ran, refused, corners = _judge(_model("Squeeze", opset, inputs), grid, inputs,
                                   lambda s: 1 in s.values())
    count("Squeeze without axes: a named size of 1, the contract undecided", corners)
    assert refused == 0 and ran == len(grid), (ran, refused)
