"""Building a node: the Op of its entry applied to its inputs, as the ONNX reader builds
it (a mixin of :class:`kantensor.onnx.importer._Reader`): its outputs' types, their
values where known now, and its conditions, portable; an Op's refusal said as the
node's."""

from __future__ import annotations

from functools import cache
from operator import is_

import onnx

from ..graph.basic import Apply, Variable
from ..ops.family import OpFamily
from ..ops.located import portable
from ..ops.op import SignatureOp
from ..types.dtypes import STRING, category
from ..types.type import TensorType
from .bounds import bounded
from .calls import arguments
from .contradiction import across
from .dtypes import UnsupportedType, type_name
from .loading import OnnxImportError, clipped
from .nodecache import NodeRecord
from .onnxop import OnnxOp
from .protos import label as node_label
from .registry import UnsupportedOp
from .values import fold

__all__ = ["Building"]


class Building:
    """What the reader does to build a node: ``graph`` whether values and Variables are
    made (else types only), ``facts`` what the earlier nodes need; ``vars`` its own;
    ``built``, the last node built and its parameters (as :func:`.calls.arguments` read
    them: what keeps its template, :func:`.generic.keep_template`, reads of it again)."""

    built: tuple[onnx.NodeProto, dict] | None = None

    def build(self, entry: OnnxOp, node: onnx.NodeProto, wanted: list[str],
              rec: NodeRecord | None = None) -> tuple[tuple, tuple, tuple]:
        """Apply the entry's Op to the node's inputs: the types of its outputs, their
        values when they can be known now (each output variable named as in the model)
        and its conditions, portable (:func:`~kantensor.ops.located.portable`). Reading
        types only, the call its record ``rec`` keeps (its inputs' positions, parameters
        and bound Op: :func:`_kept_call`) is taken as it is, not read and bound again."""
        call = None if rec is None or self.graph else rec.call
        if call is not None and call[0] is entry:
            names, var = rec.names, self.var
            tensors, params, bound = [var(names[k], node) for k in call[1]], call[2], call[3]
            keeping = False
        else:
            tensors, params, given = arguments(self, entry, node, node_label(node))
            bound = None
            keeping = given is not None and rec is not None and rec.kept and not self.graph
        self.built = node, params
        facts = self.facts or None
        for t in tensors:
            if not isinstance(t.type, TensorType):
                op_type = node.op_type
                raise UnsupportedOp(f"node {node_label(node)!r} ({op_type}): input "
                                    f"{t.name!r} is {t.type}; {op_type} takes tensors only")
            t.facts = facts  # what the model's earlier nodes need holds here too
        try:
            if self.graph:  # repeated calls hit the Op's cached call
                result = entry.op(*tensors, **params)
                outs = result if isinstance(result, list) else [result]
            elif bound is not None:  # (the call its record keeps)
                outs = bound.make_node(*tensors).outputs
            elif keeping:  # the node memo remembers calls: none is cached in code
                outs = _kept_call(entry, rec, tensors, params, given).outputs
            else:
                outs = entry.op.make_node(*tensors, **params).outputs
        except (TypeError, ValueError, IndexError) as exc:
            op_type, label = node.op_type, node_label(node)  # (read for messages only)
            if facts and (refused := across(exc, lambda: entry.op.make_node(
                    *tensors, **params), tensors, facts, label, op_type)):
                raise refused from exc  # (the earlier nodes' conditions refute its own)
            message = clipped(f"node {label!r} ({op_type}): {exc}")
            if not entry.takes_strings and any(_is_text(t) for t in tensors):
                raise UnsupportedType(clipped(
                    f"node {label!r} ({op_type}): element type "
                    f"{type_name(onnx.TensorProto.STRING)} is not supported by {op_type}: "
                    f"{exc}")) from exc
            try:
                error = type(exc)(message)
            except TypeError:  # an error class with more arguments
                error = OnnxImportError(message)
            raise error from exc
        for k, o in enumerate(outs):  # so no chain of nodes makes a rank, or a size's
            # nesting, grow (the message made only if it does)
            bounded(o.type, lambda k=k: f"node {node_label(node)!r} ({node.op_type}): "
                    f"output {k}")
        apply = outs[0].owner
        if apply is not None and node.name:  # refine's messages name the node
            apply.tag["name"] = node.name
        folded, needs = fold(self, entry.reads_shapes, apply) if apply is not None else \
            (None, ())
        for name, var in zip(wanted, outs, strict=False):
            if name:
                var.name = name
                self.vars[name] = var
        conditions = ()
        if apply is not None and apply.conditions:
            positions = {}
            for k, name in enumerate(node.input):
                if name and id(self.vars.get(name)) not in positions:
                    positions[id(self.vars.get(name))] = k
            conditions = portable(apply.conditions, positions)
        return tuple(o.type for o in outs), \
            tuple(folded) if folded is not None else (None,) * len(outs), (*conditions, *needs)


def _kept_call(entry: OnnxOp, rec: NodeRecord, tensors: list[Variable], params: dict,
               given: tuple[int, ...]) -> Apply:
    """The node of the entry's call (``entry.op.make_node(*tensors, **params)``, the
    tensors the inputs at positions ``given``), the call kept on ``rec`` where its Op
    binds the tensors as given whatever their types (the positions, the parameters and
    the Op: what the next build of the record takes, :meth:`Building.build`)."""
    op, how = entry.op, _binding(entry)
    if how is None or how is _PLAIN and params:
        return op.make_node(*tensors, **params)
    if how is _FAMILY:
        bound, op = op.bound(tensors, params)
        if len(bound) != len(tensors) or not all(map(is_, bound, tensors)):
            return op.make_node(*bound)  # pragma: no cover - (a family's call of
            # tensors and keywords binds them as given: a guard)
    rec.call = entry, given, params, op
    return op.make_node(*tensors)


_FAMILY, _PLAIN = "family", "plain"


@cache
def _binding(entry: OnnxOp) -> str | None:
    """How ``entry``'s Op binds a call whose parameters are keywords: as an Op family
    whose parameters are the keywords' alone (``_FAMILY``: not of sizes or shapes, which
    read the tensors), as an Op of no parameters (``_PLAIN``), or otherwise (None: its
    calls are not kept)."""
    op = entry.op
    if isinstance(op, OpFamily):
        return None if op.spec.reads_tensors else _FAMILY
    return _PLAIN if isinstance(op, SignatureOp) else None


def _is_text(v: Variable) -> bool:
    return category(v.type.dtype) is STRING
