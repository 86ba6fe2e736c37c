"""What a hunt over ONNX's node cases found (2026-12-01: each case's model with every input
axis a named size of its own, its contract against onnxruntime at points of a box 0..4
per size): contracts that held where onnxruntime refuses an empty axis, each now judged
exactly, at every point of a small box (the contract holds where onnxruntime runs, fails
where it refuses, and every size typed is onnxruntime's):

* GridSample of an X with an empty spatial axis, whatever the grid ("Input spatial
  dimensions must be non-empty for sampling");
* ConvTranspose of a W with an empty kernel axis ("Kernel size must be positive");
* Col2Im of an input with no channels ("'input' dim[1] (0) must be a positive multiple
  of prod(block_shape)");
* TfIdfVectorizer of a 2-d input with no rows ("[B,C] dimensions with B > 0");
* Attention with an empty batch, head, sequence or head size ("... must be greater
  than 0"), and with a past key or value whose present one is not asked for (refused
  at every size: left untyped);
* STFT of a signal whose last axis is neither 1 (real) nor 2 (complex), and by frames
  of no sample over a batch (SIGFPE)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor.onnx as ko
import ortrun
import shapejudge as sj
from onnxsweep import model_of


def _model(op: str, opset: int, inputs: dict, constants: dict | None = None,
           elem: int = TensorProto.FLOAT, **attributes):
    """A one-node model of graph inputs ``inputs`` (name -> dims) and initializers."""
    constants = constants or {}
    node = helper.make_node(op, [*inputs, *constants], ["y"], **attributes)
    inits = tuple(numpy_helper.from_array(np.asarray(v), n) for n, v in constants.items())
    return model_of([node], [helper.make_tensor_value_info(n, elem, d)
                             for n, d in inputs.items()], opset, outputs=("y",),
                    initializers=inits)


def _exact(model, inputs: dict, names: str, values, dtype=np.float32) -> dict:
    """The contract of ``model`` against onnxruntime at every point of the box: True
    exactly where it runs, with onnxruntime's sizes. Returns the counts."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contract = ko.contract(model)
        typed = sj.typed_shapes(ko.infer_shapes(model))["y"]
    seen = {"ran": 0, "refused": 0}
    for point in itertools.product(values, repeat=len(names.split())):
        sizes = dict(zip(names.split(), point, strict=True))
        feeds = {n: np.ones([sizes.get(d, d) for d in dims], dtype)
                 for n, dims in inputs.items()}
        got = ortrun.run(model, feeds)
        holds = contract.holds(**sizes).value
        if isinstance(got, ortrun.Refusal):
            assert holds is False, (sizes, holds, got.why)  # (a crash: refused)
            seen["refused"] += 1
            continue
        assert holds is True, (sizes, holds, got)
        for d, e in zip(typed, got[0], strict=True):
            value = d if isinstance(d, int) else (
                sj.kantensor_size(d, sizes) if isinstance(d, str) else None)
            assert value is None or value == e, (sizes, typed, got)
        seen["ran"] += 1
    return seen


@pytest.mark.parametrize("opset", [16, 20, 22])
def test_grid_sample_of_an_empty_spatial_axis(opset):
    inputs = {"x": ["n", "c", "h", "w"], "g": ["n", "p", "q", 2]}
    seen = _exact(_model("GridSample", opset, inputs), inputs, "n c h w p q", (0, 1, 2))
    assert seen == {"ran": 324, "refused": 405}, seen


@pytest.mark.parametrize("kernel_shape", [None, [0]])
def test_conv_transpose_of_an_empty_kernel(kernel_shape):
    inputs = {"x": ["n", "c", "h"], "w": ["c", "m", "k"]}
    attrs = {} if kernel_shape is None else {"kernel_shape": kernel_shape}
    model = _model("ConvTranspose", 17, inputs, **attrs)
    if kernel_shape is not None:  # (refused at every size, onnxruntime as kantensor)
        with pytest.raises(ValueError, match="Kernel size must be positive"):
            ko.contract(model)
        got = ortrun.run(model, {"x": np.ones((1, 1, 2), np.float32),
                                 "w": np.ones((1, 1, 0), np.float32)})
        assert isinstance(got, ortrun.Refusal) and "positive" in got.why, got
        return
    seen = _exact(model, inputs, "n c h m k", (0, 1, 2))
    assert seen["ran"] >= 100 and seen["refused"] >= 100, seen


