"""Random ONNX models for the differential harness (tests/test_onnx_differential.py).

A model is a chain of nodes on one input with named sizes, built the way exporters build
them: an image path (N, C, H, W) of Conv (groups, strides, pads, dilations, biases), max,
average and Lp pools (ceil mode, pads), Batch, Instance and Group normalisation, Relu,
an Add of a per-channel constant, global pools, then Flatten and a MatMul, or a sequence
path (B, S, D) of MatMul, bias Add, LayerNormalization, Reshape, Transpose and position
embeddings (a buffer of ids sliced to the sequence's length, as BERT is exported). Weights
are initializers whose sizes usually fit the chain and sometimes do not (a weight of
other channels, a window larger than small inputs), so that both sides of every tie are
drawn. Every node's output is a graph output, so onnxruntime's intermediate shapes are
compared too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np
from onnx import ModelProto, TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


@dataclass
class Chain:
    """A model in the making: its nodes, initializers, and what it knows of the value's
    channels (None: the input's named size)."""

    rng: random.Random
    names: tuple[str, ...]
    nodes: list = field(default_factory=list)
    inits: list = field(default_factory=list)
    channels: int | None = None
    ties: dict[str, set[int]] = field(default_factory=dict)  # a name: sizes that fit it
    last: str = "x"
    int64: set[str] = field(default_factory=set)  # the node outputs that are int64

    def weight(self, shape: tuple[int, ...]) -> str:
        name = f"w{len(self.inits)}"
        values = np.random.default_rng(len(self.inits)).random(shape) - 0.5
        self.inits.append(numpy_helper.from_array(values.astype(np.float32), name))
        return name

    def ints(self, values: list[int]) -> str:
        name = f"i{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.array(values, np.int64), name))
        return name

    def add(self, op: str, inputs: list[str], **attrs) -> str:
        out = f"v{len(self.nodes)}"
        self.nodes.append(helper.make_node(op, [self.last, *inputs], [out],
                                           name=f"{op.lower()}{len(self.nodes)}", **attrs))
        self.last = out
        return out

    def cin(self) -> int:
        """The channels a weight is made for: the chain's, drawn for the input's named
        size (a tie), or now and then other ones (a mismatch)."""
        if self.channels is None:
            self.channels = self.rng.choice((2, 3, 4, 6))
            self.ties.setdefault("C", set()).add(self.channels)
        if self.rng.random() < 0.1:
            return self.channels + self.rng.choice((1, 2))
        return self.channels


def _image_step(chain: Chain) -> None:
    rng = chain.rng
    kind = rng.choice(("conv", "conv", "pool", "norm", "relu", "add"))
    if kind == "conv":
        cin = chain.cin()
        group = rng.choice([g for g in (1, 2) if cin % g == 0])
        m = group * rng.choice((1, 2, 3))
        k = rng.choice((1, 2, 3, 5))
        attrs = {"strides": [rng.choice((1, 2))] * 2}
        if group > 1:
            attrs["group"] = group
        if rng.random() < 0.5:
            attrs["pads"] = [rng.choice((0, 1, 2))] * 4
        if rng.random() < 0.2:
            attrs["dilations"] = [2, 2]
        if rng.random() < 0.2:
            attrs = {"auto_pad": rng.choice(("SAME_UPPER", "VALID")),
                     "strides": attrs["strides"], **({"group": group} if group > 1 else {})}
        inputs = [chain.weight((m, cin // group, k, k))]
        if rng.random() < 0.5:
            inputs.append(chain.weight((m if rng.random() < 0.9 else m + 1,)))
        chain.add("Conv", inputs, **attrs)
        chain.channels = m
    elif kind == "pool":
        op = rng.choice(("MaxPool", "AveragePool", "LpPool"))
        k = rng.choice((2, 3))
        attrs = {"kernel_shape": [k, k], "strides": [rng.choice((1, 2))] * 2}
        if rng.random() < 0.4:
            attrs["pads"] = [rng.choice((0, 1))] * 4
        if op != "LpPool" and rng.random() < 0.4:
            attrs["ceil_mode"] = 1
        chain.add(op, [], **attrs)
    elif kind == "norm":
        op = rng.choice(("BatchNormalization", "InstanceNormalization", "GroupNormalization"))
        c = chain.cin()
        if op == "BatchNormalization":
            chain.add(op, [chain.weight((c,)) for _ in range(2)]
                      + [chain.weight((c,)) for _ in range(2)])
        elif op == "InstanceNormalization":
            chain.add(op, [chain.weight((c,)), chain.weight((c,))])
        else:
            groups = rng.choice([g for g in (1, 2, 3, 4) if c % g == 0] + [4])
            chain.add(op, [chain.weight((c,)), chain.weight((c,))], num_groups=groups)
    elif kind == "relu":
        chain.add("Relu", [])
    else:  # a per-channel constant, broadcast
        chain.add("Add", [chain.weight((1, chain.cin(), 1, 1))])


def _image(chain: Chain, steps: int) -> None:
    for _ in range(steps):
        _image_step(chain)
    if chain.rng.random() < 0.6:
        chain.add(chain.rng.choice(("GlobalAveragePool", "GlobalMaxPool")), [])
        chain.add("Flatten", [])
        chain.add("MatMul", [chain.weight((chain.cin(), chain.rng.choice((3, 5))))])


def _sequence(chain: Chain, steps: int) -> None:
    rng = chain.rng
    width: int | None = None  # D, named, until a weight ties it
    for _ in range(steps):
        kind = rng.choice(("matmul", "bias", "norm", "reshape", "transpose", "positions"))
        if width is None:
            width = rng.choice((4, 6, 8))
            chain.ties.setdefault("D", set()).add(width)
        wrong = width + 1 if rng.random() < 0.1 else width
        if kind == "matmul":
            out = rng.choice((4, 6, 8))
            chain.add("MatMul", [chain.weight((wrong, out))])
            width = out
        elif kind == "bias":
            chain.add("Add", [chain.weight((wrong,))])
        elif kind == "norm":
            shapes = [(wrong,), (1,), (1, wrong)]
            chain.add("LayerNormalization", [chain.weight(rng.choice(shapes))
                                             for _ in range(rng.choice((1, 2)))], axis=-1)
        elif kind == "reshape":  # (B, S, D) -> (B, S, D/2, 2) -> (B, S, D)
            if width % 2 == 0:
                chain.add("Reshape", [chain.ints([0, 0, width // 2, 2])])
                chain.add("Reshape", [chain.ints([0, 0, -1])])
        elif kind == "positions":
            _positions(chain, rng.choice((4, 7, 10)), wrong)
        else:
            chain.add("Transpose", [], perm=[0, 1, 2])
            chain.add("Softmax", [], axis=-1)


def _positions(chain: Chain, rows: int, width: int) -> None:
    """Position embeddings as exported transformers add them: a buffer of ``rows`` ids
    sliced ``[:, :S]`` (S read off the value's Shape), looked up in a table of ``rows``
    rows, added to the value: valid for S <= rows only."""
    value = chain.last
    k = len(chain.nodes)
    one, zero = chain.ints([1]), chain.ints([0])
    index = f"i{len(chain.inits)}"
    chain.inits.append(numpy_helper.from_array(np.array(1, np.int64), index))
    ids = chain.ints([list(range(rows))])
    table = chain.weight((rows, width))
    names = [f"v{k}", f"v{k + 1}", f"v{k + 2}", f"v{k + 3}", f"v{k + 4}", f"v{k + 5}"]
    chain.nodes += [
        helper.make_node("Shape", [value], [names[0]], name=f"shape{k}"),
        helper.make_node("Gather", [names[0], index], [names[1]], axis=0, name=f"seq{k}"),
        helper.make_node("Unsqueeze", [names[1], zero], [names[2]], name=f"unsqueeze{k}"),
        helper.make_node("Slice", [ids, zero, names[2], one], [names[3]], name=f"slice{k}"),
        helper.make_node("Gather", [table, names[3]], [names[4]], axis=0, name=f"lookup{k}"),
        helper.make_node("Add", [value, names[4]], [names[5]], name=f"positions{k}"),
    ]
    chain.last = names[5]
    chain.int64.update(names[:4])


def random_model(rng: random.Random) -> tuple[ModelProto, tuple[str, ...], dict]:
    """A random chain model, the names of its input's sizes, and the sizes that fit the
    weights' ties (``{"C": {3}}``: the input's channels must be 3)."""
    image = rng.random() < 0.7
    names = ("N", "C", "H", "W") if image else ("B", "S", "D")
    chain = Chain(rng, names)
    (_image if image else _sequence)(chain, rng.randint(1, 5))
    inputs = [helper.make_tensor_value_info("x", F, list(names))]
    outputs = [helper.make_tensor_value_info(o, TensorProto.INT64 if o in chain.int64 else F,
                                             None) for n in chain.nodes for o in n.output]
    graph = helper.make_graph(chain.nodes, "chain", inputs, outputs, chain.inits)
    opset = 21
    return (helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]),
            names, chain.ties)


def assignments(rng: random.Random, names: tuple[str, ...], ties: dict, count: int
                ) -> list[dict[str, int]]:
    """``count`` assignments of all-distinct sizes to ``names``: a tied name takes one
    of its fitting sizes half of the time (else any), the spatial ones run from 1 to 16."""
    out = []
    for _ in range(count):
        for _attempt in range(100):
            sizes = {}
            for name in names:
                fits = sorted(ties.get(name, ()))
                if fits and rng.random() < 0.6:
                    sizes[name] = rng.choice(fits)
                elif name in ("N", "B"):
                    sizes[name] = rng.randint(1, 3)
                elif name in ("C", "D"):
                    sizes[name] = rng.randint(1, 9)
                else:
                    sizes[name] = rng.randint(1, 16)
            if len(set(sizes.values())) == len(sizes):
                out.append(sizes)
                break
    return out


def fixed(model: ModelProto, sizes: dict[str, int]) -> ModelProto:
    """A copy of ``model`` whose input's named sizes are ``sizes``."""
    m = ModelProto()
    m.CopyFrom(model)
    for d in m.graph.input[0].type.tensor_type.shape.dim:
        d.dim_value = sizes[d.dim_param]
    return m
