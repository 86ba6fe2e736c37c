"""Random ONNX graphs of shape arithmetic for the differential harness
(tests/test_onnx_shape_differential.py), built the way exporters build them.

One input ``x`` with named sizes; the graph reads its sizes (``Shape`` with start and
end, ``Size``), computes on them (``Gather``/``Slice`` of shapes, Add, Sub, Mul, Div,
Mod, fmod, Neg, Abs, Sign, Max, Min, Where, Equal, Less, Greater, Not, Cast to int64,
int32, bool and float and back, the float floor division torchscript emits, Concat, Unsqueeze,
Squeeze) and uses the results on data (``Reshape`` with 0, -1 and allowzero, ``Expand``
and its ``Where(Equal(shape, -1), 1, shape)`` idiom, ``Tile``, ``Range``,
``ConstantOfShape``, ``Slice`` by computed bounds with negative, clamped and stepped
ones, ``Pad`` by computed pads, ``Gather`` by computed indices, reductions and ``Squeeze``
by a computed axis, ``Trilu``, causal masks by ``Range``/``Unsqueeze``/``LessOrEqual``/
``Where``, ``If`` on a comparison of sizes).
Every node's output is a graph output.

Integer divisors are never zero (a constant, or ``Max(d, 1)``), so onnxruntime never
divides by zero; every int value has a bound on its magnitude (the sizes run to
:data:`MAXSIZE`) and a data op is drawn only where its output stays small.
"""

from __future__ import annotations

import math
import random

import numpy as np
from onnx import ModelProto, helper, numpy_helper

from onnx_shape_values import (
    BIG,
    BOOL,
    I64,
    MAXDIM,
    MAXSIZE,
    NAMES,
    F,
    Graph,
    compare,
    fits,
    read_shape,
)
from onnx_shape_values import STEPS as VALUES


# data ops ------------------------------------------------------------------------------
def _reshape(g: Graph) -> None:
    rng = g.rng
    d = g.tensor()
    dims = g.data[d]
    shapes = [v for v, (n, b) in g.vectors.items() if 1 <= n <= 4 and b <= MAXDIM]
    allowzero = int(rng.random() < 0.15)
    if shapes and rng.random() < 0.3:  # another value's shape, as Reshape(y, Shape(x))
        target = rng.choice(sorted(shapes))
        out = (g.vectors[target][1],) * g.vectors[target][0]
    else:
        parts, out, minus = [], [], False
        for i in range(rng.randint(1, 4)):
            pick = rng.random()
            if pick < 0.2 and i < len(dims):
                parts.append(g.const([0]))
                out.append(dims[i])
            elif pick < 0.4 and not minus:
                parts.append(g.const([-1]))
                out.append(math.prod(dims))
                minus = True
            else:
                s, b = g.scalar()
                if b > MAXDIM:
                    parts.append(g.const([2]))
                    b = 2
                else:
                    parts.append(g.unsqueezed(s))
                out.append(b)
        target = g.node("Concat", parts, I64, axis=0)
    if fits(out):
        g.put(g.node("Reshape", [d, target], g.types[d], allowzero=allowzero), tuple(out))


def _expand(g: Graph) -> None:
    d = g.tensor()
    dims = g.data[d]
    found = g.vector(1)
    if found and found[2] <= MAXDIM and found[1] <= 4 and g.rng.random() < 0.4:
        target, n, b = found
        bounds = [b] * n
    else:
        target, bounds = g.entries(g.rng.randint(max(1, len(dims) - 1), 4), (1, 1, 2, 3))
    out = [max(a, b) for a, b in zip((0,) * (len(bounds) - len(dims)) + dims,
                                     (0,) * (len(dims) - len(bounds)) + tuple(bounds), strict=True)]
    if fits(out):
        g.put(g.node("Expand", [d, target], g.types[d]), tuple(out))


def _tile(g: Graph) -> None:
    d = g.tensor(least=1)
    if d is None:
        return
    dims = g.data[d]
    repeats, bounds = g.entries(len(dims), (1, 2, 1), bound=4)
    out = tuple(a * b for a, b in zip(dims, bounds, strict=True))
    g.put(g.node("Tile", [d, repeats], g.types[d]), out)


