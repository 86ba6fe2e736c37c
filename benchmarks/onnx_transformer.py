"""Time kantensor.onnx.infer_shapes against onnx.shape_inference.infer_shapes on a
transformer-style model built with onnx.helper (symbolic batch and sequence sizes; each
layer splits heads with a Shape -> Gather -> Concat -> Reshape chain, as exported
models do). Run: python benchmarks/onnx_transformer.py [LAYERS]; this is a quick check in
one process (where one tool's run can change the other's time: onnx's was seen to slow
down after kantensor's had run); benchmarks/onnx_compare.py times each tool in fresh
processes of its own, beside onnxruntime's."""

from __future__ import annotations

import sys
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from kantensor.onnx import infer_shapes

D, HEADS = 64, 4


def layer(i: int, x: str, nodes: list, inits: list) -> str:
    def p(name: str) -> str:
        return f"l{i}_{name}"

    def weight(name: str, shape: tuple) -> str:
        inits.append(numpy_helper.from_array(np.zeros(shape, np.float32), p(name)))
        return p(name)

    def node(op: str, ins: list, name: str, **attrs: object) -> str:
        nodes.append(helper.make_node(op, ins, [p(name)], name=p(name), **attrs))
        return p(name)

    h = node("LayerNormalization", [x, weight("g1", (D,)), weight("b1", (D,))], "ln1",
             axis=-1)
    s = node("Shape", [h], "shape")
    b = node("Gather", [s, "idx0"], "batch")
    t = node("Gather", [s, "idx1"], "seq")
    b1 = node("Unsqueeze", [b, "axes0"], "batch1")
    t1 = node("Unsqueeze", [t, "axes0"], "seq1")
    heads = node("Concat", [b1, t1, "heads"], "target", axis=0)
    outs = []
    for name in "qkv":
        m = node("MatMul", [h, weight(f"w{name}", (D, D))], f"mm{name}")
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
    o = node("MatMul", [o, weight("wo", (D, D))], "proj")
    x = node("Add", [x, o], "res1")
    h = node("LayerNormalization", [x, weight("g2", (D,)), weight("b2", (D,))], "ln2",
             axis=-1)
    h = node("MatMul", [h, weight("w1", (D, 4 * D))], "ff1")
    h = node("Gelu", [h], "gelu")
    h = node("MatMul", [h, weight("w2", (4 * D, D))], "ff2")
    return node("Add", [x, h], "res2")


def transformer(layers: int) -> onnx.ModelProto:
    nodes: list = []
    inits = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in
             [("idx0", 0), ("idx1", 1), ("axes0", [0]), ("heads", [HEADS, D // HEADS]),
              ("flat", [0, 0, D])]]
    inits.append(numpy_helper.from_array(np.array(np.sqrt(D // HEADS), np.float32),
                                         "scale"))
    x = "x"
    for i in range(layers):
        x = layer(i, x, nodes, inits)
    graph = helper.make_graph(
        nodes, "transformer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", D])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def timed(fn, repeat: int = 3) -> tuple[float, float]:
    """The first run's time (kantensor's memos cold) and the best of ``repeat``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times[0], min(times)


def main(layers: int = 50) -> None:
    model = transformer(layers)
    data = model.SerializeToString()
    print(f"{layers} layers, {len(model.graph.node)} nodes")
    kt = timed(lambda: infer_shapes(onnx.load_from_string(data)))
    ref = timed(lambda: onnx.shape_inference.infer_shapes(onnx.load_from_string(data),
                                                          data_prop=True))
    out = infer_shapes(model).graph.output[0].type.tensor_type.shape.dim
    print(f"kantensor infer_shapes: first {1000 * kt[0]:.0f} ms, best {1000 * kt[1]:.0f} ms;"
          f" output {[d.dim_param or d.dim_value for d in out]}")
    print(f"onnx infer_shapes (data_prop): first {1000 * ref[0]:.0f} ms, best "
          f"{1000 * ref[1]:.0f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
