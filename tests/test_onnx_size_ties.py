"""Relations between an ONNX node's input sizes, judged by onnxruntime.

Each case is one node whose inputs have named sizes (a dim_param per axis, or fixed
sizes). Over a small box of sizes, the build's conditions hold exactly where onnxruntime
runs the node, and there the typed output shape is onnxruntime's; at those concrete sizes
a forward build types the node exactly where onnxruntime runs it. The audit that found
these gaps (tests/size_mutations.py) is described in docs/onnx.rst."""

from __future__ import annotations

import itertools

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import kantensor.onnx as ko
from kantensor.onnx import from_onnx
from kantensor.types.symbols import substitute
from ortrun import Refusal, run

F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
NUMPY = {F: np.float32, I64: np.int64, I32: np.int32}


def node_model(op, inputs, attrs=None, inits=(), opset=21, outputs=1):
    """One ``op`` node: ``inputs`` are (name, elem type, dims) graph inputs (a dim a
    name or an int), ``inits`` (name, array) initializers after them."""
    names = [i[0] for i in inputs] + [name for name, _ in inits]
    outs = [f"y{k}" for k in range(outputs)]
    graph = helper.make_graph(
        [helper.make_node(op, names, outs, **(attrs or {}))], "g",
        [helper.make_tensor_value_info(n, t, list(d)) for n, t, d in inputs],
        [helper.make_tensor_value_info(o, F, None) for o in outs],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in inits])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def concrete(model, sizes):
    """``model`` with its named sizes replaced by ``sizes``."""
    out = type(model)()
    out.CopyFrom(model)
    for info in out.graph.input:
        for d in info.type.tensor_type.shape.dim:
            if d.HasField("dim_param"):
                d.dim_value = sizes[d.dim_param]
    return out


def feeds(model):
    """Zeros for each input of a concrete model (an index 0 is in range of any axis
    that holds a value), ones for int32 inputs (a recurrence's sequence lengths)."""
    return {i.name: np.full([d.dim_value for d in i.type.tensor_type.shape.dim],
                            i.type.tensor_type.elem_type == I32,
                            NUMPY[i.type.tensor_type.elem_type])
            for i in model.graph.input}


def judged(model, box, beyond=None):
    """For each point of ``box`` (name -> sizes), check the build's conditions and a
    forward build at that point against onnxruntime's run; the number of points
    onnxruntime ran (so that a case tests both sides). ``beyond(sizes)`` is True where
    ONNX's spec refuses sizes that onnxruntime runs anyway: kantensor follows the spec."""
    _, outs = from_onnx(model)
    conditions = {c for y in outs for c in y.owner.conditions}
    names = sorted(box)
    ran = 0
    for values in itertools.product(*(box[n] for n in names)):
        sizes = dict(zip(names, values, strict=True))
        holds = all(c.holds(sizes) for c in conditions)
        point = concrete(model, sizes)
        got = run(point, feeds(point))
        try:
            typed = [y.type.shape for y in from_onnx(point)[1]]
        except (TypeError, ValueError):
            typed = None
        if beyond is not None and beyond(sizes):
            assert not holds and typed is None, (sizes, typed)
            continue
        if isinstance(got, Refusal):
            assert not holds, (sizes, [str(c) for c in conditions], got.why)
            assert typed is None, (sizes, typed, got.why)
            continue
        ran += 1
        assert holds, (sizes, [str(c) for c in conditions])
        want = [tuple(substitute(d, sizes) for d in y.type.shape) for y in outs]
        assert [tuple(s) for s in got] == want == [tuple(t) for t in typed], sizes
    return ran


# -- ScatterND: updates.shape == indices.shape[:-1] + data.shape[indices.shape[-1]:] ------
SCATTER_ND = [
    ([("d", F, ["n", "m"]), ("i", I64, ["k", 1]), ("u", F, ["j", "p"])],
     {"n": (1, 2), "m": (2, 3), "k": (1, 2), "j": (1, 2), "p": (2, 3)}),
    ([("d", F, ["n", "m"]), ("i", I64, ["k", 2]), ("u", F, ["j"])],
     {"n": (1, 2), "m": (1, 2), "k": (0, 1, 2), "j": (0, 1, 2)}),
    ([("d", F, ["n", "m", "l"]), ("i", I64, ["k", "r", 1]), ("u", F, ["k", "j", "m", "l"])],
     {"n": (1, 2), "m": (1, 2), "l": (2,), "k": (1, 2), "r": (1, 2), "j": (1, 2)}),
    ([("d", F, ["n", "m"]), ("i", I64, [0]), ("u", F, ["n", "m"])],
     {"n": (1, 2), "m": (1, 2)}),
]


