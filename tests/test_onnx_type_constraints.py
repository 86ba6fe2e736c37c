"""ONNX's type constraints are part of each op's relation (signatures/onnx/*.toml).

The element types an ONNX op takes are its schema's (``onnx.defs.get_schema(op, opset)
.type_constraints``); the catalogue states them in the signature as a where-clause on
the first input's dtype variable (``T in (bfloat16, float16, float32, float64)``), in one
entry per range of opsets over which the schema's set is the same. Three oracles:

- the catalogue equals what ``onnx.defs`` gives, at every opset an entry types (up to
  the newest opset the installed onnx knows);
- onnxruntime: a one-node model of each op, element type and opset is refused by
  kantensor exactly where onnxruntime refuses it with a type error at load time (where
  onnxruntime lacks a kernel, NOT_IMPLEMENTED, the schema is the judge: such a model is
  valid ONNX that onnxruntime cannot run);
- one relation: ``make_node`` accepts a dtype exactly when ``query`` run backwards from
  an unknown input dtype gives it.
"""

from __future__ import annotations

import warnings

import onnx
import pytest
from kanren import var
from onnx import TensorProto, defs, helper

import kantensor as kt
from kantensor.onnx import from_onnx
from kantensor.onnx.dtypes import DTYPES
from kantensor.onnx.registry import entries
from kantensor.ops.op import SignatureOp
from kantensor.signature.overloads import compiled
from kantensor.types.dtypes import CATEGORIES, DEFAULT_RANGE

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


def schema_dtypes(op_type: str, opset: int) -> frozenset[str]:
    """The dtypes (kantensor's) the schema of ``op_type`` at ``opset`` lets its first
    input be."""
    schema = defs.get_schema(op_type, opset, "")
    constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
    type_str = schema.inputs[0].type_str
    out = set()
    for text in constraints.get(type_str, [type_str]):
        code = TensorProto.DataType.Value(text.removeprefix("tensor(").removesuffix(")").upper())
        if code in DTYPES:
            out.add(DTYPES[code])
    return frozenset(out)


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


@pytest.mark.parametrize("op_type", OPS)
def test_the_catalogue_states_the_schemas_types_at_every_opset(op_type):
    found = entries("", op_type)
    assert found
    covered = set()
    for entry in found:
        for opset in range(entry.since, (entry.until or NEWEST) + 1):
            covered.add(opset)
            assert stated_dtypes(entry) == schema_dtypes(op_type, opset), (entry.entry.name, opset)
    first = min(e.since for e in found)
    assert covered == set(range(first, NEWEST + 1))


def _model(op_type: str, elem: int, opset: int) -> onnx.ModelProto:
    node = helper.make_node(op_type, ["x"], ["y"])
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", elem, [2, 3, 4, 5])],
        [onnx.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def _ort(model: onnx.ModelProto, op_type: str) -> str:
    """``ok``, ``type`` (the node refused for its input's element type at load), or the
    error of another refusal: NOT_IMPLEMENTED (no kernel for a type the schema allows),
    a type error inside the op's function body as onnxruntime inlines it (ReduceLogSum's
    Log of an integer sum before opset 28), a type onnxruntime does not register."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    try:
        ort.InferenceSession(model.SerializeToString(), options,
                             providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime's own exception classes
        text = str(e)
        if "INVALID_GRAPH" in text and "Type Error" in text and \
                f"of input parameter (x) of operator ({op_type})" in text:
            return "type"
        return text
    return "ok"


def _kantensor(model: onnx.ModelProto) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            from_onnx(model)
        except (TypeError, ValueError):
            return False
    return True


@pytest.mark.parametrize("op_type", OPS)
def test_refused_exactly_where_onnxruntime_refuses_the_type(op_type):
    first = min(e.since for e in entries("", op_type))
    judged = 0
    for opset in ORT_OPSETS:
        if opset < first:
            continue
        allowed = schema_dtypes(op_type, opset)
        for elem, name in ELEM_TYPES.items():
            model = _model(op_type, elem, opset)
            said, accepted = _ort(model, op_type), _kantensor(model)
            if said == "ok":
                assert accepted, (op_type, opset, name)
            elif said == "type":
                assert not accepted, (op_type, opset, name)
            else:  # not the node's type constraint: the schema judges
                assert accepted == (name in allowed), (op_type, opset, name, said)
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
