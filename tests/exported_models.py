"""ONNX models built with ``onnx.helper`` as PyTorch's exporters write them (issue #32):
the patterns of exported transformers, CNNs and speech front ends whose sizes come from
``Shape`` arithmetic on named input sizes. Each builder returns the model and the size
assignments (three, each name at several sizes) onnxruntime runs it at."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


class Graph:
    """A graph under construction: nodes, initializers and fresh names."""

    def __init__(self, seed: int = 0):
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, value, dtype=np.int64, prefix: str = "c") -> str:
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def weight(self, *shape: int) -> str:
        return self.const(self.rng.standard_normal(shape) * 0.1, np.float32, "w")

    def op(self, op_type: str, *inputs: str, outputs: int = 1, **attrs) -> str | list[str]:
        outs = [self.name(op_type.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, **attrs))
        return outs[0] if outputs == 1 else outs

    def size(self, x: str, axis: int) -> str:
        """A 0-d size of ``x`` along ``axis``: Shape -> Gather (as torch writes x.size(i))."""
        return self.op("Gather", self.op("Shape", x), self.const(axis), axis=0)

    def vector(self, *parts: str | int) -> str:
        """A 1-d int64 shape: 0-d sizes unsqueezed and ints, concatenated."""
        pieces = [self.op("Unsqueeze", p, self.const([0])) if isinstance(p, str)
                  else self.const([p]) for p in parts]
        return self.op("Concat", *pieces, axis=0)

    def model(self, inputs: list[onnx.ValueInfoProto], outputs: list[str],
              opset: int = 17) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes, "exported", inputs,
            [helper.make_tensor_value_info(o, F, None) for o in outputs], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        return model


def _in(name: str, elem: int, shape: list) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


SEQUENCES = [{"batch": 1, "seq": 1}, {"batch": 2, "seq": 7}, {"batch": 3, "seq": 64}]


def position_ids() -> tuple[onnx.ModelProto, list]:
    """GPT-2's positions: ``Range(0, Shape(ids)[1], 1)`` unsqueezed, looked up in a
    table and added to the word embeddings; and the issue's reproducer, a Range over a
    vector's own length, cast and added to it."""
    g = Graph()
    seq = g.size("ids", 1)
    positions = g.op("Range", g.const(0), seq, g.const(1))
    pos = g.op("Unsqueeze", positions, g.const([0]))
    words = g.op("Gather", g.weight(100, 16), "ids", axis=0)
    places = g.op("Gather", g.weight(64, 16), pos, axis=0)
    emb = g.op("Add", words, places)
    n = g.size("x", 0)
    r = g.op("Cast", g.op("Range", g.const(0), n, g.const(1)), to=F)
    y = g.op("Add", "x", r)
    m = g.model([_in("ids", I64, ["batch", "seq"]), _in("x", F, ["seq"])], [emb, y])
    return m, SEQUENCES


def causal_mask() -> tuple[onnx.ModelProto, list]:
    """The causal mask of an exported decoder: positions compared by LessOrEqual, a
    Where of 0 and the lowest float, unsqueezed and expanded to (batch, 1, seq, seq),
    added to attention scores; beside it Llama's ConstantOfShape -> Trilu form."""
    g = Graph()
    x = "x"  # (batch, seq, 16)
    batch, seq = g.size(x, 0), g.size(x, 1)
    r = g.op("Range", g.const(0), seq, g.const(1))
    rows = g.op("Unsqueeze", r, g.const([1]))
    cols = g.op("Unsqueeze", r, g.const([0]))
    keep = g.op("LessOrEqual", cols, rows)
    bias = g.op("Where", keep, g.const(0.0, np.float32), g.const(-3.4e38, np.float32))
    bias4 = g.op("Unsqueeze", bias, g.const([0, 1]))
    full = g.op("Expand", bias4, g.vector(batch, 1, seq, seq))
    scores = g.op("MatMul", x, g.op("Transpose", x, perm=[0, 2, 1]))  # (batch, seq, seq)
    scores4 = g.op("Unsqueeze", scores, g.const([1]))
    masked = g.op("Add", scores4, full)
    probs = g.op("Softmax", masked, axis=-1)
    filled = g.op("ConstantOfShape", g.vector(seq, seq),
                  value=helper.make_tensor("v", F, [1], [-3.4e38]))
    upper = g.op("Trilu", filled, g.const(1), upper=1)
    both = g.op("Add", scores, upper)
    m = g.model([_in(x, F, ["batch", "seq", 16])], [probs, both], opset=17)
    return m, SEQUENCES