@pytest.mark.parametrize(("inputs", "box"), SCATTER_ND)
def test_scatter_nd_ties_updates_to_indices_and_data(inputs, box):
    assert judged(node_model("ScatterND", inputs, opset=18), box)


@pytest.mark.parametrize(("shapes", "why"), [
    (((3, 4), (2, 3), (2,)), "input 1 axis 1 must have size 2, got 3"),
    (((3, 4), (2, 1), (2, 3, 4, 1)), "updates has 4 axes: .* it must have 1 to 3"),
    (((), (1,), ()), "data and indices must have 1 axis or more"),
])
def test_scatter_nd_refuses_ranks_onnxruntime_refuses(shapes, why):
    inputs = [(n, t, s) for n, t, s in zip("diu", (F, I64, F), shapes, strict=True)]
    model = node_model("ScatterND", inputs, opset=18)
    assert isinstance(run(model, feeds(model)), Refusal)
    with pytest.raises((TypeError, ValueError), match=why):
        from_onnx(model)


def test_scatter_nd_contract_and_refine():
    model = node_model("ScatterND", SCATTER_ND[0][0], opset=18)
    contract = kt.onnx.contract(model)
    assert contract.holds(n=4, m=3, k=2, j=2, p=3)
    assert not contract.holds(n=4, m=3, k=2, j=2, p=4)
    ins, [y] = from_onnx(model)
    refined = kt.refine([y], given={ins[0]: "float32[5,3]", ins[1]: "int64[2,1]"})
    assert str(refined[ins[2]]) == "float32[2,3]"


# -- GatherND: equal batch axes, batch_dims + q at most data's rank -------------------
GATHER_ND = [
    ([("d", F, ["n", "m"]), ("i", I64, ["k", 1])], 0, {"n": (1, 2), "m": (1, 3), "k": (0, 2)},
     None),
    ([("d", F, ["n", "m"]), ("i", I64, ["k", 0])], 0, {"n": (1, 2), "m": (1, 3), "k": (0, 2)},
     None),
    ([("d", F, ["n", "m", "l"]), ("i", I64, ["k", "j", 1])], 1,
     {"n": (1, 2, 3), "m": (1, 2), "l": (2,), "k": (0, 1, 2, 4), "j": (1, 2)},
     lambda s: s["k"] != s["n"]),  # onnxruntime: the indices' batch a multiple of data's
    ([("d", F, ["n", "m", "l"]), ("i", I64, ["k", "j", 0])], 2,
     {"n": (1, 2), "m": (1, 2), "l": (2,), "k": (1, 2), "j": (1, 2)},
     lambda s: (s["k"], s["j"]) != (s["n"], s["m"])),
]


@pytest.mark.parametrize(("inputs", "batch_dims", "box", "beyond"), GATHER_ND)
def test_gather_nd_ties_batch_axes(inputs, batch_dims, box, beyond):
    model = node_model("GatherND", inputs, {"batch_dims": batch_dims}, opset=13)
    assert judged(model, box, beyond)


@pytest.mark.parametrize(("shapes", "batch_dims", "why"), [
    (((2, 3), (2, 3)), 0, "last size 3 is larger than data's 2 axes less batch_dims 0"),
    (((2, 3), (2, 2)), 1, "last size 2 is larger than data's 2 axes less batch_dims 1"),
    (((2, 3), (2, 1)), 2, "batch_dims 2 must be less than the ranks of data"),
    (((), (0,)), 0, "data and indices must have 1 axis or more"),
])
def test_gather_nd_refuses_ranks_onnxruntime_refuses(shapes, batch_dims, why):
    inputs = [(n, t, s) for n, t, s in zip("di", (F, I64), shapes, strict=True)]
    model = node_model("GatherND", inputs, {"batch_dims": batch_dims}, opset=13)
    assert isinstance(run(model, feeds(model)), Refusal)
    with pytest.raises((TypeError, ValueError), match=why):
        from_onnx(model)


