"""ONNX's type constraints are part of each op's relation (signatures/onnx/*.toml).

The element types an ONNX op takes are its schema's (``onnx.defs.get_schema(op, opset)
.type_constraints``, read by tests/onnxschema.py); the catalogue states them in the
signature as where-clauses on the inputs' dtype variables (``T in (bfloat16, float16,
float32, float64)``, ``I in (int32, int64)``) or as fixed dtypes (Reshape's shape
``int64``), in one entry per range of opsets over which the schema's sets are the same.
Three oracles:

- the catalogue states what ``onnx.defs`` gives, for every input of every entry of the
  default domain, at every opset it types (up to the newest opset the installed onnx
  knows): no dtype the schema refuses, every one it allows but strings (taken only where
  a signature says so), except where onnxruntime refuses in the op's function body
  (NARROWER) and the inputs not stated yet (NOT_YET);
- onnxruntime: a one-node model of each op, element type and opset is refused by
  kantensor exactly where onnxruntime refuses it with a type error at load time (where
  onnxruntime lacks a kernel, NOT_IMPLEMENTED, the schema is the judge: such a model is
  valid ONNX that onnxruntime cannot run); for ops of several inputs (CASES), each type
  parameter varied in turn, and two inputs of one parameter given two types;
- one relation: ``make_node`` accepts a dtype exactly when ``query`` run backwards from
  an unknown input dtype gives it.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from kanren import var
from onnx import defs, helper

import kantensor as kt
from kantensor.onnx import from_onnx, infer_shapes
from kantensor.onnx.dtypes import DTYPES
from kantensor.onnx.onnxop import _flat
from kantensor.onnx.registry import _tables, entries
from kantensor.ops.family import OpFamily
from kantensor.ops.op import SignatureOp
from kantensor.signature.overloads import compiled
from kantensor.types.dtypes import CATEGORIES, DEFAULT_RANGE
from onnxschema import input_sets
from onnxsweep import ATTRIBUTE_CASES, attribute_models, onnx_takes, sweep
from onnxverdicts import kantensor_accepts, ort_refusal

ort = pytest.importorskip("onnxruntime")

#: The ops whose first input's element types the catalogue states (all single-input
#: ops of the default domain typed by a signature; OptionalGetElement and
#: SplitToSequence, typed by handlers, are not yet: see docs/onnx.rst).
OPS = tuple("""Abs Acos Acosh ArgMax ArgMin Asin Asinh Atan Atanh Bernoulli BitwiseNot Ceil
Celu Clip Cos Cosh Dropout Elu Erf Exp Floor Gelu GlobalAveragePool GlobalMaxPool HardSigmoid
HardSwish Hardmax IsInf IsNaN LeakyRelu Log LogSoftmax LpNormalization
MeanVarianceNormalization Mish Neg Reciprocal ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp
ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum ReduceSumSquare Relu Round Selu Shrink
Sigmoid Sign Sin Sinh Softmax Softplus Softsign Sqrt Tan Tanh ThresholdedRelu
Unique""".split())

NEWEST = defs.onnx_opset_version()

#: The element types judged: every one kantensor has but STRING.
ELEM_TYPES = {code: name for code, name in DTYPES.items() if name not in CATEGORIES["string"]}

#: The opsets onnxruntime judges at (where the op exists).
ORT_OPSETS = (11, 13, 21, 22)


def stated_dtypes(entry) -> frozenset[str]:
    """The dtypes an entry's signature lets its first input be (for a template, as
    rendered for its first example or a float32 input)."""
    sig = entry.op.signature if isinstance(entry.op, SignatureOp) else None
    if sig is None:
        sig = entry._example_signature()
    if sig is None:
        sig = entry.op.signature_for((kt.TensorType("float32", (2, 3, 4, 5)),))[0]
    out: set[str] = set()
    for alt in compiled(sig):
        allowed = alt.input_dtypes[0]
        out |= DEFAULT_RANGE if not isinstance(allowed, frozenset) else allowed
    return frozenset(out)


def _model(op_type: str, elem: int, opset: int) -> onnx.ModelProto:
    node = helper.make_node(op_type, ["x"], ["y"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", elem, [2, 3, 4, 5])],
        [onnx.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


@pytest.mark.parametrize("op_type", OPS)
def test_refused_exactly_where_onnxruntime_refuses_the_type(op_type):
    first = min(e.since for e in entries("", op_type))
    judged = 0
    for opset in ORT_OPSETS:
        if opset < first:
            continue
        name, _, allowed = input_sets(op_type, opset)[0]
        narrower = NARROWER.get((op_type, name), {}).get(opset, frozenset())
        for elem, name in ELEM_TYPES.items():
            model = _model(op_type, elem, opset)
            said, accepted = _said(model, op_type), kantensor_accepts(model)
            if said == "ok" and name in narrower and not onnx_takes(model):
                continue  # (onnxruntime's own kernel runs what the op's body, as onnx
                # reads it, refuses: disputed, and the catalogue follows the body)
            if said == "ok":
                assert accepted, (op_type, opset, name)
            elif said == "type":
                assert not accepted, (op_type, opset, name)
            else:  # not the node's type constraint: the schema judges, but where
                # onnxruntime refuses the type in the op's function body (NARROWER)
                assert accepted == (name in allowed - narrower), (op_type, opset, name, said)
                continue
            judged += 1
    assert judged


@pytest.mark.parametrize("op_type", [o for o in OPS if all(
    isinstance(e.op, SignatureOp) for e in entries("", o))])
def test_query_backwards_gives_the_dtypes_make_node_accepts(op_type):
    for entry in entries("", op_type):
        answers = kt.query(entry.op, [kt.pattern(var(), (2, 3))], [var()])
        # (each answer: the input's dtype, named by its variable, and the output's type)
        backwards = {next(v for v in a.values() if isinstance(v, str)) for a in answers}
        forwards = set()
        for name in ELEM_TYPES.values():
            try:
                entry.op.make_node(kt.TensorType(name, (2, 3))())
            except TypeError:
                continue
            forwards.add(name)
        assert backwards == forwards == stated_dtypes(entry), entry.entry.name


# -- every input -------------------------------------------------------------------------

#: Inputs whose dtypes the catalogue does not state yet, though their schema names a
#: set (each is still wider than its schema; the test fails once it is not, so that the
#: list shrinks): none left of the default domain's entries (the ops typed by handlers,
#: the sequence family, are judged in tests/test_onnx_sequence_types.py).
NOT_YET: set[tuple[str, str]] = set()

#: Where the oracles refuse what the schema allows (a type error in the op's function
#: body as onnxruntime inlines it; or no kernel, and onnx's inference refuses) and the
#: catalogue follows them (see signatures/onnx/reduction.toml and nn.toml): per (op type,
#: input), per opset, the dtypes refused.
NARROWER = {("ReduceLogSum", "data"): dict.fromkeys(range(18, 28),
                                                    frozenset({"uint32", "uint64"})),
            # (its body adds a float32 constant; see signatures/onnx/nn.toml)
            ("MeanVarianceNormalization", "X"): {
                **dict.fromkeys(range(9, 13), frozenset({"float16", "float64"})),
                **dict.fromkeys(range(13, NEWEST + 1),
                                frozenset({"float16", "float64", "bfloat16"}))}}


def rendered_inputs(entry) -> dict[int, frozenset[str]]:
    """The dtypes an entry's signature lets each ONNX input be (by the input's position),
    over its signature (for a template, as rendered for each of its examples: an
    example's ``given`` says which optional inputs it has)."""
    found = []
    if isinstance(entry.op, SignatureOp):
        found.append((entry.op.signature, None))
    for example in () if found else entry.entry.examples:
        if "in" not in example:
            continue
        params = {k: v for k, v in example.items() if k not in ("in", "out", "error")}
        types = tuple(kt.TensorType.parse(t) for t in _flat(example["in"]))
        try:
            op = entry.op.bind(**params) if isinstance(entry.op, OpFamily) else entry.op
            found.append((op.signature_for(types)[0], params.get("given")))
        except (TypeError, ValueError, IndexError):
            continue
    variadic = len(entry.inputs) == 1 and entry.inputs[0].startswith("*")
    out: dict[int, set[str]] = {}
    for sig, given in found:
        for alt in compiled(sig):
            places = [0] * alt.n_in if variadic else \
                list(given) if given is not None else list(range(alt.n_in))
            for place, allowed in zip(places, alt.input_dtypes, strict=False):
                out.setdefault(place, set()).update(allowed)
    return {k: frozenset(v) for k, v in out.items()}


def _default_domain_entries():
    return [e for d, op in sorted(_tables()) if d == "" and op != "?"
            for e in entries(d, op) if not e.structured]


@pytest.mark.parametrize("entry", _default_domain_entries(), ids=lambda e: e.entry.name)
def test_every_input_takes_the_types_its_schema_names(entry):
    """At every opset the entry types, each input its examples render takes no dtype its
    schema refuses (the op exists there), and every dtype the schema allows but strings
    (which kantensor takes only where a signature says ``T in string``)."""
    stated = rendered_inputs(entry)
    wider = set()
    for opset in range(entry.since, (entry.until or NEWEST) + 1):
        sets = input_sets(entry.op_type, opset)
        assert sets or not stated, (entry.entry.name, opset, "no schema at this opset")
        # (an op of no input: RandomNormal, RandomUniform)
        for k, allowed in stated.items():
            if k >= len(sets):
                continue
            name, _, schema = sets[k]
            if (entry.op_type, name) in NOT_YET:
                wider |= {name} if allowed - schema else set()
                continue
            narrower = NARROWER.get((entry.op_type, name), {}).get(opset, frozenset())
            assert allowed <= schema - narrower, (entry.entry.name, opset, name,
                                                   sorted(allowed - schema))
            assert schema - narrower - {"string"} <= allowed, (
                entry.entry.name, opset, name, sorted(schema - allowed))
    first = input_sets(entry.op_type, entry.since)
    rendered = {first[k][0] for k in stated if k < len(first)}
    for op_type, name in NOT_YET:
        if op_type == entry.op_type and name in rendered:
            assert name in wider, f"{op_type} {name} is stated now: drop it from NOT_YET"


#: One-node models onnxruntime judges, per op type: each input's shape (every input a
#: graph input; the inputs past those given are left out) and the node's attributes.
CASES = {
    **{op: ([[2, 3], [2, 3]], {}) for op in (
        "Add", "Sub", "Mul", "Div", "PRelu", "Pow", "Equal", "Less", "Greater",
        "LessOrEqual", "GreaterOrEqual", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Max",
        "Min", "Sum", "Mean", "And", "Or", "Xor", "GatherElements")},
    "Mod": ([[2, 3], [2, 3]], {"fmod": 1}),
    "BitShift": ([[2, 3], [2, 3]], {"direction": "LEFT"}),
    "MatMul": ([[2, 3], [3, 4]], {}),
    "Gemm": ([[2, 3], [3, 4], [4]], {}),
    "Where": ([[2, 3], [2, 3], [2, 3]], {}),
    "Gather": ([[2, 3], [2]], {}),
    "Clip": ([[2, 3], [], []], {}),
    "Range": ([[], [], []], {}),
    "CumSum": ([[2, 3], []], {}),
    "Concat": ([[2, 3], [2, 3]], {"axis": 0}),
    "Conv": ([[1, 1, 5, 5], [1, 1, 3, 3], [1]], {}),
    "Tile": ([[2, 3], [2]], {}),
    "Reshape": ([[2, 3], [2]], {}),
    "Dropout": ([[2, 3], []], {}),
    "MatMulInteger": ([[2, 3], [3, 4], [], []], {}),
    "Trilu": ([[3, 3], []], {}),
}

#: The opsets onnxruntime judges the cases of several inputs at.
CASE_OPSETS = (13, 22)


def _default(allowed: frozenset[str]) -> str:
    """The dtype an input keeps while another type parameter's dtype varies."""
    for name in ("float32", "int64", "bool"):
        if name in allowed:
            return name
    return min(allowed)


def _case_model(op_type: str, opset: int, dtypes: list[str]) -> onnx.ModelProto:
    shapes, attrs = CASES[op_type]
    codes = {name: code for code, name in DTYPES.items()}
    names = [f"x{k}" for k in range(len(dtypes))]
    node = helper.make_node(op_type, names, ["y"], **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(n, codes[d], s)
                      for n, d, s in zip(names, dtypes, shapes, strict=False)],
        [onnx.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def _said(model: onnx.ModelProto, op_type: str) -> str:
    """onnxruntime's word on a model: ``ok``, ``type`` (the node refused for its inputs'
    types at load), or its other refusal's text (a missing kernel; a type error inside
    the op's function body as onnxruntime inlines it: Clip of bfloat16 at opset 13,
    whose body's Where is of an opset without it)."""
    text = ort_refusal(model)
    if text is None:
        return "ok"
    return "type" if "Type Error" in text and (
        f"of operator ({op_type})" in text or f"of Optype ({op_type})" in text) else text


@pytest.mark.parametrize("op_type", sorted(CASES))
def test_each_type_parameter_refused_exactly_where_onnxruntime_refuses_it(op_type):
    """Each type parameter of the op's schema (and each input of a written type) varied
    over every element type, the others' inputs kept at a type they take: kantensor
    refuses exactly where onnxruntime refuses the model for its types (where onnxruntime
    refuses for another reason, a missing kernel, the schema judges); two inputs of one
    type parameter given two types are refused by both."""
    judged = 0
    for opset in CASE_OPSETS:
        sets = input_sets(op_type, opset)[:len(CASES[op_type][0])]
        if not sets:
            continue
        params = {p: s for _, p, s in sets}
        for param, allowed in params.items():
            for name in ELEM_TYPES.values():
                dtypes = [name if p == param else _default(params[p]) for _, p, _ in sets]
                model = _case_model(op_type, opset, dtypes)
                said, accepted = _said(model, op_type), kantensor_accepts(model)
                if said == "ok":
                    assert accepted, (op_type, opset, param, name)
                elif said == "type":
                    assert not accepted, (op_type, opset, param, name)
                else:
                    assert accepted == (name in allowed), (op_type, opset, param, name, said)
                    continue
                judged += 1
            places = [k for k, (_, p, _) in enumerate(sets) if p == param]
            other = sorted(allowed - {_default(allowed), "string"})
            if len(places) > 1 and other:
                dtypes = [_default(params[p]) for _, p, _ in sets]
                dtypes[places[-1]] = other[0]
                model = _case_model(op_type, opset, dtypes)
                assert _said(model, op_type) == "type", (op_type, opset, param, dtypes)
                assert not kantensor_accepts(model), (op_type, opset, param, dtypes)
    assert judged


@pytest.mark.parametrize("op_type", ["Add", "Pow", "MatMul", "Equal", "PRelu"])
def test_query_backwards_gives_the_dtype_pairs_make_node_accepts(op_type):
    """One relation over two inputs: a query from two unknown dtypes gives exactly the
    pairs make_node accepts (Add's one shared set, Pow's two sets)."""
    shapes = ((2, 3), (3, 4)) if op_type == "MatMul" else ((2, 3), (2, 3))
    for entry in entries("", op_type):
        answers = kt.query(entry.op, [kt.pattern(var("a"), shapes[0]),
                                      kt.pattern(var("b"), shapes[1])], [var()])
        backwards = {(answer["a"], answer["b"]) for answer in answers}
        forwards = set()
        for x in DTYPES.values():  # (strings too: Equal takes them)
            for y in DTYPES.values():
                try:
                    entry.op.make_node(kt.TensorType(x, shapes[0])(),
                                       kt.TensorType(y, shapes[1])())
                except TypeError:
                    continue
                forwards.add((x, y))
        assert backwards == forwards, entry.entry.name
        assert forwards, entry.entry.name


def test_matmul_integer_reads_each_zero_point_by_its_place():
    """b_zero_point given without a_zero_point (``A, B, "", bz``) is B's: onnxruntime's
    values (it was taken for A's zero point: other values, silently)."""
    node = helper.make_node("MatMulInteger", ["a", "b", "", "bz"], ["y"])
    graph = helper.make_graph([node], "g", [
        helper.make_tensor_value_info("a", onnx.TensorProto.UINT8, [2, 3]),
        helper.make_tensor_value_info("b", onnx.TensorProto.UINT8, [3, 2]),
        helper.make_tensor_value_info("bz", onnx.TensorProto.UINT8, [])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.INT32, [2, 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 10
    feed = {"a": np.arange(6, dtype=np.uint8).reshape(2, 3),
            "b": np.arange(6, dtype=np.uint8).reshape(3, 2) + 5,
            "bz": np.array(3, dtype=np.uint8)}
    (want,) = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"]).run(None, feed)
    inputs, outputs = from_onnx(model)
    (got,) = kt.function(inputs, outputs)(*feed.values())
    assert got.dtype == want.dtype and (got == want).all(), (got, want)


@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float32", "float64"),
                                    ("int32", "int32"), ("int64", "int32"), ("bool", "bool")])
def test_einsum_takes_one_dtype_of_its_schemas_set_as_onnxruntime(dtypes):
    """Einsum's inputs are of one type parameter T (NumPy's einsum promotes them):
    refused where onnxruntime refuses the node's types (where it lacks a kernel, the
    schema judges)."""
    codes = {name: code for code, name in DTYPES.items()}
    node = helper.make_node("Einsum", ["x0", "x1"], ["y"], equation="ij,jk->ik")
    graph = helper.make_graph([node], "g", [
        helper.make_tensor_value_info("x0", codes[dtypes[0]], [2, 3]),
        helper.make_tensor_value_info("x1", codes[dtypes[1]], [3, 4])],
        [onnx.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 10
    said, accepted = _said(model, "Einsum"), kantensor_accepts(model)
    if said in ("ok", "type"):
        assert accepted == (said == "ok"), (dtypes, said)
    else:
        allowed = input_sets("Einsum", 13)[0][2]
        assert accepted == (dtypes[0] == dtypes[1] and dtypes[0] in allowed), (dtypes, said)


# -- element types named by attributes ---------------------------------------------------

#: Known wrong verdicts of the attribute sweep, per op: Cast's ``to`` of STRING (refused:
#: kantensor computes in no string dtype). (A Constant of complex before opset 9, which
#: its schema refuses and onnxruntime cannot load, was taken.)
ATTRIBUTES_LEFT = {"Cast": "refusals"}


@pytest.mark.parametrize("op", [c[0] for c in ATTRIBUTE_CASES])
def test_an_attributes_element_type_refused_exactly_where_the_oracles_refuse(op):
    """The output's element type an attribute names (Cast's and BitCast's ``to``,
    EyeLike's and Bernoulli's ``dtype``, ConstantOfShape's value) is of its schema's set
    at that opset (the schema's ``T2``; BitCast's of the input's bit width), judged by
    onnxruntime at load, else onnx's strict inference (tests/onnxsweep.py) at every
    opset the op exists. Any was taken before (an EyeLike of complex64, a Bernoulli of
    float8, a ConstantOfShape of int4 at opset 13, a BitCast of float32 to uint8, which
    could not run)."""
    tally = sweep(m for m in attribute_models(NEWEST) if m[1] == op)
    # every one typed (RandomNormal, RandomUniform, their Like forms and Multinomial
    # were not), but Cast before opset 13 (not typed: no entry)
    assert op == "Cast" or not tally.unsupported, str(tally)
    if ATTRIBUTES_LEFT.get(op) != "accepts":
        assert not tally.wrong_accepts, (str(tally), tally.wrong_accepts[:5])
    if ATTRIBUTES_LEFT.get(op) != "refusals":
        assert not tally.wrong_refusals, (str(tally), tally.wrong_refusals[:5])
    else:
        assert all(w.startswith(f"{op} string ") for w in tally.wrong_refusals)


@pytest.mark.parametrize("opsets", [(9, 8), (8, 9), (21, 1)])
def test_a_constant_is_of_its_opsets_types_wherever_its_value_was_read(opsets):
    """A Constant's value is read once for the models holding the same node (kept by
    its bytes, whatever the opset): a complex Constant read first at an opset that takes
    it is refused at one before 9 all the same (onnx's strict inference judges), read as
    a graph (from_onnx) and for its types only (infer_shapes)."""
    node = helper.make_node("Constant", [], ["y"], value=helper.make_tensor(
        "v", onnx.TensorProto.COMPLEX64, [1], [1 + 2j]))
    for opset in opsets:
        graph = helper.make_graph([node], "g", [], [onnx.ValueInfoProto(name="y")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 10
        assert kantensor_accepts(model) == onnx_takes(model) == (opset >= 9), opset
        try:  # (reading types only: the path that keeps values by the node's bytes)
            infer_shapes(model)
            typed = True
        except TypeError:
            typed = False
        assert typed == (opset >= 9), opset


@pytest.mark.parametrize("ins", [["b", "s", "m", "i"], ["b", "s", "", "i"],
                                 ["b", "s", "m", "", "f"], ["b", "s", "m", "i", "f"]])
def test_non_max_suppression_reads_each_optional_input_by_its_place(ins):
    """A score_threshold given without iou_threshold (``b, s, m, "", f``) is the score
    threshold: onnxruntime's values (it was read as the iou threshold: other boxes,
    silently); each optional input is of its schema's dtype (an int64 threshold is
    refused)."""
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 0.9, 1, 1.9], [0, 10, 1, 11]]],
                     np.float32)
    values = {"b": boxes, "s": np.array([[[0.9, 0.8, 0.7, 0.6]]], np.float32),
              "m": np.array([3], np.int64), "i": np.array([0.5], np.float32),
              "f": np.array([0.65], np.float32)}
    feeds = {n: values[n] for n in ins if n}
    codes = {name: code for code, name in DTYPES.items()}

    def model(dtypes: dict) -> onnx.ModelProto:
        node = helper.make_node("NonMaxSuppression", ins, ["y"])
        graph = helper.make_graph([node], "g", [
            helper.make_tensor_value_info(n, codes[dtypes[n]], list(v.shape))
            for n, v in feeds.items()], [onnx.ValueInfoProto(name="y")])
        made = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        made.ir_version = 10
        return made

    typed = model({n: str(v.dtype) for n, v in feeds.items()})
    (want,) = ort.InferenceSession(typed.SerializeToString(),
                                   providers=["CPUExecutionProvider"]).run(None, feeds)
    inputs, outputs = from_onnx(typed)
    (got,) = kt.function(inputs, outputs)(*(feeds[v.name] for v in inputs))
    assert got.tolist() == want.tolist(), (got, want)
    wrong = model({n: "int64" if n != "m" else "float32" for n in feeds} |
                  {"b": "float32", "s": "float32"})
    assert _said(wrong, "NonMaxSuppression") == "type"
    assert not kantensor_accepts(wrong)
