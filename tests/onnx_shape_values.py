"""The shape values of the random graphs of tests/onnx_shape_graphs.py: a graph in the
making (:class:`Graph`: its pools of int64 scalars and vectors of sizes, bools and data,
each int value with a bound on its magnitude) and the steps that read sizes and compute
on them as exporters do (``Shape`` with start and end, ``Size``, ``Gather``/``Slice`` of
shapes, Add, Sub, Mul, Div, Mod (Python's and C's fmod), Neg, Abs, Sign, Max, Min, Where,
Equal, Less, Greater, Not, Cast to int32, bool and float and back, torchscript's float
floor division (Floor, Ceil, Round), Concat, Unsqueeze, Squeeze). Integer divisors are
never zero (a constant, or ``Max(d, 1)``).
"""


from __future__ import annotations

import math
import random

import numpy as np
from onnx import TensorProto, helper, numpy_helper

I64, I32, F, BOOL = TensorProto.INT64, TensorProto.INT32, TensorProto.FLOAT, TensorProto.BOOL
NUMPY = {I64: np.int64, I32: np.int32, F: np.float32, BOOL: np.bool_}
MAXSIZE = 7  # the largest size an assignment gives (tests/test_onnx_shape_differential.py)
MAXDIM, MAXCOUNT = 64, 4096  # the largest axis and element count a data op may make
BIG = 2**63 - 1
NAMES = ("N", "S", "D", "K")


class Graph:
    """A graph in the making. Pools of values: int64 scalars (``scalars``: name ->
    bound of the magnitude), int64 vectors of known length (``vectors``: name ->
    (length, bound)), bool scalars (``bools``), data (``data``: name -> bounds of its
    axes; its element type in ``types``)."""

    def __init__(self, rng: random.Random, names: tuple[str, ...]):
        self.rng, self.names = rng, names
        self.nodes: list = []
        self.inits: list = []
        self.types: dict[str, int] = {"x": F}
        self.scalars: dict[str, int] = {}
        self.vectors: dict[str, tuple[int, int]] = {}
        self.bools: list[str] = []
        self.data: dict[str, tuple[int, ...]] = {"x": (MAXSIZE,) * len(names)}
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"

    def const(self, values, dtype: int = I64) -> str:
        """A constant: an initializer or (as torchscript exports) a Constant node."""
        array = np.array(values, NUMPY[dtype])
        if self.rng.random() < 0.5:
            name = self.fresh("c")
            self.inits.append(numpy_helper.from_array(array, name))
            return name
        return self.node("Constant", [], dtype, value=numpy_helper.from_array(array, "k"))

    def node(self, op: str, inputs: list[str], dtype: int, **attrs) -> str:
        out = self.fresh("v")
        self.nodes.append(helper.make_node(op, inputs, [out], name=f"{op.lower()}_{out}",
                                           **attrs))
        self.types[out] = dtype
        return out

    # picks -----------------------------------------------------------------------
    def scalar(self) -> tuple[str, int]:
        """An int64 scalar of sizes (a new one now and then) and its bound."""
        if not self.scalars or self.rng.random() < 0.25:
            read_size(self)
        name = self.rng.choice(sorted(self.scalars))
        return name, self.scalars[name]

    def vector(self, least: int = 0) -> tuple[str, int, int] | None:
        fits = sorted(v for v, (n, _) in self.vectors.items() if n >= least)
        if not fits:
            return None
        name = self.rng.choice(fits)
        return (name, *self.vectors[name])

    def tensor(self, floats: bool = False, least: int = 0) -> str | None:
        fits = sorted(d for d, dims in self.data.items() if len(dims) >= least
                      and (not floats or self.types[d] == F))
        return self.rng.choice(fits) if fits else None

    def unsqueezed(self, name: str) -> str:
        return self.node("Unsqueeze", [name, self.const([0])], I64)

    def entries(self, count: int, small: tuple[int, ...], bound: int = MAXDIM
                ) -> tuple[str, list[int]]:
        """A vector of ``count`` entries, each a scalar of sizes (within ``bound``) or
        one of the constants ``small``, as exporters Concat them; and the entries'
        bounds."""
        parts, bounds = [], []
        for _ in range(count):
            name, b = self.scalar()
            if b <= bound and self.rng.random() < 0.6:
                parts.append(self.unsqueezed(name))
                bounds.append(b)
            else:
                value = self.rng.choice(small)
                parts.append(self.const([value]))
                bounds.append(abs(value))
        if len(parts) == 1 and self.rng.random() < 0.5:
            return parts[0], bounds
        return self.node("Concat", parts, I64, axis=0), bounds

    def put(self, name: str, dims: tuple[int, ...]) -> None:
        if all(d <= MAXDIM for d in dims) and math.prod(dims) <= MAXCOUNT:
            self.data[name] = dims