@pytest.mark.parametrize(("d", "i", "b"), [((2, 3), (4, 0), 0), ((2, 3, 4), (2, 5, 0), 1)])
def test_gather_nd_of_no_index_axis_runs_as_onnxruntime(d, i, b):
    rng = np.random.default_rng(0)
    x = rng.random(d).astype(np.float32)
    model = node_model("GatherND", [("d", F, d), ("i", I64, i)], {"batch_dims": b}, opset=13)
    ins, outs = from_onnx(model)
    [got] = kt.function(ins, outs)(x, np.zeros(i, np.int64))
    assert [got.shape] == run(model, {"d": x, "i": np.zeros(i, np.int64)})
    assert got.shape == outs[0].type.shape
    for index in np.ndindex(*i[:-1]):  # each index of no axis picks its batch's data
        assert np.array_equal(got[index], x[index[:b]])


# -- GatherElements, ScatterElements, Scatter: one rank; indices within data off the axis --
ELEMENTS = [
    ("GatherElements", 0, 13, {"n": (1, 2), "m": (2, 3), "k": (0, 1, 3), "j": (0, 2, 3, 4)}),
    ("GatherElements", 1, 13, {"n": (1, 2), "m": (2, 3), "k": (0, 1, 3), "j": (0, 2, 3, 4)}),
    ("ScatterElements", 0, 18, {"n": (1, 2), "m": (2, 3), "k": (0, 1, 3), "j": (0, 2, 3, 4)}),
    ("ScatterElements", -1, 18, {"n": (1, 2), "m": (2, 3), "k": (0, 1, 3), "j": (0, 3, 4)}),
    ("Scatter", 1, 10, {"n": (1, 2), "m": (2, 3), "k": (0, 1, 3), "j": (0, 3, 4)}),
]


@pytest.mark.parametrize(("op", "axis", "opset", "box"), ELEMENTS)
def test_elements_ops_keep_indices_within_data(op, axis, opset, box):
    inputs = [("d", F, ["n", "m"]), ("i", I64, ["k", "j"])]
    if op != "GatherElements":
        inputs.append(("u", F, ["k", "j"]))
    assert judged(node_model(op, inputs, {"axis": axis}, opset=opset), box)


def test_scatter_elements_ties_updates_to_indices():
    model = node_model("ScatterElements", [("d", F, [3, 4]), ("i", I64, ["k", 4]),
                                           ("u", F, ["j", "l"])], opset=18)
    assert judged(model, {"k": (1, 2), "j": (1, 2), "l": (3, 4)})
    _, [y] = from_onnx(model)
    assert sorted(map(str, y.owner.conditions)) == ["k == j", "l == 4"]


@pytest.mark.parametrize("shapes", [((2, 3), (2,), (2,)), ((2, 3), (2, 3), (2, 3, 1))])
def test_scatter_elements_refuses_ranks_onnxruntime_refuses(shapes):
    inputs = [(n, t, s) for n, t, s in zip("diu", (F, I64, F), shapes, strict=True)]
    model = node_model("ScatterElements", inputs, opset=18)
    assert isinstance(run(model, feeds(model)), Refusal)
    with pytest.raises((TypeError, ValueError), match="must have one rank"):
        from_onnx(model)


# -- Expand: each input axis is 1 or the shape's size --------------------------------------
@pytest.mark.parametrize("shape", [[2, 1, 6], [6], [3, 1], [1, 0]])
def test_expand_input_axes_broadcast_to_the_shape(shape):
    model = node_model("Expand", [("x", F, ["n", "m"])],
                       inits=[("shape", np.array(shape, np.int64))], opset=13)
    assert judged(model, {"n": (0, 1, 2, 3), "m": (0, 1, 2, 6)})


