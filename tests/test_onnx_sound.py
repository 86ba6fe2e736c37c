"""ONNX relations state what a run requires (issue 38): refine and a forward build
agree on a model's sizes, and a model that the relations accept runs with the stated
shapes; each checked against a forward build at concrete sizes, NumPy's run of the
imported graph and onnxruntime."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

import kantensor as kt
import ortrun
from kantensor.onnx import from_onnx
from kantensor.onnx.registry import registry
from kantensor.query import var
from kantensor.types.numpy_dtypes import numpy_dtype

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


# -- point 2: channels and weights are tied in the relations ---------------------------
def single(op, x_shape, weights, attrs=None, opset=21):
    """A model of one ``op`` node: input ``x`` of ``x_shape`` and initializers of the
    shapes ``weights``."""
    names = ["x"] + [f"w{i}" for i in range(len(weights))]
    rng = np.random.default_rng(0)
    return model([helper.make_node(op, names, ["y"], **(attrs or {}))],
                 [helper.make_tensor_value_info("x", F, list(x_shape))],
                 [helper.make_tensor_value_info("y", F, None)],
                 [init(f"w{i}", rng.random(s)) for i, s in enumerate(weights)], opset)


#: (op, X's shape, the weights' shapes, attributes, opset): each one a channel tie or a
#: window that onnxruntime checks, on both sides of it.
CASES = [
    ("Conv", (2, 4, 8, 8), [(8, 3, 3, 3)], {}, 21),  # C != group * W.shape[1]
    ("Conv", (2, 4, 8, 8), [(8, 4, 3, 3)], {}, 21),
    ("Conv", (2, 4, 8, 8), [(8, 2, 3, 3)], {"group": 2}, 21),
    ("Conv", (2, 4, 8, 8), [(8, 4, 3, 3)], {"group": 2}, 21),
    ("Conv", (2, 4, 8, 8), [(7, 2, 3, 3)], {"group": 2}, 21),  # M % group
    ("Conv", (2, 4, 8, 8), [(8, 4, 3, 3), (7,)], {}, 21),  # len(B) != M
    ("Conv", (2, 4, 8, 8), [(8, 4, 3, 3), (8,)], {}, 21),
    ("Conv", (2, 4, 8, 8), [(8, 4, 3, 3)], {"kernel_shape": [2, 2]}, 21),
    ("Conv", (2, 4, 2, 2), [(8, 4, 3, 3)], {}, 21),  # the window is larger than X
    ("Conv", (2, 4, 3, 3), [(8, 4, 3, 3)], {}, 21),
    ("Conv", (2, 4, 2, 2), [(8, 4, 3, 3)], {"pads": [1, 1, 1, 1]}, 21),
    ("Conv", (2, 4, 5, 5), [(8, 4, 3, 3)], {"dilations": [3, 3]}, 21),
    ("Conv", (2, 4, 7, 7), [(8, 4, 3, 3)], {"dilations": [3, 3]}, 21),
    ("Conv", (2, 4, 0, 3), [(8, 4, 1, 1)], {"auto_pad": "SAME_UPPER"}, 21),
    ("ConvTranspose", (1, 3, 4, 4), [(2, 2, 3, 3)], {}, 21),  # W.shape[0] != C
    ("ConvTranspose", (1, 4, 4, 4), [(4, 2, 3, 3)], {"group": 2}, 21),
    ("ConvTranspose", (1, 3, 4, 4), [(3, 2, 3, 3)], {"group": 2}, 21),  # C % group
    ("ConvTranspose", (1, 4, 4, 4), [(4, 2, 3, 3), (3,)], {"group": 2}, 21),
    ("ConvTranspose", (1, 4, 4, 4), [(4, 2, 3, 3), (4,)], {"group": 2}, 21),
    ("ConvTranspose", (1, 3, 1, 1), [(3, 2, 1, 1)], {"pads": [1, 1, 1, 1]}, 21),
    ("BatchNormalization", (2, 3, 4, 5), [(4,), (3,), (3,), (3,)], {}, 15),
    ("BatchNormalization", (2, 3, 4, 5), [(3,), (3,), (3,), (3,)], {}, 15),
    ("BatchNormalization", (2, 3), [(3,), (3,), (3,), (3,)], {}, 15),
    ("InstanceNormalization", (2, 3, 4, 5), [(4,), (3,)], {}, 21),
    ("InstanceNormalization", (2, 3, 4, 5), [(3,), (4,)], {}, 21),
    ("InstanceNormalization", (2, 3, 4, 5), [(3,), (3,)], {}, 21),
    ("InstanceNormalization", (2, 3), [(3,), (3,)], {}, 21),
    ("LayerNormalization", (2, 3, 4), [(1,), (4,)], {}, 17),
    ("LayerNormalization", (2, 3, 4), [(5,), (4,)], {}, 17),
    ("LayerNormalization", (2, 3, 4), [(3, 4), (4,)], {}, 17),
    ("LayerNormalization", (2, 1, 4), [(3, 4), (4,)], {}, 17),
    ("LayerNormalization", (2, 3, 4), [(2, 1, 4)], {}, 17),
    ("LayerNormalization", (2, 3, 4), [(1, 1, 1, 4)], {}, 17),
    ("LayerNormalization", (2, 3, 4), [(4,), (3, 1)], {"axis": 1}, 17),
    ("GroupNormalization", (2, 6, 4), [(6,), (6,)], {"num_groups": 4}, 21),
    ("GroupNormalization", (2, 6, 4), [(6,), (6,)], {"num_groups": 3}, 21),
    ("GroupNormalization", (2, 6, 4), [(3,), (3,)], {"num_groups": 3}, 21),
    # -- point 3: a pool's window fits its padded input
    ("MaxPool", (1, 3, 2, 2), [], {"kernel_shape": [3, 3]}, 21),
    ("MaxPool", (1, 3, 3, 3), [], {"kernel_shape": [3, 3]}, 21),
    ("AveragePool", (1, 3, 2, 2), [], {"kernel_shape": [3, 3]}, 21),
    ("AveragePool", (1, 3, 2, 2), [], {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, 21),
    ("MaxPool", (1, 3, 2, 2), [], {"kernel_shape": [3, 3], "ceil_mode": 1}, 21),
    ("MaxPool", (1, 3, 4, 4), [], {"kernel_shape": [2, 2], "pads": [2, 0, 0, 0]}, 21),
    ("LpPool", (1, 3, 2, 5), [], {"kernel_shape": [3, 3]}, 21),
    ("GlobalAveragePool", (1, 3, 0, 2), [], {}, 21),
    ("GlobalMaxPool", (1, 3, 2, 0), [], {}, 21),
    ("GlobalAveragePool", (1, 3, 1, 2), [], {}, 21),
]


def runs_in_onnxruntime(m):
    """The output shapes onnxruntime computes for ``m`` on zeros (None: it refuses or
    crashes; it runs in a process of its own, see tests/ortrun.py)."""
    x = m.graph.input[0].type.tensor_type.shape
    got = ortrun.run(m, {"x": np.zeros([d.dim_value for d in x.dim], np.float32)})
    return None if isinstance(got, ortrun.Refusal) else got


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{c[1]}{c[2]}{c[3]}")
def test_the_relations_state_what_onnxruntime_checks(case):
    """Each tie of channels to weights and each window: kantensor types the node exactly
    where onnxruntime runs it, with onnxruntime's shape; where onnxruntime computes an
    empty pool map, kantensor refuses it as PyTorch does (output sizes >= 1)."""
    op, x, weights, attrs, opset = case
    m = single(op, x, weights, attrs, opset)
    try:
        got = from_onnx(m)[1][0].type.shape
    except (TypeError, ValueError) as exc:
        got, why = None, str(exc)
    ran = runs_in_onnxruntime(m)
    if got is None:
        assert ran is None or 0 in ran[0][2:], (case, ran)
        assert why
    else:
        assert ran is not None and tuple(ran[0]) == got, (case, ran, got)


def test_a_channel_mismatch_is_named_like_onnxruntime_names_it():
    with pytest.raises(kt.TypeInferenceError, match="input channels C is not equal to kernel "
                       "channels [*] group: C is 4, W's channels 3, group 1"):
        from_onnx(single("Conv", (2, 4, 8, 8), [(8, 3, 3, 3)]))
    with pytest.raises(kt.TypeInferenceError, match=r"channels C \(6\) are not divisible by "
                       r"num_groups \(4\)"):
        from_onnx(single("GroupNormalization", (2, 6, 4), [(6,), (6,)], {"num_groups": 4}))
    with pytest.raises(kt.TypeInferenceError, match="Scale does not broadcast onto X: its "
                       "axis 0 has size 5, X's 4"):
        from_onnx(single("LayerNormalization", (2, 3, 4), [(5,), (4,)], opset=17))
    with pytest.raises(kt.TypeInferenceError, match="the window does not fit spatial axis 0"):
        from_onnx(single("MaxPool", (1, 3, 2, 2), [], {"kernel_shape": [3, 3]}))


@pytest.mark.parametrize(("op", "x", "weights", "attrs", "opset", "channels"), [
    ("Conv", (2, None, 8, 8), [(8, 2, 3, 3), (8,)], {"group": 2}, 21, 4),
    ("ConvTranspose", (1, None, 4, 4), [(4, 2, 3, 3), (4,)], {"group": 2}, 21, 4),
    ("BatchNormalization", (2, None, 4, 5), [(3,)] * 4, {}, 15, 3),
    ("InstanceNormalization", (2, None, 4, 5), [(3,), (3,)], {}, 21, 3),
    ("GroupNormalization", (2, None, 4), [(6,), (6,)], {"num_groups": 3}, 21, 6),
])
def test_refine_reads_the_channels_off_the_weights(op, x, weights, attrs, opset, channels):
    """The ties are in the relation, so they run backwards: refine finds X's unknown
    channels from the weights, and refuses other channels as the forward build does."""
    ins, outs = from_onnx(single(op, x, weights, attrs, opset))
    assert kt.refine(outs)[ins[0]].shape[1] == channels
    given = kt.TensorType("float32", (x[0], channels + 1, *x[2:]))
    with pytest.raises(kt.RefinementError):
        kt.refine(outs, given={ins[0]: given})


def test_a_query_runs_the_ties_backwards():
    """kt.query on ONNX's Conv entry (group 2): from the output and the weights back to
    X, whose channels are group * W.shape[1]; no answer for 5 channels."""
    conv = registry()[("", "Conv")][0].op.bind(group=2)
    weights = ["float32[8,2,3,3]", "float32[8]"]
    assert [a["X"] for a in kt.query(conv, [var("X"), *weights], ["float32[2,8,6,6]"])] \
        == [kt.TensorType.parse("float32[2,4,8,8]")]
    assert list(kt.query(conv, ["float32[2,5,8,8]", *weights], [var("Y")])) == []
    windows = registry()[("", "MaxPool")][0].op.bind(kernel_shape=(3, 3))
    assert list(kt.query(windows, ["float32[1,3,2,7]"], [var("Y")])) == []


# -- point 3: a network whose pools leave nothing is refused at those sizes -------------
def squeezenet(size):
    """SqueezeNet 1.0 as torch exports torchvision's (7x7/2 stem, ceil-mode 3x3/2 max
    pools, fire modules, a 1x1 classifier and a global average pool), with 1/16 of its
    channels; input ``(1, 3, size, size)`` (or named sizes) and every max pool's output
    a graph output too."""
    nodes, inits, pools = [], [], []
    rng = np.random.default_rng(1)

    def conv(x, cin, cout, k, **attrs):
        name = f"c{len(nodes)}"
        inits.extend([init(f"{name}.w", rng.random((cout, cin, k, k)) - 0.5),
                      init(f"{name}.b", rng.random(cout))])
        nodes.append(helper.make_node("Conv", [x, f"{name}.w", f"{name}.b"], [name], **attrs))
        nodes.append(helper.make_node("Relu", [name], [f"{name}.r"]))
        return f"{name}.r"

    def pool(x):
        name = f"p{len(nodes)}"
        nodes.append(helper.make_node("MaxPool", [x], [name], kernel_shape=[3, 3],
                                      strides=[2, 2], ceil_mode=1))
        pools.append(name)
        return name

    def fire(x, cin, squeeze, expand):
        s = conv(x, cin, squeeze, 1)
        a, b = conv(s, squeeze, expand, 1), conv(s, squeeze, expand, 3, pads=[1] * 4)
        nodes.append(helper.make_node("Concat", [a, b], [f"f{len(nodes)}"], axis=1))
        return nodes[-1].output[0]

    x = pool(conv("x", 3, 6, 7, strides=[2, 2]))
    x = fire(fire(fire(x, 6, 1, 4), 8, 1, 4), 8, 2, 8)
    x = pool(x)
    x = fire(fire(fire(fire(x, 16, 2, 8), 16, 3, 12), 24, 3, 12), 24, 4, 16)
    x = fire(pool(x), 32, 4, 16)
    nodes.append(helper.make_node("GlobalAveragePool", [conv(x, 32, 10, 1)], ["y"]))
    outputs = [helper.make_tensor_value_info(n, F, None) for n in ["y", *pools]]
    return model(nodes, [helper.make_tensor_value_info("x", F, [1, 3, size, size])],
                 outputs, inits, opset=17)


def test_squeezenet_is_refused_where_its_last_pool_has_no_position():
    """SqueezeNet 1.0 at 8-20 px: the last max pool's map would be empty; PyTorch refuses
    it (its minimum for this network is 21 px, found by running torch 2.13's MaxPool2d on
    the same structure), onnxruntime computes an empty map. kantensor refuses it, naming
    the pool, and types the larger sizes as onnxruntime computes them; the symbolic
    import at ``H`` refined with each size says the same."""
    ins, outs = from_onnx(squeezenet("H"))
    accepted = []
    for size in (8, 13, 19, 20, 21, 22, 25):
        m = squeezenet(size)
        try:
            types = [v.type.shape for v in from_onnx(m)[1]]
        except kt.TypeInferenceError as exc:
            types = None
            assert "MaxPool" in str(exc) and "the window does not fit" in str(exc)
        ran = runs_in_onnxruntime(m)
        if types is None:
            assert ran is None or any(0 in shape[2:] for shape in ran), (size, ran)
        else:
            accepted.append(size)
            assert [tuple(s) for s in ran] == types, size
        try:
            kt.refine(outs, given={ins[0]: f"float32[1,3,{size},{size}]"})
            refined = True
        except kt.RefinementError:
            refined = False
        assert refined == (types is not None), size
    assert accepted == [21, 22, 25]


def test_a_torch_export_of_a_resnet_types_and_runs_as_onnxruntime_does():
    """A ResNet-18-like network exported by PyTorch (tests/data/make_resnet_like.py): its
    symbolic type, its sizes at several inputs against onnxruntime, and an input of 4
    channels refused at the stem's Conv, forwards and by refine."""
    path = Path(__file__).parent / "data" / "resnet_like.onnx"
    ins, outs = from_onnx(onnx.load(path))
    assert str(outs[0].type) == "float32[N,10]"
    for h, w in ((64, 64), (17, 9), (1, 1)):
        refined = kt.refine(outs, given={ins[0]: f"float32[2,3,{h},{w}]"})[outs[0]]
        ran = ortrun.run(onnx.load(path), {"x": np.zeros((2, 3, h, w), np.float32)})
        assert [refined.shape] == ran == [(2, 10)]
    unknown = onnx.load(path)  # the channels unknown: the stem's weights say 3
    unknown.graph.input[0].type.tensor_type.shape.dim[1].Clear()
    ins, outs = from_onnx(unknown)
    assert str(kt.refine(outs)[ins[0]]) == "float32[N,3,H,W]"
    with pytest.raises(kt.RefinementError, match="input channels C is not equal to kernel "
                       "channels"):
        kt.refine(outs, given={ins[0]: "float32[1,4,64,64]"})
    rewritten = onnx.load(path)
    rewritten.graph.input[0].type.tensor_type.shape.dim[1].dim_value = 4
    with pytest.raises(kt.TypeInferenceError, match="stem.0/Conv"):
        from_onnx(rewritten)


