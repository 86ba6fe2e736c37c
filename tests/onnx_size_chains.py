"""Random small ONNX graphs whose data ops read values computed from sizes (helpers of
tests/test_contracts_random_onnx.py; ``python tests/onnx_size_chains.py N [SEED]`` runs N
graphs and prints each disagreement).

One or two float inputs with named sizes ``a``, ``b``, ``c`` (and small ints) feed a few
nodes drawn at random: Reshape, Expand, Tile, ConstantOfShape, Range, Split, TopK and
Slice whose shapes, bounds, counts or sizes are entries of a ``Shape`` gathered and
computed on (Add, Sub, Mul, Div, Mod, Min, Max, Neg) and joined by ``Concat``; Gather by
constant or ``Range`` indices; Concat, Where, Add, MatMul of two values; Pad, pools and
Conv, DepthToSpace, Flatten, Transpose, Squeeze, Unsqueeze, ReduceSum; Trilu, OneHot,
ReduceMean, Resize and Range of computed ``k``, depth, axis, sizes and counts (``Size``,
``Shape`` with start and end, a Mod or Div of two sizes); CumSum, EyeLike,
GatherElements, Compress. Every value no node reads is a graph output. (No Einsum:
onnxruntime's process dies on ``ij,kj->ik`` of empty inputs.)

:func:`judge` reads the contract and the typed shapes once, and runs onnxruntime at
points of sizes 0..7: where the contract holds the model must run (and each typed size be
onnxruntime's); where it fails the model must be refused by onnxruntime (a window outside
ONNX's formula counts as refused, tests/ortwindows.py; a point where onnxruntime's
window is not ONNX's formula and onnx.reference's is, is skipped) or by ONNX's reference
implementation (a valid point is one both run, docs/contracts.rst: onnxruntime skips
Concat's check of empty inputs and computes a Reshape's ``-1`` beside a ``0``); a model
kantensor refuses must be refused at every point the same way.
"""

from __future__ import annotations

import random
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import kantensor.onnx as ko
import ortwindows
import shapejudge

F, I64 = TensorProto.FLOAT, TensorProto.INT64
NAMES = ("a", "b", "c")


@dataclass
class Graph:
    """A graph in the making: nodes, initializers, inputs, float values with their ranks,
    and int64 scalars computed from sizes."""

    rng: random.Random
    nodes: list = field(default_factory=list)
    inits: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    values: list[tuple[str, int]] = field(default_factory=list)
    scalars: list[str] = field(default_factory=list)
    count: int = 0

    def fresh(self, prefix: str = "v") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, value, dtype=np.int64) -> str:
        name = self.fresh("c")
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def node(self, op: str, inputs: list[str], outputs: int = 1, **attrs):
        names = [self.fresh() for _ in range(outputs)]
        self.nodes.append(helper.make_node(op, inputs, names, name=self.fresh(op), **attrs))
        return names if outputs > 1 else names[0]

    def scalar(self) -> str:
        """An int64 scalar computed from a value's sizes."""
        rng = self.rng
        if self.scalars and rng.random() < 0.3:
            return rng.choice(self.scalars)
        ranked = [v for v in self.values if v[1] > 0]
        if not ranked:
            raise IndexError("no value with an axis")
        t, r = rng.choice(ranked)
        v = self.node("Gather", [self.node("Shape", [t]), self.const(rng.randrange(-r, r))],
                      axis=0)
        if rng.random() < 0.5:
            op = rng.choice(["Add", "Sub", "Mul", "Div", "Mod", "Min", "Max", "Neg", "Rsub"])
            c = rng.choice([1, 2, 3]) if op in ("Mul", "Div", "Mod") else \
                rng.choice([-2, -1, 1, 2, 3])
            if op == "Neg":
                v = self.node("Neg", [v])
            elif op == "Rsub":
                v = self.node("Sub", [self.const(c), v])
            elif op in ("Min", "Max") and self.scalars and rng.random() < 0.5:
                v = self.node(op, [v, rng.choice(self.scalars)])
            else:
                v = self.node(op, [v, self.const(c)])
        self.scalars.append(v)
        return v

    def entry(self) -> str:
        """A one-entry int64 vector: a computed size, else a constant."""
        if self.rng.random() < 0.5:
            return self.node("Unsqueeze", [self.scalar(), self.const([0])])
        return self.const([self.rng.choice([-1, 0, 1, 2, 3, 4])])

    def vector(self, length: int) -> str:
        parts = [self.entry() for _ in range(length)]
        return self.node("Concat", parts, axis=0) if len(parts) > 1 else parts[0]


