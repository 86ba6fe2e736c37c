"""Random small ONNX graphs with control flow, judged by onnxruntime (helpers of
tests/test_contracts_random_control_flow.py; ``python tests/onnx_control_flow.py N
[SEED]`` runs N graphs and prints each disagreement and the counts).

A graph of tests/onnx_size_chains.py's random steps around one If, Loop or Scan:

* an If on a bool input ``c`` (the data), a comparison of a size with a small int, or
  a constant; each branch a few random steps over the values around it (a branch reads
  them from the outer scope);
* a Loop whose trip count is an input ``M`` (the data: 0 to 3), a scalar computed from
  sizes (negative ones included), a constant 0, 1 or 3, or none; whose condition is
  ``true``, an input ``c``, or none; whose body carries a value or none, reads its
  iteration number ``i`` among the scalars its steps compute on (a ``Range(0, i + 1)``
  as a value, ``x[i]``), ends the loop where ``i >= kk`` (``kk`` an input: the data) or
  keeps its condition, and gives one value a run as a scan output or none;
* a Scan over axis 0 of a value, with one state (kept, or its sum with a row).

Then a few more steps read the sizes the node gives (each output's sizes, which the
data may decide). Every value no node reads is a graph output.

:func:`judge` reads the contract once, and at random points of sizes 0..7 runs
onnxruntime at every value of the data inputs (each If's condition both ways, trip
counts and exits 0 to 3): where ``holds`` is True every run must succeed, and every
typed size over the input sizes be onnxruntime's; where it is False every run must fail
(a run onnx.reference refuses too counts as failed: a point is valid only where the
spec and onnxruntime both run it, docs/contracts.rst), a model kantensor refuses the
same at every point; undecided is counted.
"""

from __future__ import annotations

import itertools
import random
import sys
import warnings
from collections import Counter

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import kantensor.onnx as ko
import ortrun
import ortwindows
import shapejudge
from kantensor.onnx.shared import NotKnown
from onnx_size_chains import NAMES, Graph, _step

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL

#: What onnxruntime says where it refuses a model by its own static shape inference of
#: a subgraph (at load, or when a Scan starts): it refuses such a model at every size,
#: where the spec and onnx.reference run it (a Scan whose scan output is its scan input
#: as it came, or whose body output's shape it cannot infer; an If whose dead branch
#: holds a node its inference refuses). kantensor does not model a Scan's: counted
#: apart; an If's or a Loop's (a node whose attributes or constants ONNX's inference
#: refuses) refuses the model in kantensor too, so a point claimed valid is reported.
STATIC = ("Graph attribute inferencing failed", "Subgraph must have the shape set",
          "is_concrete_shape_")
MODELLED = ("Op (If)", "Op (Loop)")

#: A Loop's stacking condition (the spec stacks a scan output of one shape at every
#: iteration; onnxruntime compares only their element counts, and stacks ``[1, 0]`` and
#: ``[2, 0]`` as the first's shape, where onnx.reference concatenates): counted apart.
STACKED = "stacks a scan output only where"

#: the values each data input takes at every point
DATA = {"c": (True, False), "M": (0, 1, 2, 3), "kk": (0, 1, 3)}


def _steps(g: Graph, low: int, high: int) -> None:
    for _ in range(g.rng.randint(low, high)):
        try:
            _step(g)
        except IndexError:  # no value with an axis to read a size of
            pass


def _sub(g: Graph, values: list, scalars: list) -> Graph:
    """A subgraph's Graph: its own nodes, the outer initializers, the ``values`` and
    ``scalars`` it may read, and the outer graph's names counter."""
    return Graph(g.rng, [], g.inits, g.inputs, list(values), list(scalars), g.count)


def _output(sub: Graph, outer: list) -> tuple[str, int]:
    """The value a subgraph gives: one it made (else an Identity of one it reads)."""
    made = [v for v in sub.values if v not in outer]
    if made:
        return sub.rng.choice(made)
    t, r = sub.rng.choice(sub.values)
    return sub.node("Identity", [t]), r


