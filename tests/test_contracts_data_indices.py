"""Contracts of index ops whose indices (or slice starts) are data, judged by onnxruntime
at every size of a small domain and every index value of a small range: a size where no
value runs (k indices into an empty axis, more starts than the input has axes) is outside
the contract, which said every size is valid (exact) there; a size where some value runs
is inside. onnxruntime runs in a worker process (tests/ortrun.py), graph optimisations
off."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from onnx import TensorProto, helper

import kantensor as kt
import kantensor.onnx as ko
import ortrun
from differential import count

I64, F = TensorProto.INT64, TensorProto.FLOAT

#: the index values tried: every one in range of the axes tried, and some past them
VALUES = range(-2, 2)


def _model(op: str, inputs: list[tuple], **attrs):
    model = helper.make_model(helper.make_graph(
        [helper.make_node(op, [name for name, _, _ in inputs], ["y"], **attrs)], op.lower(),
        [helper.make_tensor_value_info(*i) for i in inputs],
        [helper.make_tensor_value_info("y", F, None)]),
        opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def _indices(shape):
    for v in itertools.product(VALUES, repeat=int(np.prod(shape, dtype=int))):
        yield np.array(v, np.int64).reshape(shape)


def _zeros(*shape):
    return np.zeros(shape, np.float32)


def _judged(model, names: str, feeds, last=range(3)) -> list[tuple]:
    """``model``'s contract against onnxruntime at every size of ``names`` in 0..2 (the
    last one's in ``last``): the sizes where they disagree, with whether onnxruntime
    refuses every value of ``feeds(sizes)``."""
    contract = ko.contract(model)
    disagree = []
    for values in itertools.product(*[range(3)] * (len(names) - 1), last):
        at = dict(zip(names, values, strict=True))
        runs = any(not isinstance(ortrun.run(model, f), ortrun.Refusal) for f in feeds(at))
        count("data indices: sizes judged by onnxruntime", 1)
        if contract.holds(**at).value is not runs:
            disagree.append((at, not runs))
    return disagree


@pytest.mark.parametrize("axis", [0, 1])
def test_gather_of_data_indices_needs_an_entry_or_no_index(axis):
    """``Gather(x[n, m], i[p])``: no index fits an empty axis, so onnxruntime fails at
    every value where the axis is 0 and p >= 1; the contract said every size is valid."""
    model = _model("Gather", [("x", F, ["n", "m"]), ("i", I64, ["p"])], axis=axis)
    assert _judged(model, "nmp", lambda s: ({"x": _zeros(s["n"], s["m"]), "i": i}
                                            for i in _indices((s["p"],)))) == []
    one = _model("Gather", [("x", F, ["n"]), ("i", I64, [])])
    assert _judged(one, "n", lambda s: ({"x": _zeros(s["n"]), "i": i}
                                        for i in _indices(()))) == []


def test_gather_of_data_indices_into_an_empty_axis_is_refused():
    """``Gather(x[0], i[2])``: every value fails in onnxruntime; the model is refused."""
    model = _model("Gather", [("x", F, [0]), ("i", I64, [2])])
    with pytest.raises(kt.TypeInferenceError):
        ko.from_onnx(model)
    assert all(isinstance(ortrun.run(model, {"x": _zeros(0), "i": i}), ortrun.Refusal)
               for i in _indices((2,)))
    ko.from_onnx(_model("Gather", [("x", F, [0]), ("i", I64, [0])]))  # (no index: runs)


@pytest.mark.parametrize("op", ["GatherElements", "ScatterElements"])
def test_elementwise_gathers_and_scatters_of_data_indices(op):
    """``GatherElements`` / ``ScatterElements`` of ``x[n, m]`` by ``i[p, q]``: the axis
    has an entry, or there are no indices (the elementwise scatter's contract said every
    size is valid where ``p <= n``)."""
    axis = 1 if op == "GatherElements" else 0
    updates = [("u", F, ["p", "q"])] if op == "ScatterElements" else []
    model = _model(op, [("x", F, ["n", "m"]), ("i", I64, ["p", "q"]), *updates], axis=axis)

    def feeds(s):
        for i in _indices((s["p"], s["q"])):
            more = {"u": _zeros(s["p"], s["q"])} if updates else {}
            yield {"x": _zeros(s["n"], s["m"]), "i": i, **more}

    assert _judged(model, "nmpq", feeds) == []


@pytest.mark.parametrize("q", [1, 2])
def test_nd_gathers_of_data_indices(q):
    """``GatherND`` of ``x[n, m]`` by ``i[p, q]``: each indexed axis has an entry, or
    there are no index tuples, or each gathered slice is empty (``q == 1``, ``m == 0``:
    onnxruntime runs indices out of range there, ``x[0, 0]``)."""
    gather = _model("GatherND", [("x", F, ["n", "m"]), ("i", I64, ["p", q])])
    assert _judged(gather, "nmp", lambda s: ({"x": _zeros(s["n"], s["m"]), "i": i}
                                             for i in _indices((s["p"], q)))) == []


def test_nd_gather_of_data_indices_reading_empty_slices_runs():
    """``GatherND(x[m, k, h], i[n, 2])``: onnxruntime runs it whenever ``h == 0`` (each
    gathered slice is empty), whatever the indices; the contract said ``m >= 1, k >= 1``
    or ``n == 0``. (Zero indices run wherever any do: 0 fits every axis with an entry.)"""
    gather = _model("GatherND", [("x", F, ["m", "k", "h"]), ("i", I64, ["n", 2])])
    assert _judged(gather, "mkhn", lambda s: [{"x": _zeros(s["m"], s["k"], s["h"]),
                                               "i": np.zeros((s["n"], 2), np.int64)}]) == []


@pytest.mark.parametrize("axes", [False, True])
def test_slice_of_data_starts_of_unknown_count_slices_at_most_every_axis(axes):
    """``Slice(x[n, m], starts[k], ends[k])`` (with ``axes[k]``): k distinct axes of
    two, so onnxruntime fails at every value where k > 2; the contract said every size
    is valid; three entries with data axes are refused."""
    more = [("a", I64, ["k"])] if axes else []
    model = _model("Slice", [("x", F, ["n", "m"]), ("s", I64, ["k"]), ("e", I64, ["k"]),
                             *more])

    def feeds(s):  # (the ends matter not: an empty slice runs)
        for start in _indices((s["k"],)):
            yield {"x": _zeros(s["n"], s["m"]), "s": np.zeros(s["k"], np.int64),
                   "e": start, **({"a": start} if axes else {})}

    assert _judged(model, "nmk", feeds, range(4)) == []
    three = _model("Slice", [("x", F, ["n", "m"]), *[(s, I64, [3]) for s in "sea"]])
    with pytest.raises(ValueError, match="3 entries slice 3 axes of an input of 2"):
        ko.from_onnx(three)


@pytest.mark.parametrize(("q", "rest"), [(1, ["m"]), (2, [])])
def test_scatter_nd_of_data_indices(q, rest):
    """``ScatterND(x[n, m], i[p, q], u[p, *x.shape[q:]])``: each indexed axis of data has
    an entry, or there are no index tuples (the contract said every size is valid where
    ``n == 0`` and ``p >= 1``, onnxruntime fails there whatever the values)."""
    model = _model("ScatterND", [("x", F, ["n", "m"]), ("i", I64, ["p", q]),
                                 ("u", F, ["p", *rest])])

    def feeds(s):
        for i in _indices((s["p"], q)):
            yield {"x": _zeros(s["n"], s["m"]), "i": i,
                   "u": _zeros(s["p"], *[s[r] for r in rest])}

    assert _judged(model, "nmp", feeds) == []
