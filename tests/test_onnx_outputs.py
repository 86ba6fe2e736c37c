"""The outputs a node may name are its schema's (the catalogue's ``outputs`` key,
:mod:`kantensor.onnx.entrykeys`).

Oracles nobody here wrote: ``onnx.defs`` (each formal output's option, ``min_output``
and ``max_output``, at every opset each entry types, tests/onnxschema.py), the ONNX
checker (``check_node``) and onnxruntime, which refuse a node outside them (a TopK of
one output, a Dropout of three, a Split of none, a required output named ``""``).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import ortrun
from kantensor.onnx.bounds import arity
from kantensor.onnx.entrykeys import DEFAULT, counts, fits
from kantensor.onnx.loading import OnnxImportError
from kantensor.onnx.registry import _tables, entries
from onnxschema import NEWEST, inputs, output_counts, outputs
from onnxverdicts import kantensor_accepts, ort_refusal


def _entries():
    return [e for d, op in sorted(_tables()) if op != "?" for e in entries(d, op)]


def states_its_schemas_outputs(entry):
    """At every opset the entry types, its outputs are the schema's formal outputs (names
    and options) and give the schema's fewest and most outputs of a node."""
    stated = dict(entry.entry.extra).get("outputs")
    for opset in range(entry.since, (entry.until or NEWEST) + 1):
        formal = outputs(entry.op_type, opset, entry.domain)
        if formal is None:  # (an opset past what the installed onnx knows)
            continue
        if stated is None:
            assert len(formal) == 1 and "?" not in formal[0] and "*" not in formal[0], (
                entry.entry.name, opset, formal, "needs outputs = [...]")
        else:
            assert tuple(stated) == formal, (entry.entry.name, opset, formal)
        least, most, _ = counts(stated or DEFAULT)
        assert (least, most) == output_counts(entry.op_type, opset, entry.domain), (
            entry.entry.name, opset)


#: Entries whose inputs' marks are not their schema's yet: Scan of opset 8 takes its
#: optional sequence_lens before its variadic inputs (the entry, of opsets 8 on, reads
#: every input as one variadic list; its handler tells them apart).
INPUTS_NOT_YET = {("Scan", 8)}


def _marks(specs) -> list[str]:
    return [("*" if s.startswith("*") else "") + ("?" if s.endswith("?") else "")
            for s in specs]


def marks_its_inputs_as_its_schema(entry):
    """At every opset the entry types, each input is required, optional or variadic as
    its schema's formal input (Attention of opset 23 has 6 inputs, 7 from 24;
    OptionalHasElement's input is required until 18; QLinearConv's B is one optional
    input): a node of more inputs, or without a required one, is refused as the checker
    and onnxruntime refuse it."""
    for opset in range(entry.since, (entry.until or NEWEST) + 1):
        formal = inputs(entry.op_type, opset, entry.domain)
        if formal is None or (entry.op_type, opset) in INPUTS_NOT_YET:
            continue
        assert _marks(entry.inputs) == _marks(formal), (entry.entry.name, opset, formal)


def _one_node(op: str, inputs: dict[str, list[int]], outs: list[str], opset: int,
              initializers: tuple = (), **attrs: object) -> onnx.ModelProto:
    """A model of one ``op`` node: float32 graph inputs of these shapes, then the
    initializers, as its inputs; ``outs`` its outputs (``""`` an omitted one), each
    named one a graph output of no type."""
    node = helper.make_node(op, [*inputs, *(t.name for t in initializers)], outs, **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape)
                      for n, shape in inputs.items()],
        [onnx.ValueInfoProto(name=o) for o in outs if o], initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


#: TopK's k (an initializer) and BatchNormalization's inputs.
_K = helper.make_tensor("k", TensorProto.INT64, [1], [2])
_NORM = {"x": [2, 3, 4, 5], "s": [3], "b": [3], "mu": [3], "var": [3]}

#: The nodes judged, by name: each a model of the outputs ``outs`` at an opset
#: (BatchNormalization from opset 15: 3 outputs in training, else 1).
NODES = {
    "topk": lambda outs, opset: _one_node("TopK", {"x": [3, 4]}, outs, opset, (_K,)),
    "dropout": lambda outs, opset: _one_node("Dropout", {"x": [3, 4]}, outs, opset),
    "split": lambda outs, opset: _one_node(
        "Split", {"x": [3, 4]}, outs, opset, axis=1,
        **({"num_outputs": max(len(outs), 1)} if opset >= 18 else {})),
    "batch_norm": lambda outs, opset: _one_node(
        "BatchNormalization", _NORM, outs, max(opset, 15), training_mode=0),
    "training": lambda outs, opset: _one_node(
        "BatchNormalization", _NORM, outs, max(opset, 15), training_mode=1),
}


CASES = [("topk", outs) for outs in (["v"], ["v", ""], ["", "i"], ["v", "i"], ["v", "i", "z"])] + \
    [("dropout", outs) for outs in (["y"], ["y", "m"], ["y", ""], ["", "m"], ["y", "m", "z"])] + \
    [("split", outs) for outs in (["a"], ["a", "b"], ["a", "b", "c", "d"])] + \
    [(name, outs) for name in ("batch_norm", "training")
     for outs in (["y"], ["y", "m"], ["y", "m", "v"], ["y", "", "v"])]


