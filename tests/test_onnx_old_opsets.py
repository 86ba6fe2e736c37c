"""ONNX's one-node test cases again at the older opsets of their op (opset 7 on, the
oldest onnxruntime runs), judged by onnxruntime: the case's model, symbolised as
tests/onnx_cases.py does it, imports the opset instead of its own wherever the node is
valid there (onnx's checker), and runs at the case's own sizes and at assignments in
which every named size differs from the case's (0 and 1 among the candidates). Where
onnxruntime runs it, every output is typed with onnxruntime's shape (only a size the data
decides may be left open); where onnxruntime refuses it at every size tried, kantensor
refuses it or its contract does not hold there.
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from functools import cache

import onnx
import pytest

import kantensor as kt
import kantensor.onnx as ko
import onnx_attr_mutants as am
import onnx_cases as oc
import ortrun
import shapejudge as sj

#: The opsets (7 on) each op type is judged at: those of its older schema versions
#: (the ONNX versions before the one whose node tests name it, e.g. Gather-1 at 7 to 10).
OLD = {
    "ArgMax": range(7, 11), "ArgMin": range(7, 11), "AveragePool": range(7, 10),
    "Cast": range(7, 9), "Compress": range(9, 11), "Concat": range(7, 11),
    "ConvTranspose": range(7, 11), "DepthToSpace": range(7, 11), "Equal": range(7, 11),
    "GRU": range(7, 14), "Gather": range(7, 11), "GatherND": range(11, 12),
    "Greater": range(7, 9), "Hardmax": range(7, 11), "LSTM": range(7, 14),
    "Less": range(7, 9), "LogSoftmax": range(7, 11), "LpPool": range(7, 18),
    "MatMul": range(7, 9), "Max": range(7, 12), "MaxPool": range(7, 10),
    "MaxUnpool": range(9, 11), "Min": range(7, 12), "NegativeLogLikelihoodLoss": [12],
    "NonMaxSuppression": [10], "PRelu": range(7, 9), "Pow": range(7, 12),
    "RNN": range(7, 14), "ReduceL1": range(7, 11), "ReduceL2": range(7, 11),
    "ReduceLogSum": range(7, 11), "ReduceLogSumExp": range(7, 11),
    "ReduceMax": range(7, 11), "ReduceMean": range(7, 11), "ReduceMin": range(7, 11),
    "ReduceProd": range(7, 11), "ReduceSum": range(7, 11), "ReduceSumSquare": range(7, 11),
    "Softmax": range(7, 11), "SpaceToDepth": range(7, 13), "Split": range(7, 11),
    "Slice": range(7, 10), "Pad": range(7, 11), "TopK": range(7, 10), "Clip": range(7, 11),
    "Flatten": range(7, 11), "Dropout": range(7, 10), "Gemm": range(7, 11),
    "Sum": [7], "Mean": [7], "SoftmaxCrossEntropyLoss": [12], "RoiAlign": range(10, 16),
}

#: Outputs whose size the data decides (no tool can type it from sizes): Compress's
#: kept entries, NonMaxSuppression's boxes; and GatherND's, whose rank the indices'
#: last size sets, a size the symbolisation names.
DATA_SIZED = {"Compress", "NonMaxSuppression", "GatherND"}

#: Ops judged only at the sizes where kantensor's contract holds, as in
#: tests/test_onnx_attr_mutants.py: a pool window with no position, which onnxruntime
#: runs (an empty map, or a partial window) and kantensor refuses (docs/contracts.rst);
#: and the losses, whose function bodies onnxruntime runs with a target of another
#: batch size than the input's (their GatherElements reads what it is given), which the
#: schema and kantensor refuse at every opset.
CONTRACT_FIRST = {"AveragePool", "MaxPool", "LpPool", "NegativeLogLikelihoodLoss",
                  "SoftmaxCrossEntropyLoss"}

#: Ops whose refusals the data may decide, not judged: the losses' target entries must
#: be classes (0 to C - 1) or their ignore_index, which no class is where C is 0 (the
#: inputs here are zeros), at every opset.
DATA_REFUSALS = {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}


def _at_opset(model: onnx.ModelProto, opset: int, values: dict | None = None
              ) -> onnx.ModelProto | None:
    """The model importing ``opset`` of the default domain, its node written as that
    opset writes it (:func:`_downgrade`; ``values``: the graph inputs' values), or None
    where it is not valid there (an attribute or input the schema of then lacks)."""
    out = onnx.ModelProto()
    out.CopyFrom(model)
    _downgrade(out.graph, values or {})
    del out.opset_import[:]
    out.opset_import.extend([onnx.helper.make_opsetid("", opset)])
    out.ir_version = 7
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version, ctx.opset_imports = 7, {"": opset}
    try:
        onnx.checker.check_node(out.graph.node[0], ctx)
    except onnx.checker.ValidationError:
        return None
    return out


#: The inputs that older opsets take as attributes: op type -> (attribute, how its value
#: reads) per input place after the first, None where no attribute takes it (so a node
#: giving it is left as it is). Before 13 (18) a reduction's axes; before 13 Split's
#: split; before 10 Slice's starts, ends, axes (steps all 1); before 11 Pad's pads and
#: constant value, Clip's min and max; before 10 TopK's k; before 12 Dropout's ratio.
MOVES = {
    **{op: [("axes", list)] for op in ("ReduceL1", "ReduceL2", "ReduceLogSum",
                                       "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                                       "ReduceMin", "ReduceProd", "ReduceSum",
                                       "ReduceSumSquare")},
    "Split": [("split", list)],
    "Slice": [("starts", list), ("ends", list), ("axes", list), ("steps", None)],
    "Pad": [("pads", list), ("value", float)],
    "Clip": [("min", float), ("max", float)],
    "TopK": [("k", int)],
    "Dropout": [("ratio", float)],
}


def _downgrade(graph: onnx.GraphProto, values: dict) -> None:
    """Write the node's inputs that older opsets take as attributes so (:data:`MOVES`),
    where every input after the first is a known value (an initializer, or a graph input
    of ``values``) that an attribute takes (Slice's steps only where all are 1); and
    leave out an attribute at its default that older opsets lack (DepthToSpace's ``mode
    = "DCR"``, a reduction's ``noop_with_empty_axes = 0``). (onnx's version converter
    has no such adapters but ReduceSum's.)"""
    node = graph.node[0]
    known = {**values, **{t.name: onnx.numpy_helper.to_array(t) for t in graph.initializer}}
    moves = MOVES.get(node.op_type, [])
    rest = list(node.input[1:])
    if rest and len(rest) <= len(moves) and all(not n or n in known for n in rest):
        attrs = []
        for (name, read), given in zip(moves, rest, strict=False):
            value = known[given] if given else None
            if value is None:
                continue
            if read is None:  # (Slice's steps: only all 1, as before steps)
                if any(v != 1 for v in value.tolist()):
                    return
                continue
            flat = value.ravel().tolist()
            if read is list:
                if flat:  # (no axes: every axis, as without the attribute)
                    attrs.append(onnx.helper.make_attribute(name, flat))
            else:
                attrs.append(onnx.helper.make_attribute(name, read(flat[0])))
        del node.input[1:]
        node.attribute.extend(attrs)
        inputs = [i for i in graph.input if i.name == node.input[0] or i.name not in rest]
        del graph.input[:]
        graph.input.extend(inputs)
    defaults = {("DepthToSpace", "mode"): b"DCR", (None, "noop_with_empty_axes"): 0,
                ("RoiAlign", "coordinate_transformation_mode"): b"output_half_pixel"}
    for a in list(node.attribute):
        value = onnx.helper.get_attribute_value(a)
        if any(defaults.get((op, a.name), object()) == value for op in (node.op_type, None)):
            node.attribute.remove(a)


@cache
def _combos() -> list[tuple[str, int]]:
    """(case name, opset) of every one-node case of an op of :data:`OLD` at each of its
    old opsets where the node is valid."""
    out = []
    for case in oc.cases():
        nodes = case.model.graph.node
        if len(nodes) == 1 and nodes[0].domain in ("", "ai.onnx") and nodes[0].op_type in OLD:
            symbolic, values = _prepared(case)
            out += [(case.name, v) for v in OLD[nodes[0].op_type]
                    if _at_opset(symbolic, v, values) is not None]
    return out


def _prepared(case: object) -> tuple[onnx.ModelProto, dict]:
    """The case's symbolised model and its graph inputs' values by name."""
    symbolic, values, _ = oc.prepared(case, symbolic=True)
    return symbolic, {i.name: v for i, v in zip(symbolic.graph.input, values, strict=True)}


@cache
def _cases() -> dict:
    return {c.name: c for c in oc.cases()}


def _holds(contract: kt.Contract | None, sizes: dict[str, int]) -> bool | None:
    if contract is None:
        return False
    try:
        return bool(contract.holds(**sizes))
    except TypeError:  # a node left untyped: the contract does not say
        return None


def _runs(model: onnx.ModelProto, own: dict[str, int], feed: dict, rng: random.Random,
          keep: Callable[[dict[str, int]], bool] | None = None
          ) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    """The assignments onnxruntime runs the model at (the case's own sizes first, with
    its own inputs; then up to two in which every name differs from the case's and the
    runs before; only those ``keep`` keeps) and those it refuses."""
    probe = sj.with_every_value(model, sj.values_of(model))
    tries = [own] + [{n: rng.choice([v for v in [0, 1, *range(2, 10)] if v != own[n]])
                      for n in own} for _ in range(10)] if own else [own]
    ok: list[dict[str, int]] = []
    refused: list[dict[str, int]] = []
    for sizes in tries:
        if len(ok) == 3:
            break
        if any(any(a[n] == v for n, v in sizes.items()) for a in ok):
            continue
        if keep is not None and not keep(sizes):
            continue
        fill = feed if sizes == own else None
        got = ortrun.run(probe, sj.concrete_inputs(model, sizes, fill))
        if isinstance(got, ortrun.Refusal) and "NOT_IMPLEMENTED" in got.why:
            break  # no kernel for the element type (Max-6 of float64): the schema judges
        (refused if isinstance(got, ortrun.Refusal) else ok).append(sizes)
    return ok, refused


def _typed(model: onnx.ModelProto) -> tuple[onnx.ModelProto | None, kt.Contract | None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ko.infer_shapes(model), ko.contract(model)
        except (kt.TypeInferenceError, ValueError):
            return None, None


def test_old_opsets_are_judged():
    """Every op type of :data:`OLD` has cases at some old opset (the table says what is
    judged; a case renamed away would silently drop it)."""
    ops = {_cases()[name].model.graph.node[0].op_type for name, _ in _combos()}
    assert ops == set(OLD)
    assert len(_combos()) >= 1000


@pytest.mark.parametrize("op", sorted(OLD))
def test_node_cases_at_old_opsets(op):
    """At each old opset: no output typed wrong, every one typed exactly (but a size the
    data decides), and where onnxruntime refuses everywhere, so does kantensor's contract."""
    judged = sum(_judge(name, opset) for name, opset in _combos()
                 if _cases()[name].model.graph.node[0].op_type == op)
    assert judged >= 2, op


@pytest.mark.parametrize("opset", [11, 22])
@pytest.mark.parametrize("name", ["test_maxunpool_export_without_output_shape",
                                  "test_maxunpool_export_with_output_shape"])
def test_max_unpool_sizes_onnxruntime_refuses(name, opset):
    """MaxUnpool at the opsets of its newer entries, judged the same way: onnxruntime
    refuses a least output size ((n - 1) * stride + kernel - pads) that is not positive
    (an empty input) and an output_shape below it, which kantensor's contract said hold."""
    assert _judge(name, opset)


def _judge(name: str, opset: int) -> bool:
    """One case at one opset judged (see :func:`test_node_cases_at_old_opsets`);
    whether onnxruntime ran it at some size."""
    case = _cases()[name]
    op = case.model.graph.node[0].op_type
    symbolic, values = _prepared(case)
    model = _at_opset(symbolic, opset, values)
    own = {d.dim_param: int(d.dim_param[1:]) for v in model.graph.input
           for d in v.type.tensor_type.shape.dim if d.HasField("dim_param")}
    feed = {name: (lambda shape, v=v: v) for name, v in values.items()}
    typed, contract = _typed(model)
    keep = (lambda s: _holds(contract, s) is not False) if op in CONTRACT_FIRST else None
    ok, refused = _runs(model, own, feed, random.Random(f"{name} {opset}"), keep)
    if op not in DATA_REFUSALS:
        assert all(_holds(contract, s) is not True for s in refused), (name, opset, refused)
    if not ok:
        return False
    if typed is None:  # refused: only for element types the old schema lacks
        assert _schema_refuses(model, case), (name, opset)
        return True
    assert all(_holds(contract, s) is not False for s in ok), (name, opset, ok)
    runs = [sj.runtime_shapes(model, [s], feed if s == own else None)[0] for s in ok]
    judgement = sj.judge(typed, runs, ok)
    assert judgement.of(sj.WRONG) == {}, (name, opset, ok)
    if op not in DATA_SIZED:
        assert judgement.of(sj.UNKNOWN) == {}, (name, opset, ok)
    return True


def _schema_refuses(model: onnx.ModelProto, case: object) -> bool:
    """Whether the schema of the model's opset refuses an element type of the node's
    inputs or of the case's outputs (which onnxruntime may still run: a Cast to float8
    at opset 7, whose schema's T2 has no float8)."""
    node = model.graph.node[0]
    schema = onnx.defs.get_schema(node.op_type, model.opset_import[0].version)
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    types = {v.name: v.type for v in [*model.graph.input, *case.model.graph.output]}
    types.update({t.name: onnx.helper.make_tensor_type_proto(t.data_type, None)
                  for t in model.graph.initializer})
    for formals, names in ((schema.inputs, node.input), (schema.outputs, node.output)):
        for formal, name in zip(formals, names, strict=False):
            if name in types and formal.type_str in allowed:
                elem = onnx.helper.tensor_dtype_to_string(types[name].tensor_type.elem_type)
                if f"tensor({elem.split('.')[-1].lower()})" not in allowed[formal.type_str]:
                    return True
    return False


def test_onnxruntime_and_kantensor_refuse_negative_one_hot_indices_before_11():
    """At OneHot-9 (opsets 9 and 10) onnxruntime refuses a constant negative index ("must
    be non-negative for OneHot opset < 11"), which OneHot-11's entry takes: OneHot-9's
    leaves the node untyped there (tests/test_onnx_one_hot.py)."""
    case = _cases()["test_onehot_negative_indices"]
    symbolic, values = _prepared(case)
    model = _at_opset(symbolic, 10, values)
    probe = sj.with_every_value(model, sj.values_of(model))
    own = {d.dim_param: int(d.dim_param[1:]) for v in model.graph.input
           for d in v.type.tensor_type.shape.dim if d.HasField("dim_param")}
    assert isinstance(ortrun.run(probe, sj.concrete_inputs(model, own)), ortrun.Refusal)
    _, contract = _typed(model)
    assert _holds(contract, own) is not True


@pytest.mark.parametrize("maker", sorted(m for m in am.MAKERS if m.endswith("_old")))
def test_mutants_at_old_opsets_are_typed_exactly(maker):
    """The exporter-written mutants of tests/onnx_attr_mutants.py at the older opsets
    (pools, reductions, Gather, Split), judged as tests/test_onnx_attr_mutants.py judges
    them (which they pass too) and typed exactly besides: every value's every size, at
    three assignments in which every name differs, is onnxruntime's."""
    judged = 0
    for seed in range(80):
        rng = random.Random(seed)
        model, candidates = am.MAKERS[maker](rng)
        _, contract = _typed(model)
        if contract is None:  # refused at every size: by onnxruntime too
            assert am.accepted(model, candidates, rng, want=1) == [], (maker, seed)
            continue
        keep = (lambda s, c=contract: _holds(c, s) is not False) if maker == "windows_old" \
            else None
        sizes = am.accepted(model, candidates, rng, keep=keep)
        if len(sizes) < 3:
            continue
        assert all(_holds(contract, s) is True for s in sizes), (maker, seed, sizes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            typed = ko.infer_shapes(model)
        judgement = sj.judge(typed, sj.runtime_shapes(model, sizes), sizes)
        assert judgement.of(sj.WRONG) == {}, (maker, seed, sizes)
        if not _dilated_same(model):  # (left unknown on purpose: onnxruntime's sizes
            # there are not ONNX's formula)
            assert judgement.of(sj.UNKNOWN) == {}, (maker, seed, sizes)
        judged += 1
    assert judged >= 40, (maker, judged)


def _dilated_same(model: onnx.ModelProto) -> bool:
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in model.graph.node[0].attribute}
    return attrs.get("auto_pad", b"NOTSET") in (b"SAME_UPPER", b"SAME_LOWER") and any(
        d != 1 for d in attrs.get("dilations", []))