def test_col2im_of_no_channels():
    inputs = {"x": ["n", "c", "l"]}
    model = _model("Col2Im", 18, inputs, {"im": np.array([2, 2], np.int64),
                                          "bl": np.array([1, 2], np.int64)})
    seen = _exact(model, inputs, "n c l", range(5))
    assert seen == {"ran": 10, "refused": 115}, seen


@pytest.mark.parametrize("shape", [["b", "c"], ["c"]])
def test_tfidf_vectorizer_of_no_rows(shape):
    inputs = {"x": shape}
    model = _model("TfIdfVectorizer", 9, inputs, elem=TensorProto.INT32, max_gram_length=2,
                   max_skip_count=0, min_gram_length=2, mode="TF", ngram_counts=[0, 4],
                   ngram_indexes=[0, 1, 2, 3, 4, 5, 6],
                   pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7])
    seen = _exact(model, inputs, " ".join(shape), range(4), np.int32)
    assert seen == ({"ran": 12, "refused": 4} if len(shape) == 2 else
                    {"ran": 4, "refused": 0}), seen


def test_attention_of_empty_sizes():
    """Attention (opset 23): onnxruntime's kernel needs every size of Q, K and V at least 1
    (batch, heads, both sequences, both head sizes: "... must be greater than 0"), a past
    of any size; 4-d, 3-d (2 q heads, 1 kv head) and 4-d with a past."""
    inputs = {"q": ["b", "h", "s", "d"], "k": ["b", "h", "t", "d"], "v": ["b", "h", "t", "e"]}
    seen = _exact(_model("Attention", 23, inputs), inputs, "b h s t d e", range(3))
    assert seen == {"ran": 64, "refused": 665}, seen
    inputs = {"q": ["b", "s", "x"], "k": ["b", "t", "y"], "v": ["b", "t", "z"]}
    seen = _exact(_model("Attention", 23, inputs, q_num_heads=2, kv_num_heads=1), inputs,
                  "b s t x y z", range(3))
    assert seen["ran"] >= 8 and seen["refused"] >= 600, seen
    inputs = {"q": [1, 1, "s", 2], "k": [1, 1, "t", 2], "v": [1, 1, "t", 2],
              "pk": [1, 1, "p", 2], "pv": [1, 1, "p", 2]}
    for outputs in (["y"], ["y", "pk1", "pv1"]):
        node = helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv"], outputs)
        model = model_of([node], [helper.make_tensor_value_info(n, TensorProto.FLOAT, d)
                                  for n, d in inputs.items()], 23, outputs=tuple(outputs))
        if len(outputs) == 1:  # (refused at every size: "does not support past_key
            # provided and present_key being null"; left untyped, the spec computes it)
            feeds = {n: np.ones([1 if isinstance(d, str) else d for d in dims], np.float32)
                     for n, dims in inputs.items()}
            assert isinstance(ortrun.run(model, feeds), ortrun.Refusal)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                assert ko.contract(model).holds(s=1, t=1, p=1).value is None
            continue
        seen = _exact(model, inputs, "s t p", range(3))
        assert seen == {"ran": 12, "refused": 15}, seen


@pytest.mark.parametrize(("given", "outputs"), [
    (["q", "k", "v", "", "pk", "pv"], ["y", "", "pv1"]),
    (["q", "k", "v", "", "pk", "pv"], ["y", "pk1", ""]),
    (["q", "k", "v", "", "pk", "pv"], ["y", "", "", "qk"]),
    (["q", "k", "v", "", "pk"], ["y", "pk1"]),
    (["q", "k", "v", "", "", "pv"], ["y", "", "pv1"])])