def _window(g: Graph, t: str, r: int, op: str) -> tuple[str, int] | None:
    rng, n = g.rng, r - 2
    if n < 1:
        return None
    kernel = [rng.choice([1, 2, 3]) for _ in range(n)]
    attrs: dict = {"kernel_shape": kernel, "strides": [rng.choice([1, 2]) for _ in range(n)]}
    if rng.random() < 0.2:
        attrs["auto_pad"] = rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])
    else:
        attrs["pads"] = [rng.choice([0, 0, 1]) for _ in range(2 * n)]
    if op == "Conv":
        attrs["dilations"] = [rng.choice([1, 1, 2]) for _ in range(n)]
        w = g.const(np.ones([2, rng.choice([1, 2]), *kernel], np.float32), np.float32)
        return g.node("Conv", [t, w], **attrs), r
    if op != "LpPool":
        attrs["ceil_mode"] = rng.choice([0, 1])
    if op == "MaxPool":
        attrs["dilations"] = [rng.choice([1, 1, 2]) for _ in range(n)]
    return g.node(op, [t], **attrs), r


def _step(g: Graph) -> None:  # noqa: C901 - one branch per op, read as a table
    rng = g.rng
    t, r = rng.choice(g.values)
    op = rng.choice(["Reshape", "Slice", "SliceS", "Concat", "Gather", "Range", "RangeS",
                     "Expand", "ExpandS", "Where", "Add", "MatMul", "MaxPool", "AveragePool",
                     "LpPool", "Conv", "Split", "SplitS", "Pad", "Tile", "Flatten",
                     "Transpose", "Unsqueeze", "Squeeze", "ReduceSum", "ConstantOfShape",
                     "DepthToSpace", "SpaceToDepth", "TopK", "Trilu", "OneHot", "CumSum",
                     "EyeLike", "ReduceMeanS", "GatherElements", "Compress", "Resize",
                     "ShapeSlice", "Size", "Mod2"])
    out: tuple[str, int] | None = None
    if op == "Reshape":
        k = rng.randint(1, 4)
        out = g.node("Reshape", [t, g.vector(k)], allowzero=rng.choice([0, 0, 1])), k
    elif op in ("Slice", "SliceS") and r:
        def bound() -> str:
            if op == "SliceS" and rng.random() < 0.6:
                return g.entry()
            return g.const([rng.choice([-3, -1, 0, 1, 2, 4, 2**62, -2**62])])
        out = g.node("Slice", [t, bound(), bound(), g.const([rng.randrange(r)]),
                               g.const([rng.choice([1, 1, 2, -1, -2])])]), r
    elif op == "Concat" and r:
        u, ru = rng.choice(g.values)
        if ru == r:
            out = g.node("Concat", [t, u], axis=rng.randrange(-r, r)), r
    elif op == "Gather" and r:
        if rng.random() < 0.4:
            value = rng.choice([[0], [1, 0], [-1], 2, [[0, 1]], [3], -2])
            idx, ir = g.const(value), np.asarray(value).ndim
        else:
            idx, ir = g.node("Range", [g.const(rng.choice([0, 1])), g.scalar(),
                                       g.const(1)]), 1
        out = g.node("Gather", [t, idx], axis=rng.randrange(r)), r - 1 + ir
    elif op in ("Range", "RangeS"):
        if op == "Range":
            start, limit, delta = g.const(rng.choice([0, 1, -1])), g.scalar(), \
                g.const(rng.choice([1, 2, -1]))
        else:
            start, limit = g.scalar(), g.scalar()
            delta = g.scalar() if rng.random() < 0.3 else g.const(rng.choice([1, 2, -1, -2]))
        out = g.node("Cast", [g.node("Range", [start, limit, delta])], to=F), 1
    elif op == "Expand":
        k = rng.randint(max(r, 1), max(r, 4))
        out = g.node("Expand", [t, g.vector(k)]), k
    elif op == "ExpandS":
        u, ru = rng.choice(g.values)
        out = g.node("Expand", [t, g.node("Shape", [u])]), max(r, ru)
    elif op in ("Where", "Add"):
        u, ru = rng.choice(g.values)
        ins = [g.node("Greater", [t, g.const(0.0, np.float32)]), t, u] if op == "Where" \
            else [t, u]
        out = g.node(op if op == "Where" else rng.choice(["Add", "Mul"]), ins), max(r, ru)
    elif op == "MatMul":
        u, ru = rng.choice(g.values)
        if r and ru:
            out = g.node("MatMul", [t, u]), (max(r, ru) if min(r, ru) >= 2 else
                                              max(r, ru) - 1 if max(r, ru) > 1 else 0)
    elif op in ("MaxPool", "AveragePool", "LpPool", "Conv"):
        out = _window(g, t, r, op)
    elif op in ("Split", "SplitS") and r:
        axis = rng.randrange(r)
        if op == "Split":
            sizes = rng.choice([[1, 1], [0, 2], [2, 1, 0], [1]])
            split = g.const(sizes)
        else:
            parts = [g.entry() for _ in range(rng.choice([1, 2]))]
            sizes = parts
            split = g.node("Concat", parts, axis=0) if len(parts) > 1 else parts[0]
        outs = g.node("Split", [t, split], outputs=len(sizes), axis=axis)
        for o in outs if isinstance(outs, list) else [outs]:
            g.values.append((o, r))
    elif op == "Pad" and r:
        pads = [rng.choice([0, 0, 1, 2, -1]) for _ in range(2 * r)]
        out = g.node("Pad", [t, g.const(pads)],
                     mode=rng.choice(["constant", "constant", "reflect", "edge"])), r
    elif op == "Tile" and r:
        reps = g.const([rng.choice([0, 1, 2]) for _ in range(r)]) if rng.random() < 0.5 \
            else g.node("Abs", [g.vector(r)])
        out = g.node("Tile", [t, reps]), r
    elif op == "Flatten":
        out = g.node("Flatten", [t], axis=rng.randint(-r, r) if r else 0), 2
    elif op == "Transpose" and r:
        perm = list(range(r))
        rng.shuffle(perm)
        out = g.node("Transpose", [t], perm=perm), r
    elif op == "Unsqueeze":
        out = g.node("Unsqueeze", [t, g.const([rng.randint(-r - 1, r)])]), r + 1
    elif op == "Squeeze" and r:
        out = g.node("Squeeze", [t, g.const([rng.randrange(-r, r)])]), r - 1
    elif op == "ReduceSum" and r:
        keep = rng.choice([0, 1])
        out = g.node("ReduceSum", [t, g.const([rng.randrange(r)])], keepdims=keep), r - 1 + keep
    elif op == "ConstantOfShape":
        k = rng.randint(1, 3)
        out = g.node("ConstantOfShape", [g.vector(k)],
                     value=helper.make_tensor("value", F, [1], [1.0])), k
    elif op in ("DepthToSpace", "SpaceToDepth") and r == 4:
        out = g.node(op, [t], blocksize=rng.choice([1, 2, 3])), 4
    elif op == "TopK" and r:
        k = g.entry() if rng.random() < 0.6 else g.const([rng.choice([0, 1, 2, 3])])
        out = g.node("TopK", [t, k], outputs=2, axis=rng.randrange(-r, r))[0], r
    elif op == "Trilu" and r >= 2:
        k = g.scalar() if rng.random() < 0.6 else g.const(rng.choice([-1, 0, 2]))
        out = g.node("Trilu", [t, k], upper=rng.choice([0, 1])), r
    elif op == "OneHot":
        idx = g.node("Cast", [g.node("Range", [g.const(0), g.scalar(), g.const(1)])], to=7)
        out = g.node("OneHot", [idx, g.scalar(), g.const(np.array([0, 1], np.float32), np.float32)],
                     axis=rng.choice([-1, 0])), 2
    elif op == "CumSum" and r:
        out = g.node("CumSum", [t, g.const(rng.randrange(-r, r))]), r
    elif op == "EyeLike" and r == 2:
        out = g.node("EyeLike", [t], k=rng.choice([-1, 0, 2])), 2
    elif op == "ReduceMeanS" and r:
        axes = g.node("Unsqueeze", [g.node("Mod", [g.scalar(), g.const(r)]), g.const([0])])
        out = g.node("ReduceMean", [t, axes], keepdims=1), r
    elif op == "GatherElements" and r:
        idx = g.const(np.zeros([1] * r, np.int64))
        out = g.node("GatherElements", [t, idx], axis=rng.randrange(r)), r
    elif op == "Compress" and r:
        cond = g.const(np.array(rng.choice([[True], [False, True], [True, True, False]])), bool)
        out = g.node("Compress", [t, cond], axis=rng.randrange(r)), r
    elif op == "Resize" and r >= 1:
        sizes = g.node("Abs", [g.vector(r)])
        out = g.node("Resize", [t, "", "", sizes], mode="nearest"), r
    elif op == "ShapeSlice" and r:
        shape = g.node("Shape", [t], start=rng.randint(-r, r), end=rng.randint(-r, r + 1))
        out = g.node("ReduceSum", [g.node("Cast", [shape], to=F)], keepdims=1), 1
    elif op == "Size" and r:
        n = g.node("Size", [t])
        out = g.node("Cast", [g.node("Range", [g.const(0), n, g.const(1)])], to=F), 1
    elif op == "Mod2":
        a_, b_ = g.scalar(), g.node("Max", [g.scalar(), g.const(1)])
        v = g.node(rng.choice(["Mod", "Div"]), [a_, b_])
        out = g.node("Cast", [g.node("Range", [g.const(0), v, g.const(1)])], to=F), 1
    if out is not None:
        g.values.append(out)