# -- point 9: which dtypes hold infinity is the dtype table's ---------------------------
@pytest.mark.parametrize(("elem", "dtype", "lowest"), [
    (TensorProto.FLOAT, "float32", -np.inf), (TensorProto.INT8, "int8", -128),
    (TensorProto.BFLOAT16, "bfloat16", -np.inf),
    (TensorProto.FLOAT8E4M3FN, "float8_e4m3fn", -448),
    (TensorProto.BOOL, "bool", False)])
def test_the_maximum_of_nothing_and_max_pool_padding_in_every_dtype(elem, dtype, lowest):
    """ReduceMax over an empty axis is "minus infinity if the dtype has it, else its least
    value" (ONNX's words; onnx.reference gives NaN for float8_e4m3fn), and MaxPool pads with
    that value: bfloat16 (which has infinities, and NumPy's kind 'V') included."""
    npd = numpy_dtype(dtype)
    m = model([helper.make_node("ReduceMax", ["x", "axes"], ["y"], keepdims=0)],
              [helper.make_tensor_value_info("x", elem, [0, 2])],
              [helper.make_tensor_value_info("y", elem, None)],
              [init("axes", [0], np.int64)], opset=20)  # (bool from opset 20 on)
    if dtype.startswith("float8"):  # (no ReduceMax schema takes it: onnxruntime refuses)
        with pytest.raises(kt.TypeInferenceError, match=r"ReduceMax needs an \(bfloat16, bool"):
            from_onnx(m)
    elif dtype == "bool":  # onnxruntime refuses a bool one over an empty set with outputs
        with pytest.raises(kt.TypeInferenceError, match=r"ReduceMax: where-clause"):
            from_onnx(m)  # (tests/test_onnx_random_ops.py judges it by onnxruntime)
    else:
        ins, outs = from_onnx(m)
        got = kt.function(ins, outs)(np.zeros((0, 2), npd))[0]
        assert got.dtype == npd and got.shape == (2,)
        assert np.array_equal(got.astype(np.float64), np.full(2, lowest, np.float64))
    if dtype == "bool":
        return
    pool = model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2], pads=[1, 1])],
                 [helper.make_tensor_value_info("x", elem, [1, 1, 3])],
                 [helper.make_tensor_value_info("y", elem, None)], opset=22)  # (bfloat16
    if dtype.startswith("float8"):  # from opset 22; no MaxPool schema takes float8)
        with pytest.raises(kt.TypeInferenceError, match=r"MaxPool needs \(bfloat16, .*got float8"):
            from_onnx(pool)
        return
    ins, outs = from_onnx(pool)
    values = np.array([[[-5, -6, -7]]]).astype(npd)
    got = kt.function(ins, outs)(values)[0]
    assert got.dtype == npd and got.astype(np.float64).tolist() == [[[-5, -5, -6, -7]]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("keepdims", [0, 1])
def test_the_log_sum_exp_of_nothing_is_onnxruntimes(dtype, keepdims):
    """ReduceLogSumExp over an empty axis is log(0): onnxruntime gives -inf (an int
    dtype's least value); kantensor's kernel raised ValueError (NumPy's max, its
    stabiliser, has no identity), so kt.function refused a model onnxruntime runs.
    Judged by onnxruntime at shapes with an empty reduced axis, an empty other axis and
    none empty, by an axes input (opset 18) and by each axis."""
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    m = model([helper.make_node("ReduceLogSumExp", ["x", "axes"], ["y"], keepdims=keepdims)],
              [helper.make_tensor_value_info("x", elem, ["a", "b"]),
               helper.make_tensor_value_info("axes", TensorProto.INT64, [1])],
              [helper.make_tensor_value_info("y", elem, None)], opset=18)
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    run = kt.function(*from_onnx(m))
    for shape, axis in (((2, 0), 1), ((0, 2), 0), ((0, 2), 1), ((0, 0), 0), ((2, 3), -1)):
        x = (np.arange(np.prod(shape)).reshape(shape) % 3).astype(dtype)
        axes = np.array([axis])
        want = session.run(None, {"x": x, "axes": axes})[0]
        with np.errstate(all="ignore"):
            got = run(x, axes)[0]
        assert got.dtype == want.dtype and got.shape == want.shape, (shape, axis)
        assert np.allclose(got.astype(np.float64), want.astype(np.float64)), (shape, axis)