def attention(heads: int = 4, width: int = 32, minus_one: bool = False
              ) -> tuple[onnx.ModelProto, list]:
    """Self-attention as exporters write it: heads split by ``Shape -> Gather -> Concat
    -> Reshape`` (or with a -1), scores, softmax, merged back by a Reshape of
    ``(batch, seq, width)``."""
    g = Graph()
    x = "x"
    hd = width // heads
    batch, seq = g.size(x, 0), g.size(x, 1)

    def split(t: str) -> str:
        if minus_one:
            shape = g.vector(batch, -1, heads, hd)
        else:
            shape = g.vector(batch, seq, heads, hd)
        return g.op("Transpose", g.op("Reshape", t, shape), perm=[0, 2, 1, 3])

    q, k, v = (split(g.op("Add", g.op("MatMul", x, g.weight(width, width)), g.weight(width)))
               for _ in range(3))
    scores = g.op("Div", g.op("MatMul", q, g.op("Transpose", k, perm=[0, 1, 3, 2])),
                  g.const(float(np.sqrt(hd)), np.float32))
    probs = g.op("Softmax", scores, axis=-1)
    ctx = g.op("Transpose", g.op("MatMul", probs, v), perm=[0, 2, 1, 3])
    merged = g.op("Reshape", ctx, g.vector(batch, seq, width))
    out = g.op("MatMul", merged, g.weight(width, width))
    m = g.model([_in(x, F, ["batch", "seq", width])], [out])
    return m, SEQUENCES


def position_table(positions: int = 64) -> tuple[onnx.ModelProto, list]:
    """BERT's embeddings: a buffer of ``positions`` ids sliced ``[:, :seq]`` (Shape ->
    Gather -> Unsqueeze -> Slice), looked up in the position table and added to the word
    and token type embeddings (a buffer of zeros sliced the same way and expanded to
    ``(batch, seq)``), then a LayerNorm; and a slice of the table itself by the
    sequence length (``table[:seq]``) added to the sequence."""
    g = Graph()
    seq = g.size("ids", 1)
    buffer = g.const(np.arange(positions)[None])
    pos = g.op("Slice", buffer, g.const([0]), g.op("Unsqueeze", seq, g.const([0])),
               g.const([1]), g.const([1]))
    words = g.op("Gather", g.weight(100, 16), "ids", axis=0)
    places = g.op("Gather", g.weight(positions, 16), pos, axis=0)
    # the token types: a buffer of zeros sliced like the positions, expanded to the ids
    zeros = g.op("Slice", g.const(np.zeros((1, positions))), g.const([0]),
                 g.op("Unsqueeze", seq, g.const([0])), g.const([1]), g.const([1]))
    token_types = g.op("Expand", zeros, g.vector(g.size("ids", 0), seq))
    types = g.op("Gather", g.weight(2, 16), token_types, axis=0)
    emb = g.op("Add", g.op("Add", words, types), places)
    norm = g.op("LayerNormalization", emb, g.weight(16), g.weight(16), axis=-1)
    table = g.weight(positions, 16)
    rows = g.op("Slice", table, g.const([0]), g.op("Unsqueeze", seq, g.const([0])),
                g.const([0]))
    summed = g.op("Add", norm, rows)
    m = g.model([_in("ids", I64, ["batch", "seq"])], [summed])
    return m, SEQUENCES


IMAGES = [{"batch": 1, "height": 21, "width": 30}, {"batch": 2, "height": 37, "width": 22},
          {"batch": 3, "height": 64, "width": 51}]


def pool_stack(pools: int = 3) -> tuple[onnx.ModelProto, list]:
    """SqueezeNet's stem and stack of ceil-mode 3x3/2 max pools between fire modules (a
    squeeze 1x1 conv, two expand convs 1x1 and 3x3 concatenated), a 1x1 classifier and
    a global average pool; ``pools`` pools after the stem's."""
    g = Graph()

    def conv(x: str, cin: int, cout: int, k: int, **attrs) -> str:
        return g.op("Relu", g.op("Conv", x, g.weight(cout, cin, k, k), g.weight(cout),
                                 **attrs))

    def pool(x: str) -> str:
        return g.op("MaxPool", x, kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)

    def fire(x: str, cin: int, squeeze: int, expand: int) -> str:
        s = conv(x, cin, squeeze, 1)
        return g.op("Concat", conv(s, squeeze, expand, 1),
                    conv(s, squeeze, expand, 3, pads=[1, 1, 1, 1]), axis=1)

    x = pool(conv("x", 3, 8, 7, strides=[2, 2]))
    for _ in range(pools - 1):
        x = pool(fire(x, 8, 2, 4))
    x = fire(x, 8, 2, 4)
    y = g.op("Flatten", g.op("GlobalAveragePool", conv(x, 8, 10, 1)))
    m = g.model([_in("x", F, ["batch", 3, "height", "width"])], [y])
    sizes = [{"batch": 1, "height": 2 ** (pools + 3) + 3, "width": 2 ** (pools + 3) + 11},
             {"batch": 2, "height": 2 ** (pools + 4) - 1, "width": 2 ** (pools + 3) + 6},
             {"batch": 3, "height": 2 ** (pools + 4) + 5, "width": 2 ** (pools + 4)}]
    return m, sizes