def test_expand_names_the_axis_that_does_not_broadcast():
    model = node_model("Expand", [("x", F, [3, 2])],
                       inits=[("shape", np.array([2, 1, 6], np.int64))], opset=13)
    with pytest.raises(kt.TypeInferenceError, match="the input's axis 1 of size 2 does "
                       "not broadcast to the shape's 6"):
        from_onnx(model)


# -- Split: equal parts before opset 18; num_outputs or a split input from 18 -------------
@pytest.mark.parametrize(("opset", "attrs"), [(13, {}), (13, {"axis": 1}),
                                              (18, {"num_outputs": 3})])
def test_split_parts_are_where_onnxruntime_splits(opset, attrs):
    model = node_model("Split", [("x", F, ["n", "m"])], attrs, opset=opset, outputs=3)
    assert judged(model, {"n": (0, 2, 3, 6, 7), "m": (1, 3, 4)})


def test_split_needs_num_outputs_or_sizes_from_opset_18():
    model = node_model("Split", [("x", F, [6])], opset=18, outputs=3)
    assert isinstance(run(model, feeds(model)), Refusal)
    with pytest.raises(ValueError, match="neither a .split. input nor the .num_outputs."):
        from_onnx(model)
    _, outs = from_onnx(node_model("Split", [("x", F, ["n"])], opset=13, outputs=3))
    assert "n % 3 == 0" in [str(c) for c in outs[0].owner.conditions]


# -- Gemm: C broadcasts to (M, N) in one direction ------------------------------------------
@pytest.mark.parametrize("c", [[], ["i"], ["i", "j"]])
def test_gemm_bias_broadcasts_to_the_result(c):
    model = node_model("Gemm", [("a", F, ["m", 3]), ("b", F, [3, "n"]), ("c", F, c)], opset=13)
    box = {"m": (0, 1, 2), "n": (1, 3), "i": (0, 1, 2, 3), "j": (1, 2, 3)}
    assert judged(model, {k: v for k, v in box.items() if k in "mn" or k in c})


# -- ConvTranspose: a SAME output is in*stride or the full output where that is shorter --
@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER", "NOTSET"])
@pytest.mark.parametrize(("stride", "dilation", "output_padding"),
                         [(1, 1, 0), (2, 1, 1), (3, 2, 1), (1, 2, 1), (2, 1, 2)])
def test_conv_transpose_sizes_are_onnxruntime_sizes(auto_pad, stride, dilation,
                                                    output_padding):
    attrs = {"auto_pad": auto_pad, "strides": [stride], "dilations": [dilation]}
    if output_padding:
        attrs["output_padding"] = [output_padding]
    model = node_model("ConvTranspose", [("x", F, [1, 1, "n"]), ("w", F, [1, 1, "k"])],
                       attrs, opset=17)
    if output_padding >= stride:  # onnxruntime refuses at every size
        assert isinstance(run(concrete(model, {"n": 2, "k": 2}),
                              feeds(concrete(model, {"n": 2, "k": 2}))), Refusal)
        with pytest.raises(ValueError, match="output_padding .* must be less than strides"):
            from_onnx(model)
        return
    assert judged(model, {"n": (1, 2, 5), "k": (1, 2, 3)})


# -- RNN, GRU, LSTM: the optional inputs' shapes -------------------------------------------
@pytest.mark.parametrize(("op", "gates", "optional"), [
    ("RNN", 1, ["B", "sequence_lens", "initial_h"]),
    ("GRU", 3, ["B", "", "initial_h"]),
    ("LSTM", 4, ["B", "sequence_lens", "initial_h", "initial_c", "P"]),
])
def test_recurrences_tie_their_optional_inputs(op, gates, optional):
    shapes = {"B": (F, [1, "g"]), "sequence_lens": (I32, ["c"]),
              "initial_h": (F, ["d", "c", "h"]), "initial_c": (F, [1, "c", "h"]),
              "P": (F, [1, "p"])}
    inputs = [("X", F, [2, 3, 2]), ("W", F, [1, gates * 3, 2]), ("R", F, [1, gates * 3, 3])]
    inputs += [(n, *shapes[n]) for n in optional if n]
    graph_inputs = [n for n, _, _ in inputs]
    model = node_model(op, inputs, {"hidden_size": 3}, opset=14, outputs=2)
    node = model.graph.node[0]
    del node.input[:]
    node.input.extend(graph_inputs[:3] + optional)  # "" skips an optional input
    names = {d for n in optional if n for d in shapes[n][1] if isinstance(d, str)}
    box = {"g": (2 * gates * 3, 6), "c": (1, 3), "d": (1, 2), "h": (2, 3), "p": (9, 8)}
    assert judged(model, {k: v for k, v in box.items() if k in names})


