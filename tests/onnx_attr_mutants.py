"""Seeded mutants of one exporter-written op, for judging every value's inferred shape
with onnxruntime (tests/shapejudge.py).

Each maker draws, from a ``random.Random``, one small model as PyTorch's exporters
write it (an op whose attributes and constant inputs are drawn: pads, strides,
dilations, ceil_mode, axes negative or not, keepdims, perm, Slice bounds past either
end and negative steps, negative Gather indices, Expand targets with 1s, Reshape with
0, -1 and allowzero, Split sizes, Pad modes, Resize scales and sizes, TopK's k from a
Shape, Einsum equations, the opset of the op) over inputs whose sizes are named or
fixed, 0 and 1 included, and candidate sizes for each name. :func:`accepted` runs the
candidates with onnxruntime and keeps three assignments it runs at in which every name
differs: the model and those assignments are what the judge needs.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from functools import partial

import numpy as np
import onnx
from onnx import TensorProto, helper

import ortrun
import shapejudge as sj
from exported_models import Graph

F, I64 = TensorProto.FLOAT, TensorProto.INT64
BIG = 2**63 - 1
Made = tuple[onnx.ModelProto, dict[str, list[int]]]


def _dims(rng: random.Random, rank: int, low: int = 0) -> tuple[list, dict[str, list[int]]]:
    """A shape of ``rank`` dims, each named (with candidate sizes, ``low`` and up) or
    fixed; sometimes two dims share a name."""
    dims: list = []
    names: dict[str, list[int]] = {}
    for i in range(rank):
        if dims and rng.random() < 0.1 and isinstance(dims[-1], str):
            dims.append(dims[-1])
        elif rng.random() < 0.7:
            name = f"d{i}"
            dims.append(name)
            pool = list(range(low, low + 12))
            names[name] = rng.sample(pool, 6) + [low + 17, low + 31]
        else:
            dims.append(rng.choice([max(low, 1), low + 1, low + 2, low + 3, low + 5]))
    return dims, names


def _model(g: Graph, inputs: list, outputs: list[str], opset: int) -> onnx.ModelProto:
    model = g.model(inputs, outputs, opset)
    model.ir_version = 8 if opset <= 18 else 9
    return model


def _x(shape: list, elem: int = F, name: str = "x") -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, shape)


def windows(rng: random.Random, opsets: tuple = (11, 12, 13, 17, 18, 19, 21)) -> Made:
    """Conv, ConvTranspose, MaxPool, AveragePool or LpPool over 1 to 3 spatial axes, with
    the attributes the opset has (MaxPool's dilations and ceil_mode from 10)."""
    op = rng.choice(["Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool"])
    spatial = rng.choice([1, 2, 2, 3])
    opset = rng.choice(opsets)
    ks = [rng.randint(1, 4) for _ in range(spatial)]
    attrs: dict = {"kernel_shape": ks}
    if rng.random() < 0.7:
        attrs["strides"] = [rng.randint(1, 3) for _ in range(spatial)]
    dilated = op in ("Conv", "ConvTranspose") or op == "MaxPool" and opset >= 10 \
        or op == "AveragePool" and opset >= 19
    if dilated and rng.random() < 0.5:
        attrs["dilations"] = [rng.randint(1, 3) for _ in range(spatial)]
    pad = rng.random()
    if pad < 0.4:
        attrs["pads"] = [rng.randint(0, k - 1 if op != "Conv" else 3) for k in ks * 2]
    elif pad < 0.7:
        attrs["auto_pad"] = rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID", "NOTSET"])
    if op in ("MaxPool", "AveragePool") and opset >= 10 and rng.random() < 0.5:
        attrs["ceil_mode"] = 1
    if op == "AveragePool" and rng.random() < 0.3:
        attrs["count_include_pad"] = 1
    if op == "ConvTranspose" and rng.random() < 0.4:
        strides = attrs.get("strides", [1] * spatial)
        dil = attrs.get("dilations", [1] * spatial)
        attrs["output_padding"] = [rng.randint(0, max(0, max(s, d) - 1))
                                   for s, d in zip(strides, dil, strict=True)]
    spatial_dims, names = _dims(rng, spatial, low=1)
    # a fixed size the window may not fit: onnxruntime gives it no position (an empty
    # output), which kantensor refuses at every size; named sizes try small ones
    spatial_dims = [d + 9 if isinstance(d, int) else d for d in spatial_dims]
    batch = rng.choice(["n", 1, 2])
    if batch == "n":
        names["n"] = [1, 2, 3, 4, 5]
    g = Graph(rng.randrange(1000))
    inputs = ["x"]
    if op in ("Conv", "ConvTranspose"):
        group = rng.choice([1, 1, 2])
        cin, cout = 2 * group, 3 * group if op == "Conv" else 3
        w = [cout, cin // group, *ks] if op == "Conv" else [cin, cout, *ks]
        inputs.append(g.weight(*w))
        if rng.random() < 0.5:
            inputs.append(g.weight(cout if op == "Conv" else cout * group))
        attrs["group"] = group
    else:
        cin = 3
    y = g.op(op, *inputs, **attrs)
    return _model(g, [_x([batch, cin, *spatial_dims])], [y], opset), names


REDUCTIONS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
              "ReduceL2", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin"]


def reductions(rng: random.Random, opsets: tuple = (11, 13, 17, 18, 20)) -> Made:
    """A reduction with axes (an attribute before the op took them as an input) negative
    or not, keepdims and noop_with_empty_axes drawn, or an arg reduction."""
    op = rng.choice(REDUCTIONS)
    opset = rng.choice(opsets)
    rank = rng.randint(1, 4)
    shape, names = _dims(rng, rank, low=1 if op.startswith("Arg") else 0)
    g = Graph()
    attrs: dict = {}
    if rng.random() < 0.7:
        attrs["keepdims"] = rng.randint(0, 1)
    if op.startswith("Arg"):
        attrs["axis"] = rng.randint(-rank, rank - 1)
        if opset >= 12 and rng.random() < 0.3:
            attrs["select_last_index"] = 1
        y = g.op(op, "x", **attrs)
        return _model(g, [_x(shape)], [y], opset), names
    axes = rng.sample([a - rank * rng.randint(0, 1) for a in range(rank)], rng.randint(0, rank))
    as_input = opset >= 18 or op == "ReduceSum" and opset >= 13
    inputs = ["x"]
    if as_input:
        if axes or rng.random() < 0.5:
            inputs.append(g.const(axes))
        if rng.random() < 0.3:
            attrs["noop_with_empty_axes"] = 1
    elif axes:
        attrs["axes"] = axes
    y = g.op(op, *inputs, **attrs)
    return _model(g, [_x(shape)], [y], opset), names


def transposes(rng: random.Random) -> Made:
    rank = rng.randint(0, 5)
    shape, names = _dims(rng, rank)
    g = Graph()
    perm = list(range(rank))
    rng.shuffle(perm)
    y = g.op("Transpose", "x", **({"perm": perm} if rank and rng.random() < 0.8 else {}))
    return _model(g, [_x(shape)], [y], rng.choice([11, 13, 21])), names


BOUNDS = [0, 1, 2, 3, -1, -2, -3, 5, -5, 40, -40, BIG, -BIG - 1, 2**31 - 1, -(2**31)]


def slices(rng: random.Random, opsets: tuple = (9, 10, 11, 13, 18)) -> Made:
    """Slice with bounds past either end, negative steps and axes; the end sometimes a
    size of another input (``x[:, :y.size(1)]``), or the attribute form of opset 9."""
    rank = rng.randint(1, 4)
    shape, names = _dims(rng, rank)
    count = rng.randint(1, rank)
    axes = rng.sample(range(rank), count)
    axes = [a - rank if rng.random() < 0.4 else a for a in axes]
    starts = [rng.choice(BOUNDS) for _ in axes]
    ends = [rng.choice(BOUNDS) for _ in axes]
    steps = [rng.choice([1, 1, 1, 2, 3, -1, -1, -2, -3]) for _ in axes]
    g = Graph()
    opset = rng.choice(opsets)
    inputs = [_x(shape)]
    if opset < 10:
        y = g.op("Slice", "x", starts=starts, ends=ends,
                 **({"axes": axes} if rng.random() < 0.7 or count < rank else {}))
        return _model(g, inputs, [y], opset), names
    if rng.random() < 0.4:  # an end from a size: a Shape of another input, sliced
        other, more = _dims(rng, 2)
        names.update({f"o{k}": v for k, v in more.items()})
        other = [f"o{d}" if isinstance(d, str) else d for d in other]
        inputs.append(_x(other, name="z"))
        size = g.op("Slice", g.op("Shape", "z"), g.const([1]), g.const([2]))
        pieces = [size if i == 0 else g.const([e]) for i, e in enumerate(ends)]
        end = pieces[0] if len(pieces) == 1 else g.op("Concat", *pieces, axis=0)
        if steps[0] < 0:
            steps[0] = -steps[0]
    else:
        end = g.const(ends)
    args = ["x", g.const(starts), end]
    if rng.random() < 0.8 or count < rank or any(s != 1 for s in steps):
        args.append(g.const(axes))
        if rng.random() < 0.7 or any(s != 1 for s in steps):
            args.append(g.const(steps))
    y = g.op("Slice", *args)
    return _model(g, inputs, [y], opset), names


def gathers(rng: random.Random, opsets: tuple = (11, 13, 21)) -> Made:
    """Gather with constant indices (negative ones, a 0-d index, an empty one), on data
    or on a Shape (the exporters' ``x.size(-1)``), the result used as a Reshape target."""
    rank = rng.randint(1, 3)
    shape, names = _dims(rng, rank, low=3)
    g = Graph()
    axis = rng.randint(-rank, rank - 1)
    kind = rng.random()
    if kind < 0.3:
        index = g.const(rng.randint(-3, 2))
    elif kind < 0.4:
        index = g.const(np.zeros((0,), np.int64))
    else:
        index = g.const([rng.randint(-3, 2) for _ in range(rng.randint(1, 3))])
    y = g.op("Gather", "x", index, axis=axis)
    outputs = [y]
    if rng.random() < 0.5:  # on the shape: x.size(i) as a target
        sizes = g.op("Gather", g.op("Shape", "x"), g.const([rng.randint(-rank, rank - 1)
                                                               for _ in range(2)]), axis=0)
        outputs.append(g.op("Expand", g.const(1.0, np.float32), sizes))
    return _model(g, [_x(shape)], outputs, rng.choice(opsets)), names


def expands(rng: random.Random) -> Made:
    """Expand to a target with 1s (kept sizes), larger sizes, more axes, or sizes taken
    from the input's Shape."""
    rank = rng.randint(0, 3)
    shape, names = _dims(rng, rank)
    g = Graph()
    out_rank = rank + rng.randint(0, 2)
    parts: list = []
    for i in range(out_rank):
        j = i - (out_rank - rank)
        roll = rng.random()
        if j >= 0 and roll < 0.3:
            parts.append(g.op("Gather", g.op("Shape", "x"), g.const([j]), axis=0))
        elif roll < 0.7 or j >= 0 and shape[j] != 1:
            parts.append(1)
        else:
            parts.append(rng.choice([2, 3]))
    if all(isinstance(p, int) for p in parts):
        target = g.const(parts)
    else:
        target = g.op("Concat", *[g.const([p]) if isinstance(p, int) else p for p in parts],
                      axis=0)
    y = g.op("Expand", "x", target)
    return _model(g, [_x(shape)], [y], rng.choice([8, 13])), names


def reshapes(rng: random.Random) -> Made:
    """Reshape with 0 (copy), -1 (the rest), sizes from the input's Shape (products of
    two), and allowzero."""
    rank = rng.randint(1, 4)
    shape, names = _dims(rng, rank)
    g = Graph()
    opset = rng.choice([11, 13, 14, 19, 21])
    # allowzero: a 0 is a size, and with a -1 the spec calls the shape invalid (a size
    # that is 0 at run time makes it so: onnxruntime then gives a -1 of its choosing)
    allowzero = opset >= 14 and rng.random() < 0.3
    sizes = g.op("Shape", "x")
    parts: list = []
    i = 0
    used_minus = False
    while i < rank:
        roll = rng.random()
        if roll < 0.3 and len(parts) == i and not allowzero:
            parts.append(0)
            i += 1
        elif roll < 0.5 and i + 1 < rank:
            a = g.op("Gather", sizes, g.const([i]), axis=0)
            b = g.op("Gather", sizes, g.const([i + 1]), axis=0)
            parts.append(g.op("Mul", a, b))
            i += 2
        elif roll < 0.7 and not used_minus and not allowzero:
            parts.append(-1)
            used_minus = True
            i = rank
        else:
            parts.append(g.op("Gather", sizes, g.const([i]), axis=0))
            i += 1
        if rng.random() < 0.15:
            parts.append(1)
    if all(isinstance(p, int) for p in parts):
        target = g.const(parts)
    else:
        target = g.op("Concat", *[g.const([p]) if isinstance(p, int) else p for p in parts],
                      axis=0)
    y = g.op("Reshape", "x", target, **({"allowzero": 1} if allowzero else {}))
    return _model(g, [_x(shape)], [y], opset), names


def splits(rng: random.Random, opsets: tuple = (11, 13, 18, 21)) -> Made:
    """Split into given sizes (an attribute before opset 13, an input after) along a
    fixed axis, or equal parts (num_outputs from opset 18, rounded up) along any."""
    rank = rng.randint(1, 3)
    shape, names = _dims(rng, rank, low=1)
    axis = rng.randint(-rank, rank - 1)
    opset = rng.choice(opsets)
    g = Graph()
    roll = rng.random()
    if roll < 0.5:
        parts = [rng.randint(0, 3) for _ in range(rng.randint(1, 3))]
        shape[axis] = sum(parts)
        if opset < 13:
            ys = g.op("Split", "x", outputs=len(parts), axis=axis, split=parts)
        else:
            ys = g.op("Split", "x", g.const(parts), outputs=len(parts), axis=axis)
    elif roll < 0.75 and opset >= 18:
        n = rng.randint(1, 4)
        ys = g.op("Split", "x", outputs=n, axis=axis, num_outputs=n)
    else:
        n = rng.randint(1, 3)  # as many parts as outputs (num_outputs from opset 18)
        if isinstance(shape[axis], int):
            shape[axis] = n * rng.randint(1, 3)
        else:
            names[shape[axis]] = [n * v for v in range(1, 9)]
        ys = g.op("Split", "x", outputs=n, axis=axis,
                  **({"num_outputs": n} if opset >= 18 else {}))
    ys = ys if isinstance(ys, list) else [ys]
    return _model(g, [_x(shape)], ys, opset), names


def pads(rng: random.Random, opsets: tuple = (2, 11, 13, 18, 19, 21)) -> Made:
    """Pad in each mode, pads negative (cropping) where the mode allows, pads as an
    attribute (opset 2..10) or an input, axes (opset 18)."""
    rank = rng.randint(1, 4)
    opset = rng.choice(opsets)
    mode = rng.choice(["constant", "reflect", "edge"] + (["wrap"] if opset >= 19 else []))
    shape, names = _dims(rng, rank, low=4 if mode != "constant" else 0)
    axes = list(range(rank))
    if opset >= 18 and rng.random() < 0.5:
        axes = sorted(rng.sample(axes, rng.randint(1, rank)))
        axes = [a - rank if rng.random() < 0.5 else a for a in axes]
    low = -2 if mode == "constant" and min(names and [min(v) for v in names.values()]
                                           or [4]) >= 4 else 0
    amounts = [rng.randint(low, 3) for _ in range(2 * len(axes))]
    g = Graph()
    if opset < 11:
        y = g.op("Pad", "x", pads=amounts, mode=mode)
    else:
        args = ["x", g.const(amounts)]
        if len(axes) != rank:
            args += ["", g.const(axes)]
        y = g.op("Pad", *args, mode=mode)
    return _model(g, [_x(shape)], [y], opset), names


def resizes(rng: random.Random) -> Made:
    """Resize by scales (floats; the output floor(size * scale)) or to sizes, over all
    axes or (opset 18) the last two, keep_aspect_ratio_policy drawn."""
    opset = rng.choice([11, 13, 18, 19])
    spatial, names = _dims(rng, 2, low=1)
    batch = rng.choice([1, 2, "n"])
    if batch == "n":
        names["n"] = [1, 2, 3, 4]
    g = Graph()
    attrs: dict = {"mode": rng.choice(["nearest", "linear"])}
    some = opset >= 18 and rng.random() < 0.5
    if some:
        attrs["axes"] = [2, 3] if rng.random() < 0.5 else [-2, -1]
    empty = g.const(np.zeros(0), np.float32)
    roi = "" if opset >= 13 else empty
    if rng.random() < 0.5:
        scales = [rng.choice([0.5, 1.5, 2.0, 0.75, 3.0, 0.33]) for _ in range(2)]
        y = g.op("Resize", "x", roi, g.const(([] if some else [1.0, 1.0]) + scales,
                                             np.float32), **attrs)
    else:
        if batch == "n" and not some:
            batch = 2
            del names["n"]
        target = ([] if some else [batch, 3]) + [rng.randint(1, 9) for _ in range(2)]
        # (onnxruntime 1.32 ignores the policy, and the sizes, where axes are negative:
        # [-2, -1] with not_smaller keeps the input's size; [2, 3] resizes)
        if opset >= 18 and rng.random() < 0.5 and attrs.get("axes") != [-2, -1]:
            attrs["keep_aspect_ratio_policy"] = rng.choice(["not_larger", "not_smaller"])
        y = g.op("Resize", "x", roi, "" if opset >= 13 else empty, g.const(target), **attrs)
    return _model(g, [_x([batch, 3, *spatial])], [y], opset), names


def topks(rng: random.Random, opsets: tuple | None = None) -> Made:
    """TopK with k a constant or a size of the input (``x.size(d)``, sliced from its
    Shape), along a negative or positive axis; at ``opsets`` before 10, k a constant
    attribute."""
    rank = rng.randint(1, 3)
    shape, names = _dims(rng, rank, low=1)
    axis = rng.randint(-rank, rank - 1)
    g = Graph()
    if opsets is not None:
        ys = g.op("TopK", "x", outputs=2, axis=axis, k=rng.randint(0, 3))
        return _model(g, [_x(shape)], ys, rng.choice(opsets)), names
    if rng.random() < 0.5:
        k = g.op("Slice", g.op("Shape", "x"), g.const([axis]), g.const([axis + 1 or BIG]))
    else:
        k = g.const([1])
    ys = g.op("TopK", "x", k, outputs=2, axis=axis,
              **({"largest": 0} if rng.random() < 0.3 else {}))
    return _model(g, [_x(shape)], ys, rng.choice([10, 11, 24])), names


EQUATIONS = ["ij,jk->ik", "bij,bjk->bik", "ij->ji", "i,j->ij", "ij->i", "ij->", "ii->i",
             "...ij,...jk->...ik", "bhqd,bhkd->bhqk", "ij,jk", "bn,anm,bm->ba",
             "i,i->", "...i->...", "ab...,b->a..."]


def einsums(rng: random.Random) -> Made:
    """Einsum of exporters' equations over inputs whose letters share named sizes."""
    eq = rng.choice(EQUATIONS)
    lhs = eq.split("->")[0].split(",")
    letters: dict[str, object] = {}
    names: dict[str, list[int]] = {}
    ell = [rng.choice(["e", 2]) for _ in range(rng.randint(0, 2))]
    if "e" in ell:
        names["e"] = [1, 2, 3, 4, 5]
    inputs = []
    for i, term in enumerate(lhs):
        shape: list = []
        for ch in term.replace("...", "."):
            if ch == ".":
                shape += ell
                continue
            if ch not in letters:
                if rng.random() < 0.7:
                    letters[ch] = f"s{ch}"
                    names[f"s{ch}"] = rng.sample(range(0, 9), 6)
                else:
                    letters[ch] = rng.randint(1, 4)
            shape.append(letters[ch])
        inputs.append(_x(shape, name=string.ascii_lowercase[23 + i - 26 * (i > 2)]))
    g = Graph()
    y = g.op("Einsum", *[v.name for v in inputs], equation=eq)
    return _model(g, inputs, [y], rng.choice([12, 13, 21])), names


MAKERS: dict[str, Callable[[random.Random], Made]] = {
    f.__name__: f for f in (windows, reductions, transposes, slices, gathers, expands,
                            reshapes, splits, pads, resizes, topks, einsums)}
#: The same at the older opsets (7 on, the oldest onnxruntime runs; Gather's from 8,
#: where its maker's Expand begins), where the ops have older schemas: MaxPool-1 and 8,
#: AveragePool-7, LpPool-2, ConvTranspose-1, ReduceX-1, ArgMax-1, Gather-1, Split-2,
#: Slice-1, Pad-2 and TopK-1 (their attribute forms).
MAKERS |= {
    "windows_old": partial(windows, opsets=(7, 8, 9, 10)),
    "reductions_old": partial(reductions, opsets=(7, 8, 9, 10)),
    "gathers_old": partial(gathers, opsets=(8, 9, 10)),
    "splits_old": partial(splits, opsets=(7, 8, 9, 10)),
    "slices_old": partial(slices, opsets=(7, 8, 9)),
    "pads_old": partial(pads, opsets=(7, 8, 9, 10)),
    "topks_old": partial(topks, opsets=(7, 8, 9)),
}


def named(model: onnx.ModelProto) -> set[str]:
    """The sizes the model's inputs name."""
    return {d.dim_param for v in model.graph.input
            for d in v.type.tensor_type.shape.dim if d.HasField("dim_param")}


def accepted(model: onnx.ModelProto, candidates: dict[str, list[int]],
             rng: random.Random, want: int = 3, tries: int = 12,
             keep: Callable[[dict[str, int]], bool] | None = None,
             refused: list[dict[str, int]] | None = None) -> list[dict[str, int]]:
    """Up to ``want`` assignments of the names the inputs have, every name differing
    between any two, each one onnxruntime runs the model at (its refusals and crashes
    dropped, and appended to ``refused`` when given) and ``keep`` keeps."""
    out: list[dict[str, int]] = []
    probe = sj.with_every_value(model, sj.values_of(model))
    candidates = {n: v for n, v in candidates.items() if n in named(model)}
    for _ in range(tries):
        if len(out) == want:
            break
        sizes = {n: rng.choice([v for v in vs if all(a[n] != v for a in out)] or vs)
                 for n, vs in candidates.items()}
        if any(all(a[n] == sizes[n] for n in sizes) for a in out) and sizes:
            continue
        if any(any(a[n] == sizes[n] for n in sizes) for a in out):
            continue
        if keep is not None and not keep(sizes):
            continue
        got = ortrun.run(probe, sj.concrete_inputs(model, sizes))
        if not isinstance(got, ortrun.Refusal):
            out.append(sizes)
        elif refused is not None:
            refused.append(sizes)
    return out
