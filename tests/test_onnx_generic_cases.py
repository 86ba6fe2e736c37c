"""The size-generic node memo (kantensor.onnx.generic, and kantensor.onnx.repeats, which
finds a template by its op type's last one) judged on ONNX's own node test cases
(``onnx.backend.test.case.node``): each case's node is repeated on inputs of other sizes
of the same template (each size above 1 shifted, or scaled: equal sizes stay equal,
distinct ones distinct, 0 and 1 stay), three times, then on the case's own inputs, so
that the last node is typed by a template wherever the template path types it; the
reading's types, conditions, untyped names and errors must be the ordinary build's
(every template instance withheld). Where a template typed the case's own node, its
output types are also ``from_onnx``'s (make_node's, the relation every front end runs).
"""

from __future__ import annotations

import itertools

import onnx
import pytest
from onnx import helper

from kantensor.onnx import from_onnx, generic
from onnx_cases import cases, in_scope
from test_onnx_generic import _typing as typing_of

#: Ways to make a sibling's size from a case's size above 1 (the k-th of three siblings).
VARIANTS = {"shifted": lambda d, k: d + 10 * k, "scaled": lambda d, k: d * (k + 1)}

#: Floors: how many cases and variants the comparison ran on, in how many of them a
#: template typed the case's own node, of how many op types (2,700, 1,602 and 120 when
#: written), and in how many of the brute force's models (5,265 of 18,500; 5,027 before,
#: 4,984 since Attention's empty sizes and ConvTranspose's empty kernels are refused, as
#: onnxruntime refuses them): a regression of the path's reach below them fails.
MIN_SERVED = 1500
MIN_COMPARED = 2600
MIN_OPS_SERVED = 110
MIN_SERVED_BRUTE = 4950


def _shape(t: onnx.TypeProto) -> list | None:
    """A tensor type's sizes (ints, names, None), or None when it is no tensor's or has
    no shape."""
    if t.WhichOneof("value") != "tensor_type" or not t.tensor_type.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else
            d.dim_param if d.HasField("dim_param") else None for d in t.tensor_type.shape.dim]


def repeated(case_model: onnx.ModelProto, variant: str, own: dict | None = None
             ) -> onnx.ModelProto | None:
    """The case's one node applied to three siblings of its inputs (sizes made by
    ``variant``) and then to its own inputs (their shapes ``own`` by name when given),
    each copy's names prefixed; None when the case is not one node over tensor inputs of
    known shapes."""
    graph = case_model.graph
    if len(graph.node) != 1 or graph.initializer or graph.sparse_initializer:
        return None
    node = graph.node[0]
    infos = {i.name: i for i in graph.input}
    shapes = {}
    for name in node.input:
        if name:
            if name not in infos:
                return None
            shapes[name] = _shape(infos[name].type)
            if shapes[name] is None:
                return None
    if own is not None:
        shapes.update(own)
    size = VARIANTS[variant]
    inputs, nodes, outputs = [], [], []
    for k, prefix in ((1, "s_"), (2, "t_"), (3, "u_"), (0, "x_")):
        for name, dims in shapes.items():
            made = [size(d, k) if k and type(d) is int and d > 1 else d for d in dims]
            inputs.append(helper.make_tensor_value_info(
                prefix + name, infos[name].type.tensor_type.elem_type, made))
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copy.name = prefix + (node.name or "node")
        del copy.input[:], copy.output[:]
        copy.input.extend([prefix + n if n else "" for n in node.input])
        copy.output.extend([prefix + n if n else "" for n in node.output])
        nodes.append(copy)
        outputs += [helper.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None)
                    for o in copy.output if o]
    made = helper.make_graph(nodes, "repeated", inputs, [])
    made.output.extend(outputs)
    model = helper.make_model(made, opset_imports=case_model.opset_import)
    model.ir_version = case_model.ir_version
    return model


def _typing(model: onnx.ModelProto, templates: bool = True) -> tuple:
    """test_onnx_generic's harness, each instance the templates gave with the text of the
    input types it was given."""
    return typing_of(model, templates, given=True)


