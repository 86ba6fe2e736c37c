"""A sweep of one-node models over element types: kantensor's verdict against the
oracles' (nobody here wrote them).

Each model is judged by onnxruntime at load (graph optimisations off: the model as
written; tests/onnxverdicts.ort_refusal): it takes the model (``ok``), refuses it for its
types (a ``Type Error`` naming the op: ``type``), or refuses it for another reason (no
kernel for a type the schema allows, an opset it does not know yet); then onnx's shape
inference (``strict_mode``, ``check_type``), which reads the schema's type constraints,
judges. Where onnxruntime takes a model that onnx's inference refuses (a type attribute
onnxruntime does not check: an empty Optional of bfloat16), the model is *disputed*:
either verdict of kantensor is counted right. kantensor's verdict is
whether ``from_onnx`` types the model; a refusal for an op it does not type (an
``UnsupportedOp``, a value it needs not known) is counted apart, neither right nor
wrong.

Run as a script (``python tests/onnxsweep.py [optional|sequence_map|attributes|cases|
attribute_types]``)
it prints, per family, the models judged and the wrong accepts and refusals, each wrong
verdict with its model's description.
"""

from __future__ import annotations

import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import onnx
from onnx import TensorProto, helper, shape_inference

from kantensor.onnx import from_onnx
from kantensor.onnx.dtypes import DTYPES
from kantensor.onnx.registry import UnsupportedOp
from kantensor.onnx.shared import NotKnown
from onnxverdicts import ort, ort_refusal

#: Every element type kantensor has, by its ONNX code.
ELEMS = dict(DTYPES)

#: The newest opset the node cases' sweep is given (the cases carry their own opsets).
NEWEST_CASES = onnx.defs.onnx_opset_version()


def model_of(nodes: list, inputs: list, opset: int, outputs: tuple = ("y",),
             initializers: tuple = ()) -> onnx.ModelProto:
    """A model of these nodes and graph inputs at ``opset``, its outputs of no type."""
    graph = helper.make_graph(nodes, "g", inputs, [onnx.ValueInfoProto(name=o)
                                                   for o in outputs],
                              initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def ort_says(model: onnx.ModelProto, op: str) -> str:
    """``ok``, ``type`` (onnxruntime refuses the node ``op`` for its types) or the text
    of its other refusal."""
    text = ort_refusal(model)
    if text is None:
        return "ok"
    named = f"of operator ({op})" in text or f"of Optype ({op})" in text or \
        f"(op_type:{op}" in text
    return "type" if "Type Error" in text and named else text


def onnx_takes(model: onnx.ModelProto) -> bool:
    """Whether onnx's strict shape inference takes ``model`` (it checks each node's
    types against its schema, as the checker does, and the types it infers)."""
    try:
        shape_inference.infer_shapes(model, strict_mode=True, check_type=True)
    except Exception:  # onnx's checker and inference errors
        return False
    return True


def truth(model: onnx.ModelProto, op: str) -> tuple[bool | None, str]:
    """Whether the model is valid (onnxruntime's word where it judges the types, else
    onnx's; None where onnxruntime takes what onnx refuses), and who said so."""
    said = ort_says(model, op)
    if said == "type":
        return False, "ort"
    if said == "ok":
        return (True, "ort") if onnx_takes(model) else (None, "disputed")
    return onnx_takes(model), "onnx"


def kantensor_says(model: onnx.ModelProto) -> str:
    """``accepts``, ``refuses`` (a TypeError or ValueError) or ``unsupported`` (an op or
    a value kantensor does not type)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from_onnx(model)
        except (UnsupportedOp, NotKnown):
            return "unsupported"
        except (TypeError, ValueError):
            return "refuses"
    return "accepts"


@dataclass
class Tally:
    """The verdicts of a sweep: models judged, wrong accepts and refusals (each with its
    description), and kantensor's unsupported ones."""

    judged: int = 0
    unsupported: int = 0
    disputed: int = 0

    def __post_init__(self) -> None:
        self.wrong_accepts: list[str] = []
        self.wrong_refusals: list[str] = []

    def judge(self, what: str, model: onnx.ModelProto, op: str,
              oracle: Callable = None) -> None:
        valid, who = (oracle or truth)(model, op)
        said = kantensor_says(model)
        if said == "unsupported":
            self.unsupported += 1
            return
        if valid is None:
            self.disputed += 1
            return
        self.judged += 1
        if said == "accepts" and not valid:
            self.wrong_accepts.append(f"{what} ({who})")
        elif said == "refuses" and valid:
            self.wrong_refusals.append(f"{what} ({who})")

    def __str__(self) -> str:
        return (f"{self.judged} judged, {len(self.wrong_accepts)} wrongly accepted, "
                f"{len(self.wrong_refusals)} wrongly refused, {self.unsupported} unsupported, "
                f"{self.disputed} disputed")


def _tensor(name: str, elem: int, shape: tuple = (2, 3)) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, list(shape))