def _data(g: Graph, name: str, elem: int) -> str:
    if all(i.name != name for i in g.inputs):
        g.inputs.append(helper.make_tensor_value_info(name, elem, []))
    return name


def _if(g: Graph) -> None:
    rng = g.rng
    kind = rng.choice(["data", "data", "size", "const"])
    if kind == "data":
        cond = _data(g, "c", B)
    elif kind == "size":
        cond = g.node(rng.choice(["Equal", "Less", "Greater"]),
                      [g.scalar(), g.const(rng.choice([0, 1, 2, 3]))])
    else:
        cond = g.const(rng.choice([True, False]), np.bool_)
    branches, rank = [], None
    for name in ("then", "else"):
        sub = _sub(g, g.values, g.scalars)
        _steps(sub, 0, 3)
        out, r = _output(sub, g.values)
        if rank is not None and r != rank:  # (one rank: onnxruntime's If needs it)
            out = sub.node("Reshape", [out, sub.const([-1] + [1] * (rank - 1))]) if rank \
                else sub.node("ReduceSum", [out], keepdims=0)
            r = rank
        rank = r
        g.count = sub.count
        branches.append(helper.make_graph(sub.nodes, name, [],
                                          [helper.make_tensor_value_info(out, F, None)]))
    y = g.node("If", [cond], then_branch=branches[0], else_branch=branches[1])
    g.values.append((y, rank))


def _loop(g: Graph) -> None:  # noqa: C901 - one choice per input, read as a table
    rng = g.rng
    trips = rng.choice(["data", "size", "const", "none"])
    m = _data(g, "M", I64) if trips == "data" else g.node("Min", [g.scalar(), g.const(4)]) \
        if trips == "size" else \
        g.const(rng.choice([0, 1, 3])) if trips == "const" else ""
    if trips == "size":
        g.scalars.append(m)
    exit_kind = rng.choice(["keep", "kk", "kk"]) if m else "kk"
    c = rng.choice(["true", "data", "none"])
    cond = g.const(True, np.bool_) if c == "true" else _data(g, "c", B) if c == "data" \
        else ""
    if not m and not cond:
        cond = g.const(True, np.bool_)
    kk = _data(g, "kk", I64) if exit_kind == "kk" else None
    carried = rng.choice(g.values) if rng.random() < 0.6 else None
    i, c_in = g.fresh("i"), g.fresh("cin")
    values = list(g.values)
    acc = None
    if carried is not None:
        acc = (g.fresh("acc"), carried[1])
        values.append(acc)
    sub = _sub(g, values, [*g.scalars, i])
    if rng.random() < 0.5:  # a value of the iteration's size
        one = sub.const(1)
        sub.values.append((sub.node("Cast", [sub.node("Range", [sub.const(0), sub.node(
            "Add", [i, one]), one])], to=F), 1))
    _steps(sub, 1, 3)
    c_out = sub.node("Less", [i, kk]) if kk else sub.node("Identity", [c_in])
    outs = [helper.make_tensor_value_info(c_out, B, [])]
    if acc is not None:
        same = [v for v in sub.values if v[1] == acc[1] and v not in g.values]
        acc_out = rng.choice(same) if same and rng.random() < 0.7 else acc
        if acc_out == acc:
            acc_out = (sub.node("Identity", [acc[0]]), acc[1])
        outs.append(helper.make_tensor_value_info(acc_out[0], F, None))
    scans = 0
    if rng.random() < 0.6:
        s, scan_rank = _output(sub, values)
        outs.append(helper.make_tensor_value_info(s, F, None))
        scans = 1
    g.count = sub.count
    ins = [helper.make_tensor_value_info(i, I64, []), helper.make_tensor_value_info(c_in, B, [])]
    if acc is not None:
        ins.append(helper.make_tensor_value_info(acc[0], F, None))
    body = helper.make_graph(sub.nodes, "body", ins, outs)
    n_out = (acc is not None) + scans
    if not n_out:
        return
    ys = g.node("Loop", [m, cond, *([carried[0]] if carried else [])], outputs=n_out,
                body=body)
    ys = ys if isinstance(ys, list) else [ys]
    if acc is not None:
        g.values.append((ys[0], acc[1]))
    if scans:
        g.values.append((ys[-1], scan_rank + 1))