@pytest.mark.parametrize("opset", [13, 18, 22])
@pytest.mark.parametrize(("name", "outs"), CASES, ids=[f"{n}-{'/'.join(o)}" for n, o in CASES])
def test_accepted_exactly_where_onnxruntime_accepts_the_outputs(name, outs, opset):
    """(BatchNormalization, from opset 15: 3 outputs in training, else 1, as its schema's
    allowed output counts, {1, 3}, and its shape inference say.) A model onnxruntime loads
    but cannot run (BatchNormalization in training of an empty running mean: signal 11)
    is left untyped: judged by running it too."""
    model = NODES[name](outs, opset)
    accepted = ort_refusal(model) is None
    if accepted and not kantensor_accepts(model):
        feeds = {i.name: np.ones([d.dim_value for d in i.type.tensor_type.shape.dim],
                                 np.float32) for i in model.graph.input}
        accepted = not isinstance(ortrun.run(model, feeds), ortrun.Refusal)
    assert kantensor_accepts(model) == accepted, (outs, opset)


def fits_where_the_checker_takes_it(entry):
    """Every count of outputs up to one past the most, each either named or ``""``: the
    entry's outputs fit exactly where onnx's checker passes the node (its inputs as
    the schema's formal inputs ask, so only the outputs may fail it)."""
    opset = entry.since
    found = onnx.defs.get_schema(entry.op_type, opset, entry.domain)
    ins = [f"x{k}" for k, f in enumerate(found.inputs)]
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version, ctx.opset_imports = 10, {entry.domain: opset}
    most = found.max_output if found.max_output < 2**31 - 1 else len(found.outputs) + 1
    for n in range(most + 2):
        if entry.op_type == "BatchNormalization" and 1 < n < len(found.outputs):
            continue  # (its schema allows 1 or all its outputs, 3 or 5, which training
            # picks: the builder refuses the others, judged by onnxruntime above)
        for blank in [None, *range(n)]:
            wanted = [("" if k == blank else f"y{k}") for k in range(n)]
            node = helper.make_node(entry.op_type, ins, wanted, domain=entry.domain)
            try:
                onnx.checker.check_node(node, ctx)
                checked = True
            except onnx.checker.ValidationError as exc:  # (Verify checks the inputs,
                checked = "output" not in str(exc)  # then the outputs, then attributes)
            assert fits(entry.gives, wanted) == checked, (entry.entry.name, wanted)


def variadic_inputs_fit_where_the_checker_takes_them(entry):
    """A variadic input is one or more, unless its schema's ``min_arity`` is 0 (Loop's
    ``v_initial`` from opset 11, SequenceMap's ``additional_inputs``): a Concat, Sum, Max,
    Mean or Einsum of no input was typed or crashed (IndexError), where the checker
    refuses it. Judged by ``check_node`` at the entry's first and last opsets, with 0 to
    2 variadic inputs; the quick check (``fits``) and the one that says why
    (``bounds.arity``) agree."""
    newest = min(entry.until or NEWEST, onnx.defs.onnx_opset_version())
    for opset in sorted({entry.since, newest}):
        if (entry.op_type, opset) in INPUTS_NOT_YET:
            continue
        found = onnx.defs.get_schema(entry.op_type, opset, entry.domain)
        first = next(k for k, s in enumerate(entry.inputs) if s.startswith("*"))
        ctx = onnx.checker.C.CheckerContext()
        ctx.ir_version, ctx.opset_imports = 10, {entry.domain: opset}
        outs = [f"y{k}" for k in range(max(found.min_output, 1))]
        for extra in range(3):
            ins = [f"x{k}" for k in range(first)] + [f"v{j}" for j in range(extra)]
            node = helper.make_node(entry.op_type, ins, outs, domain=entry.domain)
            try:
                onnx.checker.check_node(node, ctx)
                checked = True
            except onnx.checker.ValidationError as exc:  # (inputs are checked first)
                checked = "input size" not in str(exc)
            assert entry.fits(ins) == checked, (entry.entry.name, opset, ins)
            try:
                arity(entry.inputs, node, "node")
                said = True
            except OnnxImportError as exc:
                said = False
                assert "at least one is required" in str(exc)
            assert said == checked, (entry.entry.name, opset, ins)


def _variadic(entry) -> bool:
    return entry.domain == "" and any(s.startswith("*") for s in entry.inputs)


#: The checks made of every entry (each a function asserting of one entry, as its doc
#: says), and which entries each judges: one test per check runs it over them all.
CHECKS = {
    "states its schema's outputs": (states_its_schemas_outputs, lambda e: True),
    "marks its inputs as its schema": (marks_its_inputs_as_its_schema, lambda e: True),
    "fits where the checker takes it": (fits_where_the_checker_takes_it,
                                        lambda e: e.domain == ""),
    "variadic inputs fit where the checker takes them": (
        variadic_inputs_fit_where_the_checker_takes_them, _variadic),
}


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_every_entry(check):
    """Each check of :data:`CHECKS` over every entry it judges: the entries that fail
    it, each with its assertion's text."""
    function, judged = CHECKS[check]
    entries_judged, failed = 0, []
    for entry in _entries():
        if not judged(entry):
            continue
        entries_judged += 1
        try:
            function(entry)
        except AssertionError as exc:
            failed.append(f"{entry.entry.name}: {exc}")
    assert not failed, "\n".join(failed)
    assert entries_judged