def _sequence(name: str, elem: int) -> onnx.ValueInfoProto:
    return helper.make_tensor_sequence_value_info(name, elem, [2, 3])


def _optional(name: str, elem: int, sequence: bool) -> onnx.ValueInfoProto:
    inner = helper.make_sequence_type_proto(helper.make_tensor_type_proto(elem, [2, 3])) \
        if sequence else helper.make_tensor_type_proto(elem, [2, 3])
    return helper.make_value_info(name, helper.make_optional_type_proto(inner))


def _type_attr(elem: int, sequence: bool) -> onnx.TypeProto:
    tensor = helper.make_tensor_type_proto(elem, [2, 3])
    return helper.make_sequence_type_proto(tensor) if sequence else tensor


#: Optional ops' one-node models, each with one element type varied: (name, first
#: opset, op, model of (element type, opset)).
OPTIONAL_CASES: list[tuple[str, int, str, Callable]] = [
    ("Optional(tensor)", 15, "Optional", lambda e, o: model_of(
        [helper.make_node("Optional", ["x"], ["y"])], [_tensor("x", e)], o)),
    ("Optional(sequence)", 15, "Optional", lambda e, o: model_of(
        [helper.make_node("Optional", ["x"], ["y"])], [_sequence("x", e)], o)),
    ("Optional(type=tensor)", 15, "Optional", lambda e, o: model_of(
        [helper.make_node("Optional", [], ["y"], type=_type_attr(e, False))], [], o)),
    ("Optional(type=sequence)", 15, "Optional", lambda e, o: model_of(
        [helper.make_node("Optional", [], ["y"], type=_type_attr(e, True))], [], o)),
    *[(f"{op}(optional {kind})", 15, op, lambda e, o, op=op, s=s: model_of(
        [helper.make_node(op, ["x"], ["y"])], [_optional("x", e, s)], o))
      for op in ("OptionalHasElement", "OptionalGetElement")
      for kind, s in (("tensor", False), ("sequence", True))],
    *[(f"{op}(tensor)", 15, op, lambda e, o, op=op: model_of(
        [helper.make_node(op, ["x"], ["y"])], [_tensor("x", e)], o))
      for op in ("OptionalHasElement", "OptionalGetElement")],
    *[(f"{op}(sequence)", 15, op, lambda e, o, op=op: model_of(
        [helper.make_node(op, ["x"], ["y"])], [_sequence("x", e)], o))
      for op in ("OptionalHasElement", "OptionalGetElement")],
]


def optional_models(newest: int) -> Iterator[tuple[str, str, onnx.ModelProto]]:
    for name, first, op, make in OPTIONAL_CASES:
        for opset in range(first, newest + 1):
            for code, dtype in ELEMS.items():
                yield f"{name} {dtype} @{opset}", op, make(code, opset)