def fits(dims) -> bool:
    return all(d <= MAXDIM for d in dims) and math.prod(dims) <= MAXCOUNT


# shape values ------------------------------------------------------------------------
def read_shape(g: Graph) -> None:
    d = g.tensor()
    r = len(g.data[d])
    attrs = {}
    if g.rng.random() < 0.4:
        attrs["start"] = g.rng.randint(-r - 1, r)
    if g.rng.random() < 0.3:
        attrs["end"] = g.rng.randint(-r - 1, r + 1)
    length = len(range(r)[slice(attrs.get("start"), attrs.get("end"))])
    g.vectors[g.node("Shape", [d], I64, **attrs)] = (length, max(g.data[d], default=0))


def read_size(g: Graph) -> None:
    if g.rng.random() < 0.2:
        d = g.tensor()
        g.scalars[g.node("Size", [d], I64)] = math.prod(g.data[d])
        return
    found = g.vector(1)
    if found is None:
        read_shape(g)
        found = g.vector(1)
        if found is None:
            g.scalars[g.node("Size", ["x"], I64)] = MAXSIZE ** len(g.names)
            return
    v, n, b = found
    g.scalars[g.node("Gather", [v, g.const(g.rng.randint(-n, n - 1))], I64, axis=0)] = b


def gather_slice(g: Graph) -> None:
    found = g.vector(1)
    if found is None:
        return read_shape(g)
    v, n, b = found
    if g.rng.random() < 0.5:
        index = [g.rng.randint(-n, n - 1) for _ in range(g.rng.randint(1, 3))]
        g.vectors[g.node("Gather", [v, g.const(index)], I64, axis=0)] = (len(index), b)
        return None
    start = g.rng.choice((0, 1, -1, -2, n, -BIG))
    end = g.rng.choice((n, 1, -1, 2, BIG, -BIG))
    step = g.rng.choice((1, 1, 2, -1))
    inputs = [v, g.const([start]), g.const([end]), g.const([0]), g.const([step])]
    g.vectors[g.node("Slice", inputs, I64)] = (len(range(n)[start:end:step]), b)
    return None


def operand(g: Graph, length: int | None) -> tuple[str, int]:
    """A second int64 operand: a scalar, a constant, or a vector of ``length``."""
    pick = g.rng.random()
    fits = [v for v, (n, _) in g.vectors.items() if n == length]
    if length is not None and fits and pick < 0.3:
        name = g.rng.choice(sorted(fits))
        return name, g.vectors[name][1]
    if pick < 0.7:
        return g.scalar()
    value = g.rng.choice((1, 2, 3, -1, -2))
    return g.const(value), abs(value)