def _range(g: Graph) -> None:
    rng = g.rng
    start, sb = g.scalar() if rng.random() < 0.3 else (g.const(rng.choice((0, 0, 1, 2))), 2)
    limit, lb = g.scalar()
    delta = rng.choice((1, 1, 2, -1))
    length = (sb + lb) // abs(delta) + 1
    if length <= MAXDIM:
        g.put(g.node("Range", [start, limit, g.const(delta)], I64), (length,))


def _constant_of_shape(g: Graph) -> None:
    found = g.vector()
    if found is None:
        return read_shape(g)
    v, n, b = found
    if n <= 4 and fits((b,) * n):
        value = numpy_helper.from_array(np.array([1.5], np.float32), "value")
        g.put(g.node("ConstantOfShape", [v], F, value=value), (b,) * n)
    return None


def _slice(g: Graph) -> None:
    rng = g.rng
    d = g.tensor(least=1)
    if d is None:
        return
    dims = g.data[d]
    axes = rng.sample(range(len(dims)), rng.randint(1, len(dims)))
    small = (0, 1, -1, 2, -2, BIG, -BIG)
    starts, _ = g.entries(len(axes), small)
    ends, _ = g.entries(len(axes), small)
    if rng.random() < 0.3:  # a bound counted from the end: -n
        ends = g.node("Neg", [ends], I64)
    inputs = [d, starts, ends]
    if rng.random() < 0.6:
        inputs.append(g.const([a - len(dims) if rng.random() < 0.3 else a for a in axes]))
        if rng.random() < 0.6:
            inputs.append(g.const([rng.choice((1, 1, 2, -1, -2)) for _ in axes]))
    g.put(g.node("Slice", inputs, g.types[d]), dims)


def _pad(g: Graph) -> None:
    d = g.tensor(least=1)
    if d is None:
        return
    dims = g.data[d]
    pads, bounds = g.entries(2 * len(dims), (0, 1, 2, -1), bound=8)
    out = tuple(n + bounds[i] + bounds[i + len(dims)] for i, n in enumerate(dims))
    g.put(g.node("Pad", [d, pads], g.types[d]), out)


def _gather(g: Graph) -> None:
    rng = g.rng
    d = g.tensor(least=1)
    if d is None:
        return
    dims = g.data[d]
    axis = rng.randrange(len(dims))
    ranges = [r for r, rdims in g.data.items() if g.types[r] == I64 and len(rdims) == 1]
    if ranges and rng.random() < 0.3:
        index = rng.choice(sorted(ranges))
        out = dims[:axis] + g.data[index] + dims[axis + 1:]
    else:
        s, _ = g.scalar()
        index = g.node("Neg", [s], I64) if rng.random() < 0.3 else s
        if rng.random() < 0.3:
            index = g.node("Sub", [index, g.const(1)], I64)
        out = dims[:axis] + dims[axis + 1:]
    g.put(g.node("Gather", [d, index], g.types[d], axis=axis - len(dims) * (rng.random() < 0.3)),
          out)


def _reduce(g: Graph) -> None:
    """A reduction (with or without keepdims) or a Squeeze by one axis computed from
    sizes, as exporters compute it: ``Size(Shape(d)) - 1`` (the last axis), a size modulo
    the rank, or a size less a constant (out of range at some sizes); a size that is not
    known when the model is read (cast to int32 and back) is one axis of unknown value,
    one axis fewer without keepdims."""
    rng = g.rng
    d = g.tensor(least=1)
    if d is None:
        return
    dims = g.data[d]
    rank = len(dims)
    squeeze, keepdims = rng.random() < 0.25, rng.randint(0, 1)
    pick = rng.random()
    if pick < 0.3:
        axis = g.node("Sub", [g.node("Size", [g.node("Shape", [d], I64)], I64), g.const(1)],
                      I64)
    else:
        s, _ = g.scalar()
        axis = g.node("Mod", [s, g.const(rank)], I64) if pick < 0.65 else \
            g.node("Sub", [s, g.const(rng.randint(0, 3))], I64)
    axes = g.unsqueezed(axis)
    if squeeze:
        g.put(g.node("Squeeze", [d, axes], g.types[d]), (max(dims),) * (rank - 1))
        return
    op = rng.choice(("ReduceSum", "ReduceMax", "ReduceMean"))
    g.put(g.node(op, [d, axes], g.types[d], keepdims=keepdims),
          dims if keepdims else (max(dims),) * (rank - 1))


