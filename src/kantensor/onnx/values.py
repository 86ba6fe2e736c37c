"""Values known when an ONNX model is read (a constant, or folded from known values and
``Shape``): ints, Dims and None held in NumPy arrays, and as the parameters builders
read; :class:`Folding`, how the reader computes them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import onnx

from ..types.type import TensorType
from .bounds import MAX_VALUE_ENTRIES, oversized

__all__ = ["MAX_FOLD", "Folding", "as_param", "integral", "plain", "settle", "static_size"]

#: The most elements a value computed while reading the model may have, and each of the
#: values it is computed from (larger ones are left to the graph: they are data, not
#: sizes); a value holding sizes (Dims) at most MAX_VALUE_ENTRIES.
MAX_FOLD = 1 << 16


def static_size(t: TensorType) -> int | None:
    if any(not isinstance(d, int) for d in t.shape):
        return None
    return math.prod(t.shape)


def integral(dtype: str) -> bool:
    return dtype == "bool" or np.issubdtype(np.dtype(dtype), np.integer)


def settle(value: np.ndarray) -> np.ndarray:
    """An object array of sizes as int64 when every entry is an int."""
    flat = [plain(v) for v in value.ravel().tolist()]
    if all(isinstance(v, int) for v in flat):
        return np.array(flat, dtype="int64").reshape(value.shape)
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(value.shape)


def plain(v: Any) -> Any:
    if isinstance(v, np.integer | bool):
        return int(v)
    return v


def as_param(value: np.ndarray | None) -> Any:
    """A known value as a parameter: a tuple of its entries (ints, floats, Dims,
    None), or None when unknown."""
    if value is None:
        return None
    flat = value.ravel().tolist()
    return tuple(plain(v) for v in flat)


class Folding:
    """How the importer's reader knows values while it reads a model (a mixin of
    :class:`kantensor.onnx.importer._Reader`: ``known``, ``value`` and ``vars`` are its
    own): a node's outputs computed by its own implementation from known values, the
    sizes of ``Shape`` and ``Size``."""

    def fold(self, entry: Any, node: onnx.NodeProto, apply: Any) -> list | None:
        """The values of the node's outputs when they can be known now."""
        if node.op_type in ("Shape", "Size"):
            return [self.shape_value(node, apply)]
        for v in apply.inputs:  # a size input (Dims of a parameter) is no known value
            if not self.known(v.name) or self.vars.get(v.name) is not v:
                return None
            size = static_size(v.type)
            if size is None or size > MAX_FOLD:  # data (a weight), not sizes: not read
                return None
        for out in apply.outputs:
            size = static_size(out.type)
            if size is None or size > MAX_FOLD:
                return None
        values = [self.value(v.name) for v in apply.inputs]
        symbolic = any(v.dtype == object for v in values)
        if symbolic and any(not integral(o.type.dtype) or static_size(o.type) >
                            MAX_VALUE_ENTRIES for o in apply.outputs):
            return None  # (sizes are short lists; each of a long one costs Python work)
        op = apply.op
        try:
            with np.errstate(all="ignore"):
                result = op.impl(*values, **op._kwargs)
        except Exception:  # a value that cannot be computed now is computed at run time
            return None
        results = result if isinstance(result, tuple | list) and len(apply.outputs) > 1 \
            else (result,)
        out = []
        for r, o in zip(results, apply.outputs, strict=True):
            r = np.asarray(r)
            if r.dtype == object:
                r = settle(r)
                if any(oversized(v) for v in r.ravel().tolist()):
                    return None  # (a size no type may state: the value is not known)
            if r.dtype != object:
                r = r.astype(o.type.dtype)
            if r.shape != tuple(o.type.shape):
                return None
            out.append(r)
        return out

    def shape_value(self, node: onnx.NodeProto, apply: Any) -> np.ndarray | None:
        x = apply.inputs[0].type
        if node.op_type == "Size":
            if any(d is None for d in x.shape):
                return None
            return settle(np.array(math.prod(x.shape, start=1), dtype=object))
        start, end = 0, x.ndim
        for attr in node.attribute:
            if attr.name == "start":
                start = attr.i
            elif attr.name == "end":
                end = attr.i
        entries = list(x.shape)[slice(start, end)]
        return settle(np.array(entries + [0], dtype=object)[:-1])
