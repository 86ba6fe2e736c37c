"""The transformer-style ONNX model the ONNX timings type, built with onnx.helper: symbolic
``batch`` and ``seq`` sizes, each layer splitting heads with a Shape -> Gather -> Concat ->
Reshape chain as exported models do. It imports no shape-inference tool, so that a
process timing one tool has imported nothing of the others (see onnx_time.py)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

#: The default model width and the number of attention heads.
WIDTH, HEADS = 64, 4


def layer(i: int, x: str, nodes: list, inits: list, d: int) -> str:
    """One layer: layer norm, attention over HEADS heads (the heads split by a Shape ->
    Gather -> Concat -> Reshape chain), a residual, a Gelu feed-forward, a residual."""
    def p(name: str) -> str:
        return f"l{i}_{name}"

    def weight(name: str, shape: tuple) -> str:
        inits.append(numpy_helper.from_array(np.zeros(shape, np.float32), p(name)))
        return p(name)

    def node(op: str, ins: list, name: str, **attrs: object) -> str:
        nodes.append(helper.make_node(op, ins, [p(name)], name=p(name), **attrs))
        return p(name)

    h = node("LayerNormalization", [x, weight("g1", (d,)), weight("b1", (d,))], "ln1",
             axis=-1)
    s = node("Shape", [h], "shape")
    b = node("Gather", [s, "idx0"], "batch")
    t = node("Gather", [s, "idx1"], "seq")
    b1 = node("Unsqueeze", [b, "axes0"], "batch1")
    t1 = node("Unsqueeze", [t, "axes0"], "seq1")
    heads = node("Concat", [b1, t1, "heads"], "target", axis=0)
    outs = []
    for name in "qkv":
        m = node("MatMul", [h, weight(f"w{name}", (d, d))], f"mm{name}")
        r = node("Reshape", [m, heads], f"r{name}")
        outs.append(node("Transpose", [r], f"t{name}", perm=[0, 2, 1, 3]))
    q, k, v = outs
    kt_ = node("Transpose", [k], "kT", perm=[0, 1, 3, 2])
    sc = node("MatMul", [q, kt_], "scores")
    sc = node("Div", [sc, "scale"], "scaled")
    pr = node("Softmax", [sc], "probs", axis=-1)
    o = node("MatMul", [pr, v], "attn")
    o = node("Transpose", [o], "merge", perm=[0, 2, 1, 3])
    o = node("Reshape", [o, "flat"], "flat")
    o = node("MatMul", [o, weight("wo", (d, d))], "proj")
    x = node("Add", [x, o], "res1")
    h = node("LayerNormalization", [x, weight("g2", (d,)), weight("b2", (d,))], "ln2",
             axis=-1)
    h = node("MatMul", [h, weight("w1", (d, 4 * d))], "ff1")
    h = node("Gelu", [h], "gelu")
    h = node("MatMul", [h, weight("w2", (4 * d, d))], "ff2")
    return node("Add", [x, h], "res2")


def transformer(layers: int, width: int = WIDTH) -> onnx.ModelProto:
    """``layers`` layers of model width ``width`` (weights of zeros: their bytes are what
    a tool reads and writes, as an exported model's are)."""
    nodes: list = []
    inits = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in
             [("idx0", 0), ("idx1", 1), ("axes0", [0]), ("heads", [HEADS, width // HEADS]),
              ("flat", [0, 0, width])]]
    inits.append(numpy_helper.from_array(np.array(np.sqrt(width // HEADS), np.float32),
                                         "scale"))
    x = "x"
    for i in range(layers):
        x = layer(i, x, nodes, inits, width)
    graph = helper.make_graph(
        nodes, "transformer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", width])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