AUDIO = [{"batch": 1, "samples": 400}, {"batch": 2, "samples": 1234},
         {"batch": 3, "samples": 3201}]


def feature_extractor() -> tuple[onnx.ModelProto, list]:
    """wav2vec2's front end: seven strided 1-D convs (kernel 10/5, 3/2 four times, 2/2
    twice) over ``(batch, samples)`` unsqueezed, GroupNorm after the first, GELU after
    each, transposed to frames, LayerNorm and a projection; then the positional conv
    (kernel 16, padding 8, 4 groups) whose extra last frame is sliced off (``[:, :,
    :-1]``) before it is added; and the frames' attention mask from the lengths, as
    the model computes them."""
    g = Graph()
    x = g.op("Unsqueeze", "audio", g.const([1]))
    layers = [(1, 16, 10, 5)] + [(16, 16, 3, 2)] * 4 + [(16, 16, 2, 2)] * 2
    for i, (cin, cout, k, s) in enumerate(layers):
        x = g.op("Conv", x, g.weight(cout, cin, k), strides=[s])
        if i == 0:
            x = g.op("InstanceNormalization", x, g.weight(cout), g.weight(cout))
        x = g.op("Mul", x, g.op("Sigmoid", g.op("Mul", x, g.const(1.702, np.float32))))
    frames = g.op("Transpose", x, perm=[0, 2, 1])
    normed = g.op("LayerNormalization", frames, g.weight(16), g.weight(16), axis=-1)
    hidden = g.op("Add", g.op("MatMul", normed, g.weight(16, 24)), g.weight(24))
    t = g.op("Transpose", hidden, perm=[0, 2, 1])
    pos = g.op("Conv", t, g.weight(24, 6, 16), g.weight(24), pads=[8, 8], group=4)
    pos = g.op("Slice", pos, g.const([0]), g.const([-1]), g.const([2]))
    out = g.op("Add", hidden, g.op("Transpose", pos, perm=[0, 2, 1]))
    # the lengths of the frames and a mask of them: arange(frames) < lengths
    n = g.size(out, 1)
    length = g.op("Cast", g.op("Expand", n, g.vector(g.size("audio", 0))), to=I64)
    mask = g.op("Less", g.op("Unsqueeze", g.op("Range", g.const(0), n, g.const(1)),
                             g.const([0])), g.op("Unsqueeze", length, g.const([1])))
    masked = g.op("Mul", out, g.op("Unsqueeze", g.op("Cast", mask, to=F), g.const([2])))
    m = g.model([_in("audio", F, ["batch", "samples"])], [masked])
    return m, AUDIO


def frame_heads() -> tuple[onnx.ModelProto, list]:
    """wav2vec2's attention as ``torch.export`` writes it: the frames' count computed
    first from the samples by integer ``Div`` (truncating: ``((samples//80 - 3)/2 -
    1)/2 + 1``, the windows' ``(samples + 240)//320 - 1`` only where they hold), then the
    seven strided convs, the frames split into heads by a Reshape to ``(batch, count,
    -1, 4)`` and merged back by one to ``(batch, count, -1)`` (each ``-1`` a quotient
    by the count), and a projection."""
    g = Graph()
    count = g.op("Div", g.size("audio", 1), g.const(80))
    for shift in (-3, -1):
        count = g.op("Div", g.op("Add", count, g.const(shift)), g.const(2))
    count = g.op("Add", count, g.const(1))
    batch = g.size("audio", 0)
    x = g.op("Unsqueeze", "audio", g.const([1]))
    for cin, k, s in [(1, 10, 5)] + [(8, 3, 2)] * 4 + [(8, 2, 2)] * 2:
        x = g.op("Conv", x, g.weight(8, cin, k), strides=[s])
    frames = g.op("Transpose", x, perm=[0, 2, 1])  # (batch, frames, 8)
    heads = g.op("Transpose", g.op("Reshape", frames, g.vector(batch, count, -1, 4)),
                 perm=[0, 2, 1, 3])
    merged = g.op("Reshape", g.op("Transpose", heads, perm=[0, 2, 1, 3]),
                  g.vector(batch, count, -1))
    m = g.model([_in("audio", F, ["batch", "samples"])],
                [g.op("MatMul", merged, g.weight(8, 5))])
    return m, [{"batch": 1, "samples": 720}, *AUDIO[1:]]