# -- ReverseSequence: one length per batch entry --------------------------------------------
@pytest.mark.parametrize(("batch_axis", "time_axis"), [(1, 0), (0, 1)])
def test_reverse_sequence_has_a_length_per_batch_entry(batch_axis, time_axis):
    model = node_model("ReverseSequence", [("x", F, ["n", "m", 2]), ("lens", I64, ["k"])],
                       {"batch_axis": batch_axis, "time_axis": time_axis}, opset=13)
    assert judged(model, {"n": (1, 2, 3), "m": (1, 2, 3), "k": (1, 2, 3)})


# -- RMSNormalization: scale broadcasts onto X, as LayerNormalization's ----------------------
@pytest.mark.parametrize(("scale", "axis"), [(["s"], -1), (["r", "s"], -1), (["r", "s"], 1)])
def test_rms_normalization_scale_broadcasts_onto_x(scale, axis):
    model = node_model("RMSNormalization", [("x", F, [2, "n", "m"]), ("scale", F, scale)],
                       {"axis": axis}, opset=23)
    box = {"n": (1, 3), "m": (1, 4), "r": (1, 2, 3), "s": (1, 3, 4)}
    assert judged(model, {k: v for k, v in box.items() if k in "nm" or k in scale})


# -- Attention: attn_mask broadcasts to (batch, q heads, q sequence, total sequence) -------
def test_attention_mask_broadcasts_to_the_scores():
    """(onnxruntime's CPU kernel also refuses a q sequence axis of 1 and a shorter last
    axis, which ONNX allows: the box leaves those out, see docs/onnx.rst.)"""
    model = node_model("Attention", [
        ("Q", F, [2, 3, 2, 4]), ("K", F, [2, 3, 3, 4]), ("V", F, [2, 3, 3, 4]),
        ("attn_mask", F, ["mb", "mh", "mq", "mk"])], opset=23)
    assert judged(model, {"mb": (1, 2, 3), "mh": (1, 2, 3), "mq": (2, 3), "mk": (3, 4)})
    with pytest.raises(kt.TypeInferenceError, match="attn_mask's q sequence axis has size 4"):
        from_onnx(concrete(model, {"mb": 1, "mh": 1, "mq": 4, "mk": 3}))


# -- RotaryEmbedding: caches and position ids fit X -----------------------------------------
def test_rotary_embedding_caches_fit_x_with_position_ids():
    model = node_model("RotaryEmbedding", [
        ("x", F, [2, 1, "s", 8]), ("cos", F, ["p", "c"]), ("sin", F, ["p", "c"]),
        ("ids", I64, ["b", "t"])], opset=23)
    assert judged(model, {"s": (1, 2), "p": (1, 2, 3), "c": (3, 4), "b": (1, 2), "t": (1, 2)})


@pytest.mark.parametrize("rot", [0, 4])
def test_rotary_embedding_caches_fit_x_without_position_ids(rot):
    model = node_model("RotaryEmbedding", [
        ("x", F, [2, "s", 8]), ("cos", F, ["b", "t", "c"]), ("sin", F, ["b", "t", 2])],
        {"num_heads": 2, "rotary_embedding_dim": rot}, opset=23)
    assert judged(model, {"s": (1, 2), "b": (1, 2), "t": (1, 2), "c": (2, 3)})


# -- AffineGrid: theta's batch is the size's N ------------------------------------------------
def test_affine_grid_theta_batch_is_the_size_batch():
    model = node_model("AffineGrid", [("theta", F, ["n", 2, 3])],
                       inits=[("size", np.array([2, 1, 4, 5], np.int64))], opset=20)
    assert judged(model, {"n": (1, 2, 3)})