def _scan(g: Graph) -> None:
    rng = g.rng
    ranked = [v for v in g.values if v[1] >= 1]
    if not ranked:
        return
    x, r = rng.choice(ranked)
    state, sr = rng.choice(g.values)
    s_in, x_t = g.fresh("s"), g.fresh("xt")
    sub = _sub(g, [*g.values, (s_in, sr), (x_t, r - 1)], g.scalars)
    _steps(sub, 0, 2)
    s_out = sub.node("Identity", [s_in]) if rng.random() < 0.5 else \
        sub.node("Add", [s_in, sub.node("ReduceSum", [x_t], keepdims=0)])
    y, yr = _output(sub, [*g.values, (s_in, sr), (x_t, r - 1)])  # (onnxruntime fails a
    # scan output that is the body's scan input where the model's shapes name sizes)
    g.count = sub.count
    body = helper.make_graph(sub.nodes, "scan_body",
                             [helper.make_tensor_value_info(s_in, F, None),
                              helper.make_tensor_value_info(x_t, F, None)],
                             [helper.make_tensor_value_info(s_out, F, None),
                              helper.make_tensor_value_info(y, F, None)])
    final, ys = g.node("Scan", [state, x], outputs=2, body=body, num_scan_inputs=1)
    g.values += [(final, sr), (ys, yr + 1)]


def random_model(seed: int) -> onnx.ModelProto:
    """A model of a few random steps around one If, Loop or Scan (see the module's doc),
    at opset 18 (ReduceMean's axes an input)."""
    rng = random.Random(seed)
    g = Graph(rng)
    for i in range(rng.choice([1, 1, 2])):
        dims = [rng.choice(NAMES) if rng.random() < 0.8 else rng.choice([1, 2, 3])
                for _ in range(rng.choice([1, 2, 2, 3]))]
        g.inputs.append(helper.make_tensor_value_info(f"x{i}", F, dims))
        g.values.append((f"x{i}", len(dims)))
    _steps(g, 0, 2)
    rng.choice([_if, _loop, _loop, _scan])(g)
    _steps(g, 0, 2)
    read = {i for n in g.nodes for i in n.input}
    read |= {i for n in g.nodes for a in n.attribute if a.type == onnx.AttributeProto.GRAPH
             for m in a.g.node for i in m.input}
    outs = [n.output[0] for n in g.nodes if n.output[0] not in read
            and n.output[0] not in g.scalars] or [g.values[-1][0]]
    model = helper.make_model(helper.make_graph(
        g.nodes, "control", g.inputs, [helper.make_tensor_value_info(o, F, None)
                                       for o in outs], g.inits),
        opset_imports=[helper.make_opsetid("", 18)])
    try:  # (an output of another type than float: a size computed, int64)
        inferred = onnx.shape_inference.infer_shapes(model)
        elem = {v.name: v.type.tensor_type.elem_type for v in inferred.graph.value_info}
    except onnx.shape_inference.InferenceError:
        elem = {}
    for o in model.graph.output:
        o.type.tensor_type.elem_type = elem.get(o.name) or F
    return model


def _feeds(model: onnx.ModelProto, sizes: dict[str, int]) -> list[dict]:
    """The inputs at ``sizes``, once per value of the data inputs."""
    floats = {i.name: np.ones([sizes[d.dim_param] if d.dim_param else d.dim_value
                               for d in i.type.tensor_type.shape.dim], np.float32)
              for i in model.graph.input if i.name not in DATA}
    data = [i.name for i in model.graph.input if i.name in DATA]
    return [{**floats, **{n: np.array(v, np.int64 if n != "c" else np.bool_)
                          for n, v in zip(data, combo, strict=True)}}
            for combo in itertools.product(*(DATA[n] for n in data))]


def _reference_refuses(model: onnx.ModelProto, feeds: dict) -> bool:
    try:
        ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # noqa: BLE001 - any refusal of the spec's implementation
        return True
    return False