def _mask(g: Graph) -> None:
    """A causal mask as exporters build it, and now and then Trilu of a value."""
    rng = g.rng
    d = g.tensor(floats=True, least=2)
    if d is not None and rng.random() < 0.3:
        inputs = [d]
        if rng.random() < 0.6:
            s, _ = g.scalar()
            inputs.append(g.node("Neg", [s], I64) if rng.random() < 0.4 else s)
        g.put(g.node("Trilu", inputs, F, upper=rng.randint(0, 1)), g.data[d])
        return
    (a, ab), (b, bb) = g.scalar(), g.scalar()
    if max(ab, bb) > MAXDIM:
        return
    rows = g.node("Range", [g.const(0), a, g.const(1)], I64)
    cols = g.node("Range", [g.const(0), b, g.const(1)], I64)
    g.put(rows, (ab,))
    g.put(cols, (bb,))
    op = rng.choice(("LessOrEqual", "Less", "GreaterOrEqual"))
    mask = g.node(op, [g.node("Unsqueeze", [cols, g.const([0])], I64),
                       g.node("Unsqueeze", [rows, g.const([1])], I64)], BOOL)
    where = g.node("Where", [mask, g.const(0.0, F), g.const(-1e9, F)], F)
    g.put(where, (ab, bb))
    other = g.tensor(floats=True)
    if rng.random() < 0.5:
        rank = len(g.data[other])
        out = [max(p, q) for p, q in zip((0,) * (rank - 2) + (ab, bb),
                                         (0,) * (2 - rank) + g.data[other], strict=True)]
        if len(g.data[other]) >= 2 and fits(out):
            g.put(g.node("Add", [other, where], F), tuple(out))


def _if(g: Graph) -> None:
    """If on a comparison of sizes: each branch gives a value of its own shape."""
    if not g.bools:
        return compare(g)
    cond = g.rng.choice(g.bools)
    if g.rng.random() < 0.5:
        (a, ab), (b, bb) = g.scalar(), g.scalar()
        dtype, dims = I64, max(ab, bb)
    else:
        floats = sorted(v for v, dims in g.data.items() if g.types[v] == F)
        a, b = g.rng.choice(floats), g.rng.choice(floats)
        if len(g.data[a]) != len(g.data[b]):
            b = a
        dtype, dims = F, tuple(map(max, g.data[a], g.data[b]))
    branches = []
    for i, source in enumerate((a, b)):
        y = f"y_{g.count}_{i}"
        body = helper.make_node("Identity", [source], [y])
        branches.append(helper.make_graph([body], f"branch{i}", [],
                                          [helper.make_tensor_value_info(y, dtype, None)]))
    out = g.node("If", [cond], dtype, then_branch=branches[0], else_branch=branches[1])
    if dtype == I64:
        g.scalars[out] = dims
    else:
        g.put(out, dims)
    return None


STEPS = (*VALUES, (_reshape, 2), (_expand, 1), (_tile, 1), (_range, 1),
         (_constant_of_shape, 1), (_slice, 2), (_pad, 1), (_gather, 1), (_reduce, 1),
         (_mask, 1), (_if, 1))


def random_model(rng: random.Random) -> tuple[ModelProto, tuple[str, ...]]:
    """A random graph of shape arithmetic and the names of its input's sizes."""
    names = NAMES[:rng.randint(1, 4)]
    g = Graph(rng, names)
    steps, weights = zip(*STEPS, strict=True)
    for _ in range(rng.randint(3, 12)):
        rng.choices(steps, weights)[0](g)
    inputs = [helper.make_tensor_value_info("x", F, list(names))]
    outputs = [helper.make_tensor_value_info(o, g.types[o], None)
               for n in g.nodes for o in n.output]
    graph = helper.make_graph(g.nodes, "shapes", inputs, outputs, g.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), names


def assignments(rng: random.Random, names: tuple[str, ...], count: int
                ) -> list[dict[str, int]]:
    """``count`` assignments of all-distinct sizes in ``0..MAXSIZE`` to ``names``: the
    first has a 0, the second a 1 (where there are two)."""
    out = []
    for i in range(count):
        first = [i] if i < min(2, len(names)) else []
        values = first + rng.sample([v for v in range(MAXSIZE + 1) if v not in first],
                                    len(names) - len(first))
        rng.shuffle(values)
        out.append(dict(zip(names, values, strict=True)))
    return out