# -- Col2Im: one column per block position ---------------------------------------------------
@pytest.mark.parametrize("attrs", [{}, {"strides": [2, 1], "pads": [1, 0, 1, 0]}])
def test_col2im_has_a_column_per_block_position(attrs):
    model = node_model("Col2Im", [("x", F, [1, "cb", "l"])], attrs, opset=18, inits=[
        ("image", np.array([5, 5], np.int64)), ("block", np.array([1, 5], np.int64))])
    assert judged(model, {"cb": (5, 6, 10), "l": (3, 4, 5, 6)})


@pytest.mark.parametrize(("attrs", "message"), [
    ({"pads": [1, 0]}, "pads has 2 entries, expected 4"),
    ({"strides": [2]}, "strides has 1 entries, expected 2"),
    ({"dilations": [1, 1, 1]}, "dilations has 3 entries, expected 2"),
    ({"strides": [0, 1]}, "must be >= 1")])
def test_col2im_attributes_of_the_wrong_length_are_refused_by_name(attrs, message):
    """A fuzz mutant (KANTENSOR_FUZZ_ONNX_CASES=2000: #309) gave pads of 2 entries for a 2-D
    image: the builder indexed past them (an IndexError from inside); onnxruntime
    refuses each of these models too."""
    model = node_model("Col2Im", [("x", F, [1, 5, 3])], attrs, opset=18, inits=[
        ("image", np.array([5, 5], np.int64)), ("block", np.array([1, 5], np.int64))])
    with pytest.raises(ValueError, match=message):
        from_onnx(model)
    assert isinstance(run(model, {"x": np.zeros((1, 5, 3), np.float32)}), Refusal)


# -- TensorScatter: the update is the cache but along the sequence axis -------------------
@pytest.mark.parametrize("axis", [-2, 1])
def test_tensor_scatter_update_fits_the_cache(axis):
    model = node_model("TensorScatter", [("past", F, ["b", 2, "m", 4]),
                                         ("update", F, ["c", 2, "s", "h"])],
                       {"axis": axis}, opset=24)
    box = {"b": (1, 2), "c": (1, 2), "m": (2, 3), "s": (1, 2, 3, 4), "h": (3, 4)}
    if axis == 1:  # the sequence is axis 1 (of size 2); m and s must then be equal
        box = {"b": (1, 2), "c": (1, 2), "m": (2, 3), "s": (2, 3), "h": (4, 5)}
    assert judged(model, box)


def test_swiglu_inputs_have_one_shape():
    """onnx's own shape inference (which onnxruntime runs when it loads the model) is
    the judge: SwiGLU does not broadcast."""
    for b_shape, valid in (([2, 3], True), ([1, 3], False), ([3], False)):
        model = node_model("SwiGLU", [("a", F, [2, 3]), ("b", F, b_shape)], opset=28)
        try:
            onnx.shape_inference.infer_shapes(model, strict_mode=True)
            onnx_ok = True
        except onnx.shape_inference.InferenceError:
            onnx_ok = False
        try:
            from_onnx(model)
            ours = True
        except TypeError:
            ours = False
        assert onnx_ok == ours == valid, b_shape


# -- DFT: a real (1) or complex (2) last axis; one-sided takes real, its inverse complex --
@pytest.mark.parametrize(("onesided", "inverse"), [(0, 0), (1, 0), (1, 1), (0, 1)])
def test_dft_last_axis_is_real_or_complex(onesided, inverse):
    model = node_model("DFT", [("x", F, [2, 4, "c"])],
                       {"onesided": onesided, "inverse": inverse, "axis": 1}, opset=19)
    assert judged(model, {"c": (0, 1, 2, 3)})


@pytest.mark.parametrize("dilation", [1, 2])
def test_conv_transpose_output_shape_within_reach(dilation):
    """An explicit output_shape at most stride * size + (kernel - 1) * dilation, as
    onnxruntime checks (it pads a longer one up to that bound, and refuses beyond)."""
    model = node_model("ConvTranspose", [("x", F, [1, 1, "n"]), ("w", F, [1, 1, "k"])],
                       {"strides": [3], "dilations": [dilation], "output_shape": [7]},
                       opset=17)
    assert judged(model, {"n": (1, 2, 3), "k": (1, 2, 3)})


