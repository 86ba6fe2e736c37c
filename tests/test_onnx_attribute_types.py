"""A node's attributes are of its schema's attribute types (onnx's checker and
onnxruntime hold a node to them: "Mismatched attribute type"): each catalogue parameter
read from an attribute reads the type its kind names (kantensor/onnx/calls
.ATTRIBUTE_TYPES), and an attribute of another type is refused."""

from __future__ import annotations

import onnx
import pytest
from onnx import defs

from kantensor.onnx.calls import ATTRIBUTE_TYPES, call_plan
from kantensor.onnx.registry import _tables, entries
from onnxsweep import (
    NEWEST_CASES,
    attribute_truth,
    attribute_type_models,
    kantensor_says,
    model_of,
    sweep,
)

pytest.importorskip("onnxruntime")


def test_every_parameter_reads_its_schemas_attribute_type():
    """Every parameter of every catalogue entry named as an attribute of the entry's
    schema (at its first opset) has a kind of :data:`ATTRIBUTE_TYPES`, whose type is the
    schema's: the check of a node's attributes by their kinds refuses no valid node."""
    judged, wrong = 0, []
    for domain, op in sorted(_tables()):
        if op == "?":
            continue
        for entry in entries(domain, op):
            spec = getattr(entry.entry, "spec", None)
            try:
                schema = defs.get_schema(entry.op_type, entry.since, entry.domain)
            except defs.SchemaError:
                continue
            for p in spec.params if spec is not None else ():
                attr = schema.attributes.get(p.name)
                if attr is None:
                    continue
                judged += 1
                if ATTRIBUTE_TYPES.get(p.kind) != attr.type:
                    wrong.append((entry.entry.name, p.name, p.kind, attr.type))
    assert not wrong
    assert judged > 500


def test_an_attribute_of_another_type_is_refused():
    """ONNX's one-node test cases, each attribute given as another type in turn
    (tests/onnxsweep.py ``attribute_types``): refused exactly where onnxruntime refuses
    ("Mismatched attribute type"), else onnx's checker. 39 were taken before (a FLOAT
    alpha of Elu given as INT, a kernel_shape as one INT, a RandomNormal's seed as INT,
    ...)."""
    tally = sweep(attribute_type_models(NEWEST_CASES), attribute_truth)
    assert not tally.wrong_accepts, tally.wrong_accepts[:5]
    assert not tally.wrong_refusals, tally.wrong_refusals[:5]
    assert tally.judged > 100


@pytest.mark.parametrize(("value", "ok"), [(3.5, True), (3, False), ("a", False)])
def test_a_seed_is_a_float(value, ok):
    """A random op's ``seed`` is a FLOAT attribute: an INT or STRING one was taken
    (onnxruntime refuses it at load)."""
    node = onnx.helper.make_node("RandomNormal", [], ["y"], shape=[2, 3], seed=value)
    model = model_of([node], [], 21)
    assert attribute_truth(model, "RandomNormal")[0] is ok
    assert (kantensor_says(model) == "accepts") is ok


#: Attributes entries still take at opsets whose schema lacks them (left to their
#: owners): Resize-13's axes, antialias and keep_aspect_ratio_policy before 18; the Scan
#: handler's attributes, which its two entries share (Scan-8's directions at 9 on, 9's
#: scan_*_axes and scan_*_directions at 8).
LEFT = {("Resize", a) for a in ("axes", "antialias", "keep_aspect_ratio_policy")} | {
    ("Scan", "directions"), *(("Scan-8", f"scan_{io}_{kind}") for io in ("input", "output")
                              for kind in ("axes", "directions"))}


def test_every_attribute_an_entry_takes_is_its_schemas_at_each_opset():
    """An entry takes, at every opset it types (7 on, to the newest onnx knows), only
    attributes of the op's schema at that opset: a node giving another is refused, as
    onnxruntime refuses it ("Unrecognized attribute"). Taken before: Cast's saturate
    before 19 and round_mode before 24, Reshape's allowzero before 14, Shape's start and
    end before 15, ScatterElements' and ScatterND's reduction before 16, Attention's
    window sizes before 25, AveragePool's dilations before 19, LpPool's dilations and
    ceil_mode before 18, SpaceToDepth's mode before 28, and RNN's, GRU's and LSTM's
    ``gates`` at every opset. (A ``<input>_bounds`` parameter is read from its input: a
    node giving it as an attribute is refused as given twice.)"""
    newest = defs.onnx_opset_version()
    judged, wrong = 0, set()
    for domain, op in sorted(_tables()):
        if op == "?" or domain not in ("", "ai.onnx"):
            continue
        for entry in entries(domain, op):
            refused = set() if entry.structured else call_plan(entry).refused
            taken = {a for a in entry.attributes if not a.endswith("_bounds")} - refused \
                - {"given", "outputs"}
            for opset in range(max(entry.since, 7), min(entry.until or newest, newest) + 1):
                schema = defs.get_schema(entry.op_type, opset, entry.domain)
                judged += 1
                wrong |= {(entry.entry.name, a) for a in taken if a not in schema.attributes}
    assert wrong == LEFT
    assert judged > 1500