@pytest.fixture(scope="module")
def judged() -> dict:
    """Every in-scope single-node case of tensor inputs read with and without the
    templates, in each variant: counts, and the cases that differ."""
    found = {"compared": 0, "served": 0, "agree": 0, "differ": [], "relation": [],
             "ops served": {}}
    for case in cases():
        if not in_scope({n.op_type for n in case.model.graph.node}):
            continue
        for variant in VARIANTS:
            model = repeated(case.model, variant)
            if model is None:
                break
            with_templates, served = _typing(model)
            without, _ = _typing(model, templates=False)
            found["compared"] += 1
            if with_templates != without:
                found["differ"].append((case.name, variant))
                continue
            found["agree"] += 1
            if not isinstance(with_templates[0], tuple):
                continue  # (an error, the same without templates)
            types = dict(with_templates[0])
            node = case.model.graph.node[0]
            own = tuple(types["x_" + n] for n in node.input if n)
            if not any(typed is not None and given == own for typed, given in served):
                continue  # (the case's own node not typed by a template)
            found["served"] += 1
            found["ops served"].setdefault(node.op_type, []).append((case.model, variant))
            try:
                _, outs = from_onnx(model, outputs=["x_" + o for o in node.output if o])
            except Exception as exc:  # noqa: BLE001 - a refusal is a disagreement here
                found["relation"].append((case.name, variant, repr(exc)))
                continue
            if [str(v.type) for v in outs] != [types[v.name] for v in outs]:
                found["relation"].append((case.name, variant))
    generic.TEMPLATES.clear()
    generic.PINNED.clear()
    return found


def test_node_cases_typed_by_templates_as_by_the_ordinary_build(judged):
    """Types, conditions, untyped names and errors equal in every case and variant."""
    assert judged["differ"] == []
    assert judged["compared"] >= MIN_COMPARED


def test_node_cases_typed_by_templates_as_from_onnx_types_them(judged):
    """Where a template typed the case's own node, make_node (from_onnx) types its
    outputs alike, and the path reaches many cases of many op types."""
    assert judged["relation"] == []
    assert judged["served"] >= MIN_SERVED, judged["served"]
    assert len(judged["ops served"]) >= MIN_OPS_SERVED, sorted(judged["ops served"])


#: The sizes each of the axes :func:`_axes` picks takes in the brute force below (0 and
#: 1: broadcasting, empty axes; 2 and 3; a named size); the other axes keep the case's
#: sizes.
DOMAIN = (0, 1, 2, 3, "n")
#: How many cases of each op type the brute force takes.
PER_OP = 3


def _axes(shapes: dict) -> list[tuple[str, int]]:
    """The axes the brute force assigns: the last two of the first input and the last
    of each other input, at most three (where a window slides, a reduction runs or
    operands broadcast)."""
    axes = []
    for k, (name, dims) in enumerate(shapes.items()):
        axes += [(name, a) for a in range(len(dims))][-2 if k == 0 else -1:]
    return axes[:3]


def _assignments(shapes: dict) -> list[dict]:
    """Every assignment of :data:`DOMAIN` to the axes :func:`_axes` picks of ``shapes``
    (name -> sizes, in the node's order of inputs), as shapes by name."""
    axes = _axes(shapes)
    out = []
    for sizes in itertools.product(DOMAIN, repeat=len(axes)):
        made = {name: list(dims) for name, dims in shapes.items()}
        for (name, a), d in zip(axes, sizes, strict=True):
            made[name][a] = d
        out.append(made)
    return out


def test_every_op_a_template_types_by_brute_force(judged):
    """For up to :data:`PER_OP` cases of every op type a template typed (spread over its
    cases: other attributes, kernels, ranks): every assignment of the sizes 0..3 and a
    named size to up to three axes of its inputs, typed through a template of sibling
    sizes as the ordinary build types it (types, conditions, untyped names, errors)."""
    differ, served = [], 0
    for op_type, found in sorted(judged["ops served"].items()):
        for model, variant in found[::-(-len(found) // PER_OP)]:
            differ_, served_ = _brute(op_type, model, variant)
            differ += differ_
            served += served_
    assert differ == [], differ[:5]
    assert served >= MIN_SERVED_BRUTE, served


def _brute(op_type: str, model: onnx.ModelProto, variant: str) -> tuple[list, int]:
    """The brute force of one case: the assignments typed otherwise through a template
    than the ordinary way, and how many its own node a template typed."""
    differ, served = [], 0
    node = model.graph.node[0]
    infos = {i.name: i for i in model.graph.input}
    shapes = {n: _shape(infos[n].type) for n in node.input if n}
    for own in _assignments(shapes):
        made = repeated(model, variant, own)
        found, instances = _typing(made)
        if found != _typing(made, templates=False)[0]:
            differ.append((op_type, model.graph.node[0].name, own))
        if isinstance(found[0], tuple):  # (else an error, the same without)
            types = dict(found[0])
            mine = tuple(types["x_" + n] for n in node.input if n)
            served += any(t is not None and g == mine for t, g in instances)
    return differ, served
