"""ONNX's node test cases as an oracle (``onnx.backend.test.case.node``): each case's
model typed by ``kantensor.onnx.infer_shapes`` (with its concrete sizes, and symbolised:
every input size > 1 a named dim_param, equal sizes sharing a name, small integer inputs
and the small inputs that value-dependent ops read for their shapes made initializers, as
exported models have them) and compared with the expected outputs'
shapes and dtypes, and run with ``kt.function`` and compared with the expected values."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import kantensor as kt
from kantensor.onnx import from_onnx, infer_shapes
from kantensor.onnx.dtypes import DTYPES
from kantensor.onnx.importer import read_types
from kantensor.types.dim import Dim
from kantensor.types.dtypes import is_inexact, is_low_precision
from kantensor.types.symbols import substitute

#: Integer inputs with at most this many elements become initializers (shapes, axes).
SMALL = 16

#: (op type, input index): inputs that a value-dependent op reads for its output's shape
#: whatever their dtype: Range's bounds, Resize's and Upsample's scales, OneHot's depth.
#: Exported models carry them as constants, as they carry shapes and axes; small ones
#: become initializers like small integer inputs.
SHAPE_VALUES = frozenset({("Range", 0), ("Range", 1), ("Range", 2), ("Resize", 2),
                          ("Upsample", 1), ("OneHot", 1)})

#: The op types outside the scope of kantensor.onnx: sequence, optional, string and
#: control-flow ops of the default domain (other domains are outside too).
OUT_OF_SCOPE = frozenset({
    "SequenceMap", "SequenceInsert", "SequenceAt", "SequenceConstruct", "SequenceEmpty",
    "SequenceErase", "SequenceLength", "SplitToSequence", "ConcatFromSequence",
    "Optional", "OptionalHasElement", "OptionalGetElement", "StringSplit",
    "StringNormalizer", "StringConcat", "RegexFullMatch", "If", "Loop", "Scan"})


def in_scope(ops: set) -> bool:
    """Whether every op type of a case is in the scope (the default domain, none of
    :data:`OUT_OF_SCOPE`)."""
    return all("." not in op and op not in OUT_OF_SCOPE for op in ops)


def cases() -> list:
    """The node cases, without the ``_expanded`` variants (their function bodies)."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [c for c in collect_testcases(None) if not c.name.endswith("_expanded")
                and "_expanded_" not in c.name]


def _as_array(value: object) -> object:
    """A value of a data set as NumPy has it (some are TensorProtos, some NumPy
    scalars)."""
    if isinstance(value, onnx.TensorProto):
        try:
            return numpy_helper.to_array(value)
        except Exception:  # a type NumPy lacks: compared as ONNX has it
            return value
    return np.asarray(value) if isinstance(value, np.generic) else value


def _is_small(value: object) -> bool:
    return isinstance(value, np.ndarray) and value.ndim <= 1 and value.size <= SMALL


def _is_constant(graph: onnx.GraphProto, name: str, value: object) -> bool:
    """Whether an input becomes an initializer: a small integer, or a small value that
    every node using it reads for a shape (:data:`SHAPE_VALUES`)."""
    if not _is_small(value):
        return False
    if value.dtype.kind in "iu":
        return True
    uses = [(n.op_type, i) for n in graph.node for i, x in enumerate(n.input) if x == name]
    return bool(uses) and all(use in SHAPE_VALUES for use in uses)


def prepared(case: object, symbolic: bool) -> tuple[onnx.ModelProto, list, list]:
    """The case's model with small integer and shape-value inputs as initializers (and
    with named sizes when ``symbolic``), the values of its remaining inputs, and the
    expected outputs."""
    inputs, outputs = ([_as_array(v) for v in vs] for vs in case.data_sets[0])
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    graph = model.graph
    given = [i for i in graph.input if i.name not in {t.name for t in graph.initializer}]
    keep, values = [], []
    for info, value in zip(given, inputs, strict=False):
        if _is_constant(graph, info.name, value):
            graph.initializer.append(numpy_helper.from_array(value, info.name))
            continue
        keep.append(info)
        values.append(value)
        if symbolic:
            _symbolise(info.type, value)
    del graph.input[:]
    graph.input.extend(keep)
    for info in graph.output:  # the expected answer is not given to the typing
        info.type.Clear()
    return model, values, list(outputs)