def random_model(seed: int) -> onnx.ModelProto:
    """A model of one to five random steps (see the module's doc), at opset 17."""
    rng = random.Random(seed)
    g = Graph(rng)
    for i in range(rng.choice([1, 1, 2])):
        dims = [rng.choice(NAMES) if rng.random() < 0.8 else rng.choice([1, 2, 3])
                for _ in range(rng.choice([1, 2, 2, 3, 3, 4]))]
        g.inputs.append(helper.make_tensor_value_info(f"x{i}", F, dims))
        g.values.append((f"x{i}", len(dims)))
    for _ in range(rng.randint(1, 5)):
        try:
            _step(g)
        except IndexError:  # no value with an axis to read a size of
            pass
    read = {i for n in g.nodes for i in n.input}
    outs = [n.output[0] for n in g.nodes if n.output[0] not in read] or [g.values[-1][0]]
    model = helper.make_model(helper.make_graph(
        g.nodes, "chain", g.inputs, [helper.make_tensor_value_info(o, F, None) for o in outs],
        g.inits), opset_imports=[helper.make_opsetid("", 17)])
    inferred = onnx.shape_inference.infer_shapes(model)
    elem = {v.name: v.type.tensor_type.elem_type for v in inferred.graph.value_info}
    for o in model.graph.output:
        o.type.tensor_type.elem_type = elem.get(o.name) or F
    return model


