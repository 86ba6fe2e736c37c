"""Random small ONNX graphs over catalogue ops with symbolic sizes, judged by onnxruntime
(test helpers of tests/test_onnx_random_ops.py; ``python tests/onnxprograms.py N SEED``
runs N graphs and prints what it finds).

A graph has one or two inputs whose dims are the names ``N``, ``M``, ``K`` or small
ints, of float, double, int64, int32 or bool elements, and a few nodes each drawn from a
table of op makers with their attribute corners (negative axes, empty axes inputs,
keepdims, Reshape with 0 and -1 and allowzero, Slice with negative or huge ends and
negative steps, pools with ceil_mode, auto_pad and dilations, Gemm's transposes, Split
with and without sizes, Pad modes, ...). Every node output is a graph output (its
element type from ONNX's own inference), so each value is judged. A node is drawn again
until the graph runs at sizes that all differ (now and then kept when it does not).

:func:`judge` types the graph once (``kantensor.onnx.infer_shapes`` and ``from_onnx``)
and runs onnxruntime at each assignment: wherever onnxruntime runs, every value's
declared element type must be onnxruntime's and every declared size the size it
computed (a ``dim_param`` read at the assignment); ``infer_shapes`` and ``from_onnx``
must state the same; the contract must hold where onnxruntime runs and fail where it
refuses (undecided only where docs/contracts.rst says it may be). What counts as a run
is tests/onnxjudge.py's: a graph onnxruntime has no kernel for is counted apart
("onnxruntime cannot run this"), so "graphs with problems" are disagreements only.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnxjudge import NAMES, feed, judge, ort_run

OPSET = 21
ELEM = {"float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE,
        "int64": TensorProto.INT64, "int32": TensorProto.INT32, "bool": TensorProto.BOOL,
        "uint8": TensorProto.UINT8, "float16": TensorProto.FLOAT16,
        "int8": TensorProto.INT8}
NP_OF = {v: np.dtype(k) for k, v in ELEM.items()}
REFERENCE = {"N": 2, "M": 3, "K": 5}

@dataclass
class Graph:
    """A graph in the making: inputs (name, dtype, dims), nodes, initializers, and per
    value its rank and dtype (from the reference run)."""

    rng: random.Random
    inputs: list[tuple[str, str, list]] = field(default_factory=list)
    nodes: list = field(default_factory=list)
    inits: list = field(default_factory=list)
    values: dict[str, tuple[int, str]] = field(default_factory=dict)

    def const(self, values, dtype="int64") -> str:
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.array(values, dtype), name))
        return name

    def model(self, nodes=None, outputs=None) -> onnx.ModelProto:
        nodes = self.nodes if nodes is None else nodes
        ins = [helper.make_tensor_value_info(n, ELEM[d], dims) for n, d, dims in self.inputs]
        outs = outputs if outputs is not None else [
            helper.make_tensor_value_info(v, ELEM[d], None) for v, (_, d) in self.values.items()
            if v not in {n for n, _, _ in self.inputs}]
        graph = helper.make_graph(nodes, "g", ins, outs, initializer=self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 10
        return model


# ---------------------------------------------------------------- op makers


def _axis(rng, rank):
    return rng.randrange(-rank, rank) if rank else 0


def _node(g: Graph, op: str, inputs: list[str], outs: int = 1, **attrs):
    base = f"v{len(g.nodes)}"
    names = [base] if outs == 1 else [f"{base}_{i}" for i in range(outs)]
    return helper.make_node(op, inputs, names, name=f"{op.lower()}{len(g.nodes)}",
                            **attrs), names


def draw(g: Graph):
    """One node from the existing values (the node and its output names)."""
    rng = g.rng
    names = list(g.values)
    a = rng.choice(names)
    ra, da = g.values[a]
    b = rng.choice(names)
    rb, db = g.values[b]
    floats = [v for v in names if g.values[v][1] in ("float32", "float64")]
    f = rng.choice(floats) if floats else a
    rf = g.values[f][0]
    kind = rng.randrange(22)
    if kind == 0:
        op = rng.choice(["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Equal", "Less",
                         "Greater", "And", "Or", "Xor", "Mod", "Sum", "Mean", "BitShift",
                         "PRelu", "GreaterOrEqual"])
        attrs = {"direction": rng.choice(["LEFT", "RIGHT"])} if op == "BitShift" else {}
        if op == "Mod":
            attrs = {"fmod": rng.choice([0, 1])}
        return _node(g, op, [a, b], **attrs)
    if kind == 1:
        op = rng.choice(["Abs", "Neg", "Sign", "Floor", "Not", "Relu", "Sigmoid", "Sqrt",
                         "Exp", "Identity", "IsNaN", "Reciprocal", "Round", "Ceil", "Erf",
                         "IsInf", "Softplus", "HardSwish", "Celu", "Shrink", "NonZero"])
        return _node(g, op, [a])
    if kind == 2:
        to = rng.choice(list(ELEM))
        if rng.random() < 0.3:
            return _node(g, "CastLike", [a, b])
        return _node(g, "Cast", [a], to=ELEM[to])
    if kind == 3:  # reductions
        op = rng.choice(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceL1", "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare",
                         "ReduceLogSum"])
        attrs = {}
        if rng.random() < 0.5:
            attrs["keepdims"] = rng.choice([0, 1])
        if rng.random() < 0.2:
            attrs["noop_with_empty_axes"] = 1
        inputs = [a]
        pick = rng.random()
        if pick < 0.6 and ra:
            axes = sorted(set(_axis(rng, ra) for _ in range(rng.randint(1, ra))),
                          key=lambda x: x % ra)
            axes = list(dict.fromkeys(axes))
            if len({x % ra for x in axes}) == len(axes):
                inputs.append(g.const(axes))
        elif pick < 0.75:
            inputs.append(g.const(np.zeros(0, np.int64)))
        return _node(g, op, inputs, **attrs)
    if kind == 4:
        op = rng.choice(["ArgMax", "ArgMin"])
        return _node(g, op, [a], axis=_axis(rng, ra), keepdims=rng.choice([0, 1]),
                     select_last_index=rng.choice([0, 1]))
    if kind == 5:  # Reshape
        shape = rng.choice([[-1], [0, -1], [-1, 0], [0, 0, -1], [1, -1], [-1, 2], [2, -1],
                            [0], [0, 1, -1], [-1, 1, 0], [0, -1, 1], [3, -1], [0, 0]])
        return _node(g, "Reshape", [a, g.const(shape)], allowzero=rng.choice([0, 0, 1]))
    if kind == 6 and ra:  # Slice
        n = rng.randint(1, ra)
        axes = rng.sample(range(ra), n)
        big = 2 ** 63 - 1
        starts, ends, steps = [], [], []
        for _ in axes:
            step = rng.choice([1, 1, 2, -1, -2, 3])
            if step > 0:
                s = rng.choice([0, 1, -1, -2, -big, 2, 5])
                e = rng.choice([big, -1, 1, 2, -big, 3, 100])
            else:
                s = rng.choice([big, -1, 0, 2, 100, -2])
                e = rng.choice([-big, 0, -100, 1, -3])
            starts.append(s)
            ends.append(e)
            steps.append(step)
        axes = [x - ra if rng.random() < 0.4 else x for x in axes]
        ins = [a, g.const(starts), g.const(ends), g.const(axes)]
        if rng.random() < 0.7:
            ins.append(g.const(steps))
        return _node(g, "Slice", ins)
    if kind == 7 and ra:  # Transpose / Flatten / Squeeze / Unsqueeze
        pick = rng.random()
        if pick < 0.3:
            perm = list(range(ra))
            rng.shuffle(perm)
            return _node(g, "Transpose", [a], perm=perm)
        if pick < 0.5:
            return _node(g, "Flatten", [a], axis=rng.randint(-ra, ra))
        if pick < 0.7:
            ins = [a] if rng.random() < 0.3 else [a, g.const([_axis(rng, ra)])]
            return _node(g, "Squeeze", ins)
        return _node(g, "Unsqueeze", [a, g.const(sorted({rng.randint(-ra - 1, ra)
                                                          for _ in range(rng.randint(1, 2))}))])
    if kind == 8:  # Concat
        return _node(g, "Concat", [a, b] if rng.random() < 0.6 else [a, a],
                     axis=_axis(rng, ra))
    if kind == 9 and ra:  # Split
        axis = _axis(rng, ra)
        n = rng.choice([1, 2, 3])
        if rng.random() < 0.5:
            return _node(g, "Split", [a], outs=n, axis=axis, num_outputs=n)
        sizes = [rng.randint(0, 3) for _ in range(n)]
        return _node(g, "Split", [a, g.const(sizes)], outs=n, axis=axis)
    if kind == 10:  # Gather family
        if ra:
            idx = g.const(rng.choice([[0], [-1], [0, 1], [[0, 0], [1, 0]], 0, [1, -1]]))
            return _node(g, "Gather", [a, idx], axis=_axis(rng, ra))
    if kind == 11:  # Expand, Tile, Pad
        pick = rng.random()
        if pick < 0.35:
            shape = rng.choice([[1], [2, 1], [3, 1, 1], [1, 1], [0], [2] * max(ra, 1)])
            return _node(g, "Expand", [a, g.const(shape)])
        if pick < 0.6 and ra:
            return _node(g, "Tile", [a, g.const([rng.choice([0, 1, 2]) for _ in range(ra)])])
        if ra:
            pads = [rng.choice([0, 1, 2, -1]) for _ in range(2 * ra)]
            mode = rng.choice(["constant", "reflect", "edge", "wrap"])
            return _node(g, "Pad", [a, g.const(pads)], mode=mode)
    if kind == 12 and rf >= 3:  # pools
        spatial = rf - 2
        k = [rng.choice([1, 2, 3]) for _ in range(spatial)]
        attrs = {"kernel_shape": k}
        if rng.random() < 0.5:
            attrs["strides"] = [rng.choice([1, 2]) for _ in range(spatial)]
        pad = rng.random()
        if pad < 0.3:
            attrs["auto_pad"] = rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])
        elif pad < 0.6:
            attrs["pads"] = [rng.choice([0, 1]) for _ in range(2 * spatial)]
            attrs["pads"] = [min(p, kk - 1) for p, kk in zip(attrs["pads"], k + k,
                                                                strict=True)]
        if rng.random() < 0.4:
            attrs["ceil_mode"] = 1
        op = rng.choice(["MaxPool", "AveragePool", "LpPool", "MaxPool"])
        if op == "MaxPool" and rng.random() < 0.4:
            attrs["dilations"] = [rng.choice([1, 2]) for _ in range(spatial)]
        if op == "AveragePool" and rng.random() < 0.5:
            attrs["count_include_pad"] = 1
        outs = 2 if op == "MaxPool" and rng.random() < 0.3 else 1
        return _node(g, op, [f], outs=outs, **attrs)
    if kind == 13 and rf >= 3:  # Conv
        spatial = rf - 2
        cin = g.rng.choice([1, 2, 3])
        m = rng.choice([1, 2])
        k = [rng.choice([1, 2, 3]) for _ in range(spatial)]
        w = g.const(np.ones([m, cin] + k), g.values[f][1])
        attrs = {}
        if rng.random() < 0.4:
            attrs["auto_pad"] = rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])
        elif rng.random() < 0.5:
            attrs["pads"] = [rng.choice([0, 1, 2]) for _ in range(2 * spatial)]
        if rng.random() < 0.4:
            attrs["strides"] = [rng.choice([1, 2]) for _ in range(spatial)]
        if rng.random() < 0.3:
            attrs["dilations"] = [rng.choice([1, 2]) for _ in range(spatial)]
        op = "Conv" if rng.random() < 0.7 else "ConvTranspose"
        if op == "ConvTranspose":
            w = g.const(np.ones([cin, m] + k), g.values[f][1])
            if rng.random() < 0.3 and "strides" in attrs:
                attrs["output_padding"] = [rng.choice([0, 1]) % s for s in attrs["strides"]]
        return _node(g, op, [f, w], **attrs)
    if kind == 14:  # MatMul / Gemm / Einsum
        pick = rng.random()
        if pick < 0.5:
            return _node(g, "MatMul", [f, rng.choice(floats) if floats else b])
        if pick < 0.8 and rf == 2 and floats:
            attrs = {"transA": rng.choice([0, 1]), "transB": rng.choice([0, 1])}
            other = rng.choice(floats)
            ins = [f, other]
            if rng.random() < 0.5:
                ins.append(rng.choice(floats))
            return _node(g, "Gemm", ins, **attrs)
        if rf:
            letters = "abcd"[:rf]
            return _node(g, "Einsum", [f], equation=f"{letters}->{letters[::-1]}")
    if kind == 15:  # Softmax family, norms
        if rf:
            op = rng.choice(["Softmax", "LogSoftmax", "Hardmax", "CumSum", "LRN",
                             "LayerNormalization", "InstanceNormalization", "TopK"])
            if op == "CumSum":
                return _node(g, op, [f, g.const(_axis(rng, rf))],
                             exclusive=rng.choice([0, 1]), reverse=rng.choice([0, 1]))
            if op == "LRN":
                return _node(g, op, [f], size=rng.choice([1, 3]))
            if op == "LayerNormalization":
                return _node(g, op, [f, f], axis=_axis(rng, rf), outs=rng.choice([1, 3]))
            if op == "InstanceNormalization":
                return _node(g, op, [f, g.const([1.0], g.values[f][1]),
                                     g.const([0.0], g.values[f][1])])
            if op == "TopK":
                return _node(g, op, [f, g.const([rng.choice([0, 1, 2])])], outs=2,
                             axis=_axis(rng, rf), largest=rng.choice([0, 1]))
            return _node(g, op, [f], axis=_axis(rng, rf))
    if kind == 16:  # Shape, Size, and the shape arithmetic exporters write
        if rng.random() < 0.6:
            attrs = {}
            if rng.random() < 0.5:
                attrs["start"] = rng.randint(-3, 2)
            if rng.random() < 0.4:
                attrs["end"] = rng.randint(-3, 3)
            return _node(g, "Shape", [a], **attrs)
        return _node(g, "Size", [a])
    if kind == 17:  # Where
        cond = rng.choice([v for v in names if g.values[v][1] == "bool"] or [a])
        return _node(g, "Where", [cond, a, b])
    if kind == 18:  # Range, ConstantOfShape, EyeLike, Trilu, OneHot
        pick = rng.random()
        if pick < 0.3:
            shape = [rng.choice([0, 1, 2, 3])] * rng.randint(1, 2)
            return _node(g, "ConstantOfShape", [g.const(shape)])
        if pick < 0.55 and ra == 2:
            return _node(g, rng.choice(["EyeLike", "Trilu"]), [a])
        if pick < 0.8 and ra >= 2:
            return _node(g, "Trilu", [a, g.const(rng.choice([-1, 0, 1, 4]))],
                         upper=rng.choice([0, 1]))
        return _node(g, "Range", [g.const(0), g.const(rng.choice([0, 3, -2])),
                                  g.const(rng.choice([1, 2, -1]))])
    if kind == 19 and ra >= 2:  # DepthToSpace / SpaceToDepth
        if ra == 4:
            op = rng.choice(["DepthToSpace", "SpaceToDepth"])
            return _node(g, op, [a], blocksize=rng.choice([1, 2]))
        return _node(g, "GatherElements", [a, g.const(np.zeros([1] * ra, np.int64))],
                     axis=_axis(rng, ra))
    if kind == 20 and rf:
        op = rng.choice(["GlobalAveragePool", "GlobalMaxPool", "Dropout", "Mish", "Gelu",
                         "Elu", "Selu", "HardSigmoid", "LeakyRelu", "ThresholdedRelu"])
        if op == "Dropout":
            return _node(g, op, [f], outs=rng.choice([1, 2]))
        return _node(g, op, [f])
    return _node(g, rng.choice(["Abs", "Neg", "Identity"]), [a])


def _types(model: onnx.ModelProto) -> dict[str, int] | None:
    """The element type ONNX's own inference gives each value (None: it refuses)."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    except Exception:  # noqa: BLE001 - onnx raises several kinds
        return None
    out = {}
    for v in list(inferred.graph.value_info) + list(inferred.graph.output):
        if v.type.HasField("tensor_type") and v.type.tensor_type.elem_type:
            out[v.name] = v.type.tensor_type.elem_type
    return out