def _symbolise(proto: onnx.TypeProto, value: object) -> None:
    """Name the sizes of an input's type after its value's: a tensor's every size > 1
    (``d5``); a sequence's element sizes that all its elements share (an axis whose
    size differs between them is unknown, and the rank too when the ranks differ); an
    optional's element's when it holds one."""
    kind = proto.WhichOneof("value")
    if kind == "optional_type" and value is not None:
        _symbolise(proto.optional_type.elem_type, value)
    elif kind == "sequence_type" and isinstance(value, list) and value:
        t = proto.sequence_type.elem_type.tensor_type
        ranks = {np.ndim(v) for v in value}
        t.ClearField("shape")
        if len(ranks) == 1:
            t.shape.SetInParent()
            for sizes in zip(*(np.shape(v) for v in value), strict=True):
                d = t.shape.dim.add()
                if len(set(sizes)) == 1:
                    _name_size(d, sizes[0])
    elif kind == "tensor_type" and isinstance(value, np.ndarray):
        t = proto.tensor_type
        t.ClearField("shape")
        t.shape.SetInParent()
        for size in value.shape:
            _name_size(t.shape.dim.add(), size)


def _name_size(d: onnx.TensorShapeProto.Dimension, size: int) -> None:
    if size > 1:
        d.dim_param = f"d{size}"
    else:
        d.dim_value = size


def written_dims(info: onnx.ValueInfoProto) -> list:
    """A typed value's dims as infer_shapes writes them, read back: ints, Dims (a
    ``dim_param`` in the DSL's syntax), or None (unknown)."""
    out: list = []
    for d in info.type.tensor_type.shape.dim:
        if d.HasField("dim_value"):
            out.append(d.dim_value)
        elif d.HasField("dim_param"):
            out.append(kt.TensorType.parse(f"float32[{d.dim_param}]").shape[0])
        else:
            out.append(None)
    return out


def _dim_value(dim: onnx.TensorShapeProto.Dimension) -> int | None:
    if dim.HasField("dim_value"):
        return dim.dim_value
    if dim.HasField("dim_param"):
        d = kt.TensorType.parse(f"float32[{dim.dim_param}]").shape[0]
        if isinstance(d, Dim):
            names = {s: int(s[1:]) for s in _names(d)}
            value = substitute(d, names)
            return value if isinstance(value, int) else None
        return d
    return None


def _names(d: Dim) -> set:
    from kantensor.types.symbols import free_symbols

    return {s for s in free_symbols(d) if isinstance(s, str) and s[:1] == "d" and s[1:].isdigit()}


def compare(info: onnx.ValueInfoProto, expected: object) -> str:
    """``exact``, ``unknown`` or ``wrong``: the typed output against the expected value."""
    return compare_type(info.type, expected)


def compare_type(proto: onnx.TypeProto, expected: object,
                  tensor: Callable[[onnx.TypeProto, object], str] | None = None) -> str:
    """A tensor's dtype and every size; a sequence's element type against every element
    (an empty one: its dtype is all there is to check); an optional's element against
    the value it holds, or that it is an optional when it holds none. ``tensor`` judges
    a tensor's type (a TypeProto) instead of kantensor's reading of it (the benchmark
    judging other tools' outputs: benchmarks/onnx_compare.py)."""
    if tensor is None:
        tensor = _compare_tensor_type
    kind = proto.WhichOneof("value")
    if kind is None:
        return "unknown"
    if kind == "optional_type":
        if expected is None:
            return "exact"
        return compare_type(proto.optional_type.elem_type, expected, tensor)
    if isinstance(expected, list):
        if kind != "sequence_type":
            return "wrong"
        verdicts = [tensor(proto.sequence_type.elem_type, e) for e in expected]
        if "wrong" in verdicts:
            return "wrong"
        return "exact" if all(v == "exact" for v in verdicts) else "unknown"
    if not isinstance(expected, np.ndarray) or kind != "tensor_type":
        return "unknown" if kind == "tensor_type" else "wrong"
    return tensor(proto, expected)