def _reference_refuses(model: onnx.ModelProto, feeds: dict) -> bool:
    try:
        ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # noqa: BLE001 - any refusal of the spec's implementation
        return True
    return False


def judge(model: onnx.ModelProto, points: int, seed: int) -> list[str]:
    """Disagreements of kantensor's contract and typed shapes with onnxruntime (and
    onnx.reference) at ``points`` random points of sizes 0..7 (see the module's doc)."""
    rng = random.Random(seed)
    names = sorted({d.dim_param for i in model.graph.input
                    for d in i.type.tensor_type.shape.dim if d.dim_param})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            contract = ko.contract(model)
            typed = shapejudge.typed_shapes(ko.infer_shapes(model))
            refused = ""
        except (TypeError, ValueError) as exc:  # kantensor's refusals are both
            contract, typed, refused = None, {}, f"{type(exc).__name__}: {exc}"[:300]
    watched = ortwindows.Watched(model)
    found = []
    for values in {tuple(rng.randrange(8) for _ in names) for _ in range(points)}:
        sizes = dict(zip(names, values, strict=True))
        feeds = {i.name: np.ones([sizes[d.dim_param] if d.dim_param else d.dim_value
                                  for d in i.type.tensor_type.shape.dim], np.float32)
                 for i in model.graph.input}
        ran = ortwindows.judge(watched, feeds)
        if isinstance(ran, ortwindows.Window) and ran.why == "truncated" and (
                ran.agreed or ran.reference is None and ran.inference_agrees):
            continue  # onnxruntime's window is not ONNX's formula, onnx.reference's is (on
            # the axes where onnxruntime's is not); or onnxruntime's is onnx's inference's
            # and onnx.reference cannot run it (a VALID pool in ceil mode)
        runs = isinstance(ran, list)
        holds = contract.holds(**sizes).value if contract is not None else False
        if holds is False and runs and not _reference_refuses(model, feeds):
            found.append(f"{sizes}: kantensor says invalid ({refused or contract.holds(**sizes)})"
                         f", onnxruntime and onnx.reference run it: {ran}")
        elif holds is True and not runs:
            found.append(f"{sizes}: the contract holds, onnxruntime refuses: {ran}")
        elif holds is True:
            for out, shape in zip(model.graph.output, ran, strict=True):
                dims = typed.get(out.name) or []
                stated = [d if isinstance(d, int) else shapejudge.kantensor_size(d, sizes)
                          if isinstance(d, str) else None for d in dims]
                if len(stated) != len(shape) or any(
                        s is not None and s != n for s, n in zip(stated, shape, strict=True)):
                    found.append(f"{sizes}: {out.name} typed {dims}, onnxruntime {shape}")
    return found


if __name__ == "__main__":
    total, first = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0
    for s in range(first, first + total):
        for problem in judge(random_model(s), 14, s):
            print(s, problem, flush=True)