def arith(g: Graph) -> None:
    rng = g.rng
    if g.vectors and rng.random() < 0.4:
        a, length, ab = g.vector()
    else:
        (a, ab), length = g.scalar(), None
    op = rng.choice(("Add", "Sub", "Mul", "Max", "Min", "Div", "Mod", "Neg", "Abs", "Sign"))
    if op in ("Neg", "Abs", "Sign"):
        out, bound = g.node(op, [a], I64), ab if op != "Sign" else 1
    elif op in ("Div", "Mod"):
        if rng.random() < 0.6:
            divisor = rng.choice((2, 3, 4, -2, -3))
            b, bb = g.const(divisor), abs(divisor)
        else:
            s, bb = g.scalar()
            b = g.node("Max", [s, g.const(1)], I64)
        out = g.node(op, [a, b], I64, **({"fmod": rng.choice((0, 1))} if op == "Mod" else {}))
        bound = ab if op == "Div" else bb
    else:
        b, bb = operand(g, length)
        if rng.random() < 0.5:
            a, b = b, a
        out = g.node(op, [a, b], I64)
        bound = ab * bb if op == "Mul" else ab + bb
    if bound > 10**6:
        return
    names = {a, *([b] if op not in ("Neg", "Abs", "Sign") else [])}
    shaped = [g.vectors[n][0] for n in names if n in g.vectors]
    if shaped:
        g.vectors[out] = (shaped[0], bound)
    else:
        g.scalars[out] = bound


def compare(g: Graph) -> None:
    rng = g.rng
    if g.bools and rng.random() < 0.2:
        op = rng.choice(("Not", "And", "Or", "Equal"))
        args = [rng.choice(g.bools)] + ([] if op == "Not" else [rng.choice(g.bools)])
        g.bools.append(g.node(op, args, BOOL))
        return
    a, _ = g.scalar()
    b, _ = operand(g, None)
    op = rng.choice(("Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"))
    g.bools.append(g.node(op, [a, b], BOOL))


def where(g: Graph) -> None:
    if not g.bools:
        return compare(g)
    cond = g.rng.choice(g.bools)
    if g.vectors and g.rng.random() < 0.4:  # Expand's idiom: a -1 in the shape is 1
        v, n, b = g.vector()
        if n:
            ones = g.const([1] * n)
            equal = g.node("Equal", [v, g.const([-1] * n)], BOOL)
            g.vectors[g.node("Where", [equal, ones, v], I64)] = (n, b)
            return None
    (a, ab), (c, cb) = g.scalar(), operand(g, None)
    g.scalars[g.node("Where", [cond, a, c], I64)] = max(ab, cb)
    return None


def cast(g: Graph) -> None:
    rng = g.rng
    vec = bool(g.vectors) and rng.random() < 0.3
    if vec:
        a, length, ab = g.vector()
    else:
        (a, ab), length = g.scalar(), None
    to = rng.choice((I32, F, BOOL, F))
    cast = g.node("Cast", [a], to, to=to)
    if to == F and rng.random() < 0.6:  # torchscript's a // b: Cast, Div, Floor, Cast
        divisor = rng.choice((2.0, 3.0, -2.0, 4.0))
        cast = g.node(rng.choice(("Floor", "Ceil", "Round")),
                      [g.node("Div", [cast, g.const(divisor, F)], F)], F)
    if to == BOOL and not vec:
        g.bools.append(cast)
    back = g.node("Cast", [cast], I64, to=I64)
    bound = 1 if to == BOOL else ab
    if vec:
        g.vectors[back] = (length, bound)
    else:
        g.scalars[back] = bound


def concat(g: Graph) -> None:
    rng = g.rng
    if rng.random() < 0.3:  # Squeeze a one-entry vector (with or without axes)
        found = [v for v, (n, _) in g.vectors.items() if n == 1]
        if found:
            v = rng.choice(sorted(found))
            axes = [g.const([0])] if rng.random() < 0.5 else []
            g.scalars[g.node("Squeeze", [v, *axes], I64)] = g.vectors[v][1]
            return
    parts, length, bound = [], 0, 0
    for _ in range(rng.randint(1, 3)):
        found = g.vector() if rng.random() < 0.4 else None
        if found is None:
            s, b = g.scalar()
            parts.append(g.unsqueezed(s))
            length, bound = length + 1, max(bound, b)
        else:
            parts.append(found[0])
            length, bound = length + found[1], max(bound, found[2])
    g.vectors[g.node("Concat", parts, I64, axis=0)] = (length, bound)


STEPS = ((read_shape, 2), (read_size, 2), (gather_slice, 2), (arith, 4), (compare, 1),
         (where, 1), (cast, 1), (concat, 1))