def _compare_tensor_type(proto: onnx.TypeProto, expected: object) -> str:
    if not proto.HasField("tensor_type"):
        return "unknown"
    return _compare_tensor(proto.tensor_type, expected)


def _dtype_name(array: np.ndarray) -> str:
    """The kantensor dtype of an expected array (ONNX holds strings in object arrays)."""
    return "string" if array.dtype == object else str(array.dtype)


def _compare_tensor(t: onnx.TypeProto.Tensor, expected: object) -> str:
    if not isinstance(expected, np.ndarray):
        return "unknown"
    if t.elem_type == 0:
        return "unknown"
    if DTYPES.get(t.elem_type) != _dtype_name(expected):
        return "wrong"
    if not t.HasField("shape"):
        return "unknown"
    if len(t.shape.dim) != expected.ndim:
        return "wrong"
    verdict = "exact"
    for dim, size in zip(t.shape.dim, expected.shape, strict=True):
        value = _dim_value(dim)
        if value is None:
            verdict = "unknown"
        elif value != size:
            return "wrong"
    return verdict


@dataclass
class Stats:
    cases: int = 0
    op_types: set = field(default_factory=set)
    typed: Counter = field(default_factory=Counter)  # (mode, verdict) -> cases
    unknown: list = field(default_factory=list)
    wrong: list = field(default_factory=list)
    exact_ops: dict = field(default_factory=dict)  # op type -> exact in every case
    refused: Counter = field(default_factory=Counter)  # error kind -> cases
    ran: int = 0
    equal: int = 0
    unequal: list = field(default_factory=list)
    reasons: list = field(default_factory=list)  # (case, mode, error) of refused ones
    #: in-scope cases: all, exact, equal; "reference": onnx.reference reproduces the
    #: expected outputs; "equal of reference": those that kt.function runs equal too
    scope: Counter = field(default_factory=Counter)
    reference: int = 0  # cases (of all) that onnx.reference reproduces
    scope_ops: dict = field(default_factory=dict)  # in-scope op type -> exact in every case


def type_case(case: object, symbolic: bool) -> tuple[str, str]:
    """The verdict for the case's outputs, and the error if it was refused."""
    model, _, outputs = prepared(case, symbolic)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            typed = infer_shapes(model)
    except Exception as exc:  # refused: counted, never typed wrongly
        return "refused", f"{type(exc).__name__}: {exc}"
    untyped = read_types(model).untyped  # what a node kantensor does not support reaches
    for info in model.graph.output:
        if info.name in untyped:
            exc = untyped[info.name]
            return "refused", f"{type(exc).__name__}: {exc}"
    verdicts = [compare(o, e) for o, e in zip(typed.graph.output, outputs, strict=False)]
    if "wrong" in verdicts:
        return "wrong", str(verdicts)
    return ("exact" if all(v == "exact" for v in verdicts) else "unknown"), ""


def run_case(case: object) -> bool | None:
    """Whether ``kt.function`` computes the expected outputs (None: it did not run)."""
    model, values, outputs = prepared(case, True)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            ins, outs = from_onnx(model)
            got = kt.function(ins, outs)(*values)
    except Exception:
        return None
    return _all_equal(case, got if isinstance(got, list) else [got], outputs)


def reference_case(case: object) -> bool:
    """Whether ``onnx.reference.ReferenceEvaluator`` runs the case's own model (as
    given) and reproduces its expected outputs."""
    inputs, outputs = ([_as_array(v) for v in vs] for vs in case.data_sets[0])
    names = [i.name for i in case.model.graph.input]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = ReferenceEvaluator(case.model).run(None, dict(zip(names, inputs,
                                                                    strict=False)))
    except Exception:
        return False
    return len(got) == len(outputs) and _all_equal(case, got, outputs)


