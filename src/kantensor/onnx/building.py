"""Building a node: the Op of its entry applied to its inputs, as the ONNX reader builds
it (a mixin of :class:`kantensor.onnx.importer._Reader`): its outputs' types, their
values where known now, and its conditions, portable; an Op's refusal said as the
node's."""

from __future__ import annotations

import onnx

from ..graph.basic import Variable
from ..ops.located import portable
from ..types.dtypes import STRING, category
from ..types.type import TensorType
from .bounds import bounded
from .calls import arguments
from .contradiction import across
from .dtypes import UnsupportedType, type_name
from .loading import OnnxImportError, clipped
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

    def build(self, entry: OnnxOp, node: onnx.NodeProto, wanted: list[str]
              ) -> tuple[tuple, tuple, tuple]:
        """Apply the entry's Op to the node's inputs: the types of its outputs, their
        values when they can be known now (each output variable named as in the model)
        and its conditions, portable (:func:`~kantensor.ops.located.portable`)."""
        op_type, label = node.op_type, node_label(node)
        tensors, params = arguments(self, entry, node, label)
        self.built = node, params
        facts = self.facts or None
        for t in tensors:
            if not isinstance(t.type, TensorType):
                raise UnsupportedOp(f"node {label!r} ({op_type}): input {t.name!r} is "
                                    f"{t.type}; {op_type} takes tensors only")
            t.facts = facts  # what the model's earlier nodes need holds here too
        try:
            if self.graph:  # repeated calls hit the Op's cached call
                result = entry.op(*tensors, **params)
                outs = result if isinstance(result, list) else [result]
            else:  # the node memo remembers calls: none is cached in code
                outs = entry.op.make_node(*tensors, **params).outputs
        except (TypeError, ValueError, IndexError) as exc:
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
            bounded(o.type, lambda k=k: f"node {label!r} ({op_type}): output {k}")
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


def _is_text(v: Variable) -> bool:
    return category(v.type.dtype) is STRING