def judge(model: onnx.ModelProto, points: int, seed: int,
          counts: Counter | None = None) -> list[str]:
    """Disagreements of kantensor's contract and typed shapes with onnxruntime at
    ``points`` random points of sizes 0..7, each run at every value of the data inputs
    (see the module's doc); ``counts`` gathers points by verdict."""
    counts = Counter() if counts is None else counts
    rng = random.Random(seed)
    names = sorted({d.dim_param for i in model.graph.input
                    for d in i.type.tensor_type.shape.dim if d.dim_param})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            contract = ko.contract(model)
            typed = shapejudge.typed_shapes(ko.infer_shapes(model))
            refused = ""
        except NotKnown:  # not typed: no answer (every point undecided)
            contract, typed, refused = None, {}, None
            counts["models not typed"] += 1
        except (TypeError, ValueError) as exc:  # kantensor's refusals are both
            contract, typed, refused = None, {}, f"{type(exc).__name__}: {exc}"[:300]
            counts["models refused"] += 1
    found: list[str] = []
    static: list[str] = []
    watched = ortwindows.Watched(model)
    chosen = {tuple(rng.randrange(8) for _ in names) for _ in range(points)}
    chosen |= {tuple(0 for _ in names), tuple(1 for _ in names)}
    for values in sorted(chosen):
        sizes = dict(zip(names, values, strict=True))
        verdict = contract.holds(**sizes) if contract is not None else None
        holds = verdict.value if verdict is not None else \
            None if refused is None else False
        counts[{True: "valid", False: "invalid", None: "undecided"}[holds]] += 1
        for feeds in _feeds(model, sizes):
            ran = ortwindows.judge(watched, feeds)
            counts["runs"] += 1
            if isinstance(ran, ortwindows.Window) and ran.why == "truncated" and (
                    ran.agreed or ran.reference is None and ran.inference_agrees):
                counts["windows onnxruntime departs from"] += 1
                continue  # (as tests/onnx_size_chains.py's judge: not judged)
            if isinstance(ran, ortrun.Refusal) and any(w in ran.why for w in STATIC):
                counts["onnxruntime's static inference refuses"] += 1
                if holds is True and any(w in ran.why for w in MODELLED):
                    found.append(f"{sizes}: the contract holds, onnxruntime refuses the "
                                 f"model at load: {ran.why[:160]}")
                elif holds is True:
                    static.append(f"{sizes} {ran.why[:160]}")
                continue
            runs = isinstance(ran, list)
            data = {k: v.item() for k, v in feeds.items() if k in DATA}
            if holds is False and runs and _reference_refuses(model, feeds):
                counts["invalid runs onnx.reference refuses"] += 1
            elif holds is False and runs and verdict is not None and verdict.atom is not \
                    None and any(STACKED in (s.detail or "") for s in verdict.atom.sources):
                counts["scan outputs of one element count onnxruntime stacks"] += 1
            elif holds is False and runs:
                found.append(f"{sizes} {data}: kantensor says invalid "
                             f"({refused or verdict}), onnxruntime runs it: {ran}")
            elif holds is True and not runs:
                found.append(f"{sizes} {data}: the contract holds, onnxruntime refuses: "
                             f"{ran}")
            elif holds is True:
                for out, shape in zip(model.graph.output, ran, strict=True):
                    dims = typed.get(out.name) or []
                    stated = [d if isinstance(d, int) else shapejudge.kantensor_size(d, sizes)
                              if isinstance(d, str) else None for d in dims]
                    if len(stated) != len(shape) or any(
                            s is not None and s != n
                            for s, n in zip(stated, shape, strict=True)):
                        found.append(f"{sizes} {data}: {out.name} typed {dims}, "
                                     f"onnxruntime {shape}")
    if static:
        counts["claimed valid, refused by onnxruntime's static inference"] += len(static)
        counts["models so refused"] += 1
    return found


if __name__ == "__main__":
    total, first = int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 0
    tally: Counter = Counter()
    for s in range(first, first + total):
        for problem in judge(random_model(s), 10, s, tally):
            print(s, problem, flush=True)
    print(dict(tally), flush=True)
