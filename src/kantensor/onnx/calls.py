"""A node as the call of its entry's Op: which of its ONNX inputs are the Op's tensors,
which of their known values, intervals and static lengths the call takes as parameters
(``<input>_value``, ``<input>_bounds``, ``<input>_length``, ``given``, ``outputs``,
``unasked``; see
:mod:`.registry`), and its attributes as the call's keyword parameters. What an entry's
call takes is worked out once per entry (:func:`call_plan`); :func:`arguments` runs once
per node built."""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

import onnx

from ..graph.basic import Variable
from ..ops.paramvalues import GraphParam
from .bounds import MAX_INDEX_ENTRIES, few_entries, value_entries
from .intervals import columns_of, interval_of
from .loading import OnnxImportError, shown
from .onnxop import OnnxOp
from .protos import attribute_value
from .registry import UnsupportedOp
from .values import as_param

__all__ = ["CallPlan", "arguments", "call_plan"]

_GRAPH = onnx.AttributeProto.GRAPH
#: The attribute types whose value is the attribute's bytes' alone (see :func:`arguments`)
_PLAIN = frozenset(getattr(onnx.AttributeProto, name) for name in (
    "INT", "INTS", "FLOAT", "FLOATS", "STRING", "STRINGS"))

#: The attribute type of ONNX's schemas that each parameter kind reads (an attribute of
#: another type is refused, as onnxruntime refuses it: "Mismatched attribute type"; a
#: RandomNormal's seed of INT was taken). Every catalogue entry's parameter named as an
#: attribute of its schema has its kind's type here (tests/test_onnx_attribute_types.py).
ATTRIBUTE_TYPES: dict[str, int] = {
    kind: getattr(onnx.AttributeProto, name) for kinds, name in (
        (("int", "maybe_int"), "INT"), (("ints", "axes"), "INTS"),
        (("number", "maybe_number"), "FLOAT"), (("numbers",), "FLOATS"),
        (("str", "choice"), "STRING"), (("strings",), "STRINGS"), (("graph",), "GRAPH"),
        (("array", "dtyped_number"), "TENSOR")) for kind in kinds}


class CallPlan(NamedTuple):
    """What an entry's call takes of a node."""

    #: per ONNX input up to a variadic one (which ends them): its position, whether it
    #: is variadic, its name, and the names of its value and interval parameters (None
    #: when the call takes none; ``<input>_columns``: its columns' intervals)
    inputs: tuple[tuple[int, bool, str, str | None, str | None], ...]
    given: bool  # the call takes the positions of the inputs given (``given``)
    outputs: bool  # and the number of outputs asked (``outputs``)
    #: the positions of the node's outputs that are empty names (``unasked``): an empty
    #: slot is not an output asked for, though ``outputs`` counts it
    unasked: bool
    #: attribute names the call does not take although they name a parameter: the value
    #: parameters (set from inputs, never by an attribute)
    refused: frozenset[str]
    #: input position -> its ``<input>_length`` parameter, where the call takes one: the
    #: static length of a 1-d input whose value is not known (one axis of unknown value
    #: is not several)
    lengths: dict[int, str]
    #: parameter name -> the attribute type it reads (:data:`ATTRIBUTE_TYPES`)
    attribute_types: dict[str, int]
    #: the value parameters of kind ``index_values`` (constant indices, read only for
    #: the conditions their values make, not per entry: of any number of entries)
    any_length: frozenset[str] = frozenset()
    #: the interval parameters that take each column's interval (``<input>_columns``)
    columns: frozenset[str] = frozenset()


def _type_name(code: int) -> str:
    """ONNX's name of an attribute type (its number if ONNX has none)."""
    try:
        return onnx.AttributeProto.AttributeType.Name(code)
    except ValueError:
        return str(code)


