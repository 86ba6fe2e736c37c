"""Structure-aware mutations of ONNX models, for the fuzz of ``tests/test_fuzz_onnx.py``.

:func:`mutants` takes valid seed models and returns serialized models, each one to
three random edits of a seed made on the protobuf structure, not on its bytes, so that
they reach the importer and the builders instead of protobuf's decoder: sizes and names
of inputs' dims (huge, negative, blank or unreadable ``dim_param``, ranks past NumPy's),
element types, op types swapped for other supported ones, inputs dropped, added,
swapped or renamed, outputs assigning a name twice, attributes changed in value, kind
and length, initializers whose headers claim more than their data, hostile external
data, shape inputs claiming a huge length, opsets, Constant nodes. Reproducible from a
seed number.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import onnx
from onnx import AttributeProto, TensorProto, helper

from kantensor.onnx import supported

#: Sizes a mutated dim or attribute may take.
HUGE = (0, 1, 2, 3, -1, -2, 7, 64, 65, 1000, 2**31, 2**31 - 1, 2**40, 2**62, 2**63 - 1,
        -(2**63))
#: dim_param texts a mutated dim may take.
PARAMS = ("", " ", "n", "batch", "2*n", "n+1", "n//0", "n%0", "9**9**9", "a b", "(n",
          "x" * 300, "n" * 100_000, "min(n,", "-n", "n-100", "é", "\x00", "seq*seq*seq",
          "(" * 40 + "n" + ")" * 40, "10**30")
#: Attribute names the entries take (a mutant adds one of them to any node).
ATTRIBUTES = ("axis", "axes", "perm", "pads", "strides", "kernel_shape", "dilations",
              "group", "keepdims", "to", "mode", "auto_pad", "ceil_mode", "shape",
              "starts", "ends", "split", "num_outputs", "allowzero", "blocksize", "k",
              "largest", "select_last_index", "transA", "transB", "alpha", "beta",
              "output_padding", "output_shape", "storage_order", "count_include_pad",
              "p", "epsilon", "stash_type", "exclusive", "reverse", "direction",
              "hidden_size", "layout", "batch_dims", "reduction", "value", "dtype")
LOCATIONS = ("../secret.bin", "/etc/passwd", "secret.bin", "", "a/../../b", "\x00x",
             "C:/x", "sub\\x", "." * 300)
ELEM_TYPES = tuple(range(0, 27)) + (99, -1)


def _ints(rng: random.Random) -> list[int]:
    kind = rng.randrange(5)
    if kind == 0:
        return []
    if kind == 1:
        return [rng.choice(HUGE)]
    if kind == 2:
        return [rng.choice(HUGE) for _ in range(rng.randrange(1, 6))]
    if kind == 3:
        return [rng.randrange(-3, 4) for _ in range(rng.choice((2, 4, 8, 70, 1000)))]
    return [rng.randrange(0, 3) for _ in range(rng.randrange(1, 5))]


def _attribute(rng: random.Random, name: str) -> AttributeProto:
    kind = rng.randrange(7)
    if kind == 0:
        return helper.make_attribute(name, rng.choice(HUGE))
    if kind == 1:
        return helper.make_attribute(name, _ints(rng) or [0])
    if kind == 2:
        return helper.make_attribute(name, rng.choice((0.0, -1.5, 1e30, float("nan"))))
    if kind == 3:
        return helper.make_attribute(name, rng.choice(("NOTSET", "SAME_UPPER", "x" * 500,
                                                       "", "linear", "\udcff".encode(
                                                           "utf-8", "surrogatepass"))))
    if kind == 4:
        return helper.make_attribute(name, [1.0, 2.0] * rng.randrange(1, 3))
    if kind == 5:
        t = TensorProto(name="t", data_type=rng.choice(ELEM_TYPES[:20]),
                        dims=_ints(rng)[:3])
        return helper.make_attribute(name, t)
    attr = helper.make_attribute(name, 1)
    attr.type = rng.choice((AttributeProto.GRAPH, AttributeProto.SPARSE_TENSOR,
                            AttributeProto.STRINGS))
    return attr


def _names(g: onnx.GraphProto) -> list[str]:
    return [i.name for i in g.input] + [t.name for t in g.initializer] + \
        [o for n in g.node for o in n.output if o]


def _mutate_dims(rng: random.Random, g: onnx.GraphProto) -> None:
    infos = list(g.input) or list(g.output)
    if not infos:
        return
    t = rng.choice(infos).type
    if t.WhichOneof("value") != "tensor_type":
        return
    tt = t.tensor_type
    kind = rng.randrange(7)
    dims = tt.shape.dim
    if kind == 0 and dims:
        d = rng.choice(dims)
        d.Clear()
        d.dim_value = rng.choice(HUGE)
    elif kind == 1 and dims:
        d = rng.choice(dims)
        d.Clear()
        d.dim_param = rng.choice(PARAMS)
    elif kind == 2:
        for _ in range(rng.choice((1, 1, 1, 10, 70, 1000))):
            dims.add().dim_value = rng.choice((1, 2, 3))
    elif kind == 3 and dims:
        del dims[rng.randrange(len(dims))]
    elif kind == 4:
        tt.ClearField("shape")
    elif kind == 5:
        tt.elem_type = rng.choice(ELEM_TYPES)
    else:
        for d in dims:
            d.Clear()  # neither value nor param: unknown


def _mutate_node(rng: random.Random, g: onnx.GraphProto) -> None:
    if not g.node:
        return
    node = rng.choice(g.node)
    names = _names(g)
    lists = [a for a in node.attribute if a.type == AttributeProto.INTS]
    if lists and rng.randrange(4) == 0:  # one entry more or less (kernel_shape, pads)
        attr = rng.choice(lists)
        if attr.ints and rng.randrange(2):
            del attr.ints[rng.randrange(len(attr.ints))]
        else:
            attr.ints.append(rng.choice((0, 1, 2, -1)))
        return
    kind = rng.randrange(10)
    if kind == 0:
        node.op_type = rng.choice(_OPS)
    elif kind == 1 and node.input:
        del node.input[rng.randrange(len(node.input))]
    elif kind == 2:
        node.input.append(rng.choice([*names, "", "nowhere"]))
    elif kind == 3 and len(node.input) > 1:
        i, j = rng.sample(range(len(node.input)), 2)
        node.input[i], node.input[j] = node.input[j], node.input[i]
    elif kind == 4 and node.input:
        node.input[rng.randrange(len(node.input))] = rng.choice([*names, "", "nowhere"])
    elif kind == 5 and node.output:  # a name assigned twice
        node.output[rng.randrange(len(node.output))] = rng.choice(names or ["x"])
    elif kind == 6:
        node.output.append(rng.choice(("", "extra", *(names[:3]))))
    elif kind == 7 and node.attribute:
        attr = rng.choice(node.attribute)
        attr.CopyFrom(_attribute(rng, attr.name))
    elif kind == 8:
        node.attribute.append(_attribute(rng, rng.choice(ATTRIBUTES)))
    elif node.attribute:
        del node.attribute[rng.randrange(len(node.attribute))]
    if rng.randrange(20) == 0:
        node.domain = rng.choice(("ai.onnx", "com.microsoft", "x" * 200))
    if rng.randrange(30) == 0:
        node.name = "N" * rng.choice((1, 500, 100_000))


def _mutate_initializer(rng: random.Random, g: onnx.GraphProto) -> None:
    if not g.initializer:
        return
    t = rng.choice(g.initializer)
    kind = rng.randrange(8)
    if kind == 0:
        del t.dims[:]
        t.dims.extend(_ints(rng)[:70])
    elif kind == 1:
        t.data_type = rng.choice(ELEM_TYPES)
    elif kind == 2 and t.HasField("raw_data"):
        t.raw_data = t.raw_data[: rng.randrange(len(t.raw_data) + 1)]
    elif kind == 3:
        t.data_location = TensorProto.EXTERNAL
        del t.external_data[:]
        for key, value in (("location", rng.choice(LOCATIONS)),
                           ("offset", rng.choice(("0", "-1", "99999999999", "x"))),
                           ("length", rng.choice(("8", "0", "-5", "1e9")))):
            if rng.randrange(3):
                e = t.external_data.add()
                e.key, e.value = key, value
    elif kind == 4:  # a shape input claiming a huge length
        t.ClearField("raw_data")
        del t.int64_data[:]
        del t.dims[:]
        t.dims.append(rng.choice((10**4, 10**7, 2**31, 2**62)))
        t.data_type = TensorProto.INT64
    elif kind == 5:
        g.initializer.add().CopyFrom(t)  # a name given twice
    elif kind == 6:  # the initializer becomes a graph input claiming a huge length
        info = helper.make_tensor_value_info(t.name, TensorProto.INT64,
                                             [rng.choice((10**7, 2**31, 2**62))])
        g.initializer.remove(t)
        g.input.append(info)
    else:
        t.segment.begin = 0
        t.segment.end = 1


def _mutate_graph(rng: random.Random, model: onnx.ModelProto) -> None:
    g = model.graph
    kind = rng.randrange(6)
    if kind == 0 and model.opset_import:
        model.opset_import[0].version = rng.choice((0, 1, 6, 7, 12, 13, 18, 21, 10**6))
    elif kind == 1:
        del model.opset_import[:]
    elif kind == 2 and g.output:
        g.output[rng.randrange(len(g.output))].name = rng.choice(("nowhere", ""))
    elif kind == 3 and len(g.node) > 1:
        nodes = list(g.node)
        rng.shuffle(nodes)
        del g.node[:]
        g.node.extend(nodes)
    elif kind == 4:  # a Constant node of some kind
        attr = rng.choice((helper.make_attribute("value_ints", _ints(rng),
                                                 attr_type=AttributeProto.INTS),
                           helper.make_attribute("value_int", rng.choice(HUGE)),
                           helper.make_attribute("value_string", "x"),
                           helper.make_attribute("value_floats", [1.0] * 3),
                           _attribute(rng, "value")))
        node = helper.make_node("Constant", [], [rng.choice(("c0", *_names(g)[:2]))])
        node.attribute.append(attr)
        if rng.randrange(4) == 0:
            node.attribute.append(attr)
        g.node.insert(rng.randrange(len(g.node) + 1), node)
    elif g.input:  # a graph input given twice
        g.input.add().CopyFrom(rng.choice(g.input))


_OPS = [op for op in supported() if "." not in op]


def _graphs(g: onnx.GraphProto) -> list[onnx.GraphProto]:
    """``g`` and its subgraphs (If branches, Loop and Scan bodies), at any depth."""
    out, stack = [], [g]
    while stack:
        graph = stack.pop()
        out.append(graph)
        for node in graph.node:
            stack.extend(a.g for a in node.attribute if a.type == AttributeProto.GRAPH)
    return out


def mutate(model: onnx.ModelProto, rng: random.Random) -> None:
    """One random structural edit of ``model``, in place: of its graph, or of a subgraph
    (half the time, when it has some)."""
    kind = rng.randrange(10)
    graphs = _graphs(model.graph)
    g = rng.choice(graphs[1:]) if len(graphs) > 1 and rng.randrange(2) else model.graph
    if kind < 2:
        _mutate_dims(rng, g)
    elif kind < 6:
        _mutate_node(rng, g)
    elif kind < 8:
        _mutate_initializer(rng, g)
    else:
        _mutate_graph(rng, model)


def mutants(seeds: Sequence[onnx.ModelProto], count: int, seed: int) -> list[bytes]:
    """``count`` serialized models, each one to three edits of a seed (reproducible)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        model = onnx.ModelProto()
        model.CopyFrom(rng.choice(seeds))
        for _ in range(rng.randrange(1, 4)):
            mutate(model, rng)
        out.append(model.SerializeToString())
    return out