# -- CenterCropPad: one shape entry per axis cropped or padded --------------------------------
@pytest.mark.parametrize(("shape", "attrs", "message"), [
    ([2, 2, 2], {}, r"shape has 3 entries, expected 2 \(one per axis of x\)"),
    ([2], {}, r"shape has 1 entries, expected 2 \(one per axis of x\)"),
    ([2, 2], {"axes": [0]}, r"shape has 2 entries, expected 1 \(one per entry of axes\)"),
    ([2], {"axes": [0, -1]}, r"shape has 1 entries, expected 2 \(one per entry of axes\)")])
def test_center_crop_pad_shape_of_the_wrong_length_is_refused_by_name(shape, attrs,
                                                                     message):
    """A shape longer or shorter than the axes it sizes (x's, or ``axes``) was refused by
    a ValueError from inside ('zip() argument 2 is longer than argument 1'); onnxruntime
    refuses each of these models too ('Number of elements of input 'shape' ... does not
    match')."""
    model = node_model("CenterCropPad", [("x", F, [3, 4])], attrs, opset=18,
                       inits=[("shape", np.array(shape, np.int64))])
    with pytest.raises(ValueError, match=r"node '[^']*' \(CenterCropPad\): .*" + message):
        from_onnx(model)
    assert isinstance(run(model, {"x": np.zeros((3, 4), np.float32)}), Refusal)


@pytest.mark.parametrize("length", [1, 2, 3])
def test_center_crop_pad_shape_of_unknown_value_is_judged_by_its_length(length):
    """A shape whose value is not known (a graph input) but whose length is: of one
    entry per axis, each axis that entry's size; of one entry for two axes, ONNX's
    function body (which onnxruntime runs) broadcasts it to both, and the graph runs so
    (it was typed, but its kernel refused); of another length onnxruntime refuses the
    model when it is loaded, and so does kantensor now (it was typed ``float32[?,?]``)."""
    model = node_model("CenterCropPad", [("x", F, ["n", "s"]), ("shape", I64, [length])],
                       opset=18)
    x = np.zeros((2, 5), np.float32)
    ran = run(model, {"x": x, "shape": np.array([3] * length, np.int64)})
    if length == 3:
        with pytest.raises(ValueError, match=r"shape has 3 entries, expected 2"):
            from_onnx(model)
        assert isinstance(ran, Refusal)
        return
    inputs, outputs = from_onnx(model)
    assert str(outputs[0].type) == "float32[?,?]"
    assert ran == [(3, 3)]
    (y,) = kt.function(inputs, outputs)(x, np.array([3] * length, np.int64))
    assert y.shape == (3, 3)


def test_center_crop_pad_shape_of_unknown_length_needs_one_entry_or_one_per_axis():
    """A shape of unknown length (``int64[L]``, ``int64[?]``) was refused at every length
    ('shape has L entries, expected 2'), though onnxruntime runs it at L = 1 (broadcast)
    and L = 2: the contract needs L in {1, 2}, judged by onnxruntime at L in 0..3."""
    model = node_model("CenterCropPad", [("x", F, ["n", "s"]), ("shape", I64, ["L"])],
                       opset=18)
    contract = ko.contract(model)
    x = np.zeros((2, 5), np.float32)
    for length in range(4):
        ran = run(model, {"x": x, "shape": np.full(length, 3, np.int64)})
        assert contract.holds(n=2, s=5, L=length).value is (not isinstance(ran, Refusal))
    unnamed = node_model("CenterCropPad", [("x", F, ["n", "s"]), ("shape", I64, [None])],
                         opset=18)
    assert "shape.shape[0] in [1, 2]" in str(ko.contract(unnamed))