@cache
def call_plan(entry: OnnxOp) -> CallPlan:
    """The plan of ``entry``'s call (entries live as long as the process: one each)."""
    params = {p.name for p in entry.entry.spec.params}
    inputs = []
    for k, spec in enumerate(entry.inputs):
        name = spec.strip("*?")
        value, bounds, columns = f"{name}_value", f"{name}_bounds", f"{name}_columns"
        inputs.append((k, spec.startswith("*"), name, value if value in params else None,
                       bounds if bounds in params else columns if columns in params
                       else None))
    lengths = {k: f"{name}_length" for k, _, name, value, _ in inputs
               if value is not None and f"{name}_length" in params}
    types = {p.name: ATTRIBUTE_TYPES[p.kind] for p in entry.entry.spec.params
             if p.kind in ATTRIBUTE_TYPES}
    return CallPlan(tuple(inputs), "given" in params, "outputs" in params, "unasked" in params,
                    frozenset(f"{s.strip('*?')}_{kind}" for s in entry.inputs
                              for kind in ("value", "length")), lengths, types,
                    frozenset(p.name for p in entry.entry.spec.params
                              if p.kind == "index_values"),
                    frozenset(b for *_, b in inputs if b is not None and b.endswith("_columns")))


def arguments(reader: Any, entry: OnnxOp, node: onnx.NodeProto, label: str
              ) -> tuple[list[Variable], dict[str, Any], tuple[int, ...] | None]:
    """The tensors (``reader``'s Variables) and parameters of the entry's call for
    ``node`` (named ``label`` in messages); and the positions of the inputs given, the
    tensors', where the parameters are read from the node's proto alone (none of an
    input's value, interval or length; attributes of plain types: a tensor's may be
    external data, a graph's is read at the model's opsets), so every read of the same
    node bytes by the same entry reads the same parameters; else None."""
    plan = call_plan(entry)
    names = node.input[:]
    params: dict[str, Any] = {}
    tensors: list[Variable] = []
    given: list[int] = []
    own = True  # the parameters are the proto's own
    for k, variadic, name, value, bounds in plan.inputs:
        if variadic:
            rest = [n for n in names[k:] if n]
            tensors.extend(reader.var(n, node) for n in rest)
            given.extend(range(k, k + len(rest)))
            break
        source = names[k] if k < len(names) else ""
        if not source:  # (an optional one: arity checked the others are given)
            continue
        given.append(k)
        var = reader.var(source, node)
        tensors.append(var)
        if value is not None or bounds is not None:
            own = False
        if value is not None:
            if value in plan.any_length and not few_entries(var.type, MAX_INDEX_ENTRIES):
                params[value] = None  # (taken as data: read per entry, so bounded)
            else:
                if value not in plan.any_length:
                    value_entries(var.type, k, name, f"node {label!r} ({node.op_type})")
                params[value] = as_param(reader.value(source),
                                         getattr(var.type, "dtype", ""))
                if reader.graph:  # sizes the data decides: read when the graph runs
                    params[value] = reader.counts.at_run_time(reader, params[value])
            if params[value] is None and k in plan.lengths:
                shape = getattr(var.type, "shape", ())
                if len(shape) == 1 and type(shape[0]) is int:
                    params[plan.lengths[k]] = shape[0]
        if bounds is not None:
            params[bounds] = columns_of(reader, source) if bounds in plan.columns \
                else interval_of(reader, source)
    if plan.given:
        params["given"] = tuple(given)
    if plan.outputs:
        params["outputs"] = len(node.output)
    if plan.unasked:
        params["unasked"] = tuple(k for k, name in enumerate(node.output) if not name)
    attributes, types = entry.attributes, plan.attribute_types
    for attr in node.attribute:
        key = attr.name
        if key not in attributes or key in plan.refused:
            raise UnsupportedOp(f"node {label!r} ({node.op_type}): attribute {shown(key)} "
                                f"is not supported; supported: "
                                f"{', '.join(sorted(attributes)) or 'none'}")
        if key in params:
            raise OnnxImportError(f"node {label!r} ({node.op_type}): attribute "
                                  f"{shown(key)} is given twice")
        kind = attr.type  # (read once: a protobuf field read is a call)
        if kind not in _PLAIN:
            own = False
        if kind != types.get(key, kind) and kind:  # (UNDEFINED: an old model's, read by
            # its fields)
            raise OnnxImportError(
                f"node {label!r} ({node.op_type}): attribute {shown(key)} is of type "
                f"{_type_name(kind)}; its schema's is {_type_name(types[key])}")
        params[key] = GraphParam(attr.g.SerializeToString(), tuple(sorted(
            reader.opsets.items()))) if kind == _GRAPH else \
            attribute_value(attr, reader.tensors)
    return tensors, params, tuple(given) if own else None

