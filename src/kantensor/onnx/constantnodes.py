"""Constant nodes as the ONNX reader reads them (a mixin of
:class:`kantensor.onnx.importer._Reader`): a Constant's value and type (its dtype checked
at the model's opset), and when only types are read its Variable made when asked and
what it read kept for other models (:data:`.nodecache.CONSTANTS`, the node's record)."""

from __future__ import annotations

from typing import Any

import onnx

from ..types.variable import constant
from .generator import COMPLEX_CONSTANTS_SINCE, check_constant
from .loading import shown
from .nodecache import CONSTANTS, NodeRecord, constant_key, keep_constant
from .nodememo import value_key
from .protos import constant_value, described
from .protos import label as node_label

__all__ = ["ConstantNodes"]


class ConstantNodes:
    """What the reader does with a Constant node: ``graph`` whether values and Variables
    are made (else types only), ``tensors`` reads tensors' data, ``opset`` the model's;
    ``vars``, ``types``, ``values``, ``value_keys``, ``tokens`` and ``constants`` its
    own."""

    def constant(self, node: onnx.NodeProto, rec: NodeRecord) -> None:
        """A Constant node's value and type; reading types only, its Variable is made
        when asked (the reader's ``var``), and a record shared across models keeps the two."""
        name = rec.wanted[0] if rec.wanted else ""
        found = rec.constant
        if found is None:
            key = None if self.graph else constant_key(rec, node)  # (no external data)
            found = CONSTANTS.get(key) if key is not None else None
            if found is None:
                value = constant_value(node, self.tensors, node_label(node))
                if self.graph:
                    var = self.vars[name] = constant(value, name=name)
                    check_constant(var.type.dtype, self.opset, described(node))
                    self.types[name] = var.type
                    self.values[name] = value
                    return
                t = constant(value).type
                vkey = value_key(value)
                found = t, value, vkey, (t, vkey) if vkey else None
                if key is not None:
                    value.flags.writeable = False  # shared by the nodes holding the value
                    keep_constant(key, found)
            if rec.kept and key is not None:
                rec.constant = found
        self.constant_found(name, found)

    def constant_found(self, name: str, found: tuple[Any, Any, Any, Any]) -> None:
        """Write a Constant's (type, value, value key, node slot token) read before (its
        dtype checked at this model's opset: the value may be another model's)."""
        t, value, vkey, token = found
        if self.opset is not None and self.opset < COMPLEX_CONSTANTS_SINCE:
            check_constant(t.dtype, self.opset, f"node {shown(f'Constant -> {name}')}")
        self.types[name], self.values[name], self.value_keys[name] = t, value, vkey
        if token is not None:
            self.tokens[name] = token
        self.constants.add(name)