def test_center_crop_pad_shape_of_one_size_is_broadcast_as_onnxruntime_runs_it():
    """A one-entry shape computed from a size (``Shape(x)[:1]``, ``Shape(x)[1:]``) was
    refused ('shape has 1 entries, expected 2'); onnxruntime broadcasts it (ONNX's
    function body): x[N, D] cropped or padded to [N, N], [D, D]."""
    for start, name in ((0, "N"), (1, "D")):
        nodes = [helper.make_node("Shape", ["x"], ["sh"]),
                 helper.make_node("Slice", ["sh", "b", "e"], ["s"]),
                 helper.make_node("CenterCropPad", ["x", "s"], ["y"])]
        graph = helper.make_graph(
            nodes, "g", [helper.make_tensor_value_info("x", F, ["N", "D"])],
            [helper.make_tensor_value_info("y", F, None)],
            [numpy_helper.from_array(np.array([start], np.int64), "b"),
             numpy_helper.from_array(np.array([start + 1], np.int64), "e")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        dims = ko.infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
        assert [d.dim_param for d in dims] == [name, name]
        for n, d in ((4, 5), (2, 3), (0, 2)):
            want = {"N": n, "D": d}[name]
            assert run(model, {"x": np.zeros((n, d), np.float32)}) == [(want, want)]


def _center_crop_pad_of(source: str):
    """CenterCropPad of ``x[4, 5]`` to a one-entry shape ``[3]`` given by ``source``."""
    const = numpy_helper.from_array(np.array([3], np.int64))
    nodes, inits, inputs = [], [], [helper.make_tensor_value_info("x", F, [4, 5])]
    if source in ("initializer", "overridable"):
        inits.append(numpy_helper.from_array(np.array([3], np.int64), "s"))
        if source == "overridable":
            inputs.append(helper.make_tensor_value_info("s", I64, [1]))
    elif source == "Constant":
        nodes.append(helper.make_node("Constant", [], ["s"], value=const))
    elif source == "Constant value_ints":
        nodes.append(helper.make_node("Constant", [], ["s"], value_ints=[3]))
    elif source == "Shape of a static tensor":
        inputs.append(helper.make_tensor_value_info("z", F, [3]))
        nodes.append(helper.make_node("Shape", ["z"], ["s"]))
    else:  # folded by kantensor from constants through other nodes
        nodes += [helper.make_node("Constant", [], ["c"], value=const),
                  helper.make_node(source, ["c"], ["s"], **(
                      {"to": I64} if source == "Cast" else {}))]
    nodes.append(helper.make_node("CenterCropPad", ["x", "s"], ["y"]))
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", F, None)],
                              inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("source", ["initializer", "Constant", "Constant value_ints",
                                    "Shape of a static tensor", "Identity", "Cast",
                                    "overridable"])
def test_center_crop_pad_of_a_known_one_entry_shape_is_refused_as_onnxruntime_loads_it(
        source):
    """A one-entry shape for two axes whose value kantensor knows (an initializer, a
    Constant, a value folded from them) is refused: onnxruntime's shape inference refuses
    it where it sees the value ('Number of elements of input 'shape' (1) does not
    match'), which at its default optimisation level (constant folding) is every such
    value; with optimisations off it runs values folded through other nodes (Identity,
    Cast) by broadcasting, which kantensor does not type (a refusal, never a wrong
    type). A value kantensor does not know (an initializer a caller may override) is
    broadcast, as onnxruntime runs it at every level."""
    import onnxruntime as ort

    model = _center_crop_pad_of(source)
    feeds = {"x": np.zeros((4, 5), np.float32)}
    feeds.update({"z": np.zeros(3, np.float32)} if source.startswith("Shape") else {})
    feeds.update({"s": np.array([3], np.int64)} if source == "overridable" else {})
    try:
        ran = ort.InferenceSession(model.SerializeToString(), providers=[
            "CPUExecutionProvider"]).run(None, feeds)[0].shape  # (its default level)
    except Exception as exc:  # noqa: BLE001 - onnxruntime's refusal
        ran = Refusal(str(exc), False)
    if source == "overridable":
        assert ran == (3, 3) and run(model, feeds) == [(3, 3)]
        _, [y] = from_onnx(model)
        assert str(y.type) == "float32[?,?]"
        return
    assert isinstance(ran, Refusal) and "Number of elements of input 'shape'" in ran.why
    with pytest.raises(ValueError, match=r"shape has 1 entries, expected 2"):
        from_onnx(model)