def _body(elem: int, to: int | None, extra: int | None) -> onnx.GraphProto:
    """SequenceMap's body: its element (of ``elem``) cast to ``to`` (None: as it is);
    with ``extra``, a second input (a tensor of that element type), passed through as a
    second output."""
    ins = [_tensor("e", elem)] + ([_tensor("a", extra)] if extra is not None else [])
    nodes = [helper.make_node("Cast", ["e"], ["r"], to=to) if to is not None else
             helper.make_node("Identity", ["e"], ["r"])]
    outs = [onnx.ValueInfoProto(name="r")]
    if extra is not None:
        nodes.append(helper.make_node("Identity", ["a"], ["b"]))
        outs.append(onnx.ValueInfoProto(name="b"))
    return helper.make_graph(nodes, "body", ins, outs)


def sequence_map_models(newest: int) -> Iterator[tuple[str, str, onnx.ModelProto]]:
    """SequenceMap of a sequence of each element type (its body the identity); of a
    float32 sequence cast to each type in its body; with an additional tensor of each
    type (passed through to a second output sequence)."""
    f = TensorProto.FLOAT
    for opset in range(17, newest + 1):
        for code, dtype in ELEMS.items():
            yield f"SequenceMap(seq {dtype}) @{opset}", "SequenceMap", model_of(
                [helper.make_node("SequenceMap", ["s"], ["y"], body=_body(code, None, None))],
                [_sequence("s", code)], opset)
            yield f"SequenceMap(seq float32 -> {dtype}) @{opset}", "SequenceMap", model_of(
                [helper.make_node("SequenceMap", ["s"], ["y"], body=_body(f, code, None))],
                [_sequence("s", f)], opset)
            yield f"SequenceMap(seq float32, {dtype}) @{opset}", "SequenceMap", model_of(
                [helper.make_node("SequenceMap", ["s", "a"], ["y", "z"],
                                  body=_body(f, None, code))],
                [_sequence("s", f), _tensor("a", code)], opset, outputs=("y", "z"))


def _value(elem: int) -> onnx.TensorProto:
    """A tensor of two elements of ``elem`` (a Constant's or ConstantOfShape's value)."""
    return helper.make_tensor("v", elem, [1] if elem != TensorProto.STRING else [1],
                              vals=[b"a"] if elem == TensorProto.STRING else [1])


#: The ops of the default domain with an attribute naming an element type (or holding a
#: tensor of one), each as (op, the node's inputs as graph inputs: (name, element type,
#: shape), attributes beside it, a function of the element type giving that attribute).
#: (SequenceEmpty's dtype, QuantizeLinear's and DequantizeLinear's output_dtype: judged
#: in tests/test_onnx_sequence_types.py and tests/test_onnx_quantize.py.)
_F, _I64 = TensorProto.FLOAT, TensorProto.INT64
ATTRIBUTE_CASES: list[tuple[str, tuple, dict, Callable]] = [
    ("Cast", (("x", _F, [2, 3]),), {}, lambda e: {"to": e}),
    ("BitCast", (("x", _F, [2, 3]),), {}, lambda e: {"to": e}),
    ("Bernoulli", (("x", _F, [2, 3]),), {}, lambda e: {"dtype": e}),
    ("EyeLike", (("x", _F, [3, 3]),), {}, lambda e: {"dtype": e}),
    ("Multinomial", (("x", _F, [2, 3]),), {"sample_size": 2}, lambda e: {"dtype": e}),
    ("RandomNormal", (), {"shape": [2, 3]}, lambda e: {"dtype": e}),
    ("RandomUniform", (), {"shape": [2, 3]}, lambda e: {"dtype": e}),
    ("RandomNormalLike", (("x", _F, [2, 3]),), {}, lambda e: {"dtype": e}),
    ("RandomUniformLike", (("x", _F, [2, 3]),), {}, lambda e: {"dtype": e}),
    ("ConstantOfShape", (("x", _I64, [2]),), {}, lambda e: {"value": _value(e)}),
    ("Constant", (), {}, lambda e: {"value": _value(e)}),
]