def test_attention_of_a_past_whose_present_is_empty(given, outputs):
    """Attention (opset 23) with a past key (value) whose present output is an empty
    name, or with one past of the two: onnxruntime refuses it at every size ("does not
    support past_key provided and present_key being null", "past_key and past_value must
    be both present or both absent"); left untyped, not typed valid (an empty output slot
    is not an output asked for)."""
    inputs = {"q": [1, 1, "s", 2], "k": [1, 1, "t", 2], "v": [1, 1, "t", 2],
              "pk": [1, 1, "p", 2], "pv": [1, 1, "p", 2]}
    inputs = {n: d for n, d in inputs.items() if n in given}
    node = helper.make_node("Attention", given, outputs)
    model = model_of([node], [helper.make_tensor_value_info(n, TensorProto.FLOAT, d)
                              for n, d in inputs.items()], 23,
                     outputs=tuple(o for o in outputs if o))
    for s, t, p in itertools.product(range(3), repeat=3):
        sizes = {"s": s, "t": t, "p": p}
        feeds = {n: np.ones([sizes.get(d, d) for d in dims], np.float32)
                 for n, dims in inputs.items()}
        assert isinstance(ortrun.run(model, feeds), ortrun.Refusal), sizes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contract = ko.contract(model)
    assert {contract.holds(s=s, t=t, p=p).value
            for s, t, p in itertools.product(range(3), repeat=3)} <= {None, False}


def test_attention_of_an_empty_present_after_one_asked():
    """Two Attention nodes of the same inputs and as many outputs, the second's present key
    an empty name: onnxruntime refuses the model, so the second's outputs are untyped (the
    node memo keys on which outputs are asked, not only how many)."""
    inputs = {n: [1, 1, 1, 2] for n in ("q", "k", "v", "pk", "pv")}
    nodes = [helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv"], outputs)
             for outputs in (["y0", "pk0", "pv0"], ["y", "", "pv1"])]
    model = model_of(nodes, [helper.make_tensor_value_info(n, TensorProto.FLOAT, d)
                             for n, d in inputs.items()], 23, outputs=("y0", "y", "pv1"))
    assert isinstance(ortrun.run(model, {n: np.ones(d, np.float32)
                                         for n, d in inputs.items()}), ortrun.Refusal)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = sj.typed_shapes(ko.infer_shapes(model))
    assert typed["y0"] == [1, 1, 1, 2] and typed["y"] is None and typed["pv1"] is None


@pytest.mark.parametrize("onesided", [0, 1])
def test_stft_of_a_signal_neither_real_nor_complex(onesided):
    """STFT's signal (batch, length, 1 or 2): onnxruntime refuses another last axis (0 or
    3 among them), as the spec says; the contract said valid."""
    inputs = {"x": ["b", "l", "c"]}
    node = helper.make_node("STFT", ["x", "st", "", "fl"], ["y"], onesided=onesided)
    inits = (numpy_helper.from_array(np.array(1, np.int64), "st"),
             numpy_helper.from_array(np.array(2, np.int64), "fl"))
    model = model_of([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, inputs["x"])],
                     17, outputs=("y",), initializers=inits)
    assert _exact(model, inputs, "b l c", range(4)) == {"ran": 16, "refused": 48}


def test_stft_of_frames_of_no_sample():
    """STFT by a window of no entry, or a frame_length of 0: onnxruntime's process dies
    (SIGFPE) unless the batch is empty; the contract said valid."""
    inputs = {"x": ["b", "l", 1], "w": ["k"]}
    node = helper.make_node("STFT", ["x", "st", "w"], ["y"])
    step = numpy_helper.from_array(np.array(1, np.int64), "st")
    model = model_of([node], [helper.make_tensor_value_info(n, TensorProto.FLOAT, d)
                              for n, d in inputs.items()], 17, outputs=("y",),
                     initializers=(step,))
    assert _exact(model, inputs, "b l k", range(4)) == {"ran": 28, "refused": 36}
    for length, want in ((0, {"ran": 4, "refused": 12}), (1, {"ran": 12, "refused": 4})):
        node = helper.make_node("STFT", ["x", "st", "", "fl"], ["y"])
        model = model_of([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                  ["b", "l", 1])],
                         17, outputs=("y",),
                         initializers=(step, numpy_helper.from_array(np.array(length,
                                                                              np.int64), "fl")))
        assert _exact(model, {"x": ["b", "l", 1]}, "b l", range(4)) == want, length


@pytest.mark.parametrize(("opset", "outputs", "attributes"), [
    (15, ["y", "", ""], {"training_mode": 1}), (15, ["y", "rm", ""], {"training_mode": 1}),
    (14, ["y", "", "rv"], {"training_mode": 1}), (9, ["y", "", "", "sm", "sv"], {}),
    (9, ["y", "rm", "rv", "sm", ""], {}), (7, ["y", "rm", "rv", "", "sv"], {}),
    (9, ["y", "", "", "", ""], {}), (15, ["y", "rm", "rv"], {"training_mode": 1}),
    (9, ["y", "rm", "rv", "", ""], {})])