def graph(rng: random.Random, nodes: int | None = None) -> Graph:
    """A random graph (see the module)."""
    g = Graph(rng)
    for i in range(rng.choice((1, 1, 2))):
        rank = rng.choice((1, 2, 2, 3, 4))
        dims = [rng.choice(NAMES + NAMES + (1, 2, 3)) for _ in range(rank)]
        dtype = rng.choice(["float32"] * 4 + ["float64", "int64", "int32", "bool"])
        g.inputs.append((f"x{i}", dtype, dims))
        g.values[f"x{i}"] = (rank, dtype)
    for _ in range(nodes or rng.randint(1, 4)):
        for attempt in range(15):
            node, outs = draw(g)
            trial = g.nodes + [node]
            types = _types(g.model(trial, outputs=[]))
            if types is None or any(o not in types for o in outs):
                continue
            vi = [helper.make_tensor_value_info(o, types[o], None) for o in outs]
            got = ort_run(g.model(trial, outputs=vi).SerializeToString(), feed(g, REFERENCE))
            if isinstance(got, str) and (rng.random() < 0.93 and attempt < 14):
                continue
            g.nodes.append(node)
            for o, (_, t) in zip(outs, [(None, types[o]) for o in outs], strict=True):
                shape = got[outs.index(o)][0] if not isinstance(got, str) else ()
                g.values[o] = (len(shape), str(NP_OF.get(t, np.dtype("float32"))))
            break
    return g


def describe(g: Graph) -> str:
    lines = [f"inputs: {g.inputs}"]
    for n in g.nodes:
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        ins = []
        for i in n.input:
            init = next((t for t in g.inits if t.name == i), None)
            ins.append(f"{i}={numpy_helper.to_array(init).tolist()}" if init is not None else i)
        lines.append(f"  {n.op_type}({', '.join(ins)}) {attrs} -> {list(n.output)}")
    return "\n".join(lines)


def main(count: int, seed: int) -> None:
    from collections import Counter
    total: Counter = Counter()
    rng = random.Random(seed)
    for i in range(count):
        g = graph(rng)
        stats, problems = judge(g)
        total.update(stats)
        total["graphs"] += 1
        if problems:
            total["graphs with problems"] += 1
            print(f"=== #{i}\n{describe(g)}")
            for p in problems[:4]:
                print("   ", p)
            sys.stdout.flush()
    print(dict(total))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
