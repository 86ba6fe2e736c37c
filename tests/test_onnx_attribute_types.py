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
from onnxverdicts import ort_refusal

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


def test_every_attribute_an_entry_takes_is_its_schemas_at_each_opset():
    """An entry takes, at every opset it types (7 on, to the newest onnx knows), only
    attributes of the op's schema at that opset: a node giving another is refused, as
    onnxruntime refuses it ("Unrecognized attribute"). Taken before: Cast's saturate
    before 19 and round_mode before 24, Reshape's allowzero before 14, Shape's start and
    end before 15, ScatterElements' and ScatterND's reduction before 16, Attention's
    window sizes before 25, Resize's axes, antialias and keep_aspect_ratio_policy
    before 18, Scan's directions at 9 on and its scan_*_axes and scan_*_directions at 8,
    AveragePool's dilations before 19, LpPool's dilations and
    ceil_mode before 18, SpaceToDepth's mode before 28, and RNN's, GRU's and LSTM's
    ``gates`` at every opset. (A ``<input>_bounds`` or ``_columns`` parameter is read from
    its input: a node giving it as an attribute is refused as given twice; so are
    ``given``, ``outputs`` and ``unasked``, read from the node.)"""
    newest = defs.onnx_opset_version()
    judged, wrong = 0, set()
    for domain, op in sorted(_tables()):
        if op == "?" or domain not in ("", "ai.onnx"):
            continue
        for entry in entries(domain, op):
            refused = set() if entry.structured else call_plan(entry).refused
            taken = {a for a in entry.attributes if not a.endswith(("_bounds", "_columns"))} \
                - refused - {"given", "outputs", "unasked"}
            for opset in range(max(entry.since, 7), min(entry.until or newest, newest) + 1):
                schema = defs.get_schema(entry.op_type, opset, entry.domain)
                judged += 1
                wrong |= {(entry.entry.name, a) for a in taken if a not in schema.attributes}
    assert not wrong, sorted(wrong)
    assert judged > 1500


@pytest.mark.parametrize("opset", [13, 17, 18, 19])
@pytest.mark.parametrize("attrs", [{"antialias": 0}, {"keep_aspect_ratio_policy": "stretch"},
                                   {"axes": [2, 3]}])
def test_resize_attributes_of_18_are_refused_before(opset, attrs):
    """Resize's antialias, axes and keep_aspect_ratio_policy came at opset 18: a node at
    13 to 17 giving one is refused exactly where onnxruntime refuses to load it
    ("Unrecognized attribute"); taken before (Resize-13 shared the entry of 18 on)."""
    scales = [2.0, 2.0] if "axes" in attrs else [1.0, 1.0, 2.0, 2.0]
    node = onnx.helper.make_node("Resize", ["x", "", "s"], ["y"], **attrs)
    model = model_of([node], [onnx.helper.make_tensor_value_info("x", 1, [1, 1, 4, 4])],
                     opset, initializers=(onnx.helper.make_tensor("s", 1, [len(scales)],
                                                                  scales),))
    runs = ort_refusal(model) is None
    assert runs is (opset >= 18)  # (the oracle says what it says; this is its precondition)
    assert (kantensor_says(model) == "accepts") is runs


def _scan(opset: int, attrs: dict) -> onnx.ModelProto:
    """A Scan summing a [3, 2] input's rows into a state (a batch of 1 first at 8)."""
    h, f = onnx.helper, onnx.TensorProto.FLOAT
    body = h.make_graph([h.make_node("Add", ["s", "r"], ["s2"]),
                         h.make_node("Identity", ["r"], ["o"])], "body",
                        [h.make_tensor_value_info("s", f, [2]),
                         h.make_tensor_value_info("r", f, [2])],
                        [h.make_tensor_value_info("s2", f, [2]),
                         h.make_tensor_value_info("o", f, [2])])
    batch = [1] if opset < 9 else []
    node = h.make_node("Scan", ([""] if opset < 9 else []) + ["s0", "x"], ["y", "z"],
                       body=body, num_scan_inputs=1, **attrs)
    return model_of([node], [h.make_tensor_value_info("s0", f, [*batch, 2]),
                             h.make_tensor_value_info("x", f, [*batch, 3, 2])],
                    opset, outputs=("y", "z"))


@pytest.mark.parametrize("opset", [8, 9, 16])
@pytest.mark.parametrize("attrs", [{}, {"directions": [0]}, {"scan_input_axes": [0]},
                                   {"scan_input_directions": [0]},
                                   {"scan_output_axes": [0]},
                                   {"scan_output_directions": [0]}])
def test_scan_takes_its_opsets_attributes(opset, attrs):
    """Scan-8 takes ``directions``; Scan 9 on takes ``scan_{input,output}_{axes,
    directions}`` instead: a node giving the other opset's is refused exactly where
    onnxruntime refuses to load it (taken before: the two entries shared a handler)."""
    model = _scan(opset, attrs)
    runs = ort_refusal(model) is None
    assert runs is (not attrs or ("directions" in attrs) is (opset < 9))
    assert (kantensor_says(model) == "accepts") is runs