def test_batch_norm_in_training_of_an_empty_statistic(opset, outputs, attributes):
    """BatchNormalization in training whose running mean or variance output is an empty
    name, or one saved statistic of the two: onnxruntime crashes (signal 11) or fails at
    every size; left untyped, not typed valid. The running ones asked, the saved ones
    both or neither: it runs, typed as it gives them."""
    inputs = {"x": ["n", 3, 4], "s": [3], "b": [3], "m": [3], "v": [3]}
    node = helper.make_node("BatchNormalization", list(inputs), outputs, **attributes)
    model = model_of([node], [helper.make_tensor_value_info(n, TensorProto.FLOAT, d)
                              for n, d in inputs.items()], opset,
                     outputs=tuple(o for o in outputs if o))
    got = ortrun.run(model, {n: np.ones([2 if d == "n" else d for d in dims], np.float32)
                             for n, dims in inputs.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        holds = ko.contract(model).holds(n=2).value
        typed = sj.typed_shapes(ko.infer_shapes(model))
    if isinstance(got, ortrun.Refusal):
        assert holds in (None, False) and typed["y"] is None, (holds, typed, got.why)
    else:
        assert holds is True, got
        assert [typed[o] for o in outputs if o] == [["n", 3, 4] if o == "y" else [3]
                                                   for o in outputs if o], typed


@pytest.mark.parametrize("onesided, step", list(itertools.product((0, 1), (1, 2))))
def test_stft_of_a_negative_frame_length(onesided, step):
    """STFT by a negative frame_length: onnxruntime runs it over no batch where its bins
    (``fl // 2 + 1`` onesided, else ``fl``) are not negative, and refuses it elsewhere;
    the contract refused it at every size, by a raw where-clause. Now exact, and its
    refusal says why."""
    for length in (-1, -2, -3):
        node = helper.make_node("STFT", ["x", "st", "", "fl"], ["y"], onesided=onesided)
        inits = (numpy_helper.from_array(np.array(step, np.int64), "st"),
                 numpy_helper.from_array(np.array(length, np.int64), "fl"))
        model = model_of([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                ["b", "l", 1])],
                         17, outputs=("y",), initializers=inits)
        if onesided and length >= -2:
            seen = _exact(model, {"x": ["b", "l", 1]}, "b l", range(4))
            assert seen == {"ran": 4, "refused": 12}, (length, seen)
            continue
        with pytest.raises(ValueError, match="negative number of bins"):
            ko.contract(model)
        for b, n in itertools.product(range(3), range(4)):
            got = ortrun.run(model, {"x": np.ones((b, n, 1), np.float32)})
            assert isinstance(got, ortrun.Refusal), (length, b, n, got)
    node = helper.make_node("STFT", ["x", "st", "", "fl"], ["y"], onesided=1)
    model = model_of([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 1])],
                     17, outputs=("y",), initializers=(
                         numpy_helper.from_array(np.array(step, np.int64), "st"),
                         numpy_helper.from_array(np.array(-1, np.int64), "fl")))
    with pytest.raises(TypeError, match="frame_length below 1 over a batch"):
        ko.contract(model)


@pytest.mark.parametrize("opset", [20, 22])
def test_grid_sample_of_another_rank(opset):
    """GridSample of a 3-d or 6-d X (one or four spatial axes, the spec's from opset 20):
    onnxruntime's kernel refuses it at every size ("Only 4-D or 5-D tensor is
    supported"); it was typed. Left untyped (undecided) at every point."""
    for k in (1, 4):
        inputs = {"x": ["n", "c", *[f"a{i}" for i in range(k)]],
                  "g": ["n", *[f"o{i}" for i in range(k)], k]}
        model = _model("GridSample", opset, inputs)
        contract = ko.contract(model)
        for n, a, o in itertools.product((1, 2), (1, 2), (1, 2)):
            sizes = {"n": n, "c": 1} | {f"a{i}": a for i in range(k)} | {
                f"o{i}": o for i in range(k)}
            feeds = {"x": np.ones([n, 1] + [a] * k, np.float32),
                     "g": np.zeros([n] + [o] * k + [k], np.float32)}
            got = ortrun.run(model, feeds)
            assert isinstance(got, ortrun.Refusal) and "GridSample" in got.why, got
            assert contract.holds(**sizes).value is None, (k, sizes)
