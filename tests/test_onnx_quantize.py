"""QuantizeLinear and DequantizeLinear: each opset's type constraints and output dtype.

Their schemas change at opsets 10, 13, 19, 21, 23, 24 and 25 (x and the scale of one
type T from 19 to 22 and of two from 23; the zero point's set growing by int16/uint16,
int4/uint4, float4e2m1, int2/uint2; a float8e8m0 scale from 24; ``output_dtype`` from 21
for Quantize, 23 for Dequantize); signatures/onnx/quantization.toml has one entry per
run. Oracles nobody here wrote:

- onnxruntime: a one-node model of each element type for each input (the others kept at
  a type they take) is refused by kantensor exactly where onnxruntime refuses it for its
  types at load; where onnxruntime lacks a kernel (int32 or bfloat16 x, a float4 zero
  point, a float8e8m0 scale) onnx's shape inference (``strict_mode``, ``check_type``)
  judges, and where both accept, the output's dtype is the one onnx infers;
- one relation: a query from unknown dtypes of x, the scale and the zero point gives
  exactly the triples ``make_node`` accepts.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import onnx
import pytest
from kanren import var
from onnx import TensorProto, helper, shape_inference
from onnx.reference import ReferenceEvaluator

import kantensor as kt
import ortrun
from kantensor.onnx import from_onnx
from kantensor.onnx.dtypes import DTYPES
from kantensor.onnx.registry import entries
from kantensor.types.dtypes import CATEGORIES
from onnxverdicts import ort, ort_refusal

#: Every element type kantensor has but STRING, by its ONNX code.
ELEMS = {code: name for code, name in DTYPES.items() if name not in CATEGORIES["string"]}

#: An opset of each run of the schemas.
OPSETS = (10, 13, 19, 21, 23, 24, 25)


def _model(op: str, opset: int, elems: tuple, **attrs: int) -> onnx.ModelProto:
    """``op(x: [2, 3], scale: [], zero point: [])`` of these element types (None: no
    zero point)."""
    names = ["x", "s", "z"][:len(elems) - (elems[-1] is None)]
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(n, e, [2, 3] if n == "x" else [])
                      for n, e in zip(names, elems, strict=False)],
        [onnx.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def _ort(model: onnx.ModelProto) -> str:
    """``ok``, ``type`` (refused for its inputs' types) or onnxruntime's other refusal."""
    text = ort_refusal(model)
    return "ok" if text is None else "type" if "Type Error" in text else text


def _onnx(model: onnx.ModelProto) -> int | None:
    """The output's element type onnx's shape inference gives, None where it refuses."""
    try:
        inferred = shape_inference.infer_shapes(model, strict_mode=True, check_type=True)
    except Exception:  # onnx's inference errors
        return None
    return inferred.graph.output[0].type.tensor_type.elem_type


def _kantensor(model: onnx.ModelProto) -> str | None:
    """The output's dtype kantensor gives, None where it refuses the model."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _, outs = from_onnx(model)
        except (TypeError, ValueError):
            return None
    return outs[0].type.dtype


def _judge(model: onnx.ModelProto, where: tuple) -> None:
    said, inferred, got = _ort(model), _onnx(model), _kantensor(model)
    if said in ("ok", "type"):
        assert (got is not None) == (said == "ok"), (*where, said, got)
    else:  # (no kernel: the schema, as onnx's inference reads it, judges)
        assert (got is not None) == (inferred is not None), (*where, said[:80], got)
    if got is not None and inferred is not None:
        assert got == DTYPES[inferred], (*where, got, DTYPES[inferred])


def _groups(op: str, opset: int) -> list[tuple[int, ...]]:
    """The inputs of one type parameter: Dequantize's x and zero point; Quantize's x and
    scale from 19 to 22."""
    if op == "DequantizeLinear":
        return [(0, 2), (1,)]
    return [(0, 1), (2,)] if 19 <= opset <= 22 else [(0,), (1,), (2,)]


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("op", ["QuantizeLinear", "DequantizeLinear"])
def test_each_input_refused_exactly_where_onnxruntime_refuses_it(op, opset):
    """Each type parameter varied over every element type, the other inputs kept at
    float32 (x, scale) and uint8 (zero point, Dequantize's x)."""
    for group, elem in itertools.product(_groups(op, opset), ELEMS):
        types = [TensorProto.FLOAT, TensorProto.FLOAT, TensorProto.UINT8]
        types[0] = types[0] if op == "QuantizeLinear" else TensorProto.UINT8
        for k in group:
            types[k] = elem
        _judge(_model(op, opset, tuple(types)), (op, opset, group, ELEMS[elem]))


OUTPUT_DTYPES = (TensorProto.UINT8, TensorProto.INT4, TensorProto.INT2, TensorProto.FLOAT4E2M1,
                 TensorProto.FLOAT8E4M3FN, TensorProto.INT32, TensorProto.FLOAT,
                 TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.DOUBLE)


@pytest.mark.parametrize("opset", (21, 23, 25))
def test_quantize_output_dtype_is_in_the_zero_points_set_and_equal_to_it(opset):
    """``output_dtype`` names the output's dtype: one of the zero point's set at that
    opset, and the zero point's own where the node has one (uint8 against int4 refused,
    as onnxruntime and onnx refuse it)."""
    for od, zero in itertools.product(OUTPUT_DTYPES, (None, TensorProto.UINT8, "same")):
        z = od if zero == "same" else zero
        model = _model("QuantizeLinear", opset, (TensorProto.FLOAT, TensorProto.FLOAT, z),
                       output_dtype=od)
        _judge(model, (opset, DTYPES[od], zero))


@pytest.mark.parametrize("opset", (23, 24, 25))
def test_dequantize_output_dtype_or_the_scales_is_a_float_of_its_set(opset):
    """From 23, ``output_dtype`` (else the scale's dtype) is the output's, one of
    (bfloat16, float16, float32): a float8e8m0 scale (from 24) needs it."""
    for od, scale in itertools.product((0, *OUTPUT_DTYPES),
                                       (TensorProto.FLOAT, TensorProto.FLOAT8E8M0)):
        model = _model("DequantizeLinear", opset, (TensorProto.UINT8, scale, None),
                       **({"output_dtype": od} if od else {}))
        _judge(model, (opset, od, DTYPES[scale]))


def _builds(op, dtypes: tuple, shapes: tuple) -> bool:
    try:
        op.make_node(*(kt.TensorType(d, sh)() for d, sh in zip(dtypes, shapes, strict=True)))
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("entry", [e for op in ("QuantizeLinear", "DequantizeLinear")
                                   for e in entries("", op)], ids=lambda e: e.entry.name)
def test_query_backwards_gives_the_dtypes_make_node_accepts(entry):
    """One relation (a scalar scale and zero point, the attributes' defaults): from
    unknown dtypes of x, the scale and the zero point, every answer of ``query`` builds
    forwards; and with one type parameter's inputs unknown, the others known, ``query``
    gives exactly the dtypes ``make_node`` accepts."""
    op, shapes = entry.op.bind(), ((2, 3), (), ())
    default = ("float32", "float32", "uint8") if entry.op_type == "QuantizeLinear" else \
        ("uint8", "float32", "uint8")
    answers = kt.query(op, [kt.pattern(var(n), s) for n, s in zip("xsz", shapes,
                                                                   strict=True)], [var()])
    joint = {(a["x"], a["s"], a["z"]) for a in answers}
    assert joint and all(_builds(op, t, shapes) for t in joint), entry.entry.name
    for group in _groups(entry.op_type, entry.since):
        unknown = var("u")
        terms = [kt.pattern(unknown if k in group else d, s)
                 for k, (d, s) in enumerate(zip(default, shapes, strict=True))]
        backwards = {a["u"] for a in kt.query(op, terms, [var()])}
        forwards = {name for name in ELEMS.values() if _builds(
            op, tuple(name if k in group else d for k, d in enumerate(default)), shapes)}
        assert backwards == forwards and forwards, (entry.entry.name, group)


def _shaped(op: str, x: tuple, scale: tuple, zero: tuple | None, **attrs: int
            ) -> onnx.ModelProto:
    """``op`` at opset 21 of these shapes (float32 x for Quantize, uint8 for Dequantize; a
    float32 scale, a uint8 zero point)."""
    elem = TensorProto.FLOAT if op == "QuantizeLinear" else TensorProto.UINT8
    inputs = [helper.make_tensor_value_info("x", elem, list(x)),
              helper.make_tensor_value_info("s", TensorProto.FLOAT, list(scale))]
    if zero is not None:
        inputs.append(helper.make_tensor_value_info("z", TensorProto.UINT8, list(zero)))
    node = helper.make_node(op, [i.name for i in inputs], ["y"], **attrs)
    graph = helper.make_graph(inputs=inputs, nodes=[node], name="g",
                              outputs=[onnx.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model


SCALES = [(), (1,), (2,), (3,), (6,), (1, 1), (4, 2), (4, 3), (2, 6), (4, 6), (4, 1)]


@pytest.mark.parametrize("op", ["QuantizeLinear", "DequantizeLinear"])
@pytest.mark.parametrize("x", [(4, 6), (6,)])
def test_scale_and_zero_point_shapes_are_taken_exactly_where_onnxruntime_runs(op, x):
    """A scalar, per-axis or blocked scale (its shape x's but ``ceil(D / block_size)`` at
    the axis), the zero point of the scale's shape (or a scalar beside a scale of one
    element): kantensor types the node (as x's shape) exactly where onnxruntime runs it.
    A blocked scale of one axis beside an x of one (``(2,)`` for ``(6,)`` in blocks of 3)
    was refused: it was read as a per-axis scale that must broadcast to the axis. A
    scalar scale with a ``block_size`` (which onnx.reference runs per tensor) is refused,
    as onnxruntime refuses it when it runs: it was typed as a scale per tensor."""
    dtype = np.float32 if op == "QuantizeLinear" else np.uint8
    for scale, zmode, axis, block in itertools.product(
            SCALES, ("none", "same", "scalar"), (None, 0, -1), (None, 2, 3)):
        zero = None if zmode == "none" else scale if zmode == "same" else ()
        attrs = {k: v for k, v in (("axis", axis), ("block_size", block)) if v is not None}
        model = _shaped(op, x, scale, zero, **attrs)
        feeds = {"x": np.ones(x, dtype), "s": np.ones(scale, np.float32)}
        if zero is not None:
            feeds["z"] = np.zeros(zero, np.uint8)
        ran = ortrun.run(model, feeds)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                got = from_onnx(model)[1][0].type.shape
            except (TypeError, ValueError):
                got = None
        want = None if isinstance(ran, ortrun.Refusal) else tuple(ran[0])
        assert got == want, (scale, zero, attrs, got, want)


@pytest.mark.parametrize("precision", [None, TensorProto.FLOAT, TensorProto.FLOAT16,
                                       TensorProto.DOUBLE, TensorProto.BFLOAT16,
                                       TensorProto.INT32, TensorProto.STRING, 99])
def test_quantize_divides_in_its_precision(precision):
    """``precision`` (from opset 23) is the element type the division computes in:
    kantensor types the node exactly where onnx.reference runs it (an element type but
    STRING; 99 is none), with its values, and onnxruntime's where it runs it (float32
    and float16 only: its CPU kernel refuses the other precisions). 2049 in float16 is
    2048: the precision was ignored (the division made in float32)."""
    attrs = {} if precision is None else {"precision": precision}
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
        helper.make_tensor_value_info("s", TensorProto.FLOAT, []),
        helper.make_tensor_value_info("z", TensorProto.INT16, [])],
        [onnx.ValueInfoProto(name="y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    model.ir_version = 10
    feeds = {"x": np.array([2049, 2051, -3.3], np.float32), "s": np.array(1, np.float32),
             "z": np.array(0, np.int16)}
    try:
        (want,) = ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # onnx.reference's refusal of the precision
        want = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            inputs, outputs = from_onnx(model)
        except (TypeError, ValueError):
            assert want is None, precision
            return
    assert want is not None, precision
    (got,) = kt.function(inputs, outputs)(*feeds.values())
    assert got.dtype == want.dtype and (got == want).all(), (got, want)
    if precision in (None, TensorProto.FLOAT, TensorProto.FLOAT16):
        (ran,) = ort.InferenceSession(model.SerializeToString(),
                                      providers=["CPUExecutionProvider"]).run(None, feeds)
        assert (got == ran).all(), (got, ran)