def _first(op: str) -> int | None:
    """The op's first opset in the default domain (None: onnx has no such op)."""
    try:
        return min(v for v in range(1, onnx.defs.onnx_opset_version() + 1)
                   if _exists(op, v))
    except ValueError:
        return None


def _exists(op: str, opset: int) -> bool:
    try:
        onnx.defs.get_schema(op, opset)
    except onnx.defs.SchemaError:
        return False
    return True


def attribute_models(newest: int) -> Iterator[tuple[str, str, onnx.ModelProto]]:
    """Each op of :data:`ATTRIBUTE_CASES` at each opset it exists, its attribute naming
    each element type."""
    for op, ins, attrs, varied in ATTRIBUTE_CASES:
        first = _first(op)
        for opset in range(first or newest + 1, newest + 1):
            for code, dtype in ELEMS.items():
                node = helper.make_node(op, [n for n, _, _ in ins], ["y"], **attrs,
                                        **varied(code))
                yield f"{op} {dtype} @{opset}", op, model_of(
                    [node], [_tensor(n, e, tuple(sh)) for n, e, sh in ins], opset)


def case_models(newest: int) -> Iterator[tuple[str, str, onnx.ModelProto]]:
    """ONNX's node test cases of one node (``onnx.backend.test.case.node``, as
    tests/onnx_cases.py prepares them: small integer inputs made initializers, the
    outputs' types cleared), one per op type and domain (the case of the most graph
    inputs), each graph input's element type varied over every one in turn (a tensor's,
    or a sequence's or an optional's element type), the others as the case has them."""
    for op, name, model in _chosen_cases():
        for k, info in enumerate(model.graph.input):
            elem = _elem_of(info.type)
            if elem is None:
                continue
            for code, dtype in ELEMS.items():
                if code == elem.elem_type:
                    continue
                varied = onnx.ModelProto()
                varied.CopyFrom(model)
                _elem_of(varied.graph.input[k].type).elem_type = code
                yield f"{op} {name} input {k} {dtype}", op, varied


def _chosen_cases() -> Iterator[tuple[str, str, onnx.ModelProto]]:
    """The one-node cases, one per op type and domain (the case of the most graph
    inputs), prepared as tests/onnx_cases.py does: (op type, case name, model)."""
    import onnx_cases  # (the node cases load onnx's reference implementations: slow)

    chosen: dict[tuple[str, str], tuple] = {}
    for case in onnx_cases.cases():
        if len(case.model.graph.node) != 1:
            continue
        node = case.model.graph.node[0]
        try:
            model, _, _ = onnx_cases.prepared(case, symbolic=False)
        except Exception:  # (a data set onnx_cases cannot read)
            continue
        key = (node.domain, node.op_type)
        if key not in chosen or len(model.graph.input) > len(chosen[key][1].graph.input):
            chosen[key] = (case.name, model)
    for (_, op), (name, model) in sorted(chosen.items()):
        yield op, name, model


#: An attribute's type changed to another (its value kept as near as that type holds it):
#: INT <-> FLOAT, INTS <-> FLOATS, INTS -> INT (its first), STRING -> STRINGS.
_A = onnx.AttributeProto
RETYPED: dict[int, list[tuple[int, Callable]]] = {
    _A.INT: [(_A.FLOAT, lambda a: {"f": float(a.i)})],
    _A.FLOAT: [(_A.INT, lambda a: {"i": int(a.f)})],
    _A.INTS: [(_A.FLOATS, lambda a: {"floats": [float(v) for v in a.ints]}),
              (_A.INT, lambda a: {"i": a.ints[0] if a.ints else 0})],
    _A.FLOATS: [(_A.INTS, lambda a: {"ints": [int(v) for v in a.floats]})],
    _A.STRING: [(_A.STRINGS, lambda a: {"strings": [a.s]})],
}


