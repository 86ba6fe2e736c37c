"""The parts of one ``infer_shapes`` call on the chain of onnx_distinct.py (every block
typed differently), read cold in a warm process: each run types a model of new widths
with the node records, the node memo, the templates and the types read or written
emptied first (the Ops stay built), and times, by CPU time, reading the initializers and
graph inputs, the model memo's key (the nodes serialized), reading the nodes, writing the
copy with its value infos and keeping the model memo's entry; the best of ``--runs``
runs of each part, and of the whole call (in runs of its own). With ``--objects``: how
many objects the cycle collector tracks that one such call leaves alive (made during it:
the first collection after it walks them all), and that collection's CPU time. With
``--steps``: each step of a first-seen node and of a graph input timed alone over the
chain's nodes (this tree's functions; the last of a node's steps, the typing by its op
type's last template of :mod:`kantensor.onnx.repeats`, replaces the four before it).

Run: ``python benchmarks/onnx_parts.py [--blocks 6667] [--runs 5] [--objects | --steps]``;
``PYTHONPATH`` set to another checkout's ``src`` times that one (its parts as this
script finds them).
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import gc
import inspect
import time

import onnx
from onnx import TensorProto, helper

from kantensor.graph.heap import collector_paused
from kantensor.onnx import generic, infer_shapes, modelmemo, nodecache, nodememo, shapes, typebytes
from kantensor.onnx.modelfile import open_model

try:
    from kantensor.onnx import repeats
except ImportError:  # (a tree before it: its step is not timed)
    repeats = None
from kantensor.types.type import TensorType


def model(blocks: int, offset: int) -> onnx.ModelProto:
    """onnx_distinct.py's chain with every width ``offset`` larger."""
    x = "x"
    inputs = [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", 2 + offset])]
    nodes = []
    for i in range(blocks):
        a, b = i + 2 + offset, i + 3 + offset
        inputs.append(helper.make_tensor_value_info(f"w{i}", TensorProto.FLOAT, [a, b]))
        inputs.append(helper.make_tensor_value_info(f"c{i}", TensorProto.FLOAT, [b]))
        nodes.append(helper.make_node("MatMul", [x, f"w{i}"], [f"m{i}"], name=f"m{i}"))
        nodes.append(helper.make_node("Add", [f"m{i}", f"c{i}"], [f"a{i}"], name=f"a{i}"))
        nodes.append(helper.make_node("Relu", [f"a{i}"], [f"r{i}"], name=f"r{i}"))
        x = f"r{i}"
    graph = helper.make_graph(nodes, "distinct", inputs,
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def forget() -> None:
    """Empty what a read of another model of the same nodes would find."""
    for name, holder in [("NODES", nodecache), ("MEMO", nodememo), ("TEMPLATES", generic),
                         ("MODELS", modelmemo), ("_READ", typebytes), ("_TYPES", shapes),
                         ("_INFOS", shapes), ("_INFO_TYPES", shapes)]:
        table = getattr(holder, name, None)
        if table is not None:
            table.clear()


def parts(m: onnx.ModelProto) -> dict[str, float]:
    """The CPU time of each part of infer_shapes on ``m`` (as shapes.infer_shapes runs
    them)."""
    clock = time.process_time
    lazy = "variables" in inspect.signature(shapes._Reader.read_sources).parameters
    with collector_paused():
        t0 = clock()
        source, tensors = open_model(m, None)
        reader = shapes._Reader(source, tensors, graph=False)
        reader.read_sources(**({"variables": False} if lazy else {}))
        t1 = clock()
        nodes = [node.SerializeToString() for node in reader.proto.node]
        key, large = modelmemo.model_key(reader, nodes)
        assert modelmemo.found(key, reader) is None
        t2 = clock()
        reader.read_nodes(nodes)
        t3 = clock()
        written = shapes._written(m, source, reader)
        t4 = clock()
        modelmemo.remember(key, large, reader, written[1] if lazy else written)
        t5 = clock()
    return {"sources": t1 - t0, "key": t2 - t1, "nodes": t3 - t2, "written": t4 - t3,
            "memo entry": t5 - t4}


def objects(blocks: int) -> None:
    """Print the tracked objects a call leaves alive, by type, and the collection of
    them."""
    m = model(blocks, 990000)
    forget()
    gc.collect()
    gc.disable()  # (infer_shapes leaves it so)
    try:
        before = {id(o) for o in gc.get_objects(0)}
        typed = infer_shapes(m)
        made = [o for o in gc.get_objects(0) if id(o) not in before]
        kinds = collections.Counter(type(o).__name__ for o in made).most_common(6)
        print(f"  objects left: {len(made)} ({', '.join(f'{k} {n}' for k, n in kinds)})")
        del made
        start = time.process_time()
        gc.collect(0)
        print(f"  the next collection: {(time.process_time() - start) * 1000:.1f} ms")
    finally:
        gc.enable()
    del typed


def steps(blocks: int, runs: int) -> None:
    """Print the CPU time of each step of a first-seen node (and of a graph input), each
    step run alone over the chain's nodes (inputs), best of ``runs``: the chain read once
    (its templates made, its types alive), then each step again on the reader's state at
    the end; the records and the inputs' types made anew in each run."""
    m = model(blocks, 900000)
    forget()
    source, tensors = open_model(m, None)
    reader = shapes._Reader(source, tensors, graph=False)
    reader.read_sources(variables=False)
    data = [node.SerializeToString() for node in reader.proto.node]
    reader.read_nodes(data)
    nodes = list(reader.proto.node)
    # (a node typed once is filed as SEEN, not as its record: record() makes it)
    recs = [nodecache.record(node, d) for node, d in zip(nodes, data, strict=True)]
    entries = [reader.entries[r.op_type, r.domain] for r in recs]
    givens = [tuple(nodememo.read_inputs(reader, r.names)[0]) for r in recs]
    found = [generic.generic_key(reader, e, r.names, g, r.attributes, len(r.wanted))
             for e, r, g in zip(entries, recs, givens, strict=True)]
    made = [generic.TEMPLATES[f[0]] for f in found]
    infos = list(model(blocks, 950000).graph.input)  # (their types are nobody's yet)
    serialized = [info.SerializeToString() for info in infos]
    alive = [typebytes._tensor_type(d) for d in serialized]
    headers = [(t.dtype, t.shape) for t in alive]
    new = [(dtype, (*shape[:-1], shape[-1] + 10**6)) for dtype, shape in headers]

    def timed(name: str, work: collections.abc.Callable[[], object], count: int,
              fresh: collections.abc.Callable[[], None] = lambda: None) -> None:
        best = float("inf")
        for _ in range(runs):
            fresh()
            start = time.process_time()
            work()
            best = min(best, time.process_time() - start)
        print(f"  {name:<34} {best / count * 1e6:5.2f} us")

    n, k = len(nodes), len(infos)
    print(f"  a node ({n}):")
    timed("its record", lambda: [nodecache.record(node, d) for node, d in zip(
        nodes, data, strict=True)], n, nodecache.NODES.clear)
    timed("which inputs are known", lambda: [nodememo.read_inputs(reader, r.names)
                                             for r in recs], n)
    timed("the exact key and its lookup", lambda: [nodememo.MEMO.get(nodememo.plain_key(
        reader, e, r.names, g, r.attributes, len(r.wanted), g)) for e, r, g in zip(
        entries, recs, givens, strict=True)], n)
    timed("the template key", lambda: [generic.generic_key(
        reader, e, r.names, g, r.attributes, len(r.wanted)) for e, r, g in zip(
        entries, recs, givens, strict=True)], n)
    timed("the template's lookup", lambda: [generic.TEMPLATES.get(f[0]) for f in found], n)
    timed("the instance (its types alive)", lambda: [generic.instance(t, f[1], f[2])
                                                     for t, f in zip(made, found, strict=True)], n)
    if repeats is not None:
        outputs = [r.wanted[0] for r in recs]

        def unread() -> None:  # (each node's output not typed yet, its record first seen)
            for name in outputs:
                reader.types.pop(name, None)
            for r in recs:
                r.slot = None
        timed("its op type's last template", lambda: [repeats.repeated(reader, r, node)
                                                      for r, node in zip(recs, nodes,
                                                                         strict=True)],
              n, unread)
    print(f"  a graph input ({k}):")
    timed("its ValueInfo serialized", lambda: [i.SerializeToString() for i in infos], k)
    timed("its type read (the type alive)", lambda: [typebytes._tensor_type(d)
                                                     for d in serialized], k,
          typebytes._READ.clear)
    timed("its type read (a new type)", lambda: [typebytes._tensor_type(d)
                                                 for d in serialized], k,
          lambda: (typebytes._READ.clear(), alive.clear()))
    timed("a TensorType alive", lambda: [TensorType(*h) for h in headers], k)
    timed("a new TensorType", lambda: [TensorType(*h) for h in new], k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--blocks", type=int, default=6667)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--objects", action="store_true")
    parser.add_argument("--steps", action="store_true")
    args = parser.parse_args()
    infer_shapes(model(3, 0))  # the Ops built
    if args.objects:
        objects(args.blocks)
        return
    if args.steps:
        with collector_paused():
            steps(args.blocks, args.runs)
        return
    best: dict[str, float] = {}
    for run in range(args.runs):
        for offset, whole in ((2 * run + 1) * 10000, False), ((2 * run + 2) * 10000, True):
            m = model(args.blocks, offset)
            forget()
            if whole:
                start = time.process_time()
                infer_shapes(m)
                found = {"infer_shapes": time.process_time() - start}
            else:
                found = parts(m)
                found["sum"] = sum(found.values())
            for k, v in found.items():
                best[k] = min(best.get(k, v), v)
    nodes = 3 * args.blocks
    for k, v in best.items():
        print(f"  {k:<14} {v * 1000:7.1f} ms  {v / nodes * 1e6:5.2f} us a node")


if __name__ == "__main__":
    main()