def _all_equal(case: object, got: list, outputs: list) -> bool:
    """The outputs against the expected ones: same shapes and dtypes, floats within the
    case's tolerances (low-precision floats compared as float64), the rest exactly."""
    rtol = case.rtol if case.rtol is not None else 1e-3
    atol = case.atol if case.atol is not None else 1e-7
    return all(_equal(g, e, rtol, atol) for g, e in zip(got, outputs, strict=False))


def _equal(g: object, e: object, rtol: float, atol: float) -> bool:
    if e is None:  # an optional that holds nothing
        return g is None
    if isinstance(e, list):  # a sequence (onnx.reference runs sequence ops)
        return isinstance(g, list) and len(g) == len(e) and all(
            _equal(a, b, rtol, atol) for a, b in zip(g, e, strict=True))
    if not isinstance(e, np.ndarray) or not isinstance(g, np.ndarray | np.generic):
        return False
    g = np.asarray(g)
    if e.dtype == object:  # ONNX's strings: compared as text, whatever holds them
        return g.shape == e.shape and g.dtype.kind in "OT" and \
            g.astype(object).tolist() == e.tolist()
    if g.shape != e.shape or g.dtype != e.dtype:
        return False
    if e.dtype.kind in "fcV" and is_inexact(e.dtype):
        if is_low_precision(e.dtype):
            g, e = g.astype(np.float64), e.astype(np.float64)
        return bool(np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(g, e))


def op_types(case: object) -> set:
    return {n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}.{n.op_type}"
            for n in case.model.graph.node}


def helper_model(*args: object, **kwargs: object) -> onnx.ModelProto:  # for other tests
    return helper.make_model(*args, **kwargs)


def measure(stats: Stats) -> Stats:
    """Type (concrete and symbolised) and run every case, counting into ``stats``."""
    per_op: dict[str, bool] = {}
    for case in cases():
        stats.cases += 1
        ops = op_types(case)
        stats.op_types |= ops
        for symbolic in (False, True):
            mode = "symbolic" if symbolic else "concrete"
            verdict, why = type_case(case, symbolic)
            stats.typed[mode, verdict] += 1
            if verdict == "wrong":
                stats.wrong.append((case.name, mode, why))
            if verdict == "unknown":
                stats.unknown.append((case.name, mode))
            if verdict == "refused":
                stats.refused[why.split(":")[0]] += 1
                stats.reasons.append((case.name, mode, why))
            if symbolic:
                for op in ops:
                    per_op[op] = per_op.get(op, True) and verdict == "exact"
                if in_scope(ops):
                    stats.scope["cases"] += 1
                    stats.scope["exact"] += verdict == "exact"
        ran = run_case(case)
        if ran is not None:
            stats.ran += 1
            stats.equal += ran
            stats.scope["equal"] += bool(ran) and in_scope(ops)
            if not ran:
                stats.unequal.append(case.name)
        if reference_case(case):
            stats.reference += 1
            stats.scope["reference"] += in_scope(ops)
            stats.scope["equal of reference"] += bool(ran) and in_scope(ops)
    stats.exact_ops = per_op
    stats.scope_ops = {op: exact for op, exact in per_op.items() if in_scope({op})}
    return stats


def figures(stats: Stats) -> dict[str, int]:
    """The figures the summary prints, as plain numbers (sent by a pytest-xdist worker)."""
    out = {"cases": stats.cases, "op types": len(stats.op_types), "ran": stats.ran,
           "equal": stats.equal, "op types exact": sum(stats.exact_ops.values()),
           "scope cases": stats.scope["cases"], "scope exact": stats.scope["exact"],
           "scope equal": stats.scope["equal"], "scope op types": len(stats.scope_ops),
           "reference": stats.reference, "scope reference": stats.scope["reference"],
           "scope equal of reference": stats.scope["equal of reference"],
           "scope op types exact": sum(stats.scope_ops.values())}
    for (mode, verdict), n in stats.typed.items():
        out[f"{mode} {verdict}"] = n
    return out