DETECTIONS = [{"anchors": 9}, {"anchors": 40}, {"anchors": 151}]


def detections(cap: int = 5) -> tuple[onnx.ModelProto, list]:
    """A detector's post-processing as TorchScript's exporter writes SSDlite's (outside
    this module's patterns: its counts are the data's): the anchors whose score passes a
    threshold (Greater -> NonZero -> Transpose -> GatherND, for the scores and for the
    boxes), the best ``min(cap, kept)`` of them (Shape, Concat with ``cap``, ReduceMin,
    Reshape -> TopK) and their boxes (Gather)."""
    g = Graph()
    passing = g.op("Greater", "scores", g.const(0.0, np.float32))
    where = g.op("Transpose", g.op("NonZero", passing), perm=[1, 0])
    kept = g.op("GatherND", "scores", where)
    boxes = g.op("GatherND", "boxes", g.op("Transpose", g.op("NonZero", passing),
                                           perm=[1, 0]))
    k = g.op("Reshape", g.op("ReduceMin", g.op("Concat", g.const([cap]), g.op("Shape", kept),
                                               axis=0), keepdims=0), g.const([1]))
    best, order = g.op("TopK", kept, k, axis=-1, largest=1, sorted=1, outputs=2)
    chosen = g.op("Gather", boxes, order, axis=0)
    m = g.model([_in("scores", F, ["anchors"]), _in("boxes", F, ["anchors", 4])],
                [best, chosen])
    return m, DETECTIONS



def counted_chain(cap: int = 4) -> tuple[onnx.ModelProto, list]:
    """Sizes the data decides, through what exporters build on them: the anchors that
    pass (Greater -> NonZero -> Transpose -> GatherND for the scores and the boxes), the
    best ``min(cap, kept)`` (Shape, Concat with ``cap``, ReduceMin, Reshape -> TopK),
    their boxes (Gather), a zero box per best one (Shape -> ConstantOfShape) stacked
    under them (Concat), an If choosing the boxes or the zeros (its branches use the
    outer values), the scores that fail (a second count: Less -> Compress), both counts'
    scores side by side (Concat) and the different passing scores (Unique)."""
    g = Graph()
    passing = g.op("Greater", "scores", g.const(0.0, np.float32))
    where = g.op("Transpose", g.op("NonZero", passing), perm=[1, 0])
    kept = g.op("GatherND", "scores", where)
    boxes = g.op("GatherND", "boxes", where)
    k = g.op("Reshape", g.op("ReduceMin", g.op("Concat", g.const([cap]), g.op("Shape", kept),
                                               axis=0), keepdims=0), g.const([1]))
    best, order = g.op("TopK", kept, k, axis=-1, largest=1, sorted=1, outputs=2)
    chosen = g.op("Gather", boxes, order, axis=0)
    zeros = g.op("ConstantOfShape", g.op("Shape", chosen),
                 value=helper.make_tensor("zero", F, [1], [0.0]))
    stacked = g.op("Concat", chosen, zeros, axis=0)
    cond = g.op("Greater", g.op("ReduceSum", best, keepdims=0), g.const(0.0, np.float32))
    branches = {}
    for key, value in (("then_branch", chosen), ("else_branch", zeros)):
        out = g.name(key)
        branches[key] = helper.make_graph(
            [helper.make_node("Identity", [value], [out])], key, [],
            [helper.make_tensor_value_info(out, F, None)])
    picked = g.op("If", cond, **branches)
    failing = g.op("Compress", "scores", g.op("Less", "scores", g.const(0.0, np.float32)),
                   axis=0)
    both = g.op("Concat", kept, failing, axis=0)
    different = g.op("Unique", kept, sorted=1, outputs=4)
    m = g.model([_in("scores", F, ["anchors"]), _in("boxes", F, ["anchors", 4])],
                [best, stacked, picked, both, *different])
    return m, DETECTIONS


#: name -> builder, every pattern of this module
PATTERNS = {
    "position_ids": position_ids,
    "causal_mask": causal_mask,
    "attention": attention,
    "attention_minus_one": lambda: attention(minus_one=True),
    "position_table": position_table,
    "pool_stack": pool_stack,
    "feature_extractor": feature_extractor,
    "frame_heads": frame_heads,
}
