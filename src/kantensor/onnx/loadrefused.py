"""What onnxruntime refuses when it loads a model, whichever of a subgraph's nodes run.

An integer Div or Mod checks its divisor when its kernel is made if the divisor is a
constant (an initializer, or a Constant node's output, of its graph or a graph around
it): a 0 in it fails the session's initialization ('Integer division by zero',
'Integer modulo by zero'), so onnxruntime refuses the model at every size, even where
that node sits in an If's branch that is never taken or a Loop's body that runs no
iteration. A subgraph's conditions hold only where it runs (:mod:`.needs`); this one is
the node's unguarded, a condition that never holds (``0 != 0``). A divisor that only
folds to 0 (``Sub(c, c)``) is checked when it runs, as in the model as written (with
onnxruntime's graph optimisations on, its constant folding makes it a constant too).
So too a pool (MaxPool, AveragePool, LpPool) whose explicit pads are not smaller than
its kernel on an axis: onnxruntime checks its attributes when it makes its kernel ("Pad
should be smaller than kernel"), as the pool's own reading does in a main graph.

onnxruntime also runs ONNX's shape inference on every subgraph when it loads a model
("Graph attribute inferencing failed"), with the ranks and the sizes it knows of the
values the subgraph reads and the values of the constants it sees (its own, and the
graphs' around it): a node whose attributes or constants that inference refuses (a
Squeeze of axis 5 of a vector, a Transpose's repeated axis, ConstantOfShape of ``[-1]``,
Reshape to ``[-1, -1]``) makes it refuse the model whichever branch runs, however many
iterations. :func:`inference_refuses` asks ONNX's own inference the same question of a
subgraph kantensor refuses, so that the subgraph refuses the model as a main graph's
node would; the failures it lets through (a Split of ``-2`` rows, a TopK of ``-1``)
onnxruntime finds only where the node runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import onnx
from onnx import numpy_helper

from ..types.conditions import Condition, Source
from ..types.containers import SequenceType
from ..types.type import TensorType
from .dtypes import ELEM_TYPES

__all__ = ["inference_refuses", "refused_at_load"]

_DETAIL = ("an integer divisor that is a constant holding 0: onnxruntime refuses the "
           "model when it loads it, whichever branch or iteration runs")


def refused_at_load(scope: Any, graphs: Iterable[onnx.GraphProto], label: str
                    ) -> tuple[Condition, ...]:
    """``0 != 0`` for each integer Div or Mod of ``graphs`` (the subgraphs of the node
    ``label``, read by ``scope``; their own subgraphs too) whose divisor is a constant
    holding a 0, and each pool padded past its kernel; else nothing."""
    out = []
    for graph, known in _walk(graphs, {}):
        for node in graph.node:
            if _padded_past(node):
                where = node.name or f"{node.op_type} -> {node.output[0]}"
                out.append(Condition(0, "!=", 0, Source(
                    op=node.op_type, node=f"{where} in {label}", detail=_POOL)))
            if node.op_type not in ("Div", "Mod") or node.domain not in ("", "ai.onnx") \
                    or len(node.input) < 2:
                continue
            found = known.get(node.input[1])
            divisor = _outer(scope, node.input[1]) if found is None else \
                numpy_helper.to_array(found) if isinstance(found, onnx.TensorProto) else \
                _constant(found)
            if divisor is not None and divisor.dtype.kind in "iu" and not divisor.all():
                where = node.name or f"{node.op_type} -> {node.output[0]}"
                out.append(Condition(0, "!=", 0, Source(
                    op=node.op_type, node=f"{where} in {label}", detail=_DETAIL)))
    return tuple(out)


_POOL = ("a pool's pads not smaller than its kernel: onnxruntime refuses the model when "
         "it loads it, whichever branch or iteration runs")


def _padded_past(node: onnx.NodeProto) -> bool:
    """Whether ``node`` is an ONNX pool with explicit pads not smaller than its kernel
    on some axis (onnxruntime's PoolAttributes refuse it)."""
    if node.op_type not in ("MaxPool", "AveragePool", "LpPool") or \
            node.domain not in ("", "ai.onnx"):
        return False
    attrs = {a.name: a for a in node.attribute}
    auto = attrs["auto_pad"].s.decode() if "auto_pad" in attrs else "NOTSET"
    kernel = list(attrs["kernel_shape"].ints) if "kernel_shape" in attrs else []
    pads = list(attrs["pads"].ints) if "pads" in attrs else []
    k = len(kernel)
    return auto == "NOTSET" and len(pads) == 2 * k and any(
        max(pads[i], pads[i + k]) >= kernel[i] for i in range(k))


def _walk(graphs: Iterable[onnx.GraphProto], known: dict[str, Any]
          ) -> Iterable[tuple[onnx.GraphProto, dict[str, Any]]]:
    """Each graph and the nested ones, with the constants each sees of its own and of
    the subgraphs around it (an initializer, or a Constant node; read only where one
    divides: the outer scope's are looked up apart)."""
    for graph in graphs:
        here = dict(known)
        here.update((t.name, t) for t in graph.initializer)
        here.update((node.output[0], node) for node in graph.node
                    if node.op_type == "Constant" and node.domain in ("", "ai.onnx")
                    and node.output)
        yield graph, here
        for node in graph.node:
            for a in node.attribute:
                inner = [a.g] if a.type == onnx.AttributeProto.GRAPH else \
                    list(a.graphs) if a.type == onnx.AttributeProto.GRAPHS else []
                yield from _walk(inner, here)


def _constant(node: onnx.NodeProto) -> np.ndarray | None:
    """A Constant node's integer value (None: another kind)."""
    for a in node.attribute:
        if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
            return numpy_helper.to_array(a.t)
        if a.name == "value_int":
            return np.asarray(a.i, np.int64)
        if a.name == "value_ints":
            return np.asarray(list(a.ints), np.int64)
    return None


def _outer(scope: Any, name: str) -> np.ndarray | None:
    """The value of ``name`` where a graph around the subgraphs (``scope``, its parents)
    holds it as an initializer or a Constant node's output, else None."""
    reader = scope
    while reader is not None:
        if name in reader.constants or any(t.name == name for t in reader.proto.initializer):
            value = reader.value(name)
            return value if isinstance(value, np.ndarray) and value.dtype != object else None
        reader = reader.parent
    return None


def inference_refuses(scope: Any, graph: onnx.GraphProto, formal: list = ()) -> str | None:
    """What ONNX's strict shape inference says where it refuses ``graph`` (a subgraph of
    a node read by ``scope``, its inputs of the types ``formal``) as onnxruntime sees it
    at load: the outer values it reads are inputs of the types ONNX's inference gives
    them in the model (what onnxruntime knows: not kantensor's sizes, ``0 * a`` is not
    known there), or initializers where they are constants (IR 4 at least: an
    initializer need not be an input); None where it accepts it, or where the model is
    one it cannot read (then nothing is said of it)."""
    defined, used = _names(graph)
    known = _inferred(scope)
    inputs, constants = [], []
    for name in dict.fromkeys(n for n in used if n and n not in defined):
        value = _outer(scope, name)
        if value is not None:
            constants.append(numpy_helper.from_array(value, name))
            continue
        info = known.get(name) or _info(name, scope.find(name))
        if info is None:
            return None
        inputs.append(info)
    own = []
    for k, declared in enumerate(graph.input):
        info = _info(declared.name, formal[k]) if k < len(formal) and \
            not declared.type.HasField("tensor_type") else None
        own.append(declared if info is None else info)
    sub = onnx.helper.make_graph(list(graph.node), graph.name or "subgraph",
                                 [*own, *inputs], list(graph.output),
                                 [*graph.initializer, *constants])
    model = onnx.helper.make_model(sub, opset_imports=list(scope.model.opset_import),
                                   ir_version=max(4, scope.model.ir_version),
                                   functions=list(scope.model.functions))
    try:
        onnx.shape_inference.infer_shapes(model, strict_mode=True)
    except onnx.shape_inference.InferenceError as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    except Exception:  # noqa: BLE001 - what it cannot read (a malformed model) says
        return None  # nothing of the inference onnxruntime runs
    return None


def _inferred(scope: Any) -> dict[str, onnx.ValueInfoProto]:
    """The types ONNX's (lenient) shape inference gives the model's values, its
    subgraphs' too, by name; read once per model (kept on the main graph's reader)."""
    root = scope
    while root.parent is not None:
        root = root.parent
    found = getattr(root, "_load_inferred", None)
    if found is None:
        found = {}
        try:
            model = onnx.shape_inference.infer_shapes(root.model)
        except Exception:  # noqa: BLE001 - a model it cannot read: its inputs' types
            model = root.model
        for g, _ in _walk([model.graph], {}):
            found.update((v.name, v) for v in (*g.input, *g.value_info, *g.output)
                         if v.type.WhichOneof("value") is not None)
        root._load_inferred = found
    return found


def _info(name: str, t: Any) -> onnx.ValueInfoProto | None:
    """``t``'s dtype and rank written as an ONNX value info of ``name`` (its sizes
    unknown: ONNX's inference may not know them), None where kantensor's type has no
    such form (an unknown dtype, an optional)."""
    if not isinstance(t, TensorType | SequenceType) or t.dtype not in ELEM_TYPES:
        return None
    shape = None if t.shape is None else [None] * len(t.shape)
    if isinstance(t, SequenceType):
        return onnx.helper.make_tensor_sequence_value_info(name, ELEM_TYPES[t.dtype], shape)
    return onnx.helper.make_tensor_value_info(name, ELEM_TYPES[t.dtype], shape)


def _names(graph: onnx.GraphProto) -> tuple[set[str], list[str]]:
    """The names ``graph`` and its nested subgraphs assign, and those their nodes read."""
    defined: set[str] = set()
    used: list[str] = []
    for g, _ in _walk([graph], {}):
        defined |= {i.name for i in g.input} | {t.name for t in g.initializer}
        for node in g.node:
            defined.update(node.output)
            used.extend(node.input)
        used.extend(o.name for o in g.output)
    return defined, used