def attribute_type_models(newest: int) -> Iterator[tuple[str, str, onnx.ModelProto]]:
    """ONNX's one-node test cases (as :func:`case_models` chooses them), each attribute
    of the node given as another attribute type in turn (:data:`RETYPED`): the schema
    names each attribute's type, which onnx's checker and onnxruntime hold a node to
    ("Mismatched attribute type")."""
    for op, name, model in _chosen_cases():
        for k, attr in enumerate(model.graph.node[0].attribute):
            for to, value in RETYPED.get(attr.type, []):
                retyped = onnx.ModelProto()
                retyped.CopyFrom(model)
                a = retyped.graph.node[0].attribute[k]
                a.ClearField(_FIELDS[attr.type])
                a.type = to
                for field, v in value(attr).items():
                    if isinstance(v, list):
                        getattr(a, field).extend(v)
                    else:
                        setattr(a, field, v)
                yield (f"{op} {name} {attr.name} {_A.AttributeType.Name(attr.type)} -> "
                       f"{_A.AttributeType.Name(to)}"), op, retyped


_FIELDS = {_A.INT: "i", _A.FLOAT: "f", _A.INTS: "ints", _A.FLOATS: "floats",
           _A.STRING: "s"}


def checker_takes(model: onnx.ModelProto) -> bool:
    """Whether onnx's checker passes the model's one node against its schema (its
    attributes' types among what it checks), at the model's opsets."""
    ctx = onnx.checker.C.CheckerContext()
    ctx.ir_version = model.ir_version
    ctx.opset_imports = {o.domain: o.version for o in model.opset_import}
    try:
        onnx.checker.check_node(model.graph.node[0], ctx)
    except onnx.checker.ValidationError:
        return False
    return True


def attribute_truth(model: onnx.ModelProto, op: str) -> tuple[bool | None, str]:
    """Whether a node's attributes are of its schema's types: onnxruntime's word where it
    refuses them ("Mismatched attribute type") or takes the model, else onnx's checker;
    None where onnxruntime takes what the checker refuses."""
    said = ort_refusal(model)
    if said is not None and "Mismatched attribute type" in said:
        return False, "ort"
    takes = checker_takes(model)
    if said is None:
        return (True, "ort") if takes else (None, "disputed")
    return takes, "onnx"


def _elem_of(proto: onnx.TypeProto):
    """The tensor type inside a type (a sequence's or an optional's element's), or None."""
    kind = proto.WhichOneof("value")
    if kind == "tensor_type":
        return proto.tensor_type
    if kind == "sequence_type":
        return _elem_of(proto.sequence_type.elem_type)
    if kind == "optional_type":
        return _elem_of(proto.optional_type.elem_type)
    return None


def sweep(models: Iterator[tuple[str, str, onnx.ModelProto]],
          oracle: Callable = None) -> Tally:
    tally = Tally()
    for what, op, model in models:
        tally.judge(what, model, op, oracle)
    return tally


def main(families: list[str]) -> None:
    ort.set_default_logger_severity(3)
    newest = onnx.defs.onnx_opset_version()
    found = {"optional": optional_models, "sequence_map": sequence_map_models,
             "attributes": attribute_models, "cases": case_models,
             "attribute_types": attribute_type_models}
    for family in families or list(found):
        tally = sweep(found[family](newest), attribute_truth
                      if family == "attribute_types" else None)
        print(f"{family}: {tally}")
        for kind, found_ in (("accepts", tally.wrong_accepts),
                             ("refusals", tally.wrong_refusals)):
            counts = Counter(w.split(" ")[0] for w in found_)
            print(f"  wrong {kind} by op:", dict(counts))
        for line in tally.wrong_accepts[:40] + tally.wrong_refusals[:40]:
            print("   ", line)


if __name__ == "__main__":
    main(sys.argv[1:])
